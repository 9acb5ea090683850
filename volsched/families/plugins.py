"""Heuristics from outside volsched: import paths and the entry-point group.

A heuristic is named everywhere a built-in one is (``simulate``, ``evaluate``,
sweep files) by ``module.path:Class`` or ``file.py:Class`` (a path relative to
the working directory, or to the sweep file), or registered by an installed
package in the entry-point group :data:`ENTRY_POINT_GROUP` as
``<family>.<name> = "pkg.mod:Class"``. A policy from outside runs behind its
family's checking wrapper (``volsched.heuristics.<family>.protocol.checked``),
so that a wrong return value is the user's one-line error.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from volsched.instances.errors import InputError, require

ENTRY_POINT_GROUP = "volsched.heuristics"


@functools.cache
def _entry_points() -> tuple:
    from importlib.metadata import entry_points

    return tuple(entry_points(group=ENTRY_POINT_GROUP))


def entry_points_of(family: str) -> dict:
    """The installed packages' heuristics of ``family``: folded name -> entry point (not loaded)."""
    prefix = family + "."
    return {p.name[len(prefix) :].casefold(): p for p in _entry_points() if p.name.startswith(prefix)}


def object_name(obj: Any) -> str:
    """A policy object's name in tables: its ``name`` attribute, else ``module:QualifiedName``."""
    name = getattr(obj, "name", None)
    if isinstance(name, str) and name:
        return name
    cls = obj if isinstance(obj, type) else type(obj)
    return f"{cls.__module__}:{cls.__qualname__}"


#: Modules loaded from files: (resolved path, mtime, size) -> module, so that one file is executed once.
_FILE_MODULES: dict[tuple[str, int, int], Any] = {}


def import_object(spec: str, field_name: str, base: str | os.PathLike | None) -> Any:
    """The object ``module.path:Name`` or ``file.py:Name`` names (``InputError`` naming ``spec``)."""
    where, _, attr = spec.rpartition(":")
    require(
        bool(where) and bool(attr), field_name, f"{spec!r}: an import path is module:Class or file.py:Class"
    )
    folder = Path(base) if base is not None else Path.cwd()
    if where.endswith(".py") or "/" in where or os.sep in where:
        path = Path(where).expanduser()
        path = path if path.is_absolute() else folder / path
        require(path.is_file(), field_name, f"{spec}: {path}: no such file")
        module = _load_file(path.resolve(), spec, field_name)
    else:
        module = _load_module(where, spec, field_name, folder)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            defined = sorted(
                k for k, v in vars(module).items() if isinstance(v, type) and v.__module__ == module.__name__
            )
            raise InputError(
                f"{field_name}: {spec}: {where} has no {attr}"
                + (f" (its classes: {', '.join(defined)})" if defined else "")
            )
        obj = getattr(obj, part)
    return obj


def _load_file(path: Path, spec: str, field_name: str) -> Any:
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key in _FILE_MODULES:
        return _FILE_MODULES[key]
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    # A module name of its own, in sys.modules while it runs: dataclasses and pickling look it up there.
    name = f"volsched_user_heuristics.{path.stem.replace('-', '_')}_{digest}"
    loader_spec = importlib.util.spec_from_file_location(name, path)
    require(
        loader_spec is not None and loader_spec.loader is not None,
        field_name,
        f"{spec}: {path} cannot be imported as a Python file",
    )
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise InputError(
            f"{field_name}: {spec}: importing {path} raised {type(exc).__name__}: {exc}"
        ) from exc
    _FILE_MODULES[key] = module
    return module


def _load_module(where: str, spec: str, field_name: str, folder: Path) -> Any:
    """``import where``; a module found in ``folder`` (the working directory, a sweep's folder) too."""
    top = where.split(".", 1)[0]
    if importlib.util.find_spec(top) is None and (
        (folder / f"{top}.py").is_file() or (folder / top / "__init__.py").is_file()
    ):
        sys.path.append(str(folder))
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name is not None and where.startswith(exc.name):
            raise InputError(
                f"{field_name}: {spec}: no module named {exc.name!r} (on sys.path or in {folder})"
            ) from None
        raise InputError(
            f"{field_name}: {spec}: importing {where} raised ModuleNotFoundError: {exc}"
        ) from exc
    except Exception as exc:
        raise InputError(
            f"{field_name}: {spec}: importing {where} raised {type(exc).__name__}: {exc}"
        ) from exc


def checked_policy(family: str, policy: Any, name: str) -> Any:
    """``policy`` behind ``volsched.heuristics.<family>.protocol.checked``, if the family has that module."""
    module = f"volsched.heuristics.{family}.protocol"
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    return importlib.import_module(module).checked(policy, name) if found else policy
