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


def read_text(path: str | os.PathLike) -> str:
    """A UTF-8 text file's contents; a missing or unreadable file is :class:`InputError`."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None


def read_json(path: str | os.PathLike) -> Any:
    """Read a JSON file, turning I/O and syntax problems into :class:`InputError`."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno})") from None


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as JSON atomically: a reader never sees a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, indent=1)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
