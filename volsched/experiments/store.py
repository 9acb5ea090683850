"""The results store: one SQLite file (WAL), written by the sweep driver only.

Two tables. ``planned`` holds every task a sweep asked for (so ``pending`` is
known), ``results`` one row per *finished* task. Each task's row is inserted in
one transaction keyed by the task key (``PRIMARY KEY``), so a process killed at
any moment leaves either the whole row or none, and never two.

A finished exact task also fills ``optimum`` / ``optimum_bound`` and the ratio
columns of the heuristic rows of the same instance and problem, and a heuristic row looks
its instance's exact row up when it is written; both happen inside the same
transaction as the insert.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from volsched.instances.errors import InputError

from ..evaluate import RATIO_RTOL

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
    optimum REAL,                  -- the instance's best known (exact incumbent) value
    optimum_bound REAL,            -- ... and its proven bound
    optimum_proven INTEGER,        -- 1 when the exact method proved optimality
    ratio REAL,                    -- heuristic / optimum when proven, else NULL
    ratio_lo REAL,                 -- interval when not proven: [value/incumbent, value/bound]
    ratio_hi REAL,
    error TEXT,
    versions TEXT NOT NULL,        -- JSON
    host TEXT NOT NULL,
    timestamp TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_instance ON results(instance_key);
"""
#: ``PRAGMA user_version`` of the layout above. Version 1 (volsched 0.1 before
#: issue 8) had no ``problem`` and ``metrics`` columns and keyed heuristic tasks
#: without their seed: its rows cannot be re-keyed, so such a store is refused.
SCHEMA_VERSION = 2

RESULT_COLUMNS = (
    "key", "sweep", "family", "instance_key", "instance", "params", "method", "kind",
    "method_params", "problem", "sense", "status", "objective", "bound", "metrics", "runtime_s", "error",
    "versions", "host", "timestamp",
)
PROVEN = "optimal"


def ratio_interval(value: float | None, optimum: float | None, bound: float | None,
                   proven: bool, sense: str) -> tuple[float | None, float | None, float | None]:
    """``(ratio, ratio_lo, ratio_hi)`` of a heuristic value against its instance's exact row.

    Minimisation: ``value / optimum`` when proven; otherwise the true optimum lies
    in ``[bound, incumbent]`` and the ratio in ``[value / incumbent, value / bound]``.
    Maximisation uses ``optimum / value`` and the mirrored interval. ``None``
    where a quotient is undefined (a zero or missing denominator). A proven
    ratio below ``1 - RATIO_RTOL`` is kept as is: it means a bug, and the
    report shows it.
    """

    def q(a, b):
        return None if a is None or b is None or b <= 0 else a / b

    if value is None or optimum is None:
        return None, None, None
    if sense == "min":
        lo, hi = q(value, optimum), q(value, bound if bound is not None and bound > 0 else None)
    else:
        lo, hi = q(optimum, value), q(bound, value)
    if proven:
        # Ties within rounding read as 1; a heuristic truly beating a proof stays visible below 1.
        r = None if lo is None else (1.0 if 1.0 - RATIO_RTOL <= lo < 1.0 else lo)
        return r, r, r
    return None, lo, hi


def _columns(db: sqlite3.Connection) -> dict[str, list[str]]:
    return {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in ("planned", "results")}


