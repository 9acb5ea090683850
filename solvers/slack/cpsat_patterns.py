"""The structure the slack-family CP-SAT model exploits: bins, job types and interval patterns.

Canon et al. 2011, Section 3.3: a schedule is an allocation ``pi(i, k)``; jobs
of an interval run back to back in non-increasing ``p`` from its start, so
inside an interval only the *set* of jobs matters. Under the relaxed slack
rule (Section 5.1) an interval ``(i, k)`` holding the jobs ``P`` is feasible iff

.. math:: \\sum_{j \\in P} p_j + \\beta \\max_{j \\in P} p_j \\le a_i^k ,

a bin whose capacity ``a_i^k - beta * max`` depends on its largest job (its
*leader*). For a target ``T`` (every schedule sought has ``C_max <= T``):

* **slack problem**: an interval may hold jobs only if ``e_i^k <= C_max <= T``
  (the last-period rule, slack.md 2.2), so only the intervals with
  ``e_i^k <= T`` are bins; the tail after a machine's last interval is never
  closed and holds nothing; the ``lambda`` free machines are *open* bins of
  capacity ``T``;
* **plain problem**: interval ``(i, k)`` is a bin of capacity
  ``min(a_i^k, T - e_i^{k-1})`` with ``beta = 0``; a machine's tail after
  ``e_i^{K_i}`` and every free machine are open bins of capacity
  ``T - start``.

Intervals with the same ``(a, e)`` (slack) or the same ``(start, capacity)``
(plain) are interchangeable: they form a *class*, and a class is filled by
counting how many of its bins take each *pattern* (a multiset of job sizes
that fits), as in the triple / pattern models of bin packing (DESIGN.md,
pitfalls: an item-by-bin model times out on Falkenauer t60).

Pruning (all necessary conditions for a schedule with ``C_max <= T``, so the
pattern set stays exact):

* **forced jobs**: a job that fits no interval bin lies on an open bin; the
  open capacity left for the others is
  ``R = sum_open (T - start) - sum_forced p``.
* **pigeonhole**: let ``K_b(v)`` bound how many jobs of size ``>= v`` fit in
  bin ``b`` (``K v + beta v <= a``). Whatever bin ``b`` holds, the other
  bins take at most ``sum_{b' != b} K_{b'}(v) + floor(R / v)`` of the
  ``N(v)`` unforced jobs of size ``>= v``, so ``b`` holds at least
  ``r_b(v) = N(v) - sum_{b' != b} K_{b'}(v) - floor(R / v)`` of them.
* **work**: with ``ML_b`` an upper bound on the load of bin ``b`` (``a - beta
  l`` for the smallest leader ``l`` the pigeonhole allows), bin ``b`` carries
  at least ``L_b = W - sum_{b' != b} ML_{b'} - R`` of the unforced work ``W``.

On the Falkenauer-derived 3-PARTITION instances at the target ``3B+2+u``,
the filler is forced, ``R = 0``, each interval must hold a ``B+1`` job
(pigeonhole) and ``L_b = 2B+1``: the patterns are exactly the triples summing
to ``B`` beside a ``B+1`` job, the exact-cover model of the pitfall.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

#: Most DFS nodes the pattern enumeration visits before giving up (the caller then uses the
#: per-bin count model).
MAX_NODES = 1_000_000
#: Most patterns handed to one model (beyond, CP-SAT rarely closes it, and its presolve may
#: overrun the time limit).
MAX_PATTERNS = 30_000


@dataclass
class BinClass:
    """Interchangeable interval bins (table rows ``rows``).

    ``a`` is the availability, ``e`` the end of the closing unavailability
    (slack problem), ``start`` ``e_i^{k-1}``, ``cap`` the load cap at the
    target (``a`` for slack, ``min(a, T - start)`` for plain).
    """

    rows: list[int]
    a: int
    e: int
    start: int
    cap: int
    count_cap: list[int] = field(default_factory=list)  # K(v_t) per type
    need: list[int] = field(default_factory=list)  # r(v_t) per type
    min_load: int = 0
    patterns: list[tuple[tuple[tuple[int, int], ...], int]] = field(default_factory=list)

    @property
    def m(self) -> int:
        return len(self.rows)


@dataclass
class OpenBin:
    """A free machine (both problems) or the tail after a machine's last interval (plain only)."""

    machine: int
    start: int


