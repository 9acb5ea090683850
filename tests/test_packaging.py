"""Every package folder is listed in pyproject.toml, so that a non-editable ``pip install .`` ships it."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for name, folder in config["package-dir"].items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            parts = init.parent.relative_to(base).parts
            if "__pycache__" not in parts:
                found.add(".".join((name, *parts)))
    assert found - listed == set(), "missing from [tool.setuptools] packages"
    assert listed - found == set(), "listed but no such package"
