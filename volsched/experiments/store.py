"""The results store: one SQLite file (WAL), written by the sweep driver only.

Two tables. ``planned`` holds every task a sweep asked for (so ``pending`` is
known), ``results`` one row per *finished* task (:class:`ResultRow`). Each
task's row is inserted in one transaction keyed by the task key (``PRIMARY
KEY``), so a process killed at any moment leaves either the whole row or none,
and never two.

The store keeps what the tasks returned and nothing derived from it: ratios,
references and relative metrics are computed from the rows by the readers
(:mod:`volsched.ratios`), so that a row never depends on the order rows were
written in.

Each sweep that plans tasks is recorded (``sweeps``) with its name and its
configuration hash (:func:`config_hash`), and each of its tasks in
``sweep_tasks``: a task two sweeps share runs once and belongs to both. A
sweep of another name or configuration into a store that holds one warns
(:class:`SweepWarning`) and is recorded apart, under its name, or
``name@hash`` when that name is taken by another configuration; readers
select one with ``Store.open(path, sweep=label)``. :meth:`Store.open` also
combines stores written on several machines, after checking that the rows
they share agree.
"""

from __future__ import annotations

import hashlib
import json
import math
import socket
import sqlite3
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from volsched.instances.errors import InputError, VolschedWarning
from volsched.ratios import RATIO_RTOL

if TYPE_CHECKING:
    import pandas as pd

SCHEMA = """
CREATE TABLE IF NOT EXISTS planned (
    key TEXT PRIMARY KEY,
    sweep TEXT NOT NULL,
    family TEXT NOT NULL,
    instance_key TEXT NOT NULL,
    params TEXT NOT NULL,          -- generator parameters, JSON, including the seed
    method TEXT NOT NULL,
    kind TEXT NOT NULL,            -- 'exact' or 'heuristic'
    method_params TEXT NOT NULL,   -- JSON, e.g. {"time_limit": 60} or {"seed": 3}
    problem TEXT NOT NULL,         -- the exact problem solved, or the one a heuristic is scored against
    sense TEXT NOT NULL            -- 'min' or 'max'
);
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY REFERENCES planned(key),
    sweep TEXT NOT NULL,
    family TEXT NOT NULL,
    instance_key TEXT NOT NULL,
    instance TEXT,                 -- the instance's name
    params TEXT NOT NULL,
    method TEXT NOT NULL,
    kind TEXT NOT NULL,
    method_params TEXT NOT NULL,
    problem TEXT NOT NULL,
    sense TEXT NOT NULL,
    status TEXT NOT NULL,          -- optimal/feasible/infeasible/unknown (exact), ok (heuristic),
                                   -- timeout, error
    objective REAL,                -- exact: incumbent; heuristic: its value
    bound REAL,                    -- exact: best proven bound
    metrics TEXT NOT NULL,         -- JSON: the problem's declared metrics of this run
    runtime_s REAL,
    error TEXT,
    versions TEXT NOT NULL,        -- JSON
    host TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    work REAL,                     -- exact: the work its budget counts (deterministic), spent
    cpu_s REAL                     -- CPU seconds of the process that ran the task, over the task
);
CREATE INDEX IF NOT EXISTS results_instance ON results(instance_key);
"""
#: The tables layout 4 added (:meth:`Store._upgrade` adds them to a layout 3 store).
SWEEP_SCHEMA = """
CREATE TABLE IF NOT EXISTS sweeps (
    label TEXT PRIMARY KEY,        -- the name, or name@hash when another configuration holds the name
    name TEXT NOT NULL,
    config_hash TEXT NOT NULL,     -- config_hash() of its task keys
    family TEXT NOT NULL,
    tasks INTEGER NOT NULL,
    created TEXT,
    host TEXT
);
CREATE TABLE IF NOT EXISTS sweep_tasks (
    sweep TEXT NOT NULL REFERENCES sweeps(label),
    key TEXT NOT NULL REFERENCES planned(key),
    PRIMARY KEY (sweep, key)
);
"""
SCHEMA += SWEEP_SCHEMA
#: ``PRAGMA user_version`` of the layout above. Layout 1 (volsched 0.1) had no
#: ``problem`` and ``metrics`` columns and keyed heuristic tasks without their
#: seed: its rows cannot be re-keyed, so such a store is refused. Layout 2 also
#: stored ratio columns, filled as rows arrived; layouts 3 and on store none.
#: Layout 3 had no ``sweeps`` and ``sweep_tasks`` tables: its sweeps are read
#: from the ``planned`` table's names. Layouts 3 and 4 had no ``work`` and ``cpu_s``
#: columns: they read as ``None``, and the first write adds what the store lacks
#: (nothing else changes).
SCHEMA_VERSION = 5
_LAYOUT_3 = ("key", "sweep", "family", "instance_key", "instance", "params", "method", "kind",
             "method_params", "problem", "sense", "status", "objective", "bound", "metrics", "runtime_s",
             "error", "versions", "host", "timestamp")  # fmt: skip
