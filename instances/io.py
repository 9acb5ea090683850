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
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

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
    """Validate the envelope of a parsed instance object and return it.

    A volsched file of another kind (a solve or simulate result, an evaluate report) is named,
    with the command that reads it (:func:`json_kind`).
    """
    kind = json_kind(obj)
    if kind is not None and obj.get("format") != FORMAT:
        raise InputError(f"{kind.what}, not an instance; {kind.reader}")
    require(isinstance(obj, dict), "instance", "must be a JSON object")
    require(obj.get("format") == FORMAT, "format", f"must be {FORMAT!r}, got {obj.get('format')!r}")
    version = obj.get("version")
    require(
        version in READABLE_VERSIONS and not isinstance(version, bool),
        "version",
        f"must be one of {list(READABLE_VERSIONS)}, got {version!r}",
    )
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


#: Largest file volsched reads; a device like /dev/zero never ends.
MAX_READ_BYTES = 512 * 2**20


class FileKind(NamedTuple):
    """What a file given by mistake is, and which command reads it (``FILE`` stands for its path)."""

    what: str
    reader: str

    def error(self, path: str | os.PathLike, expected: str) -> InputError:
        """``"<path>: <what>, not <expected>; <reader>"``."""
        return InputError(f"{path}: {self.what}, not {expected}; {self.reader.replace('FILE', str(path))}")


_STORE = "`volsched report FILE` reads a results store"
_NO_READER = "no volsched command reads it"
#: Leading bytes of the binary files a user may give volsched by mistake.
MAGIC = (
    (b"SQLite format 3\x00", FileKind("an SQLite database (a volsched results store)", _STORE)),
    (b"\x89PNG\r\n\x1a\n", FileKind("a PNG image", _NO_READER)),
    (b"\xff\xd8\xff", FileKind("a JPEG image", _NO_READER)),
    (b"%PDF-", FileKind("a PDF document", _NO_READER)),
    (b"\x1f\x8b", FileKind("a gzip archive", "decompress it first")),
    (b"PK\x03\x04", FileKind("a zip archive", "extract it first")),
)
#: The keys of a sweep configuration's table (:mod:`volsched.experiments.config`).
SWEEP_KEYS = {"sweep", "family", "seeds", "grid", "exact", "heuristics", "instances"}
_VERIFY = "`volsched verify INSTANCE FILE` checks it"


def binary_kind(data: bytes) -> FileKind | None:
    """The kind of a binary file by its leading bytes (an SQLite store, an image...), or ``None``."""
    return next((kind for magic, kind in MAGIC if data.startswith(magic)), None)


def json_kind(obj: Any) -> FileKind | None:
    """The kind of a parsed volsched JSON file by its structure, or ``None`` when it is none of them.

    An instance (the envelope's ``format``), a solve result, a simulate result, an evaluate report
    and a sweep summary (each command's ``--json`` or ``--out`` output).
    """
    if not isinstance(obj, dict):
        return None
    if obj.get("format") == FORMAT:
        family = obj.get("family")
        return FileKind(
            f"a {family if isinstance(family, str) else 'volsched'} instance",
            "`volsched solve FILE`, `simulate FILE` and `evaluate FILE` read it",
        )
    if "format" in obj:
        return None
    if {"policies", "optima"} <= obj.keys():
        return FileKind("an evaluate report (`volsched evaluate --json`)", _NO_READER)
    if {"status", "method", "solution", "objective"} <= obj.keys():
        return FileKind("a solve result (`volsched solve --out`)", _VERIFY)
    if {"heuristic", "solution", "objective"} <= obj.keys():
        return FileKind("a simulate result (`volsched simulate --out`)", _VERIFY)
    if {"store", "tasks", "done", "pending"} <= obj.keys():
        return FileKind("a sweep summary (`volsched sweep --json`)", _NO_READER)
    return None


def text_kind(text: str) -> FileKind | None:
    """The kind of a text file that is not JSON: a TOML sweep configuration, or ``None``."""
    try:
        obj = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    if obj and set(obj) <= SWEEP_KEYS:
        return FileKind("a sweep configuration (TOML)", "`volsched sweep FILE --store STORE` runs it")
    return FileKind("a TOML file", _NO_READER) if obj else None


def file_kind(path: str | os.PathLike) -> FileKind | None:
    """The kind of the file at ``path`` (binary, volsched JSON or a sweep's TOML), or ``None``.

    Used to explain a file the command cannot read; reads at most :data:`MAX_READ_BYTES`.
    """
    try:
        with Path(path).open("rb") as fh:
            data = fh.read(MAX_READ_BYTES + 1)
    except OSError:
        return None
    kind = binary_kind(data)
    if kind is not None or len(data) > MAX_READ_BYTES:
        return kind
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        return json_kind(json.loads(text))
    except (json.JSONDecodeError, RecursionError):
        return text_kind(text)


def read_text(path: str | os.PathLike, expected: str = "a text file") -> str:
    """A UTF-8 text file's contents; a missing, unreadable or oversized file is :class:`InputError`.

    A binary file of a known kind (an SQLite store, an image) is named with the command that reads
    it, ``expected`` saying what was wanted (:func:`binary_kind`).
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_READ_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    kind = binary_kind(data)
    if kind is not None:
        raise kind.error(path, expected)
    require(len(data) <= MAX_READ_BYTES, str(path), f"larger than {MAX_READ_BYTES // 2**20} MiB; not read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not a text file (byte {exc.start} is not UTF-8)") from None


def read_json(path: str | os.PathLike) -> Any:
    """Read a JSON file, turning I/O and syntax problems into :class:`InputError`.

    A file of another kind (a store, an image, a TOML sweep configuration) is named with the
    command that reads it.
    """
    text = read_text(path, "a JSON file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        kind = text_kind(text)
        if kind is not None:
            raise kind.error(path, "a JSON file") from None
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
