"""Sweep configurations: TOML files and presets, validated, expanded into tasks.

A sweep names a family, a grid of generator parameters (lists expand to their
Cartesian product), replicate seeds, the exact method with its time limit and
the heuristics::

    name = "my-sweep"
    family = "checkpoint"
    seeds = [0, 1, 2]             # or a count: seeds = 3 means 0, 1, 2
    heuristics = ["none", "daly", "mine.py:EveryOther"]
                                  # default: all of the family's built-in ones; names in any case, or
                                  # import paths (module:Class, file.py:Class relative to this file)
    [exact]
    method = "dp"                 # default: the family's (or the problem's) first
    budget = 10                   # deterministic work, in the method's unit (see `solve --help`), or a
                                  # table by problem: budget = {iterations = 10, full = 5000}
    time_limit = 60               # seconds, optional: the wall-clock safety net
    problem = "iterations"        # families with several exact problems (coupled)
    [grid]                        # keys: `volsched generate FAMILY` options, `preset` included
    slices = [10, 20]
    law = ["weibull", "exponential"]

A sweep of instance files gives ``instances`` in place of ``[grid]``: a glob
or a folder (its ``*.json`` files), relative to the sweep file::

    family = "checkpoint"
    instances = "jobs/*.json"     # each file read as `volsched solve FILE` reads it
    seeds = 3                     # the heuristics' RNG seeds; the exact method runs once per file

Each file is read, checked to be an instance of ``family`` and hashed
(SHA-256 of its bytes) before any task runs (:func:`instance_files`).

Several sweeps go in one file as ``[[sweep]]`` tables. Every problem is an
``InputError`` naming the key (exit 2 on the command line), found before any
task runs: besides each option's own check, every grid value goes through
its generator's, as ``volsched generate`` would run it (:func:`check_grid_values`).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import io
import itertools
import json
import math
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from volsched.instances.errors import InputError, is_int, require
from volsched.instances.io import json_kind, read_text
from volsched.solvers.problem import check_budget, check_time_limit

from ..families import FAMILIES, Family, family_of

SWEEP_KEYS = {"name", "family", "seeds", "heuristics", "exact", "grid", "instances"}
#: Most instances (grid points x seeds) of one sweep; its tasks are listed in memory before they run.
MAX_INSTANCES = 1_000_000
EXACT_KEYS = {"method", "time_limit", "problem", "budget"}


@dataclass(frozen=True)
class InstanceFile:
    """One instance file of a sweep, read once when the sweep is validated.

    Attributes
    ----------
    name : str
        Its path relative to the sweep file's folder (as the glob matched it, ``/``-separated).
    sha256 : str
        The SHA-256 of its bytes: with ``name``, the instance's parameters, so a changed file
        makes new task keys.
    text : str
        Its contents, which the tasks carry to the workers (no shared file system needed).
    """

    name: str
    sha256: str
    text: str

    @property
    def params(self) -> dict:
        """The instance's parameters in the store: ``{"file": name, "sha256": hash}``."""
        return {"file": self.name, "sha256": self.sha256}


@dataclass(frozen=True)
class Sweep:
    """One validated sweep."""

    name: str
    family: Family
    grid: dict[str, list]
    seeds: tuple[int, ...]
    method: str
    time_limit: float | None
    heuristics: tuple[str, ...]
    problem: str | None = None
    budgets: tuple[tuple[str, float], ...] = ()
    #: Folder of the heuristics' relative file paths (the sweep file's); ``None``: the working directory.
    base: str | None = None
    #: The instance files of a sweep over files (``instances``; its ``grid`` is then empty).
    files: tuple[InstanceFile, ...] = ()

    def budget(self, problem: str) -> float | None:
        """The work budget of ``problem``'s exact task (``None``: none)."""
        return dict(self.budgets).get(problem)

    def instances(self) -> list[dict]:
        """Generator parameters (with ``seed``) of every instance, grid order then seed."""
        names = sorted(self.grid)
        return [
            {**dict(zip(names, values, strict=True)), "seed": seed}
            for values in itertools.product(*(self.grid[n] for n in names))
            for seed in self.seeds
        ]


