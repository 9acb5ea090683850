"""A store's runs as a table: one row per finished task, for pandas, CSV and parquet.

Each row is one run (an exact method's or a heuristic's) with the instance's
generator parameters, what ran, its value, its ratio to the optimum or the
interval that holds it, and whether the optimum behind the ratio is proven.
The ratios are :func:`volsched.ratios.score_rows`' (the one place ratios are
computed); nothing here recomputes them.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from volsched.instances.errors import InputError
from volsched.ratios import score_rows

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd

    from .store import Store

#: The fixed columns of :func:`run_records`, in order. Then come ``p_<name>`` (the instance's
#: generator parameters), ``method_<name>`` (the task's method parameters: ``seed``, ``time_limit``,
#: ``budget``, ``problem``) and ``metric_<name>`` (the run's declared metrics), each sorted by name.
RUN_COLUMNS = (
    "key",
    "sweep",
    "family",
    "instance",
    "instance_key",
    "kind",
    "method",
    "problem",
    "sense",
    "status",
    "value",
    "bound",
    "proven",
    "ratio",
    "ratio_lo",
    "ratio_hi",
    "optimum",
    "optimum_bound",
    "best_known",
    "defect",
    "work",
    "runtime_s",
    "cpu_s",
    "error",
    "host",
    "timestamp",
    "volsched",
)
#: The file types :func:`write_runs` writes, by extension.
RUN_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def _cell(value: Any) -> Any:
    """A scalar as is; a list or a table (a ``[low, high]`` parameter) as canonical JSON text."""
    return json.dumps(value, sort_keys=True) if isinstance(value, list | dict | tuple) else value


def _proven(row: Mapping[str, Any]) -> bool | None:
    """Exact row: whether it proved optimality. Run: whether its ratio's optimum is proven
    (``None``: no exact row to score it against, or the run failed)."""
    if row["kind"] == "exact":
        return row["status"] == "optimal"
    return None if row["optimum_proven"] is None else bool(row["optimum_proven"])


def run_records(store: Store) -> list[dict[str, Any]]:
    """One dict per finished run of ``store``: :data:`RUN_COLUMNS`, then ``p_*``, ``method_*``, ``metric_*``.

    ``value`` is the stored, verified value (an exact method's incumbent, a
    heuristic's value); ``bound`` an exact method's proven bound; ``ratio`` the
    run's ratio to the proven optimum, or ``None`` with ``[ratio_lo, ratio_hi]``
    the interval it lies in when the optimum is unproven; ``proven`` as
    :func:`_proven`; ``sweep`` the labels of the sweeps that planned the task,
    ``;``-separated. Every row has every column (``None`` where a run has no
    such parameter or metric).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from volsched.experiments.store import Store
    >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "s.db") as store:
    ...     run_records(store)
    []
    """
    owners: dict[str, list[str]] = {}
    for label, keys in store.sweep_keys().items():
        for key in keys:
            owners.setdefault(key, []).append(label)
    scored = score_rows(store.rows())
    params = sorted({k for r in scored for k in r["params"]})
    method = sorted({k for r in scored for k in r["method_params"]})
    metrics = sorted({k for r in scored for k in r["metrics"]})
    out = []
    for r in scored:
        record = {
            "key": r["key"],
            "sweep": ";".join(owners.get(r["key"], [r["sweep"]])),
            "family": r["family"],
            "instance": r["instance"],
            "instance_key": r["instance_key"],
            "kind": r["kind"],
            "method": r["method"],
            "problem": r["problem"],
            "sense": r["sense"],
            "status": r["status"],
            "value": r["objective"],
            "bound": r["bound"],
            "proven": _proven(r),
            "ratio": r["ratio"],
            "ratio_lo": r["ratio_lo"],
            "ratio_hi": r["ratio_hi"],
            "optimum": r["optimum"],
            "optimum_bound": r["optimum_bound"],
            "best_known": r["best_known"],
            "defect": bool(r["defect"]),
            "work": r["work"],
            "runtime_s": r["runtime_s"],
            "cpu_s": r["cpu_s"],
            "error": r["error"],
            "host": r["host"],
            "timestamp": r["timestamp"],
            "volsched": (r["versions"] or {}).get("volsched"),
        }
        record.update({f"p_{k}": _cell(r["params"].get(k)) for k in params})
        record.update({f"method_{k}": _cell(r["method_params"].get(k)) for k in method})
        record.update({f"metric_{k}": r["metrics"].get(k) for k in metrics})
        out.append(record)
    return out


def runs_frame(store: Store) -> pd.DataFrame:
    """:func:`run_records` as a pandas DataFrame (``proven`` a nullable boolean column).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from volsched.experiments.store import Store
    >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "s.db") as store:
    ...     list(runs_frame(store).columns[:4])
    ['key', 'sweep', 'family', 'instance']
    """
    import pandas as pd

    records = run_records(store)
    frame = pd.DataFrame.from_records(records, columns=list(records[0]) if records else list(RUN_COLUMNS))
    frame["proven"] = frame["proven"].astype("boolean")
    return frame


def check_runs_path(path: str | Path, option: str = "--runs") -> str:
    """The format of a runs file from its extension; ``InputError`` naming ``option`` otherwise.

    Parquet needs pyarrow, which volsched does not depend on: without it the
    error says so before anything is computed or written.

    Examples
    --------
    >>> check_runs_path("runs.csv")
    'csv'
    """
    suffix = Path(path).suffix.lower()
    if suffix not in RUN_FORMATS:
        raise InputError(
            f"{option}: {path}: give a .csv or .parquet file name (the extension chooses the format)"
        )
    kind = RUN_FORMATS[suffix]
    if kind == "parquet" and importlib.util.find_spec("pyarrow") is None:
        raise InputError(
            f"{option}: {path}: writing parquet needs pyarrow, which is not installed "
            "(pip install pyarrow), or give a .csv file"
        )
    folder = Path(path).parent
    if not folder.is_dir():
        raise InputError(f"{option}: {path}: folder {folder} does not exist")
    if Path(path).is_dir():
        raise InputError(f"{option}: {path} is a directory, not a file")
    return kind


def write_runs(store: Store, path: str | Path, option: str = "--runs") -> Path:
    """Write :func:`runs_frame` to ``path``: CSV or parquet by its extension (:func:`check_runs_path`).

    CSV cells hold floats in full precision; a missing value is an empty cell.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from volsched.experiments.store import Store
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with Store(folder / "s.db") as store:
    ...     write_runs(store, folder / "runs.csv").name
    'runs.csv'
    """
    kind = check_runs_path(path, option)
    frame = runs_frame(store)
    path = Path(path)
    try:
        if kind == "csv":
            frame.to_csv(path, index=False)
        else:
            frame.to_parquet(path, index=False)
    except OSError as exc:
        raise InputError(f"{option}: {path}: cannot write ({exc.strerror or exc})") from None
    return path


__all__ = ["RUN_COLUMNS", "RUN_FORMATS", "check_runs_path", "run_records", "runs_frame", "write_runs"]
