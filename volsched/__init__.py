"""volsched: exact off-line optima and on-line heuristics for volatile resources."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("volsched")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"
