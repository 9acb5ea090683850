"""What the before/after benchmarks share: a solvers package as it was at a git revision.

Used by ``bench_slack_beta_bounds.py`` and ``bench_coupled_holders.py``, which measure the current
solvers against an earlier revision's in the same run.
"""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_at(rev: str, folder: str, name: str):
    """The package in ``folder`` (e.g. ``solvers/slack``) at git revision ``rev``, extracted with
    ``git archive`` and imported as ``name`` beside the current one."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, folder], check=True, capture_output=True
    ).stdout
    where = Path(tempfile.mkdtemp(prefix="before_"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(where, filter="data")
    spec = importlib.util.spec_from_file_location(
        name, where / folder / "__init__.py", submodule_search_locations=[str(where / folder)]
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    return package
