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
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from volsched.families import FAMILIES
from volsched.instances.errors import InputError
from volsched.markdown import markdown_table
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

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from volsched.experiments.store import Store

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
    "cpu_mean",
    "cpu_max",
    "work_mean",
    "work_max",
    "gap_mean",
    "gap_max",
)
#: The summary columns of the store's volatile columns (seconds): two reports of one store's
#: task set, run twice, differ only there.
VOLATILE_STATS = ("runtime_mean", "runtime_max", "cpu_mean", "cpu_max")
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


#: The reference heuristic of each family's paper, the one its %diff is measured against: IE
#: (Casanova et al. 2013, Section VII-A), FCFS (Kondo et al. 2007, Section 3's baseline), Daly's
#: period (Bouguerra et al. 2011) and GAPS (Canon et al. 2011). It belongs to one problem of its
#: family; the family's heuristics of other problems get no default reference.
PAPER_REFERENCES = {"coupled": "IE", "prescient": "FCFS", "checkpoint": "daly", "slack": "gaps"}
PAPERS = {
    "coupled": "Casanova et al. 2013",
    "prescient": "Kondo et al. 2007",
    "checkpoint": "Bouguerra et al. 2011",
    "slack": "Canon et al. 2011",
}


def heuristic_names(rows: list[dict]) -> dict[str, list[str]]:
    """``{family: sorted heuristic names}`` over the store's finished rows."""
    names: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        if r["kind"] == "heuristic":
            names[r["family"]].add(r["method"])
    return {f: sorted(n) for f, n in sorted(names.items())}


def heuristic_problems(rows: list[dict]) -> dict[str, dict[str, list[str]]]:
    """``{family: {problem: sorted heuristic names}}``: the problem each heuristic is scored against."""
    names: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for r in rows:
        if r["kind"] == "heuristic":
            names[r["family"]][r["problem"]].add(r["method"])
    return {f: {p: sorted(n) for p, n in sorted(by.items())} for f, by in sorted(names.items())}


def _match(names: list[str], wanted: str) -> str | None:
    """``wanted`` among ``names``: exactly, else the one name equal to it ignoring case."""
    if wanted in names:
        return wanted
    folded = [n for n in names if n.casefold() == wanted.casefold()]
    return folded[0] if len(folded) == 1 else None


def resolve_references(rows: list[dict], reference: str | None = None) -> dict[str, dict[str, str | None]]:
    """The reference heuristic of each family's problems: ``{family: {problem: name or None}}``.

    The relative metrics compare only heuristics scored against the same problem
    (their values are on the same instance, in the same unit and sense). Per
    problem, the reference is:

    * ``reference``, where it is a heuristic of that problem (matched
      exactly, or ignoring case);
    * else the paper's (:data:`PAPER_REFERENCES`) where the family has one: its
      problem gets it when it is in the rows, ``None`` when it is not; its
      family's other problems get ``None`` (the paper has no reference there);
    * else (a family without a paper) the problem's first heuristic in name order.

    Raises
    ------
    InputError
        ``reference`` is not a heuristic in the rows.

    Examples
    --------
    >>> rows = [dict(kind="heuristic", family="slack", problem=p, method=m)
    ...         for p, m in (("slack", "gaps"), ("plain", "lpt"), ("plain", "list"))]
    >>> resolve_references(rows)
    {'slack': {'plain': None, 'slack': 'gaps'}}
    >>> resolve_references(rows, "LPT")
    {'slack': {'plain': 'lpt', 'slack': 'gaps'}}
    """
    table = heuristic_problems(rows)
    if reference is not None and not any(
        _match(names, reference) for problems in table.values() for names in problems.values()
    ):
        known = sorted({h for problems in table.values() for names in problems.values() for h in names})
        raise InputError(f"--reference: {reference!r} is not a heuristic in the store (heuristics: {known})")
    out: dict[str, dict[str, str | None]] = {}
    for family, problems in table.items():
        paper = PAPER_REFERENCES.get(family)
        out[family] = {}
        for problem, names in problems.items():
            given = _match(names, reference) if reference is not None else None
            if given is not None:
                out[family][problem] = given
            elif paper is not None:
                out[family][problem] = _match(names, paper)
            else:
                out[family][problem] = names[0]
    return out


