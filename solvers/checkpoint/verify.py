"""Independent verifier for checkpoint schedules.

Checks the vector's shape and ``a_n = 1`` and recomputes its expected waste by
its own route, sharing no closed form with the model (no partial expectation,
head or tail, none of :mod:`volsched.instances.laws`' code): only the
definition of each law's survival function, written here from the law's
parameters. Expression 1 of Bouguerra et al. (2011) splits into the
checkpoint intervals ``(s_k, e_k]`` (closing overhead ``sigma_k``, see
:meth:`CheckpointInstance.expected_waste`) and integrates by parts into

.. math:: \\int_{s}^{e} [\\sigma + \\alpha (t - s)] f(t) dt
          = \\sigma P(s < T \\le e) + \\alpha \\int_s^e (S(t) - S(e)) dt,

whose integrand is non-negative, bounded and monotone: no cancellation
between terms of the integral, no density singularity at ``t = 0``. The
integrals of all intervals are taken at once by a vectorised adaptive
Gauss-Kronrod (7, 15) rule: the first panels are cut geometrically towards
each interval's start and at the law's quantiles (a near-step survival
function is resolved on its own scale), then the panels with the largest
error estimates ``|K15 - G7|`` are halved until the estimates, less those
already at the rounding floor (:data:`NOISE_ULPS` ulps of the differenced
terms), sum to at most :data:`QUAD_RTOL` of the waste. ``P`` and the integrand
are differenced on the side of the smaller terms (``F(e) - F(t)`` while
``F(e) <= S(s)``). An empirical law needs no integral: the verifier averages
the waste of each observation exactly.

Accuracy: :data:`QUAD_RTOL` relative for the quadrature, plus the rounding of
the differences, a few ulps of ``sum_k (sigma_k + alpha (e_k - s_k))
min(F(e_k), S(s_k))`` times the conditioning of ``F`` (``k |ln(t/scale)|`` for
a Weibull law). Measured against 30- to 50-digit ``mpmath`` quadrature over
the accepted ranges: within 1e-13 on small jobs, within 2e-11 of the model on
20,000 intervals; the claim tolerance :data:`RTOL` (and ``CLAIM_RTOL`` in
:mod:`volsched.solvers.problem`, 1e-9) leaves a margin of 50 or more.
Cost: about 0.1-0.6 ms a schedule of up to 50 intervals, 60 ms for 18,000
(``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from volsched.instances.errors import InputError

from ..result import Infeasible, reject_unless

if TYPE_CHECKING:
    from volsched.instances.checkpoint import CheckpointInstance

RTOL = 1e-9
#: Stop refining when the summed error estimates fall below this fraction of the waste.
QUAD_RTOL = 1e-12
_MAX_ROUNDS = 200
_MAX_PANELS = 2_000_000
#: An error estimate within this many ulps of the differenced terms is rounding, not truncation.
NOISE_ULPS = 100
#: Geometric refinement towards an interval's start: down to ``2^-60`` of its length.
_MAX_DEPTH = 60

# Gauss-Kronrod (7, 15) on [-1, 1] (QUADPACK qk15): Kronrod nodes, their weights, and
# the Gauss weights of the nodes of odd index.
_XK = np.array(
    [
        0.991455371120812639206854697526329,
        0.949107912342758524526189684047851,
        0.864864423359769072789712788640926,
        0.741531185599394439863864773280788,
        0.586087235467691130294144845693013,
        0.405845151377397166906606412076961,
        0.207784955007898467600689403773245,
        0.0,
    ]
)
_WK = np.array(
    [
        0.022935322010529224963732008058970,
        0.063092092629978553290700663189204,
        0.104790010322250183839876322541518,
        0.140653259715525918745189590510238,
        0.169004726639267902826583426598550,
        0.190350578064785409913256402421014,
        0.204432940075298892414161999234649,
        0.209482141084727828012999174891714,
    ]
)
_WG = np.array(
    [
        0.129484966168869693270611432679082,
        0.279705391489276667901467771423780,
        0.381830050505118944950369775488975,
        0.417959183673469387755102040816327,
    ]
)
#: Probability levels whose quantiles cut the first panels (see :func:`survival_pair`).
LEVELS = np.concatenate(
    [10.0 ** -np.arange(15.0, 1.0, -1.0), np.arange(0.05, 0.951, 0.05), 1.0 - 10.0 ** -np.arange(2.0, 16.0)]
)
_EXP_LEVELS = -np.log1p(-LEVELS)  # the Exp(1) quantiles
NODES = np.concatenate([-_XK[:-1], _XK[::-1]])
KRONROD = np.concatenate([_WK[:-1], _WK[::-1]])
GAUSS = np.zeros(15)
GAUSS[[1, 3, 5, 9, 11, 13]] = np.concatenate([_WG[:-1], _WG[:-1][::-1]])
GAUSS[7] = _WG[-1]


def survival_pair(law) -> tuple:
    """``(S, F, points)`` of a law from its parameters: the definitions, vectorised.

    ``points`` are the law's quantiles at :data:`LEVELS` (each phase's, for a
    mixture): the first panels are cut there, so that a survival function
    that drops over a width far below the interval's (a log-normal law with a
    tiny ``sigma``, a Weibull law of shape 100) is resolved on its own scale
    rather than slipping between the quadrature nodes.
    """
    d = law.to_dict()
    kind = d["kind"]
    with np.errstate(divide="ignore", over="ignore"):
        if kind == "exponential":
            r = d["rate"]
            return (lambda t: np.exp(-r * t)), (lambda t: -np.expm1(-r * t)), _EXP_LEVELS / r
        if kind == "weibull":
            k, s = d["shape"], d["scale"]

            def z(t):
                return (t / s) ** k

            return ((lambda t: np.exp(-z(t))), (lambda t: -np.expm1(-z(t))), s * _EXP_LEVELS ** (1.0 / k))
        if kind == "lognormal":
            mu, sg = d["mu"], d["sigma"]

            def u(t):
                return (np.log(t) - mu) / sg

            return (
                (lambda t: special.ndtr(-u(t))),
                (lambda t: special.ndtr(u(t))),
                np.exp(mu + sg * special.ndtri(LEVELS)),
            )
        if kind == "hyperexponential":
            p, r = np.asarray(d["probs"]), np.asarray(d["rates"])
            return (
                (lambda t: np.exp(-np.multiply.outer(t, r)) @ p),
                (lambda t: -np.expm1(-np.multiply.outer(t, r)) @ p),
                np.outer(1.0 / r, _EXP_LEVELS).ravel(),
            )
    raise TypeError(f"no survival function for a {kind} law")


def _empirical_waste(samples, start, end, sigma, alpha) -> float:
    """Mean over the observations ``x`` of ``sigma_k + alpha (x - s_k)`` for ``x`` in ``(s_k, e_k]``."""
    x = np.asarray(samples, dtype=float)
    k = np.searchsorted(end, x, side="left")
    inside = k < len(end)
    k = k[inside]
    return math.fsum((sigma[k] + alpha * (x[inside] - start[k])).tolist()) / len(x)


def _initial_panels(start, end, points):
    """Panels ``(lo, hi, owner)``: each interval cut geometrically towards its start and at ``points``.

    An interval starting at 0 is cut at ``e 2^-j`` for ``j <= 60``; one starting
    at ``s > 0`` down to a width of about ``s`` (the scale on which the law
    can change there).
    """
    n = len(start)
    width = end - start
    with np.errstate(divide="ignore"):
        depth = np.where(
            start == 0, _MAX_DEPTH, np.clip(np.ceil(np.log2(width / start)), 0, _MAX_DEPTH)
        ).astype(np.int64)
    j = np.arange(1, _MAX_DEPTH + 1)
    take = j <= depth[:, None]
    points = np.asarray(points, dtype=float)
    points = points[np.isfinite(points)]
    k = np.searchsorted(end, points, side="left")  # the interval whose end is the first >= the point
    k, points = k[k < n], points[k < n]
    inside = (points > start[k]) & (points < end[k])
    owner = np.concatenate([np.repeat(np.arange(n), depth), k[inside], np.arange(n), np.arange(n)])
    value = np.concatenate([(start[:, None] + width[:, None] * 2.0**-j)[take], points[inside], start, end])
    order = np.lexsort((value, owner))
    owner, value = owner[order], value[order]
    fresh = np.concatenate([[True], (owner[1:] != owner[:-1]) | (value[1:] > value[:-1])])
    owner, value = owner[fresh], value[fresh]
    same = owner[1:] == owner[:-1]
    return value[:-1][same], value[1:][same], owner[:-1][same]


def _lost_work(start, end, sf, cdf, points):
    """The ``P`` terms, the first panels and their Gauss-Kronrod sums, and the rule itself.

    ``rule(lo, hi, owner)`` gives each panel's K15 estimate of
    ``int (S(t) - S(e)) dt``, its error estimate ``|K15 - G7|`` and its rounding
    floor: ``NOISE_ULPS`` ulps of the differenced terms (``F(e)`` or ``S(s)``)
    times the panel's width, below which splitting gains nothing.
    """
    f_end, s_start = cdf(end), sf(start)
    low_side = f_end <= s_start
    prob = np.where(low_side, f_end - cdf(start), s_start - sf(end))
    s_end = sf(end)
    scale = NOISE_ULPS * np.finfo(float).eps * np.where(low_side, f_end, s_start)

    def rule(lo, hi, owner):
        half = 0.5 * (hi - lo)
        t = (0.5 * (lo + hi))[:, None] + half[:, None] * NODES
        g = np.empty(t.shape)
        rows = low_side[owner]
        g[rows] = f_end[owner[rows], None] - cdf(t[rows])
        g[~rows] = sf(t[~rows]) - s_end[owner[~rows], None]
        g = np.maximum(g, 0.0)  # S is non-increasing: a negative value is rounding
        k15, g7 = g @ KRONROD * half, g @ GAUSS * half
        return k15, np.abs(k15 - g7), 2.0 * half * scale[owner]

    lo, hi, owner = _initial_panels(start, end, points)
    return prob, lo, hi, owner, rule


def waste_by_quadrature(instance: CheckpointInstance, a: np.ndarray) -> float:
    """Expected waste of the valid schedule ``a`` by the route in the module docstring.

    Raises
    ------
    Infeasible
        The quadrature did not reach :data:`QUAD_RTOL` (no value to certify).
    """
    closing = np.flatnonzero(a) + 1
    sigma = np.cumsum(instance.c[closing - 1]).astype(float)
    end = (instance.tau[closing] + sigma).astype(float)
    start = np.concatenate([[0.0], end[:-1]])
    alpha, law = instance.alpha, instance.law
    if law.kind == "empirical":
        return _empirical_waste(law.to_dict()["samples"], start, end, sigma, alpha)
    sf, cdf, points = survival_pair(law)
    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        prob, lo, hi, owner, rule = _lost_work(start, end, sf, cdf, points)
        est, err, floor = rule(lo, hi, owner)
        overhead = math.fsum((sigma * prob).tolist())
        for _ in range(_MAX_ROUNDS):
            total = overhead + alpha * math.fsum(est.tolist())
            budget = QUAD_RTOL * total / alpha
            mid = 0.5 * (lo + hi)
            open_err = np.where((err > floor) & (mid > lo) & (mid < hi), err, 0.0)
            if open_err.sum() <= budget:
                return total
            if len(lo) > _MAX_PANELS:
                break
            # Split the worst panels until the others' errors sum to at most half the budget.
            order = np.argsort(-open_err)
            rest = open_err.sum() - np.cumsum(open_err[order])
            chosen = order[: int(np.searchsorted(-rest, -0.5 * budget)) + 1]
            keep = np.ones(len(lo), dtype=bool)
            keep[chosen] = False
            new_lo = np.concatenate([lo[chosen], mid[chosen]])
            new_hi = np.concatenate([mid[chosen], hi[chosen]])
            new_owner = np.concatenate([owner[chosen], owner[chosen]])
            new = rule(new_lo, new_hi, new_owner)
            lo, hi, owner, est, err, floor = (
                np.concatenate([x[keep], y])
                for x, y in zip(
                    (lo, hi, owner, est, err, floor), (new_lo, new_hi, new_owner, *new), strict=True
                )
            )
    raise Infeasible(
        f"checkpoint: the verifier's quadrature did not reach {QUAD_RTOL:g} relative "
        f"(estimated error {alpha * open_err.sum():.3g} on {total:.6g}, {len(lo)} panels)"
    )


def verify(instance: CheckpointInstance, a, claimed: float | None = None) -> float:
    """Return the recomputed expected waste of ``a``; raise if ``claimed`` disagrees.

    Raises
    ------
    Infeasible
        ``a`` is not a valid schedule for ``instance``, or ``claimed`` differs
        from the recomputed value by more than ``RTOL`` (relative).
    """
    if isinstance(a, (list, tuple)):
        for j, v in enumerate(a):  # JSON true/false are not 0/1
            reject_unless(not isinstance(v, bool), f"a[{j}]", f"must be 0 or 1, got {v!r}")
    try:
        a = instance.check_schedule(a if isinstance(a, (list, tuple)) else np.asarray(a).tolist())
    except InputError as exc:
        raise Infeasible(str(exc)) from None
    value = waste_by_quadrature(instance, a)
    # Relative only: a waste of 1e-200 is a valid value, and 0 claimed for it is wrong.
    if claimed is not None and not math.isclose(value, claimed, rel_tol=RTOL, abs_tol=0.0):
        raise Infeasible(f"checkpoint: claimed expected waste {claimed!r} but the schedule's is {value!r}")
    return value


def verify_solution(instance: CheckpointInstance, solution) -> float:
    """The expected waste of a solution object ``{"a": [...]}`` (raises ``Infeasible``)."""
    reject_unless(isinstance(solution, dict) and "a" in solution, "solution.a", "missing")
    return verify(instance, solution["a"])


def describe(instance: CheckpointInstance, solution: dict, value: float, bound: float | None) -> dict:
    """The fields derived from a verified vector: its number of checkpoints."""
    return {"checkpoints": int(sum(int(v) for v in solution["a"]))}