def parse_sweep(obj: Any, where: str = "config", base: str | None = None) -> Sweep:
    """Validate one sweep table; ``where`` prefixes the key names in errors.

    Heuristic names are resolved as :meth:`Family.heuristic <volsched.families.Family.heuristic>`
    does (``base``: the folder of relative ``file.py:Class`` paths) and stored in their canonical
    spelling (``DALY`` -> ``daly``; an import path as written).
    """
    require(isinstance(obj, dict), where, "must be a table")
    for key in sorted(set(obj) - SWEEP_KEYS):
        raise InputError(f"{where}.{key}: unknown key (allowed: {', '.join(sorted(SWEEP_KEYS))})")
    require("family" in obj, f"{where}.family", "missing")
    fam = obj["family"]
    require(
        isinstance(fam, str) and fam in FAMILIES,
        f"{where}.family",
        f"must be one of {sorted(FAMILIES)}, got {fam!r}",
    )
    family = FAMILIES[fam]

    seeds = obj.get("seeds", 1)
    if is_int(seeds):
        require(seeds >= 1, f"{where}.seeds", f"must be a positive count or a list, got {seeds}")
        require(seeds <= MAX_INSTANCES, f"{where}.seeds", f"must be at most {MAX_INSTANCES:,}, got {seeds}")
        seeds = list(range(seeds))
    require(isinstance(seeds, list) and seeds, f"{where}.seeds", "must be a non-empty list of integers")
    for i, s in enumerate(seeds):
        require(is_int(s) and s >= 0, f"{where}.seeds[{i}]", f"must be a non-negative integer, got {s!r}")
    require(len(set(seeds)) == len(seeds), f"{where}.seeds", "has duplicates")

    files: tuple[InstanceFile, ...] = ()
    if "instances" in obj:
        require(
            "grid" not in obj,
            f"{where}.instances",
            "give either instances (files) or [grid] (generated instances), not both",
        )
        files = instance_files(family, obj["instances"], base, f"{where}.instances")
        values = {}
        count = len(files) * len(seeds)
        require(
            count <= MAX_INSTANCES,
            f"{where}.instances",
            f"{count:,} heuristic runs (files x seeds); a sweep holds at most {MAX_INSTANCES:,}",
        )
    else:
        grid = obj.get("grid", {})
        require(isinstance(grid, dict), f"{where}.grid", "must be a table")
        values = _grid(family, grid, f"{where}.grid")
        count = math.prod(len(v) for v in values.values()) * len(seeds)
        require(
            count <= MAX_INSTANCES,
            f"{where}.grid",
            f"{count:,} instances (grid points x seeds); a sweep holds at most {MAX_INSTANCES:,}",
        )

    exact = obj.get("exact", {})
    require(isinstance(exact, dict), f"{where}.exact", "must be a table")
    for key in sorted(set(exact) - EXACT_KEYS):
        raise InputError(f"{where}.exact.{key}: unknown key (allowed: {', '.join(sorted(EXACT_KEYS))})")
    problem = exact.get("problem")
    if problem is not None:
        require(
            isinstance(problem, str) and problem in family.problems,
            f"{where}.exact.problem",
            f"must be one of {list(family.problems)}, got {problem!r}",
        )
    methods = list(family.problem(problem).methods)
    method = exact.get("method", methods[0])
    require(method in methods, f"{where}.exact.method", f"must be one of {methods}, got {method!r}")
    limit = check_time_limit(exact.get("time_limit"), f"{where}.exact.time_limit")
    budget = exact.get("budget")
    if isinstance(budget, dict):
        for key in budget:
            require(
                key in family.problems,
                f"{where}.exact.budget.{key}",
                f"must be a problem of {fam}: {list(family.problems)}",
            )
        budgets = {key: check_budget(value, f"{where}.exact.budget.{key}") for key, value in budget.items()}
    else:
        budgets = (
            {}
            if budget is None
            else {family.problem(problem).name: check_budget(budget, f"{where}.exact.budget")}
        )

    heuristics = obj.get("heuristics", sorted(family.heuristics))
    require(isinstance(heuristics, list), f"{where}.heuristics", "must be a list of names")
    for i, h in enumerate(heuristics):
        require(isinstance(h, str), f"{where}.heuristics[{i}]", f"must be a heuristic name, got {h!r}")
    heuristics = [
        family.heuristic(h, f"{where}.heuristics[{i}]", base).name for i, h in enumerate(heuristics)
    ]
    require(len(set(heuristics)) == len(heuristics), f"{where}.heuristics", "has repeated names")

    name = obj.get("name", fam)
    require(isinstance(name, str) and name, f"{where}.name", "must be a non-empty string")
    if not files:
        check_grid_values(family, values, seeds[0], f"{where}.grid")
    return Sweep(
        name=name,
        family=family,
        grid=values,
        seeds=tuple(seeds),
        method=method,
        time_limit=limit,
        heuristics=tuple(heuristics),
        problem=problem,
        budgets=tuple(sorted(budgets.items())),
        base=base,
        files=files,
    )


