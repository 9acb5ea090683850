"""The import layers of DESIGN.md, as import-linter contracts in pyproject.toml.

``.ci/lint-imports`` runs import-linter where it sees ``volsched.instances``, ``volsched.solvers``
and ``volsched.heuristics`` (mapped from top-level folders) as volsched's sub-packages. Oracles:
import-linter's verdict on the real contracts, a contract known to be broken (``solvers`` imports
``instances``, so ``instances`` cannot sit above it), and the module files on disk for what the
contracts must cover.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = ROOT / ".ci" / "lint-imports"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = CONFIG["contracts"]
FOLDERS = {"instances": ROOT / "instances", "solvers": ROOT / "solvers", "heuristics": ROOT / "heuristics"}
#: What a compiled kernel may import besides other kernels and the standard library (``time`` for
#: the compiled clock, ``typing`` for named tuples of arrays): numpy and numba, its backend included.
KERNEL_IMPORTS = {"numpy", "numba", "llvmlite", *sys.stdlib_module_names}

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("importlinter") is None, reason="import-linter is not installed (test extra)"
)


def lint(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(LINT), "--no-logo", *args], capture_output=True, text=True, timeout=600
    )


def kernels() -> list[str]:
    """Every ``_*_kernel.py`` module of the three mapped folders, as an import name."""
    names = []
    for layer, folder in FOLDERS.items():
        for path in sorted(folder.rglob("_*_kernel.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            names.append(".".join(("volsched", layer, *parts)))
    return names


def family_packages() -> list[str]:
    return [
        f"volsched.{layer}.{path.parent.name}"
        for layer in ("solvers", "heuristics")
        for path in sorted(FOLDERS[layer].glob("*/__init__.py"))
    ]


def test_the_contracts_hold():
    run = lint()
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in run.stdout


def test_a_broken_contract_is_reported(tmp_path):
    """The same run on a contract that the code breaks: ``instances`` above ``solvers``."""
    config = tmp_path / "broken.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["volsched"]\n\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "instances above solvers"\ntype = "layers"\ncontainers = ["volsched"]\n'
        'layers = ["instances", "solvers"]\n'
    )
    run = lint(str(config))
    assert run.returncode != 0
    assert "instances above solvers BROKEN" in run.stdout
    assert "volsched.solvers" in run.stdout and "volsched.instances" in run.stdout


def test_the_contracts_cover_the_layers():
    assert CONTRACTS and not any("ignore_imports" in c for c in CONTRACTS)
    by_container = {c["containers"][0]: c for c in CONTRACTS if c["type"] == "layers"}
    top = by_container["volsched"]
    assert top["exhaustive"] and top["layers"][-2:] == ["heuristics | solvers", "instances"]
    acyclic = [c for c in CONTRACTS if c["type"] == "acyclic_siblings"]
    assert acyclic and acyclic[0]["ancestors"] == ["volsched"]
    for package in family_packages():
        assert package in by_container, f"{package} has no layers contract"
        assert by_container[package]["exhaustive"]
    for name in kernels():
        package, module = name.rsplit(".", 1)
        if package in by_container:  # the kernels sit in the package's lowest layer
            bottom = by_container[package]["layers"][-1].replace(":", "|").split("|")
            assert module in {m.strip() for m in bottom}, f"{name} is not in {package}'s lowest layer"


def test_kernels_import_only_numpy_numba_and_kernels(tmp_path):
    """Every kernel module, read by grimp: numpy, numba, llvmlite and other kernels only."""
    grimp = pytest.importorskip("grimp")
    loader = importlib.machinery.SourceFileLoader("lint_imports", str(LINT))
    spec = importlib.util.spec_from_loader("lint_imports", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    module.link_tree(tmp_path)
    sys.path.insert(0, str(tmp_path))
    saved = {k: v for k, v in sys.modules.items() if k == "volsched" or k.startswith("volsched.")}
    try:
        for k in saved:
            del sys.modules[k]
        graph = grimp.build_graph("volsched", include_external_packages=True, cache_dir=None)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.update(saved)
    names = kernels()
    assert "volsched.solvers.coupled._bnb_kernel" in names
    for name in names:
        imported = graph.find_modules_directly_imported_by(name)
        wrong = {m for m in imported if m not in names and m.split(".")[0] not in KERNEL_IMPORTS}
        assert not wrong, f"{name} imports {sorted(wrong)}"
