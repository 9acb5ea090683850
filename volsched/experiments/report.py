"""Reports over a results store: exact-method tables, heuristic ratios, Casanova metrics.

:func:`summarize` turns a :class:`~volsched.experiments.store.Store` into one
JSON-ready dict (``None`` where a statistic is undefined, never NaN);
:func:`to_markdown` and :func:`write_csv` render it. Two kinds of heuristic
scores are reported side by side:

* the **ratio to the optimum**, read from the store's ``ratio`` column, only
  over rows whose instance's exact row *proved* optimality; rows whose exact
  row did not prove it only know an interval ``[ratio_lo, ratio_hi]`` and are
  counted and summarised separately (``unproven_*``), never mixed in;
* the **relative metrics against a reference heuristic** of Casanova et al.
  2013 (HCW), Section VII-A: %diff, stdv, %wins, %wins30.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from volsched.experiments.store import Store
from volsched.instances.errors import InputError
from volsched.solvers.result import relative_gap

EXACT_STATUSES = ("optimal", "feasible", "infeasible", "unknown", "timeout", "error")
FAILED = ("error", "timeout")
WITHIN = 1.1
WINS_SLACK = 1.3

EXACT_COLUMNS = (
    "family", "method", "instances", "runs", *EXACT_STATUSES,
    "runtime_mean", "runtime_max", "gap_mean", "gap_max",
)
HEURISTIC_COLUMNS = (
    "family", "method", "metric", "instances", "runs", "ok", "fails", "value_mean",
    "proven", "ratio_mean", "ratio_median", "ratio_p90", "ratio_max", "within_1_1", "below_1",
    "unproven", "unproven_open", "unproven_ratio_lo_mean", "unproven_ratio_hi_mean",
    "unproven_ratio_hi_max", "no_exact",
    "reference", "scenarios", "trials", "pct_diff", "stdv", "pct_wins", "pct_wins30",
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


#: Generator parameters that number the trials of a scenario rather than define it: the replicate
#: seed, and the ``trial`` of a coupled paper realization (Section VII-A: 10 trials per scenario).
TRIAL_KEYS = ("seed", "trial")


def scenario_of(params: dict) -> str:
    """The scenario of an instance: its generator parameters without :data:`TRIAL_KEYS` (canonical JSON)."""
    return json.dumps({k: v for k, v in params.items() if k not in TRIAL_KEYS}, sort_keys=True)


def _values_by_instance(rows: list[dict], family: str, method: str) -> dict[str, tuple[float, str, dict]]:
    """``{instance_key: (mean value, sense, params)}`` of the successful runs of one heuristic."""
    acc: dict[str, list] = defaultdict(list)
    meta: dict[str, tuple[str, dict]] = {}
    for r in rows:
        if (r["family"] == family and r["method"] == method and r["kind"] == "heuristic"
                and r["status"] == "ok" and r["objective"] is not None):
            acc[r["instance_key"]].append(r["objective"])
            meta[r["instance_key"]] = (r["sense"], r["params"])
    return {k: (float(np.mean(v)), *meta[k]) for k, v in acc.items()}


def relative_difference(value: float, ref: float, sense: str) -> float | None:
    """Casanova et al. 2013 (HCW), Section VII-A: ``(v_H - v_ref) / min(v_H, v_ref)``.

    The denominator is the smaller value (for makespans, the better one), so a
    heuristic twice as slow as the reference scores +1 and one twice as fast
    scores -1. For ``sense == "max"`` the sign is mirrored,
    ``(v_ref - v_H) / min(v_H, v_ref)``: this is exactly the formula applied to
    the reciprocals ``1/v`` (the paper notes that minimising the makespan of a
    fixed number of iterations and maximising the iterations before a deadline
    are equivalent), so positive always means "worse than the reference".
    ``None`` when the values differ and the smaller one is not positive.
    """
    if value == ref:
        return 0.0
    low = min(value, ref)
    if low <= 0:
        return None
    return (value - ref) / low if sense == "min" else (ref - value) / low


def scenario_differences(rows: list[dict], family: str, heuristic: str,
                         reference: str) -> tuple[list[tuple[dict, float]], list[tuple[float, float, str]]]:
    """Per-scenario relative differences and the paired trials behind them.

    A scenario is ``(family, generator parameters without "seed")``, its trials
    the seeds. Only trials where both ``heuristic`` and ``reference`` succeeded
    (status ``ok``) are paired; each scenario's values are averaged over those
    trials before :func:`relative_difference` is applied (Casanova et al. 2013,
    Section VII-A: "averaged over all 10 trials").

    Returns
    -------
    diffs : list of (params without seed, relative difference)
        One entry per scenario with a defined difference, in scenario order.
    trials : list of (value_H, value_ref, sense)
        Every paired trial.
    """
    mine = _values_by_instance(rows, family, heuristic)
    ref = _values_by_instance(rows, family, reference)
    by_scenario: dict[str, list[tuple[float, float, str, dict]]] = defaultdict(list)
    for key in sorted(mine.keys() & ref.keys()):
        v, sense, params = mine[key]
        by_scenario[scenario_of(params)].append((v, ref[key][0], sense, params))
    diffs, trials = [], []
    for scenario in sorted(by_scenario):
        pairs = by_scenario[scenario]
        trials += [(v, w, s) for v, w, s, _ in pairs]
        d = relative_difference(float(np.mean([p[0] for p in pairs])), float(np.mean([p[1] for p in pairs])),
                                pairs[0][2])
        if d is not None:
            diffs.append(({k: x for k, x in pairs[0][3].items() if k not in TRIAL_KEYS}, d))
    return diffs, trials


def casanova_metrics(rows: list[dict], family: str, heuristic: str, reference: str | None) -> dict:
    """%diff, stdv, %wins, %wins30 of ``heuristic`` against ``reference`` (Casanova et al. 2013, VII-A).

    * ``pct_diff``: 100 x the mean over scenarios of :func:`relative_difference`
      of the scenario means;
    * ``stdv``: the (population, ``ddof=0``) standard deviation of those
      per-scenario differences, as a fraction like the paper's column;
    * ``pct_wins``: 100 x the share of paired trials with ``v_H <= v_ref``;
    * ``pct_wins30``: 100 x the share with ``v_H <= 1.3 v_ref``.

    For ``sense == "max"`` larger is better: a win is ``v_H >= v_ref`` and a
    win30 is ``1.3 v_H >= v_ref`` (the same test on ``1/v``). The reference
    against itself gives 0, 0, 100, 100 through these same formulas.
    """
    empty = {"reference": reference, "scenarios": 0, "trials": 0, "pct_diff": None, "stdv": None,
             "pct_wins": None, "pct_wins30": None}
    if reference is None or any(r["sense"] is None for r in rows
                                if r["family"] == family and r["kind"] == "heuristic"):
        return empty
    diffs, trials = scenario_differences(rows, family, heuristic, reference)
    d = np.asarray([x for _, x in diffs], dtype=float)
    wins = [v <= w if s == "min" else v >= w for v, w, s in trials]
    wins30 = [v <= WINS_SLACK * w if s == "min" else WINS_SLACK * v >= w for v, w, s in trials]
    return {**empty, "scenarios": int(d.size), "trials": len(trials),
            "pct_diff": _float(100 * d.mean()) if d.size else None,
            "stdv": _float(d.std()) if d.size else None,
            "pct_wins": _float(100 * np.mean(wins)) if trials else None,
            "pct_wins30": _float(100 * np.mean(wins30)) if trials else None}


def _exact_stats(family: str, method: str, rs: list[dict]) -> dict:
    counts = {s: sum(r["status"] == s for r in rs) for s in EXACT_STATUSES}
    gaps = [relative_gap(r["objective"], r["bound"]) for r in rs if r["status"] in ("optimal", "feasible")]
    runtimes = [r["runtime_s"] for r in rs]
    return {"family": family, "kind": "exact", "method": method,
            "instances": len({r["instance_key"] for r in rs}), "runs": len(rs), **counts,
            "runtime_mean": _mean(runtimes), "runtime_max": _max(runtimes),
            "gap_mean": _mean(gaps), "gap_max": _max(gaps)}


def _heuristic_stats(family: str, method: str, rs: list[dict], rows: list[dict],
                     reference: str | None) -> dict:
    ok = [r for r in rs if r["status"] == "ok" and r["objective"] is not None]
    ratios = np.asarray([r["ratio"] for r in ok if r["optimum_proven"] == 1 and r["ratio"] is not None])
    unproven = [r for r in ok if r["optimum_proven"] == 0]
    have = ratios.size > 0
    return {
        "family": family, "kind": "heuristic", "method": method, "metric": rs[0].get("metric", "objective"),
        "instances": len({r["instance_key"] for r in rs}), "runs": len(rs), "ok": len(ok),
        "value_mean": _mean(r["objective"] for r in ok),
        "fails": sum(r["status"] in FAILED for r in rs),
        "proven": int(ratios.size),
        "ratio_mean": _float(ratios.mean()) if have else None,
        "ratio_median": _float(np.median(ratios)) if have else None,
        # numpy's default ("linear") percentile: interpolates between order statistics.
        "ratio_p90": _float(np.percentile(ratios, 90)) if have else None,
        "ratio_max": _float(ratios.max()) if have else None,
        "within_1_1": _float(np.mean(ratios <= WITHIN)) if have else None,
        # The store keeps a proven ratio below 1 (beyond rounding) unclamped: a heuristic beating a proof.
        "below_1": int(np.sum(ratios < 1.0)),
        "unproven": len(unproven),
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
        row = {**r, "metric": metric, "objective": (r.get("metrics") or {}).get(metric),
               "sense": declared.sense}
        if not objective:
            row.update(ratio=None, ratio_lo=None, ratio_hi=None)
        out.append(row)
    if metric not in known:
        raise InputError(f"--metric: {metric!r} is not a metric of the store's problems "
                         f"(declared: {sorted(known)})")
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
        without a row), ``errors``, ``timeouts``, ``reference`` (``{family:
        name}``) and ``rows``: exact methods first, then heuristics, each sorted
        by (family, method), with the keys of :data:`EXACT_COLUMNS` or
        :data:`HEURISTIC_COLUMNS` plus ``kind``. Ratio statistics cover only rows
        whose exact row proved optimality (``below_1`` counts proven ratios
        below 1, which the store keeps to expose a heuristic beating a proof,
        i.e. a bug); the others' intervals are summarised
        in the ``unproven_*`` keys (a mean over the rows where that end of the
        interval is known; ``unproven_open`` counts rows missing an end).
        Undefined statistics are ``None``; ``json.dumps(..., allow_nan=False)``
        accepts the result.

    Raises
    ------
    InputError
        ``reference`` is not a heuristic in the store.
    """
    planned, rows = store.planned(), on_metric(store.rows(), metric)
    refs = resolve_reference(rows, reference)
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["kind"] != "exact", r["family"], r["method"])].append(r)
    out = []
    for (is_heuristic, family, method), rs in sorted(groups.items()):
        out.append(_heuristic_stats(family, method, rs, rows, refs.get(family)) if is_heuristic
                   else _exact_stats(family, method, rs))
    finished = {r["key"] for r in rows}
    return {"tasks": len(planned), "done": len(rows),
            "pending": sum(p["key"] not in finished for p in planned),
            "errors": sum(r["status"] == "error" for r in rows),
            "timeouts": sum(r["status"] == "timeout" for r in rows),
            "reference": refs, "rows": out}