def resolve_reference(rows: list[dict], reference: str | None = None) -> dict[str, str | None]:
    """One reference heuristic per family: ``reference`` where the family has it, else its paper's
    (:func:`resolve_references`; a family without a paper: its first heuristic in name order).

    Raises
    ------
    InputError
        ``reference`` is not a heuristic in the rows.
    """
    out: dict[str, str | None] = {}
    for family, problems in resolve_references(rows, reference).items():
        chosen = [n for n in problems.values() if n is not None]
        given = [n for n in chosen if reference is not None and n.casefold() == reference.casefold()]
        out[family] = (given or chosen or [None])[0]
    return out


def _exact_stats(family: str, method: str, rs: list[dict]) -> dict:
    counts = {s: sum(r["status"] == s for r in rs) for s in EXACT_STATUSES}
    gaps = [relative_gap(r["objective"], r["bound"]) for r in rs if r["status"] in ("optimal", "feasible")]
    runtimes, cpus, works = ([r[c] for r in rs] for c in ("runtime_s", "cpu_s", "work"))
    return {
        "family": family,
        "kind": "exact",
        "method": method,
        "instances": len({r["instance_key"] for r in rs}),
        "runs": len(rs),
        **counts,
        "runtime_mean": _mean(runtimes),
        "runtime_max": _max(runtimes),
        "cpu_mean": _mean(cpus),
        "cpu_max": _max(cpus),
        "work_mean": _mean(works),
        "work_max": _max(works),
        "gap_mean": _mean(gaps),
        "gap_max": _max(gaps),
    }


