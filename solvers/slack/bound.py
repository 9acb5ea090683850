"""A combinatorial lower bound on the minimum makespan that does not depend on ``beta``.

Figure 4 (Section 6): the makespan ratio divides by a lower
bound the paper does not name (Section 6: "We measure a lower bound of the
makespan"); it must not depend on ``beta``, or the ratio would hide the rise
with ``beta`` (slack.md 7.6). Both bounds here ignore the slack rule, so they
hold at every ``beta`` in [0, 1]:

* :func:`lower_bound` ``(instance)`` (``problem="plain"``): a bound on the
  plain optimum. Every schedule of the slack problem, at every ``beta``, is a
  plain schedule, so it bounds **every** problem of the family; it is the
  family's one beta-independent bound.
* ``lower_bound(instance, "slack")``: a tighter bound on the slack problem at
  every ``beta`` (it adds the last-period rule, which holds at every
  ``beta``); ``None`` when ``lambda = 0`` (no slack schedule exists).

**The bound.** For a makespan ``T`` and a size ``q``, let ``W(q) = sum_{p_j >= q}
p_j``, the work of the jobs of length at least ``q``. Such a job runs, whole,
inside one period that ends by ``T``:

* on a free machine, within ``[0, T)``: room ``T`` on each of the ``lambda``;
* plain: in an availability ``[e_i^{k-1}, s_i^k)`` or a machine's tail
  ``[e_i^{K_i - 1}, +inf)``, clipped to ``[0, T)``, and only if the clipped
  length ``L`` is at least ``q``;
* slack: in interval ``(i, k)`` only if ``e_i^k <= T`` (last-period rule, since
  ``C_max <= T``), in its whole availability ``a_i^k >= q``; never in a tail.

So a schedule of makespan ``T`` has, for every ``q`` among the ``p_j``,

.. math:: W(q) \\le \\lambda T + \\sum_{\\text{periods usable by } T,\\ L \\ge q} L,

and ``T >= p_max``. Both sides are non-decreasing in ``T`` and the condition
holds at the makespan of any schedule, so the smallest integer ``T`` meeting
all of them (binary search between ``p_max`` and a schedule's makespan) is a
lower bound. ``q = min p`` is the plain work bound ``sum p <= capacity(T)``;
larger ``q`` keep long jobs out of short periods.

**The beta-aware cut** (``lower_bound(instance, "slack", beta=(num, den))``,
the slack problem at ``beta = num / den``; not the figure's denominator). By
the relaxed slack rule of Section 5.1, ``d_i^k = a_i^k - sum_{pi(i,k)} p >=
beta max_{pi(i,k)} p`` (Definition 1 for ``d``, Section 3.3 for the compact
allocation ``pi``). Take an interval ``(i, k)`` that holds a job ``j`` with
``p_j >= q``. Then ``max_{pi(i,k)} p >= q``, so

* ``a_i^k >= p_j + beta max p >= (1 + beta) q``: only intervals with
  ``a_i^k >= (1 + beta) q`` can hold such a job;
* ``sum_{pi(i,k)} p <= a_i^k - beta max p <= a_i^k - beta q``, and the load
  is an integer, so the jobs of length ``>= q`` in it weigh at most
  ``floor(a_i^k - beta q) = a_i^k - ceil(beta q)`` (``a`` is an integer).

An interval without such a job contributes nothing to ``W(q)``. The free
machines and the last-period rule are as above, so a schedule of makespan
``C_max <= T`` has, for every ``q`` among the ``p_j``,

.. math:: W(q) \\le \\lambda T + \\sum_{e_i^k \\le T,\\ a_i^k \\ge (1+\\beta) q}
          \\left(a_i^k - \\lceil \\beta q \\rceil\\right).

The right side is non-decreasing in ``T`` (more intervals, each adding a
non-negative term), so the same binary search gives a lower bound on the slack
optimum at that ``beta``. At ``beta = 0`` it is the slack bound above; the
tests check it against brute force at five ``beta``.

Cost: ``O(log H)`` evaluations of ``O((I + n) log(I + n))`` numpy work for
``I`` intervals and ``n`` jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

PROBLEMS = ("plain", "slack")


def _sizes(instance: SlackInstance) -> tuple[np.ndarray, np.ndarray]:
    """Distinct job lengths ``q`` (ascending) and ``W(q)``, exact in int64."""
    p = np.sort(instance.p.astype(np.int64))
    q, first = np.unique(p, return_index=True)
    suffix = np.concatenate([np.cumsum(p[::-1])[::-1], [0]])
    return q, suffix[first]


def _room(lengths: np.ndarray, q: np.ndarray, beta: tuple[int, int] = (0, 1)) -> np.ndarray:
    """``sum_{L >= (1 + beta) q} (L - ceil(beta q))`` for every ``q`` (exact integers)."""
    num, den = beta
    lengths = np.sort(lengths[lengths > 0])
    suffix = np.concatenate([np.cumsum(lengths[::-1])[::-1], [0]])
    first = np.searchsorted(lengths, -(-(den + num) * q // den), side="left")
    return suffix[first] - (len(lengths) - first) * (-(-num * q // den))


class _Capacity:
    """The periods of one problem, ready to be clipped at a horizon ``T``."""

    def __init__(self, instance: SlackInstance, problem: str, beta: tuple[int, int] = (0, 1)):
        t = instance.table
        self.problem, self.lam, self.beta = problem, instance.lam, beta
        if problem == "slack":
            order = np.argsort(t["e"], kind="stable")
            self.e, self.a = t["e"][order], t["a"][order]
        else:
            tails = np.array([int(row[-1, 1]) for row in instance.machines if len(row)], dtype=np.int64)
            self.begin = np.concatenate([t["start"], tails])
            # a tail never ends: an end beyond any horizon searched
            self.end = np.concatenate([t["s"], np.full(len(tails), np.iinfo(np.int64).max // 4)])

    def ok(self, T: int, q: np.ndarray, work: np.ndarray) -> bool:
        if self.lam * T >= int(work[0]):  # the free machines alone hold every job (and no int64 overflow)
            return True
        if self.problem == "slack":
            lengths = self.a[: np.searchsorted(self.e, T, side="right")]
        else:
            lengths = np.minimum(self.end, T) - self.begin
        return bool(np.all(work <= self.lam * T + _room(lengths, q, self.beta)))


def lower_bound(
    instance: SlackInstance, problem: str = "plain", beta: tuple[int, int] | None = None
) -> int | None:
    """The bound of the module docstring for ``problem`` (``"plain"``: valid for every problem).

    ``beta = (num, den)`` (slack only) applies the beta-aware cut at ``num / den``
    (usually ``instance.beta_ratio``); the bound then holds for the slack problem
    at that ``beta`` and any larger one, not below. ``None``: the beta-independent bound.

    Returns ``None`` only for ``problem="slack"`` with ``lambda = 0``, which
    has no schedule at any ``beta`` (slack.md 2.4).
    """
    if problem not in PROBLEMS:
        raise ValueError(f"problem must be one of {PROBLEMS}, got {problem!r}")
    if beta is not None and problem != "slack":
        raise ValueError("the beta-aware cut is for the slack problem")
    if problem == "slack" and instance.lam == 0:
        return None
    q, work = _sizes(instance)
    cap = _Capacity(instance, problem, (0, 1) if beta is None else beta)
    lo = int(q[-1])  # p_max
    # a schedule: everything on one free machine, or after the last interval of machine 0
    hi = int(work[0]) + (0 if instance.lam else int(instance.machines[0][-1, 1]))
    if cap.ok(lo, q, work):
        return lo
    while hi - lo > 1:  # invariant: not ok(lo), ok(hi)
        mid = (lo + hi) // 2
        if cap.ok(mid, q, work):
            hi = mid
        else:
            lo = mid
    return hi