def _tables(summary: dict) -> dict[str, tuple[tuple[str, ...], list[dict]]]:
    rows = summary["rows"]
    return {"exact": (EXACT_COLUMNS, [r for r in rows if r["kind"] == "exact"]),
            "heuristics": (HEURISTIC_COLUMNS, [r for r in rows if r["kind"] == "heuristic"])}


def _fmt(x: Any, spec: str) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return format(x, spec)
    return str(x)


def _markdown_table(header: list[str], lines: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return out + ["| " + " | ".join(line) + " |" for line in lines]


def to_markdown(summary: dict) -> str:
    """Markdown: a progress line, a table of exact methods, a table of heuristics.

    Ratios are printed with 3 decimals, percentages with 2 (as in Casanova et
    al. 2013, Table I), gaps with 4, runtimes with 3 significant digits. The unproven rows'
    mean interval is printed as ``[lo, hi]`` in its own column.
    """
    s = summary
    out = [f"tasks {s['tasks']}, done {s['done']}, pending {s['pending']}, "
           f"errors {s['errors']}, timeouts {s['timeouts']}", ""]
    _, exact = _tables(s)["exact"]
    _, heur = _tables(s)["heuristics"]
    if exact:
        out += ["## Exact methods", ""]
        out += _markdown_table(
            ["family", "method", "instances", "runs", *EXACT_STATUSES, "runtime mean (s)", "runtime max (s)",
             "gap mean", "gap max"],
            [[r["family"], r["method"], str(r["instances"]), str(r["runs"]),
              *(str(r[k]) for k in EXACT_STATUSES),
              _fmt(r["runtime_mean"], ".3g"), _fmt(r["runtime_max"], ".3g"),
              _fmt(r["gap_mean"], ".4f"), _fmt(r["gap_max"], ".4f")] for r in exact])
        out.append("")
    if heur:
        out += ["## Heuristics", "",
                "Ratios to the optimum over instances with a proven optimum; `unproven` rows only "
                "know an interval (mean `[lo, hi]`). %diff, stdv, %wins, %wins30 against the "
                "reference heuristic, as Casanova et al. 2013 (Section VII-A) define them.", ""]
        out += _markdown_table(
            ["family", "heuristic", "metric", "mean", "instances", "fails", "proven", "ratio mean", "median",
             "p90", "max", "<=1.1", "<1 (bug)", "unproven", "unproven ratio [lo, hi]", "unproven hi max",
             "no exact",
             "reference", "%diff", "stdv", "%wins", "%wins30", "runtime mean (s)"],
            [[r["family"], r["method"], r["metric"], _fmt(r["value_mean"], ".4g"), str(r["instances"]),
              str(r["fails"]), str(r["proven"]),
              *(_fmt(r[k], ".3f") for k in ("ratio_mean", "ratio_median", "ratio_p90", "ratio_max",
                                            "within_1_1")),
              str(r["below_1"]), str(r["unproven"]),
              (f"[{_fmt(r['unproven_ratio_lo_mean'], '.3f')}, {_fmt(r['unproven_ratio_hi_mean'], '.3f')}]"
               if r["unproven"] else "-"),
              _fmt(r["unproven_ratio_hi_max"], ".3f"), str(r["no_exact"]), _fmt(r["reference"], ""),
              _fmt(r["pct_diff"], ".2f"), _fmt(r["stdv"], ".2f"), _fmt(r["pct_wins"], ".2f"),
              _fmt(r["pct_wins30"], ".2f"), _fmt(r["runtime_mean"], ".3g")] for r in heur])
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