def instance_files(
    family: Family, pattern: Any, base: str | os.PathLike | None, where: str
) -> tuple[InstanceFile, ...]:
    """The instance files ``pattern`` names, each read, checked and hashed (``InputError`` naming ``where``).

    Parameters
    ----------
    family : Family
        The sweep's family: every file must be one of its instances.
    pattern : str
        A glob (``**`` recurses) or a folder (its ``*.json`` files), relative to ``base``.
    base : path, optional
        The sweep file's folder; default the working directory.
    where : str
        The field errors name.

    Returns
    -------
    tuple of InstanceFile
        Sorted by name. A file is read as ``volsched solve FILE`` reads it
        (:func:`volsched.families.family_of`, then :attr:`Family.load`), so a
        broken file, or an instance of another family, is refused here,
        before any task runs, and not as one ``error`` row per task.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from volsched.families import FAMILIES
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> instance = FAMILIES["checkpoint"].generate_from({"slices": 4, "seed": 0})
    >>> _ = (folder / "a.json").write_text(json.dumps(instance.to_json()))
    >>> [f.name for f in instance_files(FAMILIES["checkpoint"], "*.json", folder, "instances")]
    ['a.json']
    """
    require(
        isinstance(pattern, str) and pattern.strip() != "",
        where,
        f"must be a glob or a folder of {family.name} instance files (a string), got {pattern!r}",
    )
    root = Path(base) if base is not None else Path.cwd()
    try:
        folder = (root / pattern).is_dir()
    except OSError as exc:  # a name the system refuses (too long...)
        raise InputError(f"{where}: {pattern}: cannot read ({exc.strerror or exc})") from None
    found = glob.glob(
        os.path.join(glob.escape(pattern), "*.json") if folder else pattern, root_dir=root, recursive=True
    )
    names = sorted(Path(n).as_posix() for n in found if (root / n).is_file())
    require(
        bool(names),
        where,
        f"the folder {pattern!r} has no .json file" if folder else f"no file matches {pattern!r} in {root}",
    )
    return tuple(_instance_file(family, root, name, where) for name in names)


def _instance_file(family: Family, root: Path, name: str, where: str) -> InstanceFile:
    path = root / name
    try:
        text = read_text(path, f"a {family.name} instance (JSON)")
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno})") from None
        except RecursionError:
            raise InputError(f"{path}: JSON nested too deeply to be a volsched file") from None
        try:
            other = family_of(obj)
            require(
                other.name == family.name,
                "family",
                f"is {other.name!r}, but this sweep's family is {family.name!r}",
            )
            family.load(obj)
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
    except InputError as exc:  # the name as the sweep file gives it, not the absolute path
        raise InputError(f"{where}: {str(exc).replace(str(path), name, 1)}") from None
    return InstanceFile(name, hashlib.sha256(text.encode("utf-8")).hexdigest(), text)


def _grid(family: Family, grid: dict, where: str) -> dict[str, list]:
    """Each grid key's list of values, checked by the generator specs (keys: ``preset`` and option names)."""
    values: dict[str, list] = {}
    presets = grid.get("preset", next(iter(family.generators)))
    presets = presets if isinstance(presets, list) else [presets]
    require(bool(presets), f"{where}.preset", "is an empty list: the grid would have no instance")
    specs = []
    for i, name in enumerate(presets):
        spec = family.generator(name, f"{where}.preset[{i}]")
        require(
            not spec.many,
            f"{where}.preset[{i}]",
            f"{name!r} makes many instances; a grid point is one instance (its options: see "
            f"volsched generate {family.name} --help)",
        )
        specs.append(spec)
    if "preset" in grid:
        values["preset"] = list(presets)
        require(len(set(presets)) == len(presets), f"{where}.preset", "has repeated values")
    for name, spec_values in grid.items():
        if name == "preset":
            continue
        key = f"{where}.{name}"
        options = [o for g in specs for o in g.options if o.name == name]
        require(
            bool(options),
            key,
            f"not an option of {', '.join(g.name for g in specs)} (allowed: "
            f"{', '.join(sorted({o.name for g in specs for o in g.options} - {'seed'}))})",
        )
        require(name != "seed", key, "replicates are the sweep's `seeds`, not a grid key")
        missing = [g.name for g in specs if not any(o.name == name for o in g.options)]
        require(
            not missing,
            key,
            f"is not an option of {', '.join(missing)}: give each preset its own [[sweep]] table",
        )
        option = options[0]
        require(
            not (isinstance(spec_values, list) and not spec_values),
            key,
            "is an empty list: the grid would have no instance",
        )
        listed = isinstance(spec_values, list) and (
            option.nargs is None or all(isinstance(v, list) for v in spec_values)
        )
        spec_values = spec_values if listed else [spec_values]
        values[name] = [option.check(v, f"{key}[{i}]") for i, v in enumerate(spec_values)]
        require(len({repr(v) for v in values[name]}) == len(values[name]), key, "has repeated values")
    for g in specs:
        for o in g.options:
            require(
                o.default is not None or o.name in values,
                f"{where}.{o.name}",
                f"generator {g.name!r} needs it",
            )
    return values