#: Older layouts that can still be read: ``{version: its results columns}``. A
#: reader ignores the columns this layout dropped and reads the ones it added
#: as ``None``. Only this layout is written (once upgraded, see :data:`UPGRADABLE`).
READABLE = {
    2: ("key", "sweep", "family", "instance_key", "instance", "params", "method", "kind",
        "method_params", "problem", "sense", "status", "objective", "bound", "metrics", "runtime_s",
        "optimum", "optimum_bound", "optimum_proven", "ratio", "ratio_lo", "ratio_hi", "error",
        "versions", "host", "timestamp"),
    3: _LAYOUT_3,
    4: _LAYOUT_3,
}  # fmt: skip
#: Layouts that the first write upgrades in place to :data:`SCHEMA_VERSION` (tables and columns added).
UPGRADABLE = (3, 4)
#: The columns layout 5 added to ``results`` (``None`` in the rows of older layouts).
ADDED_IN_5 = ("work", "cpu_s")
#: The tables of layouts before 4 (the sweep tables came with layout 4).
_OLD_TABLES = ("planned", "results")

JSON_COLUMNS = ("params", "method_params", "versions", "metrics")


@dataclass(frozen=True)
class ResultRow(Mapping):
    """One finished task, as stored: a frozen record, readable as a mapping (``row["objective"]``).

    Attributes
    ----------
    key, sweep, family, instance_key, params, method, kind, method_params, problem, sense
        The task (:func:`volsched.experiments.tasks.build_tasks`); ``params`` and
        ``method_params`` decoded from JSON.
    instance : str or None
        The instance's name (``None`` when its generation failed).
    status : str
        ``optimal``, ``feasible``, ``infeasible``, ``unknown`` (exact), ``ok`` (heuristic),
        ``timeout`` or ``error``.
    objective : float or None
        Exact: the verified incumbent; heuristic: the run's verified value.
    bound : float or None
        Exact: the best proven bound.
    metrics : dict
        The problem's declared metrics of this run.
    runtime_s : float or None
        Wall-clock seconds of the task (the machine's load included).
    error : str or None
    versions : dict
    host, timestamp : str
    work : float or None
        Exact: the work its budget counts, spent (the unit is the method's, e.g. CP-SAT's
        deterministic time or the greedy's compiled calls; the same on every machine). ``None``
        for a heuristic run and in the rows of layouts before 5.
    cpu_s : float or None
        CPU seconds of the process that ran the task, over the task: every thread of it, a
        solver's own threads included (and, under Dask workers of several threads, theirs). For a
        one-thread method at most ``runtime_s``, and less on a loaded machine; ``None`` in the rows
        of layouts before 5.
    """

    key: str
    sweep: str
    family: str
    instance_key: str
    instance: str | None
    params: dict
    method: str
    kind: str
    method_params: dict
    problem: str
    sense: str
    status: str
    objective: float | None
    bound: float | None
    metrics: dict
    runtime_s: float | None
    error: str | None
    versions: dict
    host: str
    timestamp: str
    work: float | None = None
    cpu_s: float | None = None

    def __getitem__(self, name: str) -> Any:
        if name not in RESULT_COLUMNS:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(RESULT_COLUMNS)

    def __len__(self) -> int:
        return len(RESULT_COLUMNS)


#: The ``results`` columns, in :class:`ResultRow` order.
RESULT_COLUMNS = tuple(f.name for f in fields(ResultRow))
#: The columns that depend on where and when a task ran: two runs of one task agree on every
#: other column but ``versions`` and ``error``'s wording (:data:`OUTCOME_COLUMNS`).
VOLATILE_COLUMNS = ("runtime_s", "cpu_s", "host", "timestamp")