def _heuristic_stats(
    family: str, method: str, rs: list[dict], rows: list[dict], reference: str | None
) -> dict:
    """One heuristic's statistics; ``reference`` is its problem's (``None``: no relative metrics)."""
    ok = [r for r in rs if r["status"] == "ok" and r["objective"] is not None]
    cut = {
        (r["instance_key"], r["problem"]) for r in rows if r["kind"] == "exact" and r["status"] == "timeout"
    }
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
        Section VII-A, where it is IE) for the problem it is scored against.
        Default: each paper's (:data:`PAPER_REFERENCES`); see
        :func:`resolve_references`.
    metric : str, optional
        A declared metric of the heuristics' problems (see :func:`on_metric`);
        default: each problem's objective.

    Returns
    -------
    dict
        ``tasks`` (planned), ``done`` (finished rows), ``pending`` (planned tasks
        without a row), ``errors``, ``timeouts``, ``defects``, ``reference`` (``{family:
        name}``, :func:`resolve_reference`), ``references`` (``{family: {problem: name}}``,
        :func:`resolve_references`: each heuristic row's ``reference`` is its problem's),
        ``sweeps`` (the store's :class:`~volsched.experiments.store.SweepRecord` dicts without
        ``created`` and ``host``) and ``rows``: exact methods first, then heuristics, each sorted
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
    by_problem = resolve_references(rows, reference)
    groups: dict[tuple[bool, str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["kind"] != "exact", r["family"], r["method"])].append(r)
    out = []
    for (is_heuristic, family, method), rs in sorted(groups.items()):
        # Only the reference's own problem's rows: a heuristic of another problem is never compared with it.
        ref = by_problem.get(family, {}).get(rs[0]["problem"])
        same = [r for r in rows if r["family"] != family or r["problem"] == rs[0]["problem"]]
        out.append(
            _heuristic_stats(family, method, rs, same, ref)
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
        "reference": resolve_reference(rows, reference),
        "references": by_problem,
        # Where and when a sweep was planned is left out: a summary depends on the rows only.
        "sweeps": [
            {k: v for k, v in record.to_dict().items() if k not in ("created", "host")}
            for record in store.sweeps()
        ],
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


def _heuristic_cells() -> dict[str, tuple[str, Callable[[dict], str]]]:
    """Every column the heuristic table can show: ``{name: (header, cell of a summary row)}``."""
    ratio = {
        k: (h, lambda r, k=k: _fmt(r[k], ".3f"))
        for k, h in (
            ("ratio_mean", "ratio mean"),
            ("ratio_median", "median"),
            ("ratio_p90", "p90"),
            ("ratio_max", "max"),
            ("within_1_1", "<=1.1"),
        )
    }
    pct = {
        k: (h, lambda r, k=k: _fmt(r[k], ".2f"))
        for k, h in (
            ("pct_diff", "%diff"),
            ("stdv", "stdv"),
            ("pct_wins", "%wins"),
            ("pct_wins30", "%wins30"),
        )
    }
    count = {
        k: (h, lambda r, k=k: str(r[k]))
        for k, h in (
            ("instances", "instances"),
            ("fails", "fails"),
            ("proven", "proven"),
            ("defects", "defects"),
            ("unproven", "unproven"),
            ("clock_cut", "clock-cut"),
            ("no_exact", "no exact"),
        )
    }
    return {
        "family": ("family", lambda r: r["family"]),
        "method": ("heuristic", lambda r: r["method"]),
        "metric": ("metric", lambda r: r["metric"]),
        "value_mean": ("mean", lambda r: _fmt(r["value_mean"], ".4g")),
        **{k: count[k] for k in ("instances", "fails", "proven")},
        **ratio,
        **{k: count[k] for k in ("defects", "unproven", "clock_cut")},
        "unproven_interval": ("unproven ratio [lo, hi]", lambda r: _interval(r) if r["unproven"] else "-"),
        "unproven_ratio_hi_max": ("unproven hi max", lambda r: _fmt(r["unproven_ratio_hi_max"], ".3f")),
        "no_exact": count["no_exact"],
        "reference": ("reference", lambda r: _fmt(r["reference"], "")),
        **pct,
        "runtime_mean": ("runtime mean (s)", lambda r: _fmt(r["runtime_mean"], ".3g")),
    }


#: Every column of the heuristic table, in order (``volsched report --columns all``).
TABLE_COLUMNS = tuple(_heuristic_cells())
#: The default table's columns: it fits 120 characters a line with the longest names of the
#: built-in families (``--columns`` shows the others).
DEFAULT_TABLE_COLUMNS = (
    "family", "method", "instances", "fails", "proven", "ratio_mean", "ratio_max", "unproven_interval",
    "pct_diff", "pct_wins",
)  # fmt: skip
#: Width of the text report's captions.
CAPTION_WIDTH = 120


def table_columns(given: str | Sequence[str] | None, option: str = "--columns") -> tuple[str, ...]:
    """The heuristic table's columns from ``--columns``: ``"all"``, names (a list, or comma-separated).

    ``None`` gives :data:`DEFAULT_TABLE_COLUMNS`. ``family`` and ``method`` (the row's name) always lead.

    Raises
    ------
    InputError
        A name that is not in :data:`TABLE_COLUMNS`.

    Examples
    --------
    >>> table_columns("pct_diff,stdv")
    ('family', 'method', 'pct_diff', 'stdv')
    """
    if given is None:
        return DEFAULT_TABLE_COLUMNS
    names = [n.strip() for n in given.split(",")] if isinstance(given, str) else list(given)
    if names == ["all"]:
        return TABLE_COLUMNS
    for name in names:
        if name not in TABLE_COLUMNS:
            raise InputError(f"{option}: {name!r} is not a column (columns: all, {', '.join(TABLE_COLUMNS)})")
    return ("family", "method", *(n for n in dict.fromkeys(names) if n not in ("family", "method")))


def _paper_problem(family: str) -> str | None:
    """The problem the family's paper reference is scored against (``None``: no paper, or not loaded)."""
    paper = PAPER_REFERENCES.get(family)
    if paper is None or family not in FAMILIES:
        return None
    heuristics = FAMILIES[family].heuristics
    name = _match(list(heuristics), paper)
    return None if name is None else heuristics[name].problem


def reference_caption(summary: dict) -> str:
    """Which heuristic each problem's %diff is against, and why: the last sentence of the table's caption.

    Examples
    --------
    >>> reference_caption({"references": {"checkpoint": {"checkpoint": "daly"}}})
    "Reference of %diff: checkpoint: daly (the paper's, Bouguerra et al. 2011)."
    """
    parts = []
    for family, problems in summary.get("references", {}).items():
        paper = PAPER_REFERENCES.get(family)
        texts = []
        for problem, name in problems.items():
            if name is None:
                why = (
                    f"{paper} is not in the store"
                    if problem == _paper_problem(family)
                    else "the paper has none for this problem"
                )
                text = f"none ({why}; --reference NAME sets one)"
            elif paper is not None and name.casefold() == paper.casefold():
                text = f"{name} (the paper's, {PAPERS[family]})"
            else:
                text = name if paper is not None else f"{name} (first in name order)"
            texts.append(text if len(problems) == 1 else f"problem {problem} {text}")
        parts.append(f"{family}: {', '.join(texts)}")
    return "Reference of %diff: " + ("; ".join(parts) if parts else "none") + "."


def to_markdown(summary: dict, columns: Sequence[str] | None = None) -> str:
    """Markdown: a progress line, a table of exact methods, a table of heuristics.

    Ratios are printed with 3 decimals, percentages with 2 (as in Casanova et
    al. 2013, Table I), gaps with 4, runtimes with 3 significant digits. The unproven rows'
    mean interval is printed as ``[lo, hi]`` in its own column. The heuristic table
    shows ``columns`` (names of :data:`TABLE_COLUMNS`; default: all of them; the
    command line's default is :data:`DEFAULT_TABLE_COLUMNS`); its caption says
    which heuristic each problem's %diff is against (:func:`reference_caption`).

    Examples
    --------
    >>> to_markdown({"tasks": 0, "done": 0, "pending": 0, "errors": 0, "timeouts": 0, "defects": 0,
    ...              "rows": []}).splitlines()[-1]
    '(no finished rows)'
    """
    s = summary
    out = [
        f"tasks {s['tasks']}, done {s['done']}, pending {s['pending']}, "
        f"errors {s['errors']}, timeouts {s['timeouts']}, defects {s['defects']}",
        "",
    ]
    sweeps = s.get("sweeps") or []
    if len(sweeps) > 1:
        out[0] += f"; sweeps {', '.join(r['label'] for r in sweeps)} (--sweep NAME shows one)"
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
                "CPU max (s)",
                "work max",
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
                    _fmt(r["cpu_max"], ".3g"),
                    _fmt(r["work_max"], ".4g"),
                    _fmt(r["gap_mean"], ".4f"),
                    _fmt(r["gap_max"], ".4f"),
                ]
                for r in exact
            ],
        )
        out.append("")
    if heur:
        shown = TABLE_COLUMNS if columns is None else tuple(columns)
        cells = _heuristic_cells()
        hidden = len(TABLE_COLUMNS) - len(shown)
        caption = (
            "Ratios to the optimum over instances with a proven optimum; `unproven` rows only "
            "know an interval (mean `[lo, hi]`: the value over the best known value, over the "
            "proven bound). `clock-cut`: unproven runs whose reference the wall-clock safety "
            "net stopped (its bound depends on the machine; a work budget decides every other "
            "row). `defects`: runs with a ratio below 1 beyond rounding, a value "
            "better than a proof (a bug). %diff, stdv, %wins, %wins30 against the "
            "reference heuristic of the same problem, as Casanova et al. 2013 (Section VII-A) define them. "
            + reference_caption(s)
            + (f" {hidden} more columns: --columns all." if hidden > 0 else "")
        )
        out += ["## Heuristics", "", *textwrap.wrap(caption, CAPTION_WIDTH), ""]
        out += markdown_table([cells[c][0] for c in shown], [[cells[c][1](r) for c in shown] for r in heur])
        out.append("")
    if not exact and not heur:
        out.append("(no finished rows)")
    return "\n".join(out)


