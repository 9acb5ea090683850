"""A lower bound on the slack optimum at any ``beta``: column generation over interval patterns.

Canon et al. 2011, Sections 3.3 and 5.1, as read in ``readings/slack.md`` 1.6 and 2. A schedule is
an allocation ``pi(i, k)``; interval ``(i, k)`` may hold the job set ``P`` only if the relaxed slack
rule ``d_i^k = a_i^k - sum_P p >= beta max_P p`` holds (Definition 1 for the slack ``d``, Section
5.1 for ``beta``) and ``e_i^k <= C_max`` (the last-period rule, slack.md 2.2, at every ``beta``).
Jobs of an interval end before ``s_i^k < e_i^k``, and a non-free machine's tail holds nothing, so
``C_max`` is the largest load of the ``lambda`` free machines.

**The LP at a target T.** Let the job *types* ``t`` have sizes ``v_t`` and counts ``n_t``; let the
interval *classes* ``c`` group the ``m_c`` intervals of equal ``(a_c, e_c)`` with ``e_c <= T``. A
*pattern* of class ``c`` is a multiset of types ``P``; its *leader* is its longest job. Let
``pat_c`` be the patterns with ``sum_P v + beta v_lead <= a_c`` (the slack rule: the set fits), and
``pat'_c`` a superset of it (below). The LP is

.. math:: Z(T) = \\min \\sum_t v_t y_t \\quad \\text{s.t.} \\quad
          \\sum_{c, P} P_t x_{c,P} + y_t \\ge n_t \\ (\\forall t), \\quad
          \\sum_{P \\in pat'_c} x_{c,P} \\le m_c \\ (\\forall c), \\quad x, y \\ge 0 .

*Claim 1: a schedule with C_max <= T gives Z(T) <= lambda T.* Let ``x_{c,P}`` count the intervals
of class ``c`` whose job set is ``P`` and ``y_t`` the jobs of type ``t`` on free machines. Every
used interval has ``e <= C_max <= T``, so it is in a class of the LP; its set obeys the slack rule,
so ``P`` is in ``pat_c``, a subset of ``pat'_c``; each job is in one place, so the covering rows hold
with equality; each interval holds one set, so the class rows hold. The objective is the work on the
free machines, at most ``lambda C_max <= lambda T``. Hence ``Z(T) > lambda T`` proves that no
schedule has ``C_max <= T``.

*Claim 2: a lower bound on Z(T) from any prices.* The dual of the LP is
``max sum_t n_t pi_t - sum_c m_c mu_c`` over ``0 <= pi_t <= v_t`` (the column of ``y_t``),
``mu >= 0`` and ``sum_t P_t pi_t <= mu_c`` for every ``P`` in ``pat'_c``. For *any* ``pi`` with
``0 <= pi <= v``, ``mu_c = max(0, V_c(pi))`` with ``V_c(pi) = max_{P in pat'_c} sum_t P_t pi_t``
is dual feasible, so by weak duality

.. math:: Z(T) \\ge L(\\pi, T) = \\sum_t n_t \\pi_t - \\sum_{c:\\ e_c \\le T} m_c \\max(0, V_c(\\pi)).

``L(pi, T)`` does not increase with ``T`` (more classes subtract non-negative terms) and
``lambda T`` increases, so the ``T`` with ``L(pi, T) > lambda T`` form a prefix of the integers:
by Claims 1 and 2 every ``T`` in it is below the optimum, and the first ``T`` past it is a lower
bound on ``C_max``. This holds for every ``pi`` whatever the columns the LP has seen; column
generation only chooses good prices (those of the restricted LP's optimal dual).

*Exact arithmetic.* Prices are rounded down to multiples of ``1 / D`` (:data:`PRICE_SCALE`) and
clipped to ``[0, v_t]`` (any such ``pi`` is allowed), ``V_c`` is an exact integer knapsack in those
units and ``L`` is compared with ``lambda T`` in integers: floating point only chooses ``pi``.

**Pricing** (``V_c`` and the best pattern of every class at once). A pattern whose leader has
price 0 is worth no more than the rest of it, which is a pattern with a shorter leader (a shorter
leader needs less slack), so only leaders of positive price matter, and only the jobs of positive
price fill. Let ``pat'_c`` be the patterns with leader ``l`` and

.. math:: \\sum_{j \\in P} \\lfloor v_j / \\delta \\rfloor \\le
          \\lfloor \\lfloor a_c - \\beta v_l \\rfloor / \\delta \\rfloor ,

a superset of ``pat_c`` (for a set that fits, ``sum_P delta floor(v / delta) <= sum_P v <= floor(a_c
- beta v_l)``; the grid ``delta`` keeps the table small: 1 on small instances). Scanning the jobs of
positive price by non-decreasing size, a 0/1 knapsack table over the capacities ``0..K`` holds the
best value of the jobs seen so far; each type, at its last copy, is tried as every class's leader
(``pi_l + f[floor(floor(a_c - beta v_l) / delta) - floor(v_l / delta)]``), then added to the table. A
capacity past the table's end is read at its end, which is exact once the table spans the total
weight of the jobs of positive price; otherwise ``delta`` grows until it does or ``K`` reaches
:data:`MAX_CELLS`, and the classes whose capacity passes ``K`` are bounded by the fractional
knapsack of every job of positive price in ``a_c - beta v_min`` (an upper bound on ``V_c``; ``v_min``
the shortest of them), their columns built greedily.

**Work.** Deterministic ticks: knapsack cells updated, back-tracking steps and LP simplex
iterations times rows; :data:`TICKS_PER_UNIT` ticks make one work unit of the method's budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from volsched.instances.slack import SlackInstance

    from ..problem import Allowance

#: Prices are multiples of 1 / PRICE_SCALE in the exact bound (module docstring).
PRICE_SCALE = 2**20
#: Largest knapsack table (capacities 0..K).
MAX_CELLS = 1 << 14
#: Deterministic ticks per work unit: about one second of this module's work on the 2-core
#: development machine, as one CP-SAT deterministic time unit is about a second of its search.
TICKS_PER_UNIT = 5e7
#: Columns a class may receive per pricing pass (its best pattern under each of its best leaders).
LEADERS = 4
#: Greedy columns per class before the first LP (leaders spread over the sizes that fit).
SEED_LEADERS = 12
#: Ticks per simplex iteration and LP row (measured: about a knapsack cell's time).
LP_TICKS = 1
#: Columns a class keeps between rounds: those in the LP's solution and the KEEP of least reduced
#: cost (the rest are dropped to keep the LP small; dropped columns never weaken the bound).
KEEP = 20
#: Most column-generation rounds (each: one LP, one pricing pass).
MAX_ROUNDS = 400


@dataclass
class LPBound:
    """What :func:`lp_bound` proved: ``bound`` (every ``C_max < bound`` is impossible) and the record."""

    bound: int
    rounds: int = 0
    ticks: float = 0.0
    converged: bool = False
    columns: int = 0
    delta: int = 1
    history: list = field(default_factory=list)


class _Data:
    """Types, classes and the knapsack grid of one instance below a horizon."""

    def __init__(self, instance: SlackInstance, hi: int):
        self.num, self.den = instance.beta_ratio
        self.lam = instance.lam
        p = instance.p.astype(np.int64)
        self.v, self.n = np.unique(p, return_counts=True)  # ascending sizes
        t = instance.table
        den, num = self.den, self.num
        fits = (den * t["a"] >= (den + num) * int(self.v[0])) & (t["e"] < hi)
        keys = np.stack([t["e"][fits], t["a"][fits]], axis=1)
        if len(keys):
            uniq, counts = np.unique(keys, axis=0, return_counts=True)  # sorted by e, then a
        else:
            uniq, counts = np.zeros((0, 2), np.int64), np.zeros(0, np.int64)
        self.e, self.a, self.m = (
            uniq[:, 0].astype(np.int64),
            uniq[:, 1].astype(np.int64),
            counts.astype(np.int64),
        )
        total = int((self.v * self.n).sum())
        self.a_eff = np.minimum(self.a, total + int(self.v[-1]))  # an interval cannot hold more than all jobs
        top = int(self.a_eff.max()) if len(self.a) else 1
        self.delta = max(1, -(-top // MAX_CELLS))

    def cap(self, lead: int) -> np.ndarray:
        """``floor(a_c - beta lead)`` of every class (negative: the leader does not fit)."""
        return (self.den * self.a_eff - self.num * lead) // self.den


def _price(d: _Data, pi: np.ndarray) -> tuple[np.ndarray, list]:
    """``V_c(pi)`` (exact upper bound, in price units) of every class and good patterns for it.

    Returns ``(values, patterns, ticks)``: ``values[c] >= 0``; ``patterns[c]`` lists ``(value,
    {type: count})``, the best pattern under each of the class's :data:`LEADERS` best leaders.
    """
    ncls = len(d.a)
    values = np.zeros(ncls, np.int64)
    top_v = np.zeros((ncls, LEADERS), np.int64)
    top_i = np.full((ncls, LEADERS), -1, np.int64)
    top_k = np.zeros((ncls, LEADERS), np.int64)
    pos = np.flatnonzero(pi > 0)
    if not len(pos) or not ncls:
        return values, [[] for _ in range(ncls)], 0.0
    item_type = np.repeat(pos, d.n[pos])
    w_all = d.v[item_type] // d.delta
    delta = d.delta
    width = int(w_all.sum())
    cells = min(width, MAX_CELLS) + 1
    f = np.zeros(cells, np.int64)
    take = np.zeros((len(item_type), cells), bool)
    last = np.r_[item_type[1:] != item_type[:-1], True]
    rows = np.arange(ncls)
    ticks = 0.0
    for i, t in enumerate(item_type):
        v, w, price = int(d.v[t]), int(w_all[i]), int(pi[t])
        if last[i]:
            cap = d.cap(v)
            ok = cap >= v
            k = cap // delta - w
            exact = ok & ((k <= cells - 1) | (cells - 1 >= width))
            kk = np.clip(k, 0, cells - 1)
            val = price + f[kk]
            values = np.where(exact & (val > values), val, values)
            slot = top_v.argmin(axis=1)
            better = exact & (val > top_v[rows, slot])
            top_v[rows[better], slot[better]] = val[better]
            top_i[rows[better], slot[better]] = i
            top_k[rows[better], slot[better]] = kk[better]
        if w == 0:
            f += price
            take[i, :] = True
        else:
            cand = f[:-w] + price
            mask = cand > f[w:]
            f[w:][mask] = cand[mask]
            take[i, w:] = mask
        ticks += cells + ncls
    patterns: list = [[] for _ in range(ncls)]
    for c, s in zip(*np.nonzero(top_i >= 0), strict=True):
        i, k = int(top_i[c, s]), int(top_k[c, s])
        pat = {int(item_type[i]): 1}
        for j in range(i - 1, -1, -1):
            ticks += 1
            if take[j, k]:
                t = int(item_type[j])
                pat[t] = pat.get(t, 0) + 1
                k -= int(w_all[j])
        patterns[c].append((int(top_v[c, s]), pat))
    shortest = int(d.v[pos[0]])
    wide = (
        np.flatnonzero(d.cap(shortest) // delta - shortest // delta > cells - 1) if width > cells - 1 else []
    )
    if len(wide):
        ratio = sorted(pos, key=lambda t: (-Fraction(int(pi[t]), int(d.v[t])), -int(d.v[t])))
    for c in wide:  # capacity past the table: the fractional knapsack bounds V_c; a greedy column
        left, bound = int(d.cap(shortest)[c]), 0
        for t in ratio:
            whole = min(int(d.n[t]), left // int(d.v[t]))
            bound += whole * int(pi[t])
            left -= whole * int(d.v[t])
            if whole < d.n[t]:
                bound += -(-int(pi[t]) * left // int(d.v[t]))
                break
        values[c] = max(values[c], bound)
        greedy = _greedy_pattern(d, pi, c)
        if greedy is not None:
            patterns[c].append((sum(int(pi[t]) * k for t, k in greedy.items()), greedy))
        ticks += len(pos)
    return values, patterns, ticks


def _greedy_pattern(d: _Data, pi: np.ndarray, c: int) -> dict | None:
    """A pattern of class ``c`` that fits exactly: jobs of positive price by price per unit, the
    first one (the longest allowed) leading."""
    pos = [int(t) for t in np.flatnonzero(pi > 0)]
    pos.sort(key=lambda t: (-int(pi[t]) / int(d.v[t]), -int(d.v[t])))
    pat: dict = {}
    load, lead = 0, 0
    a = int(d.a_eff[c])
    for t in pos:
        v = int(d.v[t])
        for _ in range(int(d.n[t])):
            new_lead = max(lead, v)
            if d.den * (load + v) + d.num * new_lead > d.den * a:
                break
            pat[t] = pat.get(t, 0) + 1
            load, lead = load + v, new_lead
    return pat or None


def _first_possible(d: _Data, pi: np.ndarray, values: np.ndarray, start: int) -> int:
    """The least ``T >= start`` with ``L(pi, T) <= lambda T`` (exact integers, price units)."""
    base = int((d.n * pi).sum())
    edges, where = np.unique(d.e, return_inverse=True)
    drop = np.zeros(len(edges), np.int64)
    np.add.at(drop, where, d.m * np.maximum(values, 0))
    gone = np.concatenate([[0], np.cumsum(drop)])  # gone[k]: subtracted once T >= edges[k - 1]
    scale = PRICE_SCALE * d.lam
    first = int(np.searchsorted(edges, start, side="right"))
    starts = [start] + [int(x) for x in edges[first:]]
    for j, t0 in enumerate(starts):
        need = max(t0, -(-(base - int(gone[first + j])) // scale))
        if j + 1 == len(starts) or need < starts[j + 1]:
            return int(need)
    raise AssertionError("unreachable: the last segment is unbounded")


def _solve_master(d: _Data, cols: list, T: int) -> tuple[float, np.ndarray, np.ndarray, int]:
    """The restricted LP at ``T``: ``(value, pi, mu, simplex iterations)``; ``mu`` per class."""
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    ntypes = len(d.v)
    active = np.flatnonzero(d.e <= T)
    rows, cidx, vals = [], [], []
    cost = [float(x) for x in d.v]  # y_t first
    for t in range(ntypes):
        rows.append(t)
        cidx.append(t)
        vals.append(-1.0)
    owner = []
    for k, c in enumerate(active):
        for pat in cols[c]:
            j = len(cost)
            cost.append(0.0)
            owner.append(c)
            for t, cnt in pat.items():
                rows.append(t)
                cidx.append(j)
                vals.append(-float(cnt))
            rows.append(ntypes + k)
            cidx.append(j)
            vals.append(1.0)
    nrow = ntypes + len(active)
    a_ub = coo_matrix((vals, (rows, cidx)), shape=(nrow, len(cost))).tocsr()
    b_ub = np.concatenate([-d.n.astype(float), d.m[active].astype(float)])
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=(0, None), method="highs-ds")
    if res.status != 0:
        raise RuntimeError(f"the restricted LP failed: {res.message}")
    duals = -res.ineqlin.marginals
    mu = np.zeros(len(d.a))
    mu[active] = duals[ntypes:]
    # keep the columns the LP uses: a smaller LP next round, and any prices give a valid bound
    x, at = res.x[ntypes:], 0
    pi = duals[:ntypes]
    for k, c in enumerate(active):
        count = len(cols[c])
        if count > KEEP:
            rc = [duals[ntypes + k] - sum(pi[t] * n for t, n in pat.items()) for pat in cols[c]]
            keep = set(np.argsort(rc, kind="stable")[:KEEP].tolist()) | set(
                np.flatnonzero(x[at : at + count] > 0)
            )
            cols[c] = [pat for q, pat in enumerate(cols[c]) if q in keep]
        at += count
    return float(res.fun), duals[:ntypes], mu, int(res.nit) * nrow * LP_TICKS


def _add(cols: list, seen: list, c: int, pat: dict) -> int:
    key = tuple(sorted(pat.items()))
    if key in seen[c]:
        return 0
    seen[c].add(key)
    cols[c].append(pat)
    return 1


def _initial_columns(d: _Data, cols: list, seen: list) -> int:
    """Per class, a greedy pattern under each of a spread of leaders (longest fitting job first)."""
    added = 0
    sizes = [int(x) for x in d.v]
    for c in range(len(d.a)):
        top = int(np.searchsorted(d.v, d.den * int(d.a_eff[c]) // (d.den + d.num), side="right")) - 1
        if top < 0:
            continue
        t, step, tried = top, 1, 0
        while t >= 0 and tried < SEED_LEADERS:
            lead = sizes[t]
            room = (d.den * int(d.a_eff[c]) - d.num * lead) // d.den - lead
            pat, left = {t: 1}, {t: int(d.n[t]) - 1}
            u = t
            while u >= 0 and room >= sizes[0]:
                u = min(u, int(np.searchsorted(d.v, room, side="right")) - 1)
                if u < 0:
                    break
                avail = left.get(u, int(d.n[u]))
                k = min(avail, room // sizes[u])
                if k > 0:
                    pat[u] = pat.get(u, 0) + k
                    left[u] = avail - k
                    room -= k * sizes[u]
                u -= 1
            added += _add(cols, seen, c, pat)
            tried += 1
            t -= step
            if tried >= 4:
                step *= 2
    return added


def lp_bound(instance: SlackInstance, lo: int, hi: int, allowance: Allowance | None = None) -> LPBound:
    """The least ``T`` in ``[lo, hi]`` that the LP of the module docstring does not exclude.

    ``lo`` must be a lower bound already (every ``T < lo`` impossible, ``lo >= p_max``), ``hi`` a
    schedule's makespan. ``allowance`` (work units, :data:`TICKS_PER_UNIT`) stops the rounds; the
    bound returned is proven whenever it stops.
    """
    out = LPBound(bound=lo)
    if lo >= hi or instance.lam == 0:
        return out
    d = _Data(instance, hi)
    out.delta = d.delta
    cols: list[list[dict]] = [[] for _ in d.a]
    seen: list[set] = [set() for _ in d.a]
    out.columns = _initial_columns(d, cols, seen)
    T = lo
    # a pricing pass costs about jobs x table cells: not started when the allowance cannot pay it
    estimate = int(d.n.sum()) * min(int((d.v // d.delta * d.n).sum()), MAX_CELLS) / TICKS_PER_UNIT
    for rounds in range(1, MAX_ROUNDS + 1):
        if (
            allowance is not None
            and allowance.budget is not None
            and allowance.budget - allowance.effort.work < estimate
        ):
            break
        out.rounds = rounds
        z, pi_f, mu, lp_ticks = _solve_master(d, cols, T)
        if z <= d.lam * T * (1 - 1e-12):
            out.converged = True  # the LP has a point at T: no price can exclude it
            break
        pi = np.floor(np.clip(pi_f, 0, d.v) * PRICE_SCALE).astype(np.int64)
        pi = np.minimum(pi, d.v * PRICE_SCALE)
        values, patterns, price_ticks = _price(d, pi)
        new_t = _first_possible(d, pi, values, T)
        out.history.append((T, z, new_t))
        added = 0
        for c, found in enumerate(patterns):
            for value, pat in found:
                if value > mu[c] * PRICE_SCALE * (1 + 1e-9) + 1:
                    added += _add(cols, seen, c, pat)
        out.columns += added
        T = max(T, min(new_t, hi))
        out.bound = T
        ticks = lp_ticks + price_ticks
        out.ticks += ticks
        if T >= hi:
            break
        if not added and new_t <= T:
            out.converged = True
            break
        if allowance is not None and allowance.charge(ticks / TICKS_PER_UNIT):
            break
    return out