#: Every table of the layout, in :data:`SCHEMA` order.
TABLES = ("planned", "results", "sweeps", "sweep_tasks")


def _columns(db: sqlite3.Connection) -> dict[str, list[str]]:
    return {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in TABLES}


def _reference() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    return db


def _has_layout(columns: dict[str, list[str]], version: int) -> bool:
    """Whether ``columns`` are those of layout ``version`` (this one, or a :data:`READABLE` one)."""
    expected = _columns(_reference())
    if version == SCHEMA_VERSION:
        return columns == expected
    sweeps = [t for t in TABLES if t not in _OLD_TABLES]
    return (
        columns["planned"] == expected["planned"]
        and columns["results"] == list(READABLE[version])
        and all(columns[t] == (expected[t] if version >= 4 else []) for t in sweeps)
    )


class SweepWarning(VolschedWarning):
    """A sweep goes into a store that holds another sweep: it is recorded apart (see :class:`Store`)."""


@dataclass(frozen=True)
class SweepRecord:
    """One sweep a store holds.

    Attributes
    ----------
    label : str
        How reports name it (``--sweep``): its name, or ``name@hash`` (the first 8 digits of
        ``config_hash``) when another configuration of the same name came first.
    name : str
        The sweep's ``name`` (a config's, or a preset's).
    config_hash : str
        :func:`config_hash` of its task keys.
    family : str
    tasks : int
        How many tasks it planned.
    created, host : str or None
        When and where it was first planned (``None`` for a sweep read from a layout 3 store).
    """

    label: str
    name: str
    config_hash: str
    family: str
    tasks: int
    created: str | None = None
    host: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict.

        Examples
        --------
        >>> SweepRecord("smoke", "smoke", "0" * 16, "checkpoint", 40).to_dict()["tasks"]
        40
        """
        return {f.name: getattr(self, f.name) for f in fields(self)}


def config_hash(keys: Iterable[str]) -> str:
    """A sweep configuration's hash: SHA-256 of its sorted, distinct task keys (16 hex digits).

    A task key hashes the family, the instance's parameters, the method with its
    parameters and the volsched version (:func:`volsched.experiments.tasks.build_tasks`),
    so two files meaning the same sweep (key order, comments, a count of seeds or
    their list) have the same hash, and any change to what runs changes it.

    Examples
    --------
    >>> config_hash(["b", "a", "a"]) == config_hash(["a", "b"])
    True
    """
    return hashlib.sha256("\n".join(sorted(set(keys))).encode()).hexdigest()[:16]


#: The task columns, shared by ``planned`` and ``results``.
TASK_COLUMNS = ("family", "instance_key", "params", "method", "kind", "method_params", "problem", "sense")
#: The result columns a task's rows from two machines must agree on (:meth:`Store.open`); the
#: others (:data:`VOLATILE_COLUMNS`, versions, error text) depend on where and when it ran. A
#: row of a layout before 5 has no ``work``: it agrees with any.
OUTCOME_COLUMNS = ("instance", "status", "objective", "bound", "metrics", "work")


def _agree(a: Any, b: Any) -> bool:
    """Two stored values agree: numbers within ``RATIO_RTOL`` relative (floating point computed on
    two machines may differ in the last bits; a smaller difference moves no ratio beyond rounding),
    anything else exactly."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_agree(a[k], b[k]) for k in a)
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool | str):
        return a == b or math.isclose(a, b, rel_tol=RATIO_RTOL, abs_tol=0.0)
    return bool(a == b)