def _reference() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    return db


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
            if tables and version != SCHEMA_VERSION:
                age = "an older" if version < SCHEMA_VERSION else "a newer"
                raise InputError(f"{self.path}: a results store of layout {version or 1}, written by {age} "
                                 f"volsched; this one reads and writes layout {SCHEMA_VERSION} (heuristic "
                                 "runs keyed by their seed, metrics per row). Start a new store; the old "
                                 "one is unchanged")
            if tables and _columns(self.db) != _columns(_reference()):
                raise InputError(f"{self.path}: not a volsched store (its tables do not have the store's "
                                 "columns; a damaged file?)")
            # Every page is read once now, so that damage is refused before any write. Tables or not: a
            # damaged first page can hide every table, and the file would then be "created" over.
            if self.db.execute("PRAGMA page_count").fetchone()[0]:
                damage = self.db.execute("PRAGMA quick_check(1)").fetchone()[0]
                if damage != "ok":
                    raise InputError(f"{self.path}: not a volsched store (database disk image is malformed: "
                                     f"{' '.join(damage.split())}); it is left unchanged")
            self.db.execute("PRAGMA synchronous=NORMAL")
            if not tables:  # a new store; its journal mode and layout version persist in the file
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.executescript(SCHEMA)
                self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
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

    def plan(self, tasks: Iterable[dict]) -> None:
        """Record planned tasks (idempotent)."""
        rows = [(t["key"], t["sweep"], t["family"], t["instance_key"],
                 json.dumps(t["params"], sort_keys=True), t["method"], t["kind"],
                 json.dumps(t["method_params"], sort_keys=True), t["problem"], t["sense"])
                for t in tasks]
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany("INSERT OR IGNORE INTO planned VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def finished_keys(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT key FROM results")}

    def write(self, row: dict) -> bool:
        """Insert one finished task's row and link it with its instance's other rows.

        Returns ``False`` (and changes nothing) if the key is already stored.
        """
        values = [row.get(c) for c in RESULT_COLUMNS]
        for c in ("params", "method_params", "versions", "metrics"):
            values[RESULT_COLUMNS.index(c)] = json.dumps(row.get(c, {}), sort_keys=True)
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            cur = db.execute(
                f"INSERT OR IGNORE INTO results ({','.join(RESULT_COLUMNS)}) "
                f"VALUES ({','.join('?' * len(RESULT_COLUMNS))})", values)
            if cur.rowcount == 0:
                db.execute("ROLLBACK")
                return False
            if row["kind"] == "exact":
                self._link_exact(row)
            else:
                self._link_heuristic(row)
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _exact_row(self, instance_key: str, problem: str):
        return self.db.execute(
            "SELECT objective, bound, status FROM results WHERE instance_key=? AND problem=? "
            "AND kind='exact' AND status NOT IN ('error') ORDER BY (status='optimal') DESC LIMIT 1",
            (instance_key, problem)).fetchone()

    def _set_ratio(self, key: str, value, sense: str, exact) -> None:
        optimum, bound, status = ((exact["objective"], exact["bound"], exact["status"]) if exact
                                  else (None, None, None))
        proven = status == PROVEN
        r, lo, hi = ratio_interval(value, optimum, bound, proven, sense)
        self.db.execute(
            "UPDATE results SET optimum=?, optimum_bound=?, optimum_proven=?, ratio=?, ratio_lo=?, "
            "ratio_hi=? WHERE key=?", (optimum, bound, int(proven) if exact else None, r, lo, hi, key))

    def _link_exact(self, row: dict) -> None:
        exact = self._exact_row(row["instance_key"], row["problem"])
        self._set_ratio(row["key"], None, row["sense"], exact)
        for h in self.db.execute("SELECT key, objective, sense FROM results WHERE instance_key=? "
                                 "AND problem=? AND kind='heuristic'",
                                 (row["instance_key"], row["problem"])).fetchall():
            self._set_ratio(h["key"], h["objective"], h["sense"], exact)

    def _link_heuristic(self, row: dict) -> None:
        if row["status"] == "ok":
            self._set_ratio(row["key"], row["objective"], row["sense"],
                            self._exact_row(row["instance_key"], row["problem"]))

    def _decoded(self, table: str, row, columns: tuple[str, ...]) -> dict:
        d = dict(row)
        for c in columns:
            try:
                d[c] = json.loads(d[c])
            except (TypeError, ValueError):  # a damaged file, not a bug: the user's input
                raise InputError(f"{self.path}: {table} row {d.get('key')!r}: column {c} is not JSON "
                                 "(a damaged store)") from None
        return d

    def rows(self) -> list[dict]:
        """Every finished row, JSON columns decoded, in key order."""
        return [self._decoded("results", r, ("params", "method_params", "versions", "metrics"))
                for r in self.db.execute("SELECT * FROM results ORDER BY key")]

    def planned(self) -> list[dict]:
        return [self._decoded("planned", r, ("params", "method_params"))
                for r in self.db.execute("SELECT * FROM planned ORDER BY key")]
