"""volsched: exact off-line optima and on-line heuristics for volatile resources.

The verbs of the ``volsched`` command are functions here (:mod:`volsched.api`):
:func:`generate`, :func:`read`, :func:`solve`, :func:`simulate`, :func:`evaluate`,
:func:`verify`, :func:`sweep`, :func:`report`, and :func:`read_runs` (a store's
runs as a pandas DataFrame); each returns a result object of
:mod:`volsched.results`. They load on first use: ``import volsched`` imports no
family, solver or numba kernel.

Examples
--------
>>> import volsched
>>> inst = volsched.generate("checkpoint", slices=4, seed=1)
>>> volsched.solve(inst).status.value
'optimal'
"""

import importlib
import os
import sys
import tempfile
import types
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

try:
    __version__ = version("volsched")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"


def _numba_cache_dir() -> None:
    """Point numba's cache at a user directory when the package's own folders are read-only.

    numba caches compiled kernels beside their source; a site-packages install or a shared
    cluster image may not be writable, and numba's own fallback is not tried for every layout.
    ``NUMBA_CACHE_DIR`` set by the user wins.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    from importlib.util import find_spec

    folders = []
    for layer in ("volsched.instances", "volsched.solvers", "volsched.heuristics"):
        spec = find_spec(layer)
        if spec is not None and spec.submodule_search_locations:
            folders += list(spec.submodule_search_locations)
    if all(os.access(folder, os.W_OK) for folder in folders):
        return
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    target = Path(base) / "volsched" / "numba"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        target = Path(tempfile.gettempdir()) / f"volsched-numba-{os.getuid() if hasattr(os, 'getuid') else 0}"
        target.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(target)


_numba_cache_dir()


#: The public names and the module each comes from, imported on first access.
_PUBLIC = {
    **dict.fromkeys(
        ("generate", "read", "solve", "simulate", "evaluate", "verify", "sweep", "report", "read_runs"),
        "volsched.api",
    ),
    **dict.fromkeys(
        (
            "Evaluation",
            "Instance",
            "InstanceSet",
            "PolicyScore",
            "Report",
            "Simulation",
            "Solution",
            "SweepSummary",
            "Verification",
        ),
        "volsched.results",
    ),
    "InputError": "volsched.instances.errors",
}
__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'volsched' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


#: Verbs named like a submodule (``volsched/evaluate.py``, ``volsched/verify.py``): importing a
#: submodule binds its name on the package, which would hide the verb. The package keeps the verb;
#: the submodules stay importable by their full names (``from volsched.evaluate import evaluate``).
_SHADOWED = ("evaluate", "verify")


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