class Store:
    """A results store at ``path`` (created on first use).

    Parameters
    ----------
    path : str or Path
        The SQLite file.
    create : bool
        Create the store when ``path`` does not exist (a sweep); ``False`` to read one (a report).

    Raises
    ------
    InputError
        A path that is not a store, a damaged file, or a store of a layout this volsched does not
        read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "s.db") as store:
    ...     store.rows(), store.sweeps()
    ([], [])
    """

    def __init__(self, path: str | Path, create: bool = True):
        self.path = Path(path)
        try:
            exists, is_dir, folder = self.path.exists(), self.path.is_dir(), self.path.parent.is_dir()
        except OSError as exc:  # a path the system refuses (a name too long...)
            raise InputError(f"{self.path}: cannot open ({exc.strerror or exc})") from None
        if not create and not exists:
            raise InputError(f"{self.path}: no such store")
        if is_dir:
            raise InputError(f"{self.path}: is a directory, not a store file")
        if not folder:
            raise InputError(f"{self.path}: folder {self.path.parent} does not exist")
        db: sqlite3.Connection | None = None
        try:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
            if not create and not tables:  # reading must not turn a user's file into a store
                raise InputError(f"{self.path}: not a volsched store (no tables)")
            if tables and version != SCHEMA_VERSION and version not in READABLE:
                age = "an older" if version < SCHEMA_VERSION else "a newer"
                raise InputError(
                    f"{self.path}: a results store of layout {version or 1}, written by {age} "
                    f"volsched; this one reads and writes layout {SCHEMA_VERSION} (heuristic "
                    "runs keyed by their seed, metrics per row, no stored ratios, sweeps recorded, work "
                    "and CPU seconds per row) "
                    f"and reads layout {', '.join(map(str, READABLE))}. Start a new store; the old "
                    "one is unchanged"
                )
            if tables and not _has_layout(_columns(db), version):
                raise InputError(
                    f"{self.path}: not a volsched store (its tables do not have the store's "
                    "columns; a damaged file?)"
                )
            # Every page is read once now, so that damage is refused before any write. Tables or not: a
            # damaged first page can hide every table, and the file would then be "created" over.
            if db.execute("PRAGMA page_count").fetchone()[0]:
                damage = db.execute("PRAGMA quick_check(1)").fetchone()[0]
                if damage != "ok":
                    raise InputError(
                        f"{self.path}: not a volsched store (database disk image is malformed: "
                        f"{' '.join(damage.split())}); it is left unchanged"
                    )
            db.execute("PRAGMA synchronous=NORMAL")
            if not tables:  # a new store; its journal mode and layout version persist in the file
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(SCHEMA)
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self.layout: int = version if tables else SCHEMA_VERSION
            self._present = set(_columns(db)["results"])
        except BaseException as exc:
            if db is not None:  # closed, so that no -wal/-shm file is left beside a refused file
                db.close()
            if isinstance(exc, (sqlite3.DatabaseError, UnicodeDecodeError)):  # a damaged or foreign file
                raise InputError(f"{self.path}: not a volsched store ({exc})") from None
            raise
        db.row_factory = sqlite3.Row
        self.db: sqlite3.Connection = db

    @classmethod
    def _in_memory(cls, name: str) -> Store:
        """An empty store of this layout in memory, named ``name`` in messages."""
        self = cls.__new__(cls)
        self.path = Path(name)
        self.db = sqlite3.connect(":memory:", isolation_level=None)
        self.db.executescript(SCHEMA)
        self.db.row_factory = sqlite3.Row
        self.layout = SCHEMA_VERSION
        self._present = set(RESULT_COLUMNS)
        return self

    @classmethod
    def open(cls, paths: str | Path | Sequence[str | Path], sweep: str | None = None) -> Store:
        """Stores to read: one file, or several combined, optionally one sweep of them.

        One path without ``sweep`` is the file itself. Otherwise the stores' tasks,
        rows and sweeps are combined into a store in memory (the files are only
        read): a task key in several stores must be the same task, and its finished
        rows must agree on :data:`OUTCOME_COLUMNS` (numbers within ``RATIO_RTOL``,
        see :func:`_agree`); a sweep label two stores use for different
        configurations is relabelled ``name@hash`` in the second. ``sweep`` then
        keeps that sweep's tasks only.

        Parameters
        ----------
        paths : path or sequence of paths
            Stores written on one or several machines.
        sweep : str, optional
            A sweep label (:meth:`sweeps`).

        Returns
        -------
        Store
            Read it (:meth:`rows`, :meth:`planned`, :meth:`to_frame`); close it when done.

        Raises
        ------
        InputError
            A path that is not a store, two stores that disagree on a task (naming the
            key, the field and both values), or a ``sweep`` that no store holds.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> for name in ("a.db", "b.db"):
        ...     Store(folder / name).close()
        >>> with Store.open([folder / "a.db", folder / "b.db"]) as both:
        ...     both.rows()
        []
        """
        paths = [paths] if isinstance(paths, str | Path) else list(paths)
        if not paths:
            raise InputError("store: give at least one store")
        if len(paths) == 1 and sweep is None:
            return cls(paths[0], create=False)
        merged = cls._in_memory(" + ".join(map(str, paths)))
        try:
            sources: dict[str, str] = {}
            for path in paths:
                with cls(path, create=False) as source:
                    merged._merge(source, sources)  # noqa: SLF001 - the same class
            if sweep is not None:
                merged._keep_sweep(sweep)  # noqa: SLF001 - the same class
        except BaseException:
            merged.close()
            raise
        return merged

    def _merge(self, source: Store, sources: dict[str, str]) -> None:
        """Add ``source``'s tasks, rows and sweeps; ``sources`` maps each key to the store it came from."""
        mine = {t["key"]: t for t in self.planned()}
        done = {r.key: r for r in self.rows()}
        tasks = source.planned()
        for t in tasks:
            other = mine.get(t["key"])
            if other is None:
                continue
            for c in TASK_COLUMNS:
                if not _agree(other[c], t[c]):
                    raise InputError(
                        f"{sources[t['key']]} and {source.path} plan task {t['key']} differently: "
                        f"{c} {other[c]!r} against {t[c]!r}; these stores cannot be combined"
                    )
        rows = source.rows()
        for r in rows:
            other_row = done.get(r.key)
            if other_row is None:
                continue
            for c in (*TASK_COLUMNS, *OUTCOME_COLUMNS):
                if c in ADDED_IN_5 and None in (other_row[c], r[c]):
                    continue
                if not _agree(other_row[c], r[c]):
                    raise InputError(
                        f"{sources.get(r.key, '?')} and {source.path} disagree on task {r.key} "
                        f"({r.family} {r.method} on {r.instance or r.instance_key}, params {r.params}): "
                        f"{c} {other_row[c]!r} against {r[c]!r}; these stores cannot be combined"
                    )
        new_tasks = [t for t in tasks if t["key"] not in mine]
        new_rows = [r for r in rows if r.key not in done]
        for key in [t["key"] for t in new_tasks] + [r.key for r in new_rows]:
            sources.setdefault(key, str(source.path))
        labels = {}
        held = self.sweeps()
        for record in source.sweeps():
            label = self._label_for(record.name, record.config_hash, held)
            labels[record.label] = label
            if all(h.label != label for h in held):
                held.append(SweepRecord(label, *(getattr(record, f) for f in _RECORD_FIELDS[1:])))
        members = [(labels[label], key) for label, keys in source.sweep_keys().items() for key in keys]
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self._insert_planned(new_tasks)
            self._insert_rows(new_rows)
            self._insert_sweeps(held, members)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _keep_sweep(self, label: str) -> None:
        """Drop every task and row outside sweep ``label`` (an in-memory store only)."""
        labels = [r.label for r in self.sweeps()]
        if label not in labels:
            raise InputError(
                f"--sweep: {label!r} is not a sweep of {self.path} (its sweeps: "
                f"{', '.join(labels) or 'none'})"
            )
        self.db.execute("BEGIN IMMEDIATE")
        for table in ("results", "planned"):
            self.db.execute(
                f"DELETE FROM {table} WHERE key NOT IN (SELECT key FROM sweep_tasks WHERE sweep = ?)",
                (label,),
            )
        self.db.execute("DELETE FROM sweep_tasks WHERE sweep != ?", (label,))
        self.db.execute("DELETE FROM sweeps WHERE label != ?", (label,))
        self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_writable(self) -> None:
        if self.layout in UPGRADABLE:
            self._upgrade()
        if self.layout != SCHEMA_VERSION:
            raise InputError(
                f"{self.path}: a results store of layout {self.layout}, written by an older "
                f"volsched: this one reads it (its stored ratio columns are ignored, the "
                f"report recomputes them from the rows) but writes layout {SCHEMA_VERSION} "
                "only. Start a new store; the old one is unchanged"
            )

    def _upgrade(self) -> None:
        """Layout 3 or 4 to this one: the sweep tables (layout 3), filled from the ``planned``
        table's names, and the columns of :data:`ADDED_IN_5`, ``NULL`` in the rows already there."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if self.layout < 4:
                records = self.sweeps()
                members = [(label, key) for label, keys in self.sweep_keys().items() for key in keys]
                for statement in SWEEP_SCHEMA.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self._insert_sweeps(records, members)
            for column in ADDED_IN_5:
                self.db.execute(f"ALTER TABLE results ADD COLUMN {column} REAL")
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.layout = SCHEMA_VERSION
        self._present = set(_columns(self.db)["results"])

    # --- sweeps ---------------------------------------------------------------
    def sweeps(self) -> list[SweepRecord]:
        """The sweeps the store holds, in the order they were first planned.

        A layout 3 store has no sweep tables: each name of its ``planned`` table is
        a sweep, its hash that of the tasks it planned first.
        """
        if self.layout >= 4:
            return [
                SweepRecord(**dict(r))
                for r in self.db.execute(f"SELECT {', '.join(_RECORD_FIELDS)} FROM sweeps ORDER BY rowid")
            ]
        out = []
        for label, keys in self.sweep_keys().items():
            query = "SELECT family FROM planned WHERE sweep = ? LIMIT 1"
            (family,) = self.db.execute(query, (label,)).fetchone()
            out.append(SweepRecord(label, label, config_hash(keys), family, len(keys)))
        return out

    def sweep_keys(self) -> dict[str, set[str]]:
        """``{sweep label: its task keys}``."""
        out: dict[str, set[str]] = {}
        query = (
            "SELECT sweep, key FROM sweep_tasks ORDER BY rowid"
            if self.layout >= 4
            else "SELECT sweep, key FROM planned ORDER BY rowid"
        )
        for label, key in self.db.execute(query):
            out.setdefault(label, set()).add(key)
        return out

    @staticmethod
    def _label_for(name: str, digest: str, held: list[SweepRecord]) -> str:
        """The label of sweep ``(name, digest)`` among ``held``: its own if held, else a free one."""
        for h in held:
            if (h.name, h.config_hash) == (name, digest):
                return h.label
        taken = {h.label for h in held}
        for label in (name, f"{name}@{digest[:8]}", f"{name}@{digest}"):
            if label not in taken:
                return label
        raise InputError(f"sweep {name!r}: no free label for configuration {digest}")  # pragma: no cover

    def _insert_sweeps(self, records: list[SweepRecord], members: Iterable[tuple[str, str]]) -> None:
        self.db.executemany(
            f"INSERT OR IGNORE INTO sweeps ({', '.join(_RECORD_FIELDS)}) VALUES "
            f"({', '.join('?' * len(_RECORD_FIELDS))})",
            [tuple(getattr(r, f) for f in _RECORD_FIELDS) for r in records],
        )
        self.db.executemany("INSERT OR IGNORE INTO sweep_tasks (sweep, key) VALUES (?, ?)", list(members))

    # --- writing ----------------------------------------------------------------
    def plan(self, tasks: Iterable[Mapping[str, Any]]) -> list[SweepRecord]:
        """Record planned tasks (idempotent) and the sweeps they belong to (each task's ``sweep``).

        A task may come once per sweep that plans it; it is stored once and belongs
        to each. A sweep is identified by its name and :func:`config_hash`: the same
        pair again resumes it. Any other sweep, into a store that already holds one,
        is recorded apart (label :attr:`SweepRecord.label`) with a :class:`SweepWarning`.

        Returns
        -------
        list of SweepRecord
            The sweeps of ``tasks``, as recorded.

        Raises
        ------
        InputError
            The store has an older layout that is not upgraded (read-only).
        """
        self._require_writable()
        tasks = list(tasks)
        by_sweep: dict[str, list[Mapping[str, Any]]] = {}
        for t in tasks:
            by_sweep.setdefault(t["sweep"], []).append(t)
        held = self.sweeps()
        before = list(held)
        planned_before = {r[0] for r in self.db.execute("SELECT key FROM planned")}
        now, host = datetime.now(UTC).isoformat(timespec="seconds"), socket.gethostname()
        records, members = [], []
        for name, mine in by_sweep.items():
            keys = sorted({t["key"] for t in mine})
            digest = config_hash(keys)
            label = self._label_for(name, digest, held)
            record = next((h for h in held if h.label == label), None)
            if record is None:
                record = SweepRecord(label, name, digest, mine[0]["family"], len(keys), now, host)
                held.append(record)
                if before:
                    shared = sum(k in planned_before for k in keys)
                    renamed = any(h.name == name for h in before)
                    warnings.warn(
                        SweepWarning(
                            f"{self.path} holds sweep{'s' if len(before) > 1 else ''} "
                            f"{', '.join(repr(h.label) for h in before)}; sweep {name!r} "
                            + ("has another configuration there; this one " if renamed else "")
                            + f"({len(keys)} tasks, {shared} of them already planned, configuration "
                            f"{digest[:8]}) is recorded apart as {label!r}: `volsched report "
                            f"{self.path} --sweep {label}` shows it alone"
                        ),
                        stacklevel=2,
                    )
            records.append(record)
            members += [(label, k) for k in keys]
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self._insert_planned(tasks)
            self._insert_sweeps(records, members)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return records

    def _insert_planned(self, tasks: Iterable[Mapping[str, Any]]) -> None:
        rows = [
            (
                t["key"],
                t["sweep"],
                t["family"],
                t["instance_key"],
                json.dumps(t["params"], sort_keys=True),
                t["method"],
                t["kind"],
                json.dumps(t["method_params"], sort_keys=True),
                t["problem"],
                t["sense"],
            )
            for t in tasks
        ]
        self.db.executemany("INSERT OR IGNORE INTO planned VALUES (?,?,?,?,?,?,?,?,?,?)", rows)

    def _insert_rows(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self.db.executemany(
            f"INSERT OR IGNORE INTO results ({','.join(RESULT_COLUMNS)}) "
            f"VALUES ({','.join('?' * len(RESULT_COLUMNS))})",
            [self._values(r) for r in rows],
        )

    @staticmethod
    def _values(row: Mapping[str, Any]) -> list[Any]:
        values = [row.get(c) for c in RESULT_COLUMNS]
        for c in JSON_COLUMNS:
            values[RESULT_COLUMNS.index(c)] = json.dumps(row.get(c, {}), sort_keys=True)
        return values

    def finished_keys(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT key FROM results")}

    def write(self, row: Mapping[str, Any]) -> bool:
        """Insert one finished task's row (a :class:`ResultRow` or a mapping with its keys), as is.

        Returns ``False`` (and changes nothing) if the key is already stored.

        Raises
        ------
        InputError
            The store has an older layout (read-only).
        """
        self._require_writable()
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            cur = db.execute(
                f"INSERT OR IGNORE INTO results ({','.join(RESULT_COLUMNS)}) "
                f"VALUES ({','.join('?' * len(RESULT_COLUMNS))})",
                self._values(row),
            )
            db.execute("COMMIT" if cur.rowcount else "ROLLBACK")
            return bool(cur.rowcount)
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # --- reading ----------------------------------------------------------------
    def _decoded(self, table: str, row: sqlite3.Row, columns: tuple[str, ...]) -> dict[str, Any]:
        d = dict(row)
        for c in columns:
            try:
                d[c] = json.loads(d[c])
            except (TypeError, ValueError):  # a damaged file, not a bug: the user's input
                raise InputError(
                    f"{self.path}: {table} row {d.get('key')!r}: column {c} is not JSON (a damaged store)"
                ) from None
        return d

    def rows(self) -> list[ResultRow]:
        """Every finished row, JSON columns decoded, in key order.

        Only this layout's columns are read: a :data:`READABLE` layout's other columns are ignored, and
        a column it lacks reads as ``None``.
        """
        select = ", ".join(c if c in self._present else f"NULL AS {c}" for c in RESULT_COLUMNS)
        return [
            ResultRow(**self._decoded("results", r, JSON_COLUMNS))
            for r in self.db.execute(f"SELECT {select} FROM results ORDER BY key")
        ]

    def planned(self) -> list[dict[str, Any]]:
        """Every planned task (finished or not), JSON columns decoded, in key order."""
        return [
            self._decoded("planned", r, ("params", "method_params"))
            for r in self.db.execute("SELECT * FROM planned ORDER BY key")
        ]

    def to_frame(self) -> pd.DataFrame:
        """One row per finished run, as a pandas DataFrame (:func:`volsched.experiments.runs.runs_frame`).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "s.db") as store:
        ...     len(store.to_frame())
        0
        """
        from .runs import runs_frame

        return runs_frame(self)


_RECORD_FIELDS = tuple(f.name for f in fields(SweepRecord))
