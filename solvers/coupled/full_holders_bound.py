r"""A lower bound for problem ``full`` that tracks who may hold the program: the holder bound.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section III, as replayed by :mod:`.replay`.

The data chain of :mod:`.full_bound` lets every processor that was UP long enough since its
last DOWN hold the program. On the paper's realizations with short tasks (``w_min`` 1 to 3)
that is where it is loose: a program reaches only an *enrolled* worker (III-C), in ``T_prog``
UP slots, and nobody is enrolled but the final allocation's members while an iteration computes.
This bound is an exhaustive search over relaxed iterations whose state carries the set of
processors that may hold a program.

**The relaxed iteration.** A state ``(s, H)``: the next iteration may begin at ``s``, and ``H``
contains every processor holding a complete program at ``s``. An allocation ``x`` (support
``S``, workload ``W = W(x)``) *completes at t from (s, H)* when

* with ``a = max(s, max_{q in S} L_q(t + 1))``, at least ``W`` slots ``u`` of ``[a, t]`` have
  every member ready for its ``x_q`` tasks: UP, with ``x_q T_data`` UP slots in
  ``[max(s, L_q(u)), u)`` if it *keeps* its program (``q`` in ``H`` and ``L_q(u) <= s``: not
  DOWN since ``s``), or ``T_prog + x_q T_data`` of them if not (``readiness`` of
  :mod:`._holders_kernel`, the holder search's own rule); let ``e`` be the latest slot of
  ``[a, t]`` such that ``[e, t]`` holds ``W`` such slots (at most ``t + 1 - W``, and less when
  members are RECLAIMED or not ready in between);
* the transfers fit: ``min(n_com, m) (e - s) >= m T_data + T_prog r``, ``r`` the members
  that do not keep their program through ``t``;
* the task lanes hold the programs: ``r <= P``, where

  .. math:: P = \sum_{q \in S} \sum_{j=1}^{x_q} \left\lfloor \frac{B_{q,j} - s}{T_{prog}} \right\rfloor,

  ``B_{q,j}`` the latest ``b`` in ``[s, e]`` with ``(x_q - j + 1) T_data`` UP slots of ``q`` in
  ``[b, e)`` (a member's ``j``-th task lane is free before it).

Its successors are ``(t + 1, K ∪ G)``, ``K`` the members and the processors of ``H`` not DOWN
in ``[s, t]``, for the spares ``G`` gained: with ``E`` the other processors with at least
``T_prog`` UP slots in ``[max(s, L_q(t + 1)), B^*)``, ``B^* = max B_{q,j}`` (``e`` when
``T_prog = 0``, where neither the lanes nor the volume bind), and room for ``g = min(floor(R / T_prog),
P - r)`` more programs, ``R = min(n_com, m) (e - s) - m T_data - T_prog r`` the transfer slots
left, every ``g``-subset of ``E``; when ``g`` is at least ``|E|``, or ``E`` has more of them
than a limit (:data:`SUBSET_LIMITS`), ``G = E`` (a superset of each, so only looser).

**Every iteration of a feasible schedule is such a transition.** Take a schedule the replay
accepts, whose ``i``-th iteration completes at ``c`` on the allocation ``x`` of its last
attempt, begun at ``a'``, and let ``s`` be one past the previous completion (0 for the first)
and ``T`` the processors holding a complete program at ``s``. By induction ``T`` is in ``H``
(at ``s = 0`` nobody holds one, and ``H`` is empty).

* *Readiness.* The attempt computes in ``W`` slots of ``[a', c]``, no member DOWN there (a DOWN
  restarts it) so ``a' >= a``. In such a slot ``u`` a member holds the program and ``x_q
  T_data`` data slots of this iteration (III-C), received after its last DOWN (III-B: DOWN loses
  both), one transfer per UP slot (III-B), data after ``s`` (data is per iteration, III-A). A
  member that does not hold a program at ``s``, or lost it to a DOWN since, received all
  ``T_prog`` of it after ``max(s, L_q(u))`` too: a partial program does not cross an iteration
  boundary, since at ``s - 1`` only the previous final allocation's members are enrolled and
  they hold complete programs (they computed), and a worker that leaves the configuration
  loses a partial one (III-C).
* *Transfers.* From the attempt's first computing slot on nobody receives anything: its members
  hold all they need (a further transfer would be useless, which the replay rejects) and the
  others are not enrolled. That first computing slot ``f`` is at most ``e``: the ``W`` computing
  slots lie in ``[f, c]`` and each has every member ready (the point above), so ``[f, c]`` holds
  ``W`` of the slots that define ``e``. So every transfer of the iteration falls in ``[s, e)``, at
  most ``n_com`` per slot (III-B) and one per enrolled worker, of which there are at most ``m``
  (each holds a task). They include the ``m T_data`` data slots and the whole program of every
  member that does not keep one.
* *Lanes.* A configuration gives out the ``m`` tasks (III-C), and a worker is enrolled while it
  holds one. Cut each worker's holding into intervals, its ``j``-th task's being the maximal runs
  with ``y_q >= j``: at most ``m`` are open in any slot, so, an interval graph being perfect,
  they fit on ``m`` *lanes* with no overlap in a lane. In the attempt's first computing slot
  ``f <= e`` the configuration is ``x``, so each lane's interval open at ``f`` is one of the
  members' tasks, held to ``c``. Member ``q``'s ``j``-th one begins at some ``b``; before it
  ``y_q < j``, so ``q`` kept at most ``(j - 1) T_data`` data slots (kept data is at most the new
  tasks', ``min(d_q, x'_q T_data)``, and leaving loses all; the replay's rules), and it holds
  ``x_q T_data`` at ``f``: the rest came one per UP slot in ``[b, f)``, so ``max(s, b) <=
  B_{q,j}``. A program received in the iteration (by a member that does not keep one, or by a
  spare that gains one) arrives within one enrolment of its worker in ``[s, f)`` (a partial one
  is lost on leaving), so it fills a segment of ``T_prog`` slots or more before that lane's
  final interval begins; or, for a member that receives it within its final first-task interval,
  the part of ``[max(s, b), f)`` before its last ``x_q T_data`` UP slots, which ends by
  ``B_{q,1}``. These segments do not overlap, so each lane's ``[s, B)`` holds at most
  ``floor((B - s) / T_prog)`` of them: ``r`` plus the spares gained is at most ``P``.
* *Holders.* A processor holding a program at ``c + 1`` is a member, or held one at ``s`` and
  was not DOWN since (in ``H`` by induction), or received all of it in this iteration while
  enrolled and not a member: in UP slots after its last DOWN and in ``[s, B^*)``, a free lane
  segment (by the points above), so it is in ``E``. Such a program's ``T_prog`` transfers are
  among the iteration's, beside the members' ``m T_data + T_prog r``, and it takes a lane
  segment: at most ``g`` spares gain one, and they are within some ``g``-subset of ``E`` (or
  ``E``). So the true holders at ``c + 1`` are in one of the successors' holder sets.

A larger ``H`` only loosens the rule, so the relaxed iterations from the true states reach,
iteration by iteration, completions no later than the schedule's: the least ``t_K + 1`` over
relaxed paths of ``K`` iterations is a lower bound on the makespan.

**The search.** Layer ``k`` holds the states after ``k`` relaxed iterations. A state is expanded
over every allocation that can complete (its members have ``W`` ready slots since their last DOWN;
:func:`.allocations.completable` lists them without the others, and gives up beyond
:data:`.allocations.MAX_COMPLETABLE`, and then so does the bound) and every completion slot ``t`` up
to the last from which the data chain of the remaining iterations (:class:`.full_bound.DataChain`
restarted at ``t + 1``, a lower bound whatever the holders) can still end below ``target``. A state
``(s1, H1)`` *dominates* ``(s2, H2)`` when ``s1 <= s2`` and the processors of ``H1`` not DOWN in
``[s1, s2)`` include ``H2``: every relaxed iteration from the second is one from the first (the
windows only widen, ``e`` only grows, the holders only grow), so the second is dropped. When the
last layer is empty, no schedule ends below ``target``; otherwise its least ``s`` is the relaxed
optimum.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..problem import Allowance
from .allocations import completable, trackable

if TYPE_CHECKING:
    from volsched.instances.coupled import CoupledInstance

    from .full_bound import DataChain

#: Subsets of eligible spares up to which the bound branches on which gain a program (beyond, all
#: gain one), per pass of a solve: the next pass runs when the previous one did not prove.
SUBSET_LIMITS = (200, 500)

#: Successors one expansion writes before the buffer is grown.
FIRST_BUFFER = 1 << 16


def applies(instance: CoupledInstance) -> bool:
    """The bound runs when its holder sets fit a bit mask (:func:`.allocations.trackable`)."""
    return trackable(instance)


def holders_bound(
    instance: CoupledInstance,
    target: int,
    chain: DataChain,
    allowance: Allowance | None = None,
    subsets: int = SUBSET_LIMITS[0],
    path: list[tuple[int, int]] | None = None,
) -> int | None:
    """The least makespan of a relaxed path below ``target``, or ``target`` when there is none.

    Parameters
    ----------
    instance : CoupledInstance
        Any ``n_com``; with too many processors (:func:`applies`), ``None``.
    target : int
        Usually the incumbent's makespan: a return value equal to it proves the incumbent optimal.
    chain : DataChain
        The instance's data chain, which cuts the search.
    allowance : Allowance, optional
        Charged one unit per state expanded; a search it stops returns ``None``, and so does one
        with a state that has too many allocations to list.
    subsets : int, optional
        Branch on which ``g`` spares gain a program while ``E`` has at most this many
        ``g``-subsets; 0 never branches (``G = E``).
    path : list, optional
        When the bound is below ``target``, receives one relaxed path that reaches it: per
        iteration, the state ``(s, H)`` after it (``s`` one past its completion, ``H`` a bit mask
        of who may hold a program). Where an incumbent misses the bound, it shows which holders
        and completions the relaxation counts on.

    Returns
    -------
    int or None
        A lower bound on the makespan, at most ``target``.

    Examples
    --------
    >>> from volsched.instances.coupled import paper_realization
    >>> from volsched.solvers.coupled.full_bound import DataChain
    >>> instance = paper_realization(5, 20, 1, 0, 5, slots=200)
    >>> chain = DataChain(instance)
    >>> chain.completions()[-1] + 1  # the data chain
    42
    >>> holders_bound(instance, 47, chain)  # the holder search's 47 is optimal
    47
    """
    if not applies(instance):
        return None
    from . import _holders_kernel  # numba only on first use

    allowance = Allowance.of(allowance)
    p, m, big_k = instance.p, instance.m, instance.K
    avail, count, since = chain.avail, chain.count, chain.since  # the realization's tables
    lanes = min(instance.n_com, m)
    out = np.empty(FIRST_BUFFER, dtype=np.int64)
    layer: list[tuple[int, int]] = [(0, 0)]
    layer_states: list[list[tuple[int, int]]] = []
    parents: list[dict[tuple[int, int], int]] = []  # per layer: each state's parent in the one before
    for k in range(big_k):
        left = big_k - k - 1
        found, sources = [], []
        for index, (start, holders) in enumerate(layer):
            last = chain.latest(start, left, target)
            if last < start:
                continue
            if allowance.charge(1):
                return None
            holder = np.array([(holders >> q) & 1 for q in range(p)], dtype=np.bool_)
            ready = _holders_kernel.readiness(
                avail, count, since, start, holder, instance.T_prog, instance.T_data, m, last
            )
            rows = completable(instance, ready)
            if rows is None:  # too many to list: no bound
                return None
            args = (ready, count, since, *rows, start, holders, lanes, m)
            n = _holders_kernel.successors(*args, instance.T_prog, instance.T_data, subsets, out)
            if n > len(out):
                out = np.empty(2 * n, dtype=np.int64)
                n = _holders_kernel.successors(*args, instance.T_prog, instance.T_data, subsets, out)
            found.append(np.unique(out[:n]))
            if path is not None:
                sources.append(np.full(len(found[-1]), index, dtype=np.int64))
        if not found:
            return target
        keys, first = np.unique(np.concatenate(found), return_index=True)
        layer = _frontier([(key >> p, key & ((1 << p) - 1)) for key in keys.tolist()], since)
        if not layer:
            return target
        if path is not None:  # the first state that produced each kept one
            source = dict(zip(keys.tolist(), np.concatenate(sources)[first].tolist(), strict=True))
            parents.append({(s, h): source[((s - 1) << p) | h] for s, h in layer})
            layer_states.append(layer)
    best = min(layer, key=lambda state: state[0])
    if path is not None and best[0] < target:
        path[:] = _trace(layer_states, parents, best)
    return min(target, best[0])


def _trace(
    layers: list[list[tuple[int, int]]], parents: list[dict], last: tuple[int, int]
) -> list[tuple[int, int]]:
    """The states of the relaxed path that ends in state ``last`` of the final layer."""
    states, state = [], last
    for k in range(len(layers) - 1, -1, -1):
        states.append(state)
        if k:
            state = layers[k - 1][parents[k][state]]
    return states[::-1]


def _frontier(successors: list[tuple[int, int]], since: np.ndarray) -> list[tuple[int, int]]:
    """The states ``(t + 1, H')`` of the successors ``(t, H')`` that no other dominates."""
    p = since.shape[0]
    kept: list[tuple[int, int]] = []
    for t, held in sorted(successors, key=lambda s: (s[0], -s[1].bit_count(), s[1])):
        starts = since[:, t + 1].tolist()
        survivors: dict[int, int] = {}  # per kept start s1: the processors not DOWN in [s1, t]
        dominated = False
        for s1, h1 in kept:
            if s1 not in survivors:
                survivors[s1] = sum(1 << q for q in range(p) if starts[q] <= s1)
            if held & ~(h1 & survivors[s1]) == 0:
                dominated = True
                break
        if not dominated:
            kept.append((t + 1, held))
    return kept


__all__ = ["SUBSET_LIMITS", "applies", "holders_bound"]
