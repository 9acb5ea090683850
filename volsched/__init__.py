"""volsched: exact off-line optima and on-line heuristics for volatile resources."""

import os
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

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
