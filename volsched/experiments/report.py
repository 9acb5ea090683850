"""Reports over a results store: exact-method tables, heuristic ratios, Casanova metrics.

:func:`summarize` turns a :class:`~volsched.experiments.store.Store` into one
JSON-ready dict (``None`` where a statistic is undefined, never NaN);
:func:`to_markdown` and :func:`write_csv` render it. Two kinds of heuristic
scores are reported side by side:

* the **ratio to the optimum**, computed from the store's rows by
  :func:`volsched.ratios.score_rows`, only over rows whose instance's exact row
  *proved* optimality; rows whose exact row did not prove it only know an
  interval ``[ratio_lo, ratio_hi]`` (to the best known value, the proven bound)
  and are counted and summarised separately (``unproven_*``), never mixed in;
* the **relative metrics against a reference heuristic** of Casanova et al.
  2013 (HCW), Section VII-A: %diff, stdv, %wins, %wins30
  (:func:`volsched.ratios.casanova_metrics`).

Any ratio below 1 beyond rounding (:func:`volsched.ratios.is_defect`: a value
better than a proven optimum or bound) is a **defect**, counted per heuristic
and in total.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from volsched.experiments.store import Store
from volsched.instances.errors import InputError
from volsched.ratios import (
    TRIAL_KEYS,
    casanova_metrics,
    count_defects,
    relative_difference,
    scenario_differences,
    scenario_of,
    score_rows,
)
from volsched.solvers.result import relative_gap

EXACT_STATUSES = ("optimal", "feasible", "infeasible", "unknown", "timeout", "error")
FAILED = ("error", "timeout")
WITHIN = 1.1

EXACT_COLUMNS = (
    "family",
    "method",
    "instances",
    "runs",
    *EXACT_STATUSES,
    "runtime_mean",
    "runtime_max",
    "gap_mean",
    "gap_max",
)
HEURISTIC_COLUMNS = (
    "family",
    "method",
    "metric",
    "instances",
    "runs",
    "ok",
    "fails",
    "value_mean",
    "proven",
    "ratio_mean",
    "ratio_median",
    "ratio_p90",
    "ratio_max",
    "within_1_1",
    "below_1",
    "defects",
    "unproven",
    "clock_cut",
    "unproven_open",
    "unproven_ratio_lo_mean",
    "unproven_ratio_hi_mean",
    "unproven_ratio_hi_max",
    "no_exact",
    "reference",
    "scenarios",
    "trials",
    "pct_diff",
    "stdv",
    "pct_wins",
    "pct_wins30",
    "runtime_mean",
)


def _float(x: Any) -> float | None:
    """A JSON-safe float: ``None`` for missing, NaN or infinite values."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _stat(fn: Callable[[np.ndarray], Any], values: Iterable[float | None]) -> float | None:
    a = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    return _float(fn(a)) if a.size else None


def _mean(values: Iterable[float | None]) -> float | None:
    return _stat(np.mean, values)


def _max(values: Iterable[float | None]) -> float | None:
    return _stat(np.max, values)


def heuristic_names(rows: list[dict]) -> dict[str, list[str]]:
    """``{family: sorted heuristic names}`` over the store's finished rows."""
    names: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        if r["kind"] == "heuristic":
            names[r["family"]].add(r["method"])
    return {f: sorted(n) for f, n in sorted(names.items())}


def resolve_reference(rows: list[dict], reference: str | None = None) -> dict[str, str | None]:
    """The reference heuristic of each family.

    ``reference=None`` picks, per family, the first heuristic in name order; a
    name given must be a heuristic of at least one family in the store (a family
    without it gets ``None`` and no relative metrics).

    Raises
    ------
    InputError
        ``reference`` is not a heuristic in the store.
    """
    names = heuristic_names(rows)
    if reference is None:
        return {f: n[0] for f, n in names.items()}
    if not any(reference in n for n in names.values()):
        known = sorted({h for n in names.values() for h in n})
        raise InputError(f"--reference: {reference!r} is not a heuristic in the store (heuristics: {known})")
    return {f: (reference if reference in n else None) for f, n in names.items()}