def build_report(
    store: Store,
    reference: str | None = None,
    metric: str | None = None,
    columns: Sequence[str] | None = None,
) -> dict[str, Any]:
    """What ``volsched report`` prints: the summary, each family's paper tables, the text.

    Parameters
    ----------
    store : Store
        One store, or several combined (:meth:`Store.open`).
    reference, metric
        As :func:`summarize`'s.
    columns : sequence of str, optional
        The heuristic table's columns (:func:`table_columns`; default: all).

    Returns
    -------
    dict
        ``summary`` (:func:`summarize`), ``papers`` (``{family: its paper tables' JSON}``
        for the families whose report has something to show) and ``markdown`` (the text).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "s.db") as store:
    ...     build_report(store)["papers"]
    {}
    """
    summary = summarize(store, reference=reference, metric=metric)
    rows = store.rows()
    parts = {}
    present = {r["family"] for r in rows}
    for name in [n for n in FAMILIES if n in present]:  # registry order
        family = FAMILIES[name]
        if family.extras.report is not None:
            part = family.extras.report([r for r in rows if r["family"] == name], reference)
            if part:
                parts[name] = part
    text = "\n\n".join([to_markdown(summary, columns), *(part["markdown"] for part in parts.values())])
    papers = {name: part["json"] for name, part in parts.items()}
    return {"summary": summary, "papers": papers, "markdown": text}


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
    "DEFAULT_TABLE_COLUMNS",
    "EXACT_COLUMNS",
    "HEURISTIC_COLUMNS",
    "PAPER_REFERENCES",
    "TABLE_COLUMNS",
    "TRIAL_KEYS",
    "build_report",
    "casanova_metrics",
    "heuristic_names",
    "heuristic_problems",
    "markdown_table",
    "on_metric",
    "reference_caption",
    "relative_difference",
    "resolve_reference",
    "resolve_references",
    "scenario_differences",
    "scenario_of",
    "summarize",
    "table_columns",
    "to_markdown",
    "write_csv",
]
