"""Instance files: the JSON envelope shared by every family (DESIGN.md, Contracts).

``{"format": "volsched-instance", "version": 2, "family": ..., "name": ...,
"params": {...}, "data": {...}}``. Family modules turn ``data`` into a model;
this module only checks and writes the envelope. Version 2 adds optional data
fields (the coupled chains' ``transitions``); version-1 files are still read.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import InputError, require

FORMAT = "volsched-instance"
VERSION = 2
READABLE_VERSIONS = (1, 2)


def envelope(family: str, name: str, params: dict, data: dict) -> dict:
    """Wrap a family's ``data`` in the versioned instance envelope."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "family": family,
        "name": name,
        "params": params,
        "data": data,
    }


def check_envelope(obj: Any) -> dict:
    """Validate the envelope of a parsed instance object and return it."""
    require(isinstance(obj, dict), "instance", "must be a JSON object")
    require(obj.get("format") == FORMAT, "format", f"must be {FORMAT!r}, got {obj.get('format')!r}")
    version = obj.get("version")
    require(version in READABLE_VERSIONS and not isinstance(version, bool), "version",
            f"must be one of {list(READABLE_VERSIONS)}, got {version!r}")
    require(isinstance(obj.get("family"), str), "family", "must be a string")
    require(isinstance(obj.get("name", ""), str), "name", "must be a string")
    require(isinstance(obj.get("params", {}), dict), "params", "must be an object")
    require(isinstance(obj.get("data"), dict), "data", "must be an object")
    return obj


def unwrap(obj: Any, family: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    """Check the envelope of a ``family`` instance and that ``data`` has ``keys`` and no others.

    ``optional`` fields are version-2 additions: a version-1 file may not carry them.
    """
    obj = check_envelope(obj)
    require(obj["family"] == family, "family", f"must be {family!r}, got {obj['family']!r}")
    data = obj["data"]
    for key in keys:
        require(key in data, f"data.{key}", "missing")
    allowed = set(keys) | (set(optional) if obj["version"] >= 2 else set())
    for key in sorted(set(data) - allowed):
        raise InputError(f"data.{key}: unknown field" + (" in a version-1 file" if key in optional else ""))
    return data


#: Largest file volsched reads; a device like /dev/zero never ends (issue 14).
MAX_READ_BYTES = 512 * 2**20


def read_text(path: str | os.PathLike) -> str:
    """A UTF-8 text file's contents; a missing, unreadable or oversized file is :class:`InputError`."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_READ_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    require(len(data) <= MAX_READ_BYTES, str(path), f"larger than {MAX_READ_BYTES // 2**20} MiB; not read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None


def read_json(path: str | os.PathLike) -> Any:
    """Read a JSON file, turning I/O and syntax problems into :class:`InputError`."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to be a volsched file") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as JSON atomically (a reader never sees a half-written file), with the user's umask.

    A path that cannot be written is :class:`InputError`, and nothing is left behind.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; an output file is like any other tool's
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, indent=1)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