def _exact_stats(family: str, method: str, rs: list[dict]) -> dict:
    counts = {s: sum(r["status"] == s for r in rs) for s in EXACT_STATUSES}
    gaps = [relative_gap(r["objective"], r["bound"]) for r in rs if r["status"] in ("optimal", "feasible")]
    runtimes = [r["runtime_s"] for r in rs]
    return {
        "family": family,
        "kind": "exact",
        "method": method,
        "instances": len({r["instance_key"] for r in rs}),
        "runs": len(rs),
        **counts,
        "runtime_mean": _mean(runtimes),
        "runtime_max": _max(runtimes),
        "gap_mean": _mean(gaps),
        "gap_max": _max(gaps),
    }


def _heuristic_stats(
    family: str, method: str, rs: list[dict], rows: list[dict], reference: str | None
) -> dict:
    ok = [r for r in rs if r["status"] == "ok" and r["objective"] is not None]
    cut = {(r["instance_key"], r["problem"]) for r in rows
           if r["kind"] == "exact" and r["status"] == "timeout"}
    ratios = np.asarray([r["ratio"] for r in ok if r["optimum_proven"] == 1 and r["ratio"] is not None])
    unproven = [r for r in ok if r["optimum_proven"] == 0]
    have = ratios.size > 0
    return {
        "family": family,
        "kind": "heuristic",
        "method": method,
        "metric": rs[0].get("metric", "objective"),
        "instances": len({r["instance_key"] for r in rs}),
        "runs": len(rs),
        "ok": len(ok),
        "value_mean": _mean(r["objective"] for r in ok),
        "fails": sum(r["status"] in FAILED for r in rs),
        "proven": int(ratios.size),
        "ratio_mean": _float(ratios.mean()) if have else None,
        "ratio_median": _float(np.median(ratios)) if have else None,
        # numpy's default ("linear") percentile: interpolates between order statistics.
        "ratio_p90": _float(np.percentile(ratios, 90)) if have else None,
        "ratio_max": _float(ratios.max()) if have else None,
        "within_1_1": _float(np.mean(ratios <= WITHIN)) if have else None,
        # A proven ratio below 1 (beyond rounding) is kept unclamped: a heuristic beating a proof.
        "below_1": int(np.sum(ratios < 1.0)),
        "defects": count_defects(ok),
        "unproven": len(unproven),
        # Runs whose reference a wall clock cut (a machine-dependent bound): never proven, so they
        # are among the unproven ones, and counted here so that a table says how many.
        "clock_cut": sum((r["instance_key"], r["problem"]) in cut for r in ok),
        "unproven_open": sum(r["ratio_lo"] is None or r["ratio_hi"] is None for r in unproven),
        "unproven_ratio_lo_mean": _mean(r["ratio_lo"] for r in unproven),
        "unproven_ratio_hi_mean": _mean(r["ratio_hi"] for r in unproven),
        "unproven_ratio_hi_max": _max(r["ratio_hi"] for r in unproven),
        "no_exact": sum(r["optimum_proven"] is None for r in ok),
        **casanova_metrics(rows, family, method, reference),
        "runtime_mean": _mean(r["runtime_s"] for r in rs),
    }


def on_metric(rows: list[dict], metric: str | None) -> list[dict]:
    """Rows whose heuristic values are ``metric`` (a problem's declared metric) instead of the objective.

    The ratio to the optimum exists only for a problem's objective metric;
    on any other metric the ratio columns are ``None`` and the relative
    metrics compare heuristics in that metric's sense. Rows of problems that
    do not declare ``metric`` are left out; an informative metric (no sense)
    gets no relative metrics.

    Raises
    ------
    InputError
        No problem of the store declares ``metric``.
    """
    from ..families import FAMILIES

    if metric is None:
        out = []
        for r in rows:
            family = FAMILIES.get(r["family"])
            problem = family.problems.get(r.get("problem")) if family else None
            out.append({**r, "metric": problem.objective_metric if problem else "objective"})
        return out
    out, known = [], set()
    for r in rows:
        family = FAMILIES.get(r["family"])
        problem = family.problems.get(r.get("problem")) if family else None
        if problem is None:
            continue
        known |= {m.name for m in problem.metrics}
        if r["kind"] == "exact" or metric not in {m.name for m in problem.metrics}:
            out.append(r) if r["kind"] == "exact" else None
            continue
        declared = problem.metric(metric)
        objective = metric == problem.objective_metric
        row = {
            **r,
            "metric": metric,
            "objective": (r.get("metrics") or {}).get(metric),
            "sense": declared.sense,
        }
        if not objective:
            row.update(ratio=None, ratio_lo=None, ratio_hi=None, defect=False)
        out.append(row)
    if metric not in known:
        raise InputError(
            f"--metric: {metric!r} is not a metric of the store's problems (declared: {sorted(known)})"
        )
    return out


