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
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from volsched.instances.errors import InputError

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
    timestamp TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_instance ON results(instance_key);
"""
#: ``PRAGMA user_version`` of the layout above. Layout 1 (volsched 0.1) had no
#: ``problem`` and ``metrics`` columns and keyed heuristic tasks without their
#: seed: its rows cannot be re-keyed, so such a store is refused. Layout 2 also
#: stored ratio columns, filled as rows arrived; this layout stores none.
SCHEMA_VERSION = 3
#: Older layouts that can still be read (never written): ``{version: its results
#: columns}``. A reader ignores the columns this layout dropped and reads the ones
#: it added as ``None``.
READABLE = {
    2: ("key", "sweep", "family", "instance_key", "instance", "params", "method", "kind",
        "method_params", "problem", "sense", "status", "objective", "bound", "metrics", "runtime_s",
        "optimum", "optimum_bound", "optimum_proven", "ratio", "ratio_lo", "ratio_hi", "error",
        "versions", "host", "timestamp"),
}  # fmt: skip

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
    error : str or None
    versions : dict
    host, timestamp : str
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


def _columns(db: sqlite3.Connection) -> dict[str, list[str]]:
    return {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in ("planned", "results")}


def _reference() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    return db


def _has_layout(columns: dict[str, list[str]], version: int) -> bool:
    """Whether ``columns`` are those of layout ``version`` (this one, or a :data:`READABLE` one)."""
    expected = _columns(_reference())
    if version == SCHEMA_VERSION:
        return columns == expected
    return columns["planned"] == expected["planned"] and columns["results"] == list(READABLE[version])


class Store:
    """A results store at ``path`` (created on first use)."""

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
        self.db = None
        try:
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            tables = self.db.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
            if not create and not tables:  # reading must not turn a user's file into a store
                raise InputError(f"{self.path}: not a volsched store (no tables)")
            if tables and version != SCHEMA_VERSION and version not in READABLE:
                age = "an older" if version < SCHEMA_VERSION else "a newer"
                raise InputError(
                    f"{self.path}: a results store of layout {version or 1}, written by {age} "
                    f"volsched; this one reads and writes layout {SCHEMA_VERSION} (heuristic "
                    "runs keyed by their seed, metrics per row, no stored ratios) and reads "
                    f"layout {', '.join(map(str, READABLE))}. Start a new store; the old one is "
                    "unchanged"
                )
            if tables and not _has_layout(_columns(self.db), version):
                raise InputError(
                    f"{self.path}: not a volsched store (its tables do not have the store's "
                    "columns; a damaged file?)"
                )
            # Every page is read once now, so that damage is refused before any write. Tables or not: a
            # damaged first page can hide every table, and the file would then be "created" over.
            if self.db.execute("PRAGMA page_count").fetchone()[0]:
                damage = self.db.execute("PRAGMA quick_check(1)").fetchone()[0]
                if damage != "ok":
                    raise InputError(
                        f"{self.path}: not a volsched store (database disk image is malformed: "
                        f"{' '.join(damage.split())}); it is left unchanged"
                    )
            self.db.execute("PRAGMA synchronous=NORMAL")
            if not tables:  # a new store; its journal mode and layout version persist in the file
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.executescript(SCHEMA)
                self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self.layout = version if tables else SCHEMA_VERSION
            self._present = set(_columns(self.db)["results"])
        except BaseException as exc:
            if self.db is not None:  # closed, so that no -wal/-shm file is left beside a refused file
                self.db.close()
            if isinstance(exc, (sqlite3.DatabaseError, UnicodeDecodeError)):  # a damaged or foreign file
                raise InputError(f"{self.path}: not a volsched store ({exc})") from None
            raise
        self.db.row_factory = sqlite3.Row

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _require_writable(self) -> None:
        if self.layout != SCHEMA_VERSION:
            raise InputError(
                f"{self.path}: a results store of layout {self.layout}, written by an older "
                f"volsched: this one reads it (its stored ratio columns are ignored, the "
                f"report recomputes them from the rows) but writes layout {SCHEMA_VERSION} "
                "only. Start a new store; the old one is unchanged"
            )

    def plan(self, tasks: Iterable[dict]) -> None:
        """Record planned tasks (idempotent).

        Raises
        ------
        InputError
            The store has an older layout (read-only).
        """
        self._require_writable()
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
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany("INSERT OR IGNORE INTO planned VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

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
        values = [row.get(c) for c in RESULT_COLUMNS]
        for c in JSON_COLUMNS:
            values[RESULT_COLUMNS.index(c)] = json.dumps(row.get(c, {}), sort_keys=True)
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            cur = db.execute(
                f"INSERT OR IGNORE INTO results ({','.join(RESULT_COLUMNS)}) "
                f"VALUES ({','.join('?' * len(RESULT_COLUMNS))})",
                values,
            )
            db.execute("COMMIT" if cur.rowcount else "ROLLBACK")
            return bool(cur.rowcount)
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _decoded(self, table: str, row, columns: tuple[str, ...]) -> dict:
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

    def planned(self) -> list[dict]:
        return [
            self._decoded("planned", r, ("params", "method_params"))
            for r in self.db.execute("SELECT * FROM planned ORDER BY key")
        ]