@dataclass
class Structure:
    """Job types, interval classes and open bins of one instance at one target ``T``."""

    problem: str
    target: int
    num: int
    den: int
    sizes: list[int]  # distinct processing times, decreasing
    counts: list[int]
    jobs_of: list[list[int]]  # job indices of each type
    classes: list[BinClass]
    open: list[OpenBin]
    forced: list[int]  # types that fit no interval bin
    open_room: int  # R: open capacity left after the forced jobs
    infeasible: str | None = None

    def max_load(self, c: BinClass, leader: int) -> int:
        """Largest load of a bin of class ``c`` whose largest job has size ``leader`` (exact floor)."""
        return min(c.cap, (self.den * c.a - self.num * leader) // self.den)

    def fits(self, c: BinClass, size: int) -> bool:
        return size <= self.max_load(c, size)


def job_types(p: np.ndarray) -> tuple[list[int], list[int], list[list[int]]]:
    """Distinct sizes (decreasing), their counts and job indices (increasing)."""
    order = sorted(range(len(p)), key=lambda j: (-int(p[j]), j))
    sizes, counts, jobs_of = [], [], []
    for j in order:
        v = int(p[j])
        if not sizes or sizes[-1] != v:
            sizes.append(v)
            counts.append(0)
            jobs_of.append([])
        counts[-1] += 1
        jobs_of[-1].append(j)
    return sizes, counts, jobs_of


def build(instance: SlackInstance, problem: str, target: int, beta: tuple[int, int]) -> Structure:
    """The bins, forced jobs and pruning data at ``target`` (module docstring)."""
    num, den = beta if problem == "slack" else (0, 1)
    sizes, counts, jobs_of = job_types(instance.p)
    table = instance.table
    groups: dict[tuple[int, int, int, int], list[int]] = {}
    for r in range(len(table["a"])):
        a, e, start = int(table["a"][r]), int(table["e"][r]), int(table["start"][r])
        if problem == "slack":
            if e > target:
                continue
            key = (a, e, 0, a)
        else:
            cap = min(a, target - start)
            if cap < sizes[-1]:
                continue
            key = (a, 0, start, cap)
        groups.setdefault(key, []).append(r)
    classes = [
        BinClass(rows=rows, a=a, e=e, start=start, cap=cap)
        for (a, e, start, cap), rows in sorted(groups.items())
    ]
    open_bins = [OpenBin(i, 0) for i in instance.free]
    if problem == "plain":
        for i, row in enumerate(instance.machines):
            if len(row) and int(row[-1, 1]) + sizes[-1] <= target:
                open_bins.append(OpenBin(i, int(row[-1, 1])))
    st = Structure(problem, target, num, den, sizes, counts, jobs_of, [], open_bins, [], 0)
    classes = [c for c in classes if st.fits(c, sizes[-1])]
    st.classes = classes
    fit = _fits_table(st)
    if fit is None:
        st.forced = [t for t, v in enumerate(sizes) if not any(st.fits(c, v) for c in classes)]
    else:
        st.forced = np.flatnonzero(~fit.any(axis=0)).tolist()
    open_cap = sum(max(0, target - o.start) for o in open_bins)
    st.open_room = open_cap - sum(sizes[t] * counts[t] for t in st.forced)
    widest = max((target - o.start for o in open_bins), default=-1)
    too_long = [t for t in st.forced if sizes[t] > widest]
    if too_long:
        st.infeasible = (
            f"a job of length {sizes[too_long[0]]} fits no interval bin and no open machine by {target}"
        )
    elif st.open_room < 0:
        st.infeasible = f"the jobs that fit no interval exceed the open machines' capacity by {target}"
    else:
        _prune_data(st)
    return st


def _exact_in_int64(st: Structure) -> bool:
    """Every product of :func:`_prune_data` (``den a``, ``num v``, ``den v``) fits an int64."""
    top = max([c.a for c in st.classes] + [c.cap for c in st.classes] + [st.sizes[0], 1])
    return max(st.den, st.num, 1) * top < 2**62


def _fits_table(st: Structure) -> np.ndarray | None:
    """``fits(c, v)`` for every class (rows) and size (columns); ``None`` past int64's range.

    A paper-scale instance has hundreds of classes and thousands of sizes: Python loops over the
    pairs took seconds of every model (work no budget counted).
    """
    if not st.classes or not _exact_in_int64(st):
        return None
    a, cap, _, v = _class_arrays(st)
    return v <= np.minimum(cap, (st.den * a - st.num * v) // st.den)


def _class_arrays(st: Structure) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The classes' ``a`` and ``cap`` (columns), their bin counts ``m``, and the sizes (a row)."""
    a = np.array([c.a for c in st.classes], dtype=np.int64)[:, None]
    cap = np.array([c.cap for c in st.classes], dtype=np.int64)[:, None]
    m = np.array([c.m for c in st.classes], dtype=np.int64)
    return a, cap, m, np.array(st.sizes, dtype=np.int64)[None, :]


def _prune_data(st: Structure) -> None:
    """Fill ``count_cap``, ``need`` and ``min_load`` of every class (module docstring)."""
    q = len(st.sizes)
    forced = set(st.forced)
    n_ge, acc = [], 0
    for t in range(q):
        acc += 0 if t in forced else st.counts[t]
        n_ge.append(acc)
    if st.classes and _exact_in_int64(st):
        a, cap, m, v = _class_arrays(st)
        room = st.den * a - st.num * v
        k = np.where(room < st.den * v, 0, np.minimum(room // (st.den * v), cap // v))
        k = np.minimum(k, np.array(n_ge, dtype=np.int64)[None, :])
        total_k = m @ k
        need = np.maximum(0, np.array(n_ge)[None, :] - (total_k[None, :] - k) - st.open_room // v)
        for c, caps, needs in zip(st.classes, k.tolist(), need.tolist(), strict=True):
            c.count_cap, c.need = caps, needs
    else:
        for c in st.classes:
            c.count_cap = []
            for t, v in enumerate(st.sizes):
                room = st.den * c.a - st.num * v
                k = 0 if room < st.den * v else min(room // (st.den * v), c.cap // v)
                c.count_cap.append(min(k, n_ge[t]))
        total_k = [sum(c.m * c.count_cap[t] for c in st.classes) for t in range(q)]
        for c in st.classes:
            c.need = [
                max(0, n_ge[t] - (total_k[t] - c.count_cap[t]) - st.open_room // st.sizes[t])
                for t in range(q)
            ]
    work = sum(st.sizes[t] * st.counts[t] for t in range(q) if t not in forced)
    ml = []
    for c in st.classes:
        first = next((t for t in range(q) if c.need[t] > 0), None)
        lead = st.sizes[first] if first is not None else st.sizes[-1]
        ml.append(max(0, st.max_load(c, lead)) if st.fits(c, lead) else 0)
    total_ml = sum(c.m * x for c, x in zip(st.classes, ml, strict=True))
    for c, x in zip(st.classes, ml, strict=True):
        c.min_load = max(0, work - (total_ml - x) - st.open_room)


class TooMany(Exception):
    """The enumeration passed :data:`MAX_NODES` or :data:`MAX_PATTERNS`."""


class OutOfTime(Exception):
    """The enumeration passed its deadline (a ``time.perf_counter()`` reading)."""


def enumerate_patterns(
    st: Structure,
    c: BinClass,
    max_nodes: int | None = None,
    max_patterns: int | None = None,
    deadline: float | None = None,
    spent: list[int] | None = None,
) -> list[tuple[tuple[tuple[int, int], ...], int]]:
    """Every non-empty pattern of class ``c`` that passes the pruning: ``[((type, count), ...), load]``.

    ``spent = [nodes, patterns]`` carries what the other classes of the same
    model used: ``max_nodes`` and ``max_patterns`` bound the model as a whole
    (CP-SAT's presolve overran its time limit by 40 s on 106,000 patterns).

    A depth-first search over the types in decreasing size; the first type
    taken is the leader and fixes the load cap ``max_load(c, leader)``.
    Skipping type ``t`` freezes the number of jobs of size ``>= v_t`` taken, which
    must reach ``need[t]``; a branch stops when even filling the room left with
    jobs no larger than the next size cannot reach ``min_load``.

    Raises
    ------
    TooMany
        Past ``max_nodes`` nodes or ``max_patterns`` patterns.
    OutOfTime
        Past ``deadline``.
    """
    max_nodes = MAX_NODES if max_nodes is None else max_nodes
    max_patterns = MAX_PATTERNS if max_patterns is None else max_patterns
    sizes, counts, need = st.sizes, st.counts, c.need
    q = len(sizes)
    forced = set(st.forced)
    smallest = sizes[-1]
    suffix = [0] * (q + 1)
    need_after = [0] * (q + 1)  # max need[u] for u >= t
    for t in range(q - 1, -1, -1):
        suffix[t] = suffix[t + 1] + (0 if t in forced else sizes[t] * counts[t])
        need_after[t] = max(need_after[t + 1], need[t])
    out: list = []
    nodes, base = (0, 0) if spent is None else (spent[0], spent[1])
    chosen: list[tuple[int, int]] = []

    def reach(t: int, room: int) -> int:
        """An upper bound on the load jobs of types ``>= t`` can add within ``room``."""
        return min(room, (room // smallest) * sizes[t], suffix[t])

    def dfs(t0: int, load: int, cap: int, taken: int) -> None:
        nonlocal nodes
        if load > 0 and load >= c.min_load and need_after[t0] <= taken:
            out.append((tuple(chosen), load))
            if len(out) + base > max_patterns:
                raise TooMany
        for t in range(t0, q):
            v = sizes[t]
            if t not in forced:
                if load == 0:
                    cap = st.max_load(c, v)  # v leads: a smaller leader leaves more room, so no cut here
                    room = cap
                    usable = cap >= v and reach(t, room) >= c.min_load
                else:
                    room = cap - load
                    if load + reach(t, room) < c.min_load:
                        return  # smaller types reach even less
                    usable = True
                for k in range(min(counts[t], room // v), 0, -1) if usable else ():
                    nodes += 1
                    if nodes > max_nodes:
                        raise TooMany
                    if deadline is not None and not nodes & 4095 and time.perf_counter() > deadline:
                        raise OutOfTime
                    chosen.append((t, k))
                    dfs(t + 1, load + k * v, cap, taken + k)
                    chosen.pop()
            if need[t] > taken:
                return  # skipping type t would leave too few jobs of size >= v_t

    try:
        dfs(0, 0, 0, 0)
    finally:
        if spent is not None:
            spent[0] = nodes
            spent[1] = base + len(out)
    return out
