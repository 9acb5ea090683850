"""Ratios to the off-line reference and the relative metrics of Casanova et al. 2013: one definition each.

Every score in volsched is computed here: ``volsched evaluate``, ``volsched report`` (from the rows of a
results store) and the family tables (Tables I and II of Casanova et al. 2013, Figure 4 of Canon et
al. 2011).

**The off-line reference** of one instance and one problem (:class:`Reference`, built from result rows
by :func:`references`) is what the exact methods and the runs on it know of the optimum ``OPT``:

* ``bound``: the best proven bound of the exact rows (the largest lower bound of a minimisation, the
  smallest upper bound of a maximisation);
* ``best_known``: the best verified value of all, the exact incumbents *and every run's value* on the
  same instance and problem (a simulated run is a verified feasible solution of that problem), so
  that ``bound <= OPT <= best_known`` for a minimisation (mirrored for a maximisation);
* ``optimum``: the incumbent when an exact method proved it optimal.

**The ratio** of a value ``v`` (:func:`ratio`) is ``v / OPT`` for a minimisation and ``OPT / v`` for a
maximisation: at least 1, larger is worse. When the optimum is not proven it lies in the interval
(:func:`ratio_interval`) ``[v / best_known, v / bound]`` (``[best_known / v, bound / v]`` for a
maximisation), whose lower end is never below 1 because ``best_known`` includes ``v`` itself.

**A defect** (:func:`is_defect`) is a ratio below ``1 - RATIO_RTOL``: a value better than a proven
optimum or a proven bound, i.e. a bug in a solver, a bound or a simulator. Ratios within
``RATIO_RTOL`` below 1 are ties up to floating-point rounding and read as exactly 1.

**The relative metrics** of Casanova et al. 2013 (HCW), Section VII-A, compare a heuristic with a
reference heuristic on the same trials: %diff (:func:`relative_difference` averaged over scenarios),
stdv, %wins and %wins30 (:func:`casanova_metrics`).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

#: A value may tie its reference up to float rounding (relative), never beat it by more.
RATIO_RTOL = 1e-9
#: Casanova et al. 2013, Section VII-A: %wins30 counts the trials within 30 % of the reference.
WINS_SLACK = 1.3
#: Generator parameters that number the trials of a scenario rather than define it: the replicate
#: seed, and the ``trial`` of a coupled paper realization (Section VII-A: 10 trials per scenario).
TRIAL_KEYS = ("seed", "trial")
SENSES = ("min", "max")


def _check_sense(sense: str) -> None:
    if sense not in SENSES:
        raise ValueError(f"sense must be one of {SENSES}, got {sense!r}")


def ratio(value: float | None, reference: float | None, sense: str = "min") -> float | None:
    """The ratio of ``value`` to ``reference``: worse over better, 1 for a tie.

    .. math::

        r = v / \\mathrm{ref} \\ (\\text{min}), \\qquad r = \\mathrm{ref} / v \\ (\\text{max}).

    A quotient in ``[1 - RATIO_RTOL, 1)`` is a tie up to rounding and returns exactly 1. A quotient
    below ``1 - RATIO_RTOL`` (the value beats its reference) is returned as is, so that the caller
    sees it (:func:`is_defect`); it is never clamped.

    Parameters
    ----------
    value : float or None
        The value scored (a heuristic's makespan, waste...).
    reference : float or None
        What it is compared with: a proven optimum, the best known value or a proven bound.
    sense : {"min", "max"}
        The problem's sense.

    Returns
    -------
    float or None
        ``None`` when either is missing, or when the denominator is not positive and the two differ
        (a zero optimum with a positive value has no ratio); ``1.0`` when they are equal.

    Examples
    --------
    >>> ratio(15.0, 10.0), ratio(10.0, 15.0, "max"), ratio(10.0 * (1 - 1e-13), 10.0)
    (1.5, 1.5, 1.0)
    >>> ratio(9.0, 10.0), ratio(0.0, 0.0), ratio(1.0, 0.0)
    (0.9, 1.0, None)
    """
    _check_sense(sense)
    if value is None or reference is None:
        return None
    worse, better = (value, reference) if sense == "min" else (reference, value)
    if better <= 0:
        return 1.0 if worse == better else None
    q = worse / better
    return 1.0 if 1.0 - RATIO_RTOL <= q < 1.0 else q


def beats(value: float, reference: float, sense: str = "min") -> bool:
    """Whether ``value`` is better than ``reference`` by more than rounding.

    .. math::

        v < \\mathrm{ref} (1 - \\varepsilon) \\ (\\text{min}), \\qquad
        \\mathrm{ref} < v (1 - \\varepsilon) \\ (\\text{max}), \\qquad \\varepsilon = \\mathrm{RATIO\\_RTOL}.

    Relative only, so that tiny values are compared too (a waste of 5e-14 beats 1e-13). Against a
    proven optimum or bound this is a defect; :func:`is_defect` says the same of a ratio.

    Examples
    --------
    >>> beats(9.0, 10.0), beats(10.0 * (1 - 1e-13), 10.0), beats(5e-14, 1e-13), beats(11.0, 10.0, "max")
    (True, False, True, True)
    """
    _check_sense(sense)
    worse, better = (value, reference) if sense == "min" else (reference, value)
    return worse < better * (1 - RATIO_RTOL)


def is_defect(r: float | None) -> bool:
    """Whether a ratio is below 1 beyond rounding: ``r < 1 - RATIO_RTOL``.

    A ratio to a proven optimum or to a proven bound below 1 means that a value beat a proof: a bug.
    ``None`` (no ratio) is not a defect.

    Examples
    --------
    >>> is_defect(0.9), is_defect(1.0), is_defect(1 - 1e-12), is_defect(None)
    (True, False, False, False)
    """
    return r is not None and r < 1.0 - RATIO_RTOL


def best_value(values: Iterable[float | None], sense: str) -> float | None:
    """The best of ``values`` in the problem's sense, ``None`` ignored: ``min`` for "min", ``max`` for "max".

    Examples
    --------
    >>> best_value([12.0, None, 10.0], "min"), best_value([12.0, 10.0], "max"), best_value([None], "min")
    (10.0, 12.0, None)
    """
    _check_sense(sense)
    known = [v for v in values if v is not None]
    if not known:
        return None
    return min(known) if sense == "min" else max(known)


def best_bound(bounds: Iterable[float | None], sense: str) -> float | None:
    """The tightest of proven ``bounds``: the largest lower bound ("min"), the smallest upper bound ("max").

    Examples
    --------
    >>> best_bound([8.0, None, 9.0], "min"), best_bound([8.0, 9.0], "max")
    (9.0, 8.0)
    """
    return best_value(bounds, "max" if sense == "min" else "min")


@dataclass(frozen=True)
class RatioInterval:
    """What is known of a value's ratio to the optimum: ``lo <= ratio <= hi``.

    Proven optimum: ``ratio == lo == hi``. Otherwise ``ratio`` is ``None``, ``lo`` the ratio to the
    best known value and ``hi`` the ratio to the proven bound; ``None`` where an end is unknown.
    """

    ratio: float | None
    lo: float | None
    hi: float | None

    @property
    def defect(self) -> bool:
        """Whether an end is below 1 beyond rounding (:func:`is_defect`): a value beat a proof."""
        return any(is_defect(x) for x in (self.ratio, self.lo, self.hi))


def ratio_interval(
    value: float | None,
    sense: str,
    optimum: float | None = None,
    best_known: float | None = None,
    bound: float | None = None,
) -> RatioInterval:
    """The ratio of ``value`` to the optimum, or the interval it lies in when the optimum is unproven.

    Minimisation, with ``bound <= OPT <= best_known``:

    .. math::

        \\text{proven: } r = v / \\mathrm{OPT}; \\qquad
        \\text{unproven: } r \\in [\\, v / \\mathrm{best\\_known},\\ v / \\mathrm{bound} \\,].

    Maximisation mirrors it (``OPT / v``, ``[best_known / v, bound / v]``). Each quotient is
    :func:`ratio`. ``best_known`` must include ``value`` (the run is a verified solution): the lower
    end is then never below 1; a ratio to a proven optimum or bound below 1 is kept and flagged
    (:attr:`RatioInterval.defect`).

    Parameters
    ----------
    value : float or None
        The run's verified value; ``None`` (no value) gives an empty interval.
    sense : {"min", "max"}
        The problem's sense.
    optimum : float, optional
        The proven optimum; when given, ``best_known`` and ``bound`` are not used.
    best_known, bound : float, optional
        Unproven optimum: the best known value (:class:`Reference`) and the best proven bound.

    Examples
    --------
    >>> ratio_interval(12.0, "min", optimum=10.0)
    RatioInterval(ratio=1.2, lo=1.2, hi=1.2)
    >>> ratio_interval(12.0, "min", best_known=10.0, bound=8.0)
    RatioInterval(ratio=None, lo=1.2, hi=1.5)
    >>> ratio_interval(8.0, "max", best_known=10.0, bound=12.0)
    RatioInterval(ratio=None, lo=1.25, hi=1.5)
    """
    if value is None:
        return RatioInterval(None, None, None)
    if optimum is not None:
        r = ratio(value, optimum, sense)
        return RatioInterval(r, r, r)
    return RatioInterval(None, ratio(value, best_known, sense), ratio(value, bound, sense))


# --------------------------------------------------------------------------- references from rows

#: Status of a run whose value is a verified feasible solution of its problem.
RUN_OK = "ok"
#: Exact rows that stand as the instance's exact reference (a failed task does not).
EXACT_FAILED = ("error",)


@dataclass(frozen=True)
class Reference:
    """The off-line reference of one instance and one problem.

    Attributes
    ----------
    sense : {"min", "max"}
    exact : bool
        Whether an exact row (not ``error``) exists; without one, runs are not scored.
    proven : bool
        Whether an exact row proved optimality (status ``optimal``).
    incumbent : float or None
        The best exact incumbent (the proven optimum when ``proven``).
    bound : float or None
        The best proven bound of the exact rows (:func:`best_bound`).
    best_known : float or None
        The best of the exact incumbents and every run's value (:func:`best_value`).
    """

    sense: str
    exact: bool
    proven: bool
    incumbent: float | None
    bound: float | None
    best_known: float | None

    @property
    def optimum(self) -> float | None:
        """The proven optimum, ``None`` when unproven."""
        return self.incumbent if self.proven else None

    def interval(self, value: float | None) -> RatioInterval:
        """:func:`ratio_interval` of ``value`` against this reference (empty without an exact row).

        Examples
        --------
        >>> Reference("min", True, False, 20.0, 16.0, 18.0).interval(18.0)
        RatioInterval(ratio=None, lo=1.0, hi=1.125)
        """
        if not self.exact:
            return RatioInterval(None, None, None)
        return ratio_interval(value, self.sense, self.optimum, self.best_known, self.bound)


def references(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], Reference]:
    """``{(instance_key, problem): Reference}`` from result rows (store rows, or dicts with their keys).

    A row needs ``instance_key``, ``problem``, ``kind`` (``exact`` or ``heuristic``), ``status``,
    ``objective``, ``bound`` and ``sense``. Exact rows other than ``error`` give the incumbent
    (``objective``), the bound and the proof (``status == "optimal"``); heuristic rows with status
    ``ok`` and a value add that value to the best known one.

    Examples
    --------
    >>> rows = [dict(instance_key="i", problem="p", kind="exact", status="feasible", objective=20.0,
    ...              bound=16.0, sense="min"),
    ...         dict(instance_key="i", problem="p", kind="heuristic", status="ok", objective=18.0,
    ...              bound=None, sense="min")]
    >>> references(rows)[("i", "p")].best_known
    18.0
    """
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["instance_key"], r["problem"])].append(r)
    out = {}
    for key, rs in groups.items():
        sense = rs[0]["sense"]
        exact = [r for r in rs if r["kind"] == "exact" and r["status"] not in EXACT_FAILED]
        runs = [r["objective"] for r in rs if r["kind"] != "exact" and r["status"] == RUN_OK]
        proven = [r["objective"] for r in exact if r["status"] == "optimal" and r["objective"] is not None]
        incumbent = best_value(proven or [r["objective"] for r in exact], sense)
        out[key] = Reference(
            sense=sense,
            exact=bool(exact),
            proven=bool(proven),
            incumbent=incumbent,
            bound=best_bound((r["bound"] for r in exact), sense),
            best_known=best_value([incumbent, *runs], sense),
        )
    return out


#: The keys :func:`score_rows` adds to each row.
SCORE_KEYS = (
    "optimum",
    "optimum_bound",
    "optimum_proven",
    "best_known",
    "ratio",
    "ratio_lo",
    "ratio_hi",
    "defect",
)


def score_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict]:
    """Each row as a dict with its instance's reference and its ratio (:data:`SCORE_KEYS`).

    * ``optimum``, ``optimum_bound``: the reference's exact incumbent and best bound;
      ``optimum_proven``: 1 proven, 0 unproven, ``None`` without an exact row;
      ``best_known``: :attr:`Reference.best_known`;
    * ``ratio``, ``ratio_lo``, ``ratio_hi``: a heuristic run's :meth:`Reference.interval` (``None``
      on exact rows and failed runs); ``defect``: :attr:`RatioInterval.defect`.

    A heuristic row that did not finish (status other than ``ok``) gets ``None`` everywhere.

    Examples
    --------
    >>> rows = [dict(instance_key="i", problem="p", kind="exact", status="optimal", objective=10.0,
    ...              bound=10.0, sense="min"),
    ...         dict(instance_key="i", problem="p", kind="heuristic", status="ok", objective=9.0,
    ...              bound=None, sense="min")]
    >>> h = score_rows(rows)[1]
    >>> h["ratio"], h["optimum_proven"], h["defect"]
    (0.9, 1, True)
    """
    rows = list(rows)
    refs = references(rows)
    out = []
    for r in rows:
        ref = refs[(r["instance_key"], r["problem"])]
        run = r["kind"] != "exact"
        if (run and r["status"] != RUN_OK) or not ref.exact:
            out.append({**r, **dict.fromkeys(SCORE_KEYS), "defect": False})
            continue
        interval = ref.interval(r["objective"] if run else None)
        out.append(
            {
                **r,
                "optimum": ref.incumbent,
                "optimum_bound": ref.bound,
                "optimum_proven": int(ref.proven),
                "best_known": ref.best_known,
                "ratio": interval.ratio,
                "ratio_lo": interval.lo,
                "ratio_hi": interval.hi,
                "defect": interval.defect,
            }
        )
    return out


def count_defects(scored: Iterable[Mapping[str, Any]]) -> int:
    """How many of :func:`score_rows`' rows have a ratio below 1 beyond rounding.

    Examples
    --------
    >>> count_defects([{"defect": True}, {"defect": False}, {"defect": True}])
    2
    """
    return sum(bool(r["defect"]) for r in scored)


# --------------------------------------------------------------------------- Casanova et al. 2013


def _finite(x: Any) -> float | None:
    """A JSON-safe float: ``None`` for NaN or infinite values."""
    x = float(x)
    return x if math.isfinite(x) else None


def relative_difference(value: float, ref: float, sense: str) -> float | None:
    """Casanova et al. 2013 (HCW), Section VII-A: the relative difference of a heuristic to the reference.

    .. math::

        d = \\frac{v_H - v_{ref}}{\\min(v_H, v_{ref})} \\ (\\text{min}), \\qquad
        d = \\frac{v_{ref} - v_H}{\\min(v_H, v_{ref})} \\ (\\text{max}).

    The denominator is the smaller value (for makespans, the better one), so a heuristic twice as
    slow as the reference scores +1 and one twice as fast scores -1. The maximisation form is the
    same formula on the reciprocals ``1/v`` (the paper notes that minimising the makespan of a fixed
    number of iterations and maximising the iterations before a deadline are equivalent), so that
    positive always means "worse than the reference".

    Returns
    -------
    float or None
        0 for equal values; ``None`` when they differ and the smaller one is not positive.

    Examples
    --------
    >>> relative_difference(40.0, 20.0, "min"), relative_difference(20.0, 40.0, "min")
    (1.0, -1.0)
    >>> relative_difference(20.0, 40.0, "max"), relative_difference(0.0, 1.0, "min")
    (1.0, None)
    """
    _check_sense(sense)
    if value == ref:
        return 0.0
    low = min(value, ref)
    if low <= 0:
        return None
    return (value - ref) / low if sense == "min" else (ref - value) / low


def scenario_of(params: Mapping[str, Any]) -> str:
    """The scenario of an instance: its generator parameters without :data:`TRIAL_KEYS` (canonical JSON).

    Examples
    --------
    >>> scenario_of({"w_min": 2, "seed": 3, "trial": 1})
    '{"w_min": 2}'
    """
    return json.dumps({k: v for k, v in params.items() if k not in TRIAL_KEYS}, sort_keys=True)


def _values_by_instance(
    rows: Iterable[Mapping[str, Any]], family: str, method: str
) -> dict[str, tuple[float, str, dict]]:
    """``{instance_key: (mean value, sense, params)}`` of the successful runs of one heuristic."""
    acc: dict[str, list] = defaultdict(list)
    meta: dict[str, tuple[str, dict]] = {}
    for r in rows:
        if (
            r["family"] == family
            and r["method"] == method
            and r["kind"] == "heuristic"
            and r["status"] == RUN_OK
            and r["objective"] is not None
        ):
            acc[r["instance_key"]].append(r["objective"])
            meta[r["instance_key"]] = (r["sense"], r["params"])
    return {k: (float(np.mean(v)), *meta[k]) for k, v in acc.items()}


def scenario_differences(
    rows: Iterable[Mapping[str, Any]], family: str, heuristic: str, reference: str
) -> tuple[list[tuple[dict, float]], list[tuple[float, float, str]]]:
    """Per-scenario relative differences and the paired trials behind them.

    A scenario is ``(family, generator parameters without TRIAL_KEYS)``, its trials the rest. Only
    trials where both ``heuristic`` and ``reference`` succeeded (status ``ok``, a value) are paired;
    each scenario's values are averaged over those trials before :func:`relative_difference` is
    applied (Casanova et al. 2013, Section VII-A: "averaged over all 10 trials"):

    .. math::

        d_s = \\mathrm{relative\\_difference}(\\bar v_{H,s}, \\bar v_{ref,s}).

    Returns
    -------
    diffs : list of (params without TRIAL_KEYS, relative difference)
        One entry per scenario with a defined difference, in scenario order.
    trials : list of (value_H, value_ref, sense)
        Every paired trial.

    Examples
    --------
    >>> rows = [dict(family="c", method=m, kind="heuristic", status="ok", objective=v, sense="min",
    ...              instance_key=f"s{s}", params={"w": 1, "seed": s})
    ...         for m, s, v in (("H", 0, 12.0), ("H", 1, 27.0), ("IE", 0, 10.0), ("IE", 1, 20.0))]
    >>> scenario_differences(rows, "c", "H", "IE")
    ([({'w': 1}, 0.3)], [(12.0, 10.0, 'min'), (27.0, 20.0, 'min')])
    """
    rows = list(rows)
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
        d = relative_difference(
            float(np.mean([p[0] for p in pairs])), float(np.mean([p[1] for p in pairs])), pairs[0][2]
        )
        if d is not None:
            diffs.append(({k: x for k, x in pairs[0][3].items() if k not in TRIAL_KEYS}, d))
    return diffs, trials


def casanova_metrics(
    rows: Iterable[Mapping[str, Any]], family: str, heuristic: str, reference: str | None
) -> dict:
    """%diff, stdv, %wins, %wins30 of ``heuristic`` against ``reference`` (Casanova et al. 2013, VII-A).

    With ``d_s`` the per-scenario differences of :func:`scenario_differences` (``S`` scenarios) and
    ``T`` the paired trials:

    .. math::

        \\%\\mathrm{diff} = \\frac{100}{S} \\sum_s d_s, \\qquad
        \\mathrm{stdv} = \\sqrt{\\tfrac{1}{S} \\sum_s (d_s - \\bar d)^2}, \\qquad
        \\%\\mathrm{wins} = \\frac{100}{|T|} \\#\\{v_H \\le v_{ref}\\}, \\qquad
        \\%\\mathrm{wins30} = \\frac{100}{|T|} \\#\\{v_H \\le 1.3\\, v_{ref}\\}.

    ``stdv`` is the population standard deviation (``ddof=0``), a fraction like the paper's column.
    For ``sense == "max"`` larger is better: a win is ``v_H >= v_ref`` and a win30
    ``1.3 v_H >= v_ref`` (the same test on ``1/v``). The reference against itself gives 0, 0, 100,
    100 through these same formulas. Rows of an informative metric (``sense`` ``None``) get no
    metrics.

    Returns
    -------
    dict
        ``reference``, ``scenarios``, ``trials``, ``pct_diff``, ``stdv``, ``pct_wins``,
        ``pct_wins30``; ``None`` where undefined.

    Examples
    --------
    >>> rows = [dict(family="c", method=m, kind="heuristic", status="ok", objective=v, sense="min",
    ...              instance_key=f"s{s}", params={"w": 1, "seed": s})
    ...         for m, s, v in (("H", 0, 12.0), ("H", 1, 27.0), ("IE", 0, 10.0), ("IE", 1, 20.0))]
    >>> m = casanova_metrics(rows, "c", "H", "IE")
    >>> round(m["pct_diff"], 6), m["stdv"], m["pct_wins"], m["pct_wins30"]
    (30.0, 0.0, 0.0, 50.0)
    """
    rows = list(rows)
    empty = {
        "reference": reference,
        "scenarios": 0,
        "trials": 0,
        "pct_diff": None,
        "stdv": None,
        "pct_wins": None,
        "pct_wins30": None,
    }
    if reference is None or any(
        r["sense"] is None for r in rows if r["family"] == family and r["kind"] == "heuristic"
    ):
        return empty
    diffs, trials = scenario_differences(rows, family, heuristic, reference)
    d = np.asarray([x for _, x in diffs], dtype=float)
    wins = [v <= w if s == "min" else v >= w for v, w, s in trials]
    wins30 = [v <= WINS_SLACK * w if s == "min" else WINS_SLACK * v >= w for v, w, s in trials]
    return {
        **empty,
        "scenarios": int(d.size),
        "trials": len(trials),
        "pct_diff": _finite(100 * d.mean()) if d.size else None,
        "stdv": _finite(d.std()) if d.size else None,
        "pct_wins": _finite(100 * np.mean(wins)) if trials else None,
        "pct_wins30": _finite(100 * np.mean(wins30)) if trials else None,
    }


__all__ = [
    "RATIO_RTOL",
    "TRIAL_KEYS",
    "WINS_SLACK",
    "RatioInterval",
    "Reference",
    "beats",
    "best_bound",
    "best_value",
    "casanova_metrics",
    "count_defects",
    "is_defect",
    "ratio",
    "ratio_interval",
    "references",
    "relative_difference",
    "scenario_differences",
    "scenario_of",
    "score_rows",
]