def summarize(store: Store, reference: str | None = None, metric: str | None = None) -> dict:
    """Progress counts and one statistics row per (family, method) of a results store.

    Parameters
    ----------
    store : Store
        The results store.
    reference : str, optional
        Reference heuristic of the relative metrics (Casanova et al. 2013,
        Section VII-A, where it is IE). Default: per family, the first heuristic
        in name order.
    metric : str, optional
        A declared metric of the heuristics' problems (see :func:`on_metric`);
        default: each problem's objective.

    Returns
    -------
    dict
        ``tasks`` (planned), ``done`` (finished rows), ``pending`` (planned tasks
        without a row), ``errors``, ``timeouts``, ``defects``, ``reference`` (``{family:
        name}``) and ``rows``: exact methods first, then heuristics, each sorted
        by (family, method), with the keys of :data:`EXACT_COLUMNS` or
        :data:`HEURISTIC_COLUMNS` plus ``kind``. Ratios are
        :func:`volsched.ratios.score_rows`'. Ratio statistics cover only rows
        whose exact row proved optimality (``below_1`` counts proven ratios
        below 1, kept unclamped to expose a heuristic beating a proof, i.e. a
        bug); the others' intervals ``[value / best known, value / bound]`` are
        summarised in the ``unproven_*`` keys (a mean over the rows where that
        end of the interval is known; ``unproven_open`` counts rows missing an
        end). ``defects`` (per heuristic, and in total at the top level, on the
        objective whatever ``metric``) counts rows with any ratio below 1
        beyond rounding (:func:`volsched.ratios.is_defect`).
        Undefined statistics are ``None``; ``json.dumps(..., allow_nan=False)``
        accepts the result.

    Raises
    ------
    InputError
        ``reference`` is not a heuristic in the store.
    """
    scored = score_rows(store.rows())
    planned, rows = store.planned(), on_metric(scored, metric)
    refs = resolve_reference(rows, reference)
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["kind"] != "exact", r["family"], r["method"])].append(r)
    out = []
    for (is_heuristic, family, method), rs in sorted(groups.items()):
        out.append(
            _heuristic_stats(family, method, rs, rows, refs.get(family))
            if is_heuristic
            else _exact_stats(family, method, rs)
        )
    finished = {r["key"] for r in rows}
    return {
        "tasks": len(planned),
        "done": len(rows),
        "pending": sum(p["key"] not in finished for p in planned),
        "errors": sum(r["status"] == "error" for r in rows),
        "timeouts": sum(r["status"] == "timeout" for r in rows),
        "defects": count_defects(scored),
        "reference": refs,
        "rows": out,
    }


def _tables(summary: dict) -> dict[str, tuple[tuple[str, ...], list[dict]]]:
    rows = summary["rows"]
    return {
        "exact": (EXACT_COLUMNS, [r for r in rows if r["kind"] == "exact"]),
        "heuristics": (HEURISTIC_COLUMNS, [r for r in rows if r["kind"] == "heuristic"]),
    }


def _fmt(x: Any, spec: str) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return format(x, spec)
    return str(x)


def _interval(r: dict) -> str:
    return f"[{_fmt(r['unproven_ratio_lo_mean'], '.3f')}, {_fmt(r['unproven_ratio_hi_mean'], '.3f')}]"


def markdown_table(header: list[str], lines: list[list[str]]) -> list[str]:
    """A markdown table's lines: ``header``, the separator, one line per row of cells (strings)."""
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return out + ["| " + " | ".join(line) + " |" for line in lines]


