"""Instance models, file I/O and generators (``volsched.instances``)."""

from .errors import InputError
from .io import read_json, write_json

__all__ = ["InputError", "read_json", "write_json"]