def star_points(grid: dict[str, list]) -> list[tuple[str | None, int, dict]]:
    """The grid points that put each grid value in one instance: ``(key, index, point)``.

    The first point takes every key's first value (key ``None``); then, key by
    key, each further value with every other key at its first. Each value is
    met once, in ``1 + sum(len - 1)`` points instead of the product's.
    """
    base = {k: v[0] for k, v in grid.items()}
    points: list[tuple[str | None, int, dict]] = [(None, 0, base)]
    for key in sorted(grid):
        points += [(key, i, {**base, key: value}) for i, value in enumerate(grid[key]) if i > 0]
    return points


def check_grid_values(family: Family, grid: dict[str, list], seed: int, where: str) -> None:
    """Refuse a grid value its generator refuses, before any task runs (``InputError`` naming key and value).

    A generator checks some values only while it builds the instance (``alpha``
    against its range, a ``file`` that must exist and parse, limits across
    options), so each value's check is building one instance of
    :func:`star_points` with ``seed``, exactly as ``volsched generate`` does, its
    output (``calibrate``) discarded. That is one generation per grid value,
    against the sweep's one per task (``kondo2007``: 20 platforms of 200 hosts,
    about 6 s, for 10,800 instances). A limit across two keys met only
    off the star points (both at a later value) is still found by the tasks
    at run time, as ``error`` rows. Only ``InputError`` is bad input: any other
    exception is a generator's bug and propagates.
    """
    for key, index, point in star_points(grid):
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                family.generate_from({**point, "seed": seed})
        except InputError as exc:
            key = key if key is not None else _named(str(exc), point)
            if key is None:
                shown = ", ".join(f"{k} = {v!r}" for k, v in sorted(point.items()))
                raise InputError(f"{where}: the grid point {{{shown}}} (seed {seed}): {exc}") from None
            raise InputError(f"{where}.{key}[{index}] = {point[key]!r}: {exc}") from None


def _named(message: str, point: dict) -> str | None:
    """The grid key an error of ``point``'s instance names: its field, or a path it holds (a missing file)."""
    field = message.split(": ", 1)[0]
    for key, value in sorted(point.items()):
        if field == key or field.startswith((key + "[", key + ".")):
            return key
        if isinstance(value, str) and value and message.startswith((value + ":", value + ",")):
            return key
    return None


def parse_config(obj: Any, where: str = "config", base: str | None = None) -> list[Sweep]:
    """A config is one sweep table, or ``{"sweep": [tables...]}`` (``base``: see :func:`parse_sweep`)."""
    require(isinstance(obj, dict), where, "must be a table")
    if "sweep" not in obj:
        return [parse_sweep(obj, where, base)]
    for key in sorted(set(obj) - {"sweep"}):
        raise InputError(f"{where}.{key}: unknown key next to [[sweep]] tables")
    sweeps = obj["sweep"]
    require(isinstance(sweeps, list) and sweeps, f"{where}.sweep", "must be a non-empty array of tables")
    parsed = [parse_sweep(s, f"{where}.sweep[{i}]", base) for i, s in enumerate(sweeps)]
    names = [s.name for s in parsed]
    require(len(set(names)) == len(names), f"{where}.sweep", f"sweep names must differ, got {names}")
    return parsed


def read_config(path: str | Path) -> list[Sweep]:
    """Read and validate a TOML sweep file."""
    path = Path(path)
    text = read_text(path)
    try:
        obj = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        try:
            kind = json_kind(json.loads(text))
        except (ValueError, RecursionError):
            kind = None
        if kind is not None:  # an instance or a result given as the sweep file
            raise kind.error(path, "a sweep configuration (TOML)") from None
        raise InputError(f"{path}: not valid TOML ({exc})") from None
    return parse_config(obj, path.name, str(path.resolve().parent))