def to_markdown(summary: dict) -> str:
    """Markdown: a progress line, a table of exact methods, a table of heuristics.

    Ratios are printed with 3 decimals, percentages with 2 (as in Casanova et
    al. 2013, Table I), gaps with 4, runtimes with 3 significant digits. The unproven rows'
    mean interval is printed as ``[lo, hi]`` in its own column.
    """
    s = summary
    out = [
        f"tasks {s['tasks']}, done {s['done']}, pending {s['pending']}, "
        f"errors {s['errors']}, timeouts {s['timeouts']}, defects {s['defects']}",
        "",
    ]
    _, exact = _tables(s)["exact"]
    _, heur = _tables(s)["heuristics"]
    if exact:
        out += ["## Exact methods", ""]
        out += markdown_table(
            [
                "family",
                "method",
                "instances",
                "runs",
                *EXACT_STATUSES,
                "runtime mean (s)",
                "runtime max (s)",
                "gap mean",
                "gap max",
            ],
            [
                [
                    r["family"],
                    r["method"],
                    str(r["instances"]),
                    str(r["runs"]),
                    *(str(r[k]) for k in EXACT_STATUSES),
                    _fmt(r["runtime_mean"], ".3g"),
                    _fmt(r["runtime_max"], ".3g"),
                    _fmt(r["gap_mean"], ".4f"),
                    _fmt(r["gap_max"], ".4f"),
                ]
                for r in exact
            ],
        )
        out.append("")
    if heur:
        out += [
            "## Heuristics",
            "",
            "Ratios to the optimum over instances with a proven optimum; `unproven` rows only "
            "know an interval (mean `[lo, hi]`: the value over the best known value, over the "
            "proven bound). `clock-cut`: unproven runs whose reference the wall-clock safety "
            "net stopped (its bound depends on the machine; a work budget decides every other "
            "row). `defects`: runs with a ratio below 1 beyond rounding, a value "
            "better than a proof (a bug). %diff, stdv, %wins, %wins30 against the "
            "reference heuristic, as Casanova et al. 2013 (Section VII-A) define them.",
            "",
        ]
        out += markdown_table(
            [
                "family",
                "heuristic",
                "metric",
                "mean",
                "instances",
                "fails",
                "proven",
                "ratio mean",
                "median",
                "p90",
                "max",
                "<=1.1",
                "defects",
                "unproven",
                "clock-cut",
                "unproven ratio [lo, hi]",
                "unproven hi max",
                "no exact",
                "reference",
                "%diff",
                "stdv",
                "%wins",
                "%wins30",
                "runtime mean (s)",
            ],
            [
                [
                    r["family"],
                    r["method"],
                    r["metric"],
                    _fmt(r["value_mean"], ".4g"),
                    str(r["instances"]),
                    str(r["fails"]),
                    str(r["proven"]),
                    *(
                        _fmt(r[k], ".3f")
                        for k in ("ratio_mean", "ratio_median", "ratio_p90", "ratio_max", "within_1_1")
                    ),
                    str(r["defects"]),
                    str(r["unproven"]),
                    str(r["clock_cut"]),
                    _interval(r) if r["unproven"] else "-",
                    _fmt(r["unproven_ratio_hi_max"], ".3f"),
                    str(r["no_exact"]),
                    _fmt(r["reference"], ""),
                    _fmt(r["pct_diff"], ".2f"),
                    _fmt(r["stdv"], ".2f"),
                    _fmt(r["pct_wins"], ".2f"),
                    _fmt(r["pct_wins30"], ".2f"),
                    _fmt(r["runtime_mean"], ".3g"),
                ]
                for r in heur
            ],
        )
        out.append("")
    if not exact and not heur:
        out.append("(no finished rows)")
    return "\n".join(out)


def write_csv(summary: dict, directory: Path) -> list[Path]:
    """Write ``exact.csv`` and ``heuristics.csv`` into ``directory`` (created if missing).

    Columns are :data:`EXACT_COLUMNS` / :data:`HEURISTIC_COLUMNS`; a missing
    statistic is an empty cell; floats are written in full precision (``repr``)
    so that reading them back gives the same numbers.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, (columns, rows) in _tables(summary).items():
        path = directory / f"{name}.csv"
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(columns)
            for r in rows:
                w.writerow(["" if r[c] is None else r[c] for c in columns])
        paths.append(path)
    return paths


# The relative metrics live in volsched.ratios; the figures and the benchmarks import them from here too.
__all__ = [
    "EXACT_COLUMNS",
    "HEURISTIC_COLUMNS",
    "TRIAL_KEYS",
    "casanova_metrics",
    "heuristic_names",
    "markdown_table",
    "on_metric",
    "relative_difference",
    "resolve_reference",
    "scenario_differences",
    "scenario_of",
    "summarize",
    "to_markdown",
    "write_csv",
]
