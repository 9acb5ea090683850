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

**The leader-class LP** (:func:`leader_lp_bound`, the slack problem at the instance's ``beta``)
refines the cut: each interval chooses, fractionally, the size class of its longest job, which
sets both its capacity and the jobs it may hold, and each class can lead as many intervals as it
has jobs. Its proof, and the exact dual certificate that makes a float LP's prices a proven
bound, are in that function's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
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


# --- the leader-class LP --------------------------------------------------------------------------

#: Most leader classes of :func:`leader_lp_bound` (finer classes: a tighter LP, a larger one).
LEADER_CLASSES = 64
#: Prices are multiples of ``1 / PRICE_SCALE`` in the exact certificate of :func:`leader_lp_bound`.
PRICE_SCALE = 2**20
#: Most LPs :func:`leader_lp_bound` solves (each at the bound the previous one certified).
LEADER_LPS = 6
#: Ticks of :func:`leader_lp_bound` (interior-point iterations times non-zeros) per work unit: about
#: a second of its LPs on the 2-core development machine.
LEADER_TICKS_PER_UNIT = 3e6


@dataclass
class LeaderBound:
    """What :func:`leader_lp_bound` proved: every ``C_max < bound`` is impossible.

    ``ticks`` is its deterministic work (simplex iterations times LP rows, summed over the LPs);
    ``history`` lists ``(T, LP value, work needed in intervals, bound certified)`` per LP.
    """

    bound: int
    lps: int = 0
    ticks: int = 0
    classes: int = 0
    history: list = field(default_factory=list)


def leader_edges(p: np.ndarray, most: int) -> np.ndarray:
    """Lower edges ``L_0 = p_min < L_1 < ...`` of at most ``most`` job-size classes (integers).

    Geometric: each edge is the shortest job at least ``(g + 1) / g`` times the previous one, with
    the largest integer ``g`` that keeps ``most`` classes (integer arithmetic: the same classes on
    every machine).
    """
    sizes = np.unique(np.asarray(p, dtype=np.int64))
    if len(sizes) <= most:
        return sizes

    def edges(g: int) -> list[int]:
        out = [int(sizes[0])]
        while True:
            k = int(np.searchsorted(sizes, -(-out[-1] * (g + 1) // g), side="left"))
            if k == len(sizes):
                return out
            out.append(int(sizes[k]))

    lo, hi = 1, int(sizes[-1])  # edges(1) doubles: at most 63 classes; edges(p_max) has every size
    if len(edges(lo)) > most:
        return np.array(edges(lo)[:most], dtype=np.int64)
    while hi - lo > 1:  # invariant: edges(lo) fits, edges(hi) does not
        mid = (lo + hi) // 2
        if len(edges(mid)) <= most:
            lo = mid
        else:
            hi = mid
    return np.array(edges(lo), dtype=np.int64)


class _LeaderLP:
    """The data of :func:`leader_lp_bound` below a horizon ``hi``."""

    def __init__(self, instance: SlackInstance, hi: int, most: int):
        self.num, self.den = instance.beta_ratio
        self.lam = instance.lam
        p = instance.p.astype(np.int64)
        self.total = int(p.sum())
        self.L = leader_edges(p, most)
        cls = np.searchsorted(self.L, p, side="right") - 1
        self.W = np.array([int(p[cls == k].sum()) for k in range(len(self.L))], dtype=np.int64)
        self.n = np.bincount(cls, minlength=len(self.L)).astype(np.int64)
        t = instance.table
        den, num = self.den, self.num
        keep = (t["e"] < hi) & (den * t["a"] >= (den + num) * int(self.L[0]))
        keys = np.stack([t["e"][keep], t["a"][keep]], axis=1).astype(np.int64)
        if len(keys):
            uniq, counts = np.unique(keys, axis=0, return_counts=True)  # sorted by e, then a
        else:
            uniq, counts = np.zeros((0, 2), np.int64), np.zeros(0, np.int64)
        self.e, self.a, self.m = uniq[:, 0], uniq[:, 1], counts.astype(np.int64)
        # cap[c, k] = floor(a_c - beta L_k); the class may lead interval c only if cap >= L_k
        self.cap = (den * self.a[:, None] - num * self.L[None, :]) // den
        self.allowed = self.cap >= self.L[None, :]

    def solve(self, T: int) -> tuple[float, np.ndarray, int]:
        """The LP at ``T``: ``(max packed work, duals of its rows, ticks)``."""
        from scipy.optimize import linprog
        from scipy.sparse import coo_matrix

        K = len(self.L)
        active = np.flatnonzero(self.e <= T)
        kk, tt = np.tril_indices(K)  # f[k, t], t <= k
        nf = len(kk)
        cc, ck = np.nonzero(self.allowed[active])  # z[c, k]
        nz = len(cc)
        col_f, col_z = np.arange(nf), nf + np.arange(nz)
        diag = col_f[kk == tt]
        # rows: work t (K) | capacity k (K) | leader work k (K) | leader supply k (K) | class c
        rows = np.concatenate([tt, K + kk, 2 * K + kk[kk == tt], K + ck, 2 * K + ck, 3 * K + ck, 4 * K + cc])
        cols = np.concatenate([col_f, col_f, diag, col_z, col_z, col_z, col_z])
        vals = np.concatenate(
            [
                np.ones(2 * nf),
                -np.ones(len(diag)),
                -self.cap[active[cc], ck].astype(float),
                self.L[ck].astype(float),
                np.ones(2 * nz),
            ]
        )
        nrow = 4 * K + len(active)
        a_ub = coo_matrix((vals, (rows, cols)), shape=(nrow, nf + nz)).tocsr()
        b_ub = np.concatenate([self.W, np.zeros(2 * K), self.n, self.m[active]]).astype(float)
        cost = np.concatenate([-np.ones(nf), np.zeros(nz)])
        res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=(0, None), method="highs-ipm")
        if res.status != 0:
            raise RuntimeError(f"the leader-class LP failed: {res.message}")
        duals = np.zeros(4 * K + len(self.e))
        y = -res.ineqlin.marginals
        duals[: 4 * K] = y[: 4 * K]
        duals[4 * K + active] = y[4 * K :]
        return -float(res.fun), duals, int(res.nit) * a_ub.nnz

    def prices(self, duals: np.ndarray) -> tuple[int, np.ndarray]:
        """A dual-feasible point from ``duals``, in units of ``1 / PRICE_SCALE``: ``(base, mu)``.

        ``U(T) = base + sum_{e_c <= T} m_c mu_c`` bounds the LP at every ``T``
        (:func:`leader_lp_bound`'s certificate; exact integers).
        """
        K, S = len(self.L), PRICE_SCALE
        # Python integers (object arrays): exact whatever the prices' size, no int64 overflow
        pi, _, tau, rho = (
            np.array(
                [int(x) for x in np.floor(np.clip(duals[i * K : (i + 1) * K], 0, 2**40) * S)], dtype=object
            )
            for i in range(4)
        )
        # the f[k, t] columns: pi_t + sigma_k - [t = k] tau_k >= S
        below = np.concatenate([[S], np.minimum.accumulate(pi)[:-1]])  # min_{t < k} pi_t
        sigma = np.maximum(0, np.maximum(S - below, S - pi + tau))
        # the z[c, k] columns: mu_c >= cap sigma_k - L_k tau_k - rho_k
        cap, lead = self.cap.astype(object), self.L.astype(object)
        reduced = cap * sigma[None, :] - (lead * tau + rho)[None, :]
        mu = np.where(self.allowed, reduced, 0).max(axis=1, initial=0)
        return int((self.W.astype(object) * pi).sum()) + int((self.n.astype(object) * rho).sum()), mu

    def upper(self, duals: np.ndarray, T: int) -> Fraction:
        """``U(T)``: the bound ``duals`` give on the LP's value at ``T`` (exact)."""
        base, mu = self.prices(duals)
        active = self.e <= T
        return Fraction(
            base + sum(int(m) * u for m, u in zip(self.m[active], mu[active], strict=True)), PRICE_SCALE
        )

    def certify(self, duals: np.ndarray, start: int) -> int:
        """The least ``T >= start`` that the prices ``duals`` do not exclude (exact integers)."""
        base, mu = self.prices(duals)
        edges, where = np.unique(self.e, return_inverse=True)
        drop = [0] * len(edges)
        for w, m, u in zip(where.tolist(), self.m.tolist(), mu, strict=True):
            drop[w] += m * int(u)
        scale, need_all = PRICE_SCALE * self.lam, PRICE_SCALE * self.total
        T, added, k = start, base, 0
        while True:
            while k < len(edges) and edges[k] <= T:
                added += drop[k]
                k += 1
            need = max(T, -(-(need_all - added) // scale))
            if k == len(edges) or need < edges[k]:
                return int(need)
            T = int(edges[k])


def leader_lp_bound(
    instance: SlackInstance, lo: int, hi: int, max_ticks: int | None = None, most: int = LEADER_CLASSES
) -> LeaderBound:
    """The leader-class LP bound on the slack optimum at the instance's ``beta`` (below).

    ``lo`` must be a lower bound already, ``hi`` a schedule's makespan; the result is in
    ``[lo, hi]``. ``max_ticks`` (deterministic work, :class:`LeaderBound`) stops before an LP
    whose estimated cost would pass it.

    **The LP at a target T.** Cut the job sizes into classes ``[L_k, L_{k+1})``
    (:func:`leader_edges`) with work ``W_k`` and ``n_k`` jobs; group the intervals with
    ``e_c <= T`` of equal ``(e, a)`` into classes of ``m_c``. Variables: ``z_{c,k}`` the intervals
    of class ``c`` whose longest job (leader) is in size class ``k`` (only where ``cap_{c,k} =
    floor(a_c - beta L_k) >= L_k``), and ``f_{k,t}`` (``t <= k``) the work of size class ``t`` in
    the intervals led by class ``k``:

    .. math:: \\max \\sum f \\ \\text{s.t.}\\ \\sum_k f_{k,t} \\le W_t,\\
              \\sum_t f_{k,t} \\le \\sum_c cap_{c,k} z_{c,k},\\
              L_k \\sum_c z_{c,k} \\le f_{k,k},\\ \\sum_c z_{c,k} \\le n_k,\\
              \\sum_k z_{c,k} \\le m_c .

    *Claim: a schedule with C_max <= T gives the LP a point of value at least W - lambda T.*
    Count each used interval in ``z_{c,k}`` for its class and its leader's size class ``k``
    (``L_k <= p_lead``). Its ``e <= C_max <= T`` (last-period rule, slack.md 2.2), so ``c`` is in
    the LP. By the relaxed slack rule (Section 5.1) its load is at most ``floor(a - beta p_lead)
    <= cap_{c,k}``, and ``cap_{c,k} >= p_lead >= L_k`` so the variable exists. Its jobs are no
    longer than the leader, so in classes ``t <= k``: put their work in ``f_{k,t}``. The leader
    alone puts at least ``L_k`` in ``f_{k,k}``; leaders are distinct jobs, so at most ``n_k`` lead
    from class ``k``; each job is in one place and each interval in one class. The value is the
    work in intervals, ``W`` minus the free machines' work, and that is at least ``W - lambda
    C_max`` since every job of a free machine ends by ``C_max``.

    *Certificate.* By weak duality any prices ``pi_t, sigma_k, tau_k, rho_k, mu_c >= 0`` with
    ``pi_t + sigma_k - [t = k] tau_k >= 1`` and ``mu_c >= cap_{c,k} sigma_k - L_k tau_k - rho_k``
    bound the LP by ``U(T) = sum_t W_t pi_t + sum_k n_k rho_k + sum_{e_c <= T} m_c mu_c``. The LP's
    float duals only choose ``pi, tau, rho`` (rounded down to multiples of ``1 / PRICE_SCALE``);
    ``sigma`` and ``mu`` are then the least values that satisfy the constraints, in exact
    integers. ``U`` is non-decreasing in ``T`` and ``W - lambda T`` decreasing, so the targets with
    ``U(T) < W - lambda T`` form a prefix: the first target past it is a lower bound. Each LP is
    solved at the bound the previous one certified, until it certifies nothing more.

    At ``beta = 0`` the LP is a relaxation of the slack bound (intervals lose nothing); at every
    ``beta`` it is valid for the slack problem at that ``beta`` (the tests check it against brute
    force at five).
    """
    out = LeaderBound(bound=lo)
    if lo >= hi or instance.lam == 0:
        return out
    data = _LeaderLP(instance, hi, most)
    out.classes = len(data.L)
    T, estimate = lo, None
    while out.lps < LEADER_LPS and T < hi:
        if estimate is None:  # the first LP: about 30 interior-point iterations (measured: 20-40)
            K = len(data.L)
            nonzeros = 4 * int(data.allowed[data.e <= T].sum()) + K * (K + 1) + K
            estimate = 30 * nonzeros
        if max_ticks is not None and out.ticks + estimate > max_ticks:
            break
        value, duals, ticks = data.solve(T)
        out.lps += 1
        out.ticks += ticks
        estimate = ticks
        new = min(hi, data.certify(duals, T))
        out.history.append((T, value, data.total - data.lam * T, new))
        if new <= T:
            break
        T = new
    out.bound = T
    return out


# --- the exact-fill bound -------------------------------------------------------------------------


@dataclass
class FillBound:
    """What :func:`fill_bound` proved: every ``C_max < bound`` is impossible; ``steps`` its work
    (:func:`.subsetsum.cost` of the subset sums and the matchings' steps)."""

    bound: int
    steps: int = 0
    singles: int = 0


#: Prices of :func:`short_lp_bound`'s certificate are multiples of ``1 / SHORT_PRICE_SCALE``.
SHORT_PRICE_SCALE = 2**20
#: Most column-generation rounds of :func:`short_lp_bound` (the certificate holds after any).
SHORT_LP_ROUNDS = 40


def best_patterns(q: np.ndarray, p: np.ndarray, room: int, pairs: bool) -> tuple[tuple | None, tuple | None]:
    """The most profitable job and pair of jobs that fit ``room``, profits ``q``, lengths ``p``
    (ascending): ``((value, j), (value, j, k))``, ``None`` where there is none.

    A pair is two distinct jobs ``j < k`` with ``p_j + p_k <= room``; for each ``k`` the best
    partner is a prefix maximum of ``q`` (``O(n)`` a room). Exact in integers.

    >>> best_patterns(np.array([3, 5, 4]), np.array([3, 5, 6]), 9, True)
    ((5, 1), (8, 0, 1))
    """
    m = int(np.searchsorted(p, room, side="right"))
    if m == 0:
        return None, None
    j = int(np.argmax(q[:m]))
    single = (q[j].item(), j)
    if not pairs or m < 2:
        return single, None
    top = np.maximum.accumulate(q[:m])
    # the partners of k: j < k with p_j <= room - p_k
    limit = np.minimum(np.arange(m), np.searchsorted(p, room - p[:m], side="right"))
    ks = np.flatnonzero(limit > 0)
    if not len(ks):
        return single, None
    values = q[ks] + top[limit[ks] - 1]
    b = int(np.argmax(values))
    k = int(ks[b])
    return single, (values[b].item(), int(np.argmax(q[: limit[k]])), k)


def short_columns(rooms: list[int], p: np.ndarray, pmin: int) -> tuple[dict, np.ndarray, int]:
    """Column generation for the packing LP of :func:`short_lp_bound`: ``(columns, prices, steps)``.

    ``columns`` maps ``(room, j, k)`` (``k = -1`` for one job; positions in ``p``) to the pattern's
    length; ``prices`` are the job rows' duals of the last LP (0 without a column). The LP is
    solved by :func:`scipy.optimize.linprog` and priced exactly by :func:`best_patterns`, at most
    :data:`SHORT_LP_ROUNDS` times. Steps: the LP's rows times columns over 64, per round.
    """
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix

    n, count = len(p), len(rooms)
    columns: dict[tuple[int, int, int], int] = {}
    prices = np.zeros(n)
    steps = 0

    def price(q: np.ndarray, mu: np.ndarray | None) -> int:
        added = 0
        for r, a in enumerate(rooms):
            for best in best_patterns(q, p, a, a >= 2 * pmin):
                if best is None or (mu is not None and best[0] - mu[r] <= 1e-7):
                    continue
                key = (r, best[1], best[2] if len(best) == 3 else -1)
                if key not in columns:
                    columns[key] = int(p[key[1]] + (p[key[2]] if key[2] >= 0 else 0))
                    added += 1
        return added

    if not n or not count:
        return columns, prices, steps
    price(p.astype(float), None)
    for _ in range(SHORT_LP_ROUNDS if columns else 0):
        keys = list(columns)
        rows = [j for r, j, k in keys] + [n + r for r, j, k in keys] + [k for r, j, k in keys if k >= 0]
        cols = [*range(len(keys)), *range(len(keys)), *(c for c, (_, _, k) in enumerate(keys) if k >= 0)]
        matrix = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n + count, len(keys)))
        values = np.array([columns[key] for key in keys], dtype=float)
        res = linprog(-values, A_ub=matrix, b_ub=np.ones(n + count), bounds=(0, None), method="highs-ds")
        steps += (n + count) * len(keys) // 64
        if res.status != 0:
            break
        duals = np.maximum(-res.ineqlin.marginals, 0.0)
        prices = duals[:n]
        if not price(p - prices, duals[n:]):
            break
    return columns, prices, steps


def short_lp_bound(rooms: list[int], p: np.ndarray, pmin: int) -> tuple[int, int]:
    """An upper bound on what intervals shorter than ``3 p_min`` hold together: ``(bound, steps)``.

    Such an interval holds one job or two (three need ``3 p_min``), and the intervals hold
    distinct jobs. Number the jobs that fit one of them (``p`` ascending, all shorter than ``3
    p_min``) and call a *pattern* of room ``r`` a job or a pair of jobs whose lengths sum to at most
    ``a_r`` (pairs only when ``a_r >= 2 p_min``). The packing LP

    .. math:: \\max \\sum_{r,S} p(S)\\, y_{r,S}\\ \\text{s.t.}\\ \\sum_{S \\ni j} y_{r,S} \\le 1,\\
              \\sum_S y_{r,S} \\le 1,\\ y \\ge 0

    has the intervals' best total among its points. Any prices ``pi_j >= 0`` give the dual point
    ``mu_r = max(0, max_S (p(S) - pi(S)))``, so by weak duality the total is at most ``sum_j
    pi_j + sum_r mu_r``. Column generation (:func:`short_columns`) finds good prices; they are
    rounded down to multiples of ``1 /`` :data:`SHORT_PRICE_SCALE` and ``mu`` computed in
    integers, so the bound holds whatever the LP's accuracy.
    """
    p = np.asarray(p, dtype=np.int64)
    _, prices, steps = short_columns(rooms, p, pmin)
    scaled = np.floor(prices * SHORT_PRICE_SCALE).astype(np.int64)
    profit = p * SHORT_PRICE_SCALE - scaled
    total = int(scaled.sum())
    for a in rooms:
        best = [b[0] for b in best_patterns(profit, p, a, a >= 2 * pmin) if b is not None]
        total += max([0, *best])
    return total // SHORT_PRICE_SCALE, steps


def fill_bound(instance: SlackInstance, lo: int, hi: int) -> FillBound:
    """A lower bound on the slack optimum from what the intervals can hold *exactly*.

    ``lo`` must be a lower bound already and ``hi`` a schedule's makespan; the result is in
    ``[lo, hi]``.

    The bound of the module docstring lets an interval hold ``a`` whole. With thousands of jobs
    most of the intervals' room is indeed reachable by a subset of them, but a short interval
    holds at most one job and rarely one of exactly its length, and short intervals compete for
    the same short jobs. At a target ``T``, for an interval ``r`` with ``e_r <= T`` and ``a_r >=
    p_min`` let ``f_r`` be the largest subset sum of all the jobs that is at most ``a_r``; call
    ``r`` *single* when ``a_r < 2 p_min``, and let ``M(T)`` be the largest total length of a
    matching between the single intervals and the jobs, a job matched to ``r`` having ``p_j <=
    a_r``. With ``F(T) = M(T) + sum_{r not single} f_r``,

    .. math:: \\sum_j p_j \\le \\lambda T + F(T)

    holds for every slack schedule with ``C_max <= T``, at every ``beta``:

    * an interval used has ``e <= C_max <= T`` (last-period rule, Section 3.3), and holds jobs
      whose total is at most ``a`` (at ``beta > 0``, at most ``a - beta max p``, less), so at most
      ``f_r``, the jobs in it being a subset of all jobs;
    * a single interval holds at most one job, since two need ``2 p_min > a``; distinct intervals
      hold distinct jobs, so the single intervals together hold at most ``M(T)``;
    * every job on a free machine ends by ``C_max <= T``: the ``lambda`` free machines hold at
      most ``lambda T``.

    The intervals shorter than ``3 p_min`` (one or two jobs each) compete for the same short jobs;
    what they hold together is also at most :func:`short_lp_bound`, and ``F(T)`` takes the smaller
    of the two for them.

    ``F`` is a step function of ``T``, constant between two consecutive ``e``: the least ``T >=
    lo`` meeting the inequality is found from ``lo`` upwards, one step of ``F`` at a time (each
    step is a new matching, :func:`.subsetsum.match_singles`, and a new LP).
    """
    from .subsetsum import best_at_most, cost, match_singles, reachable

    out = FillBound(bound=lo)
    if lo >= hi or instance.lam == 0:
        return out
    p = sorted(int(v) for v in instance.p)
    total, lam, pmin = sum(p), instance.lam, p[0]
    t = instance.table
    rows = np.flatnonzero((t["a"] >= pmin) & (t["e"] <= hi))
    rows = rows[np.argsort(t["e"][rows], kind="stable")]
    a = t["a"][rows].astype(np.int64)
    e = t["e"][rows].astype(np.int64)
    if not len(rows):
        return out
    top = int(a.max())
    bits = reachable(p, top)
    out.steps += cost(len(p), top)
    single = a < 2 * pmin
    f = np.array([0 if s else best_at_most(bits, int(x)) for x, s in zip(a, single, strict=True)])
    short = [v for v in p if v < 2 * pmin]
    shorter = np.array([v for v in p if v < 3 * pmin], dtype=np.int64)
    T = lo
    while T < hi:
        n = int(np.searchsorted(e, T, side="right"))
        ends = int(e[n]) if n < len(e) else hi
        _, matched, charged = match_singles(a[:n][single[:n]], short)
        out.steps += charged
        out.singles = int(single[:n].sum())
        few = a[:n] < 3 * pmin  # one or two jobs each: the short-interval LP
        held = matched + int(f[:n][few].sum())
        if few.any():
            lp, charged = short_lp_bound([int(x) for x in a[:n][few]], shorter, pmin)
            out.steps += charged
            held = min(held, lp)
        need = max(T, -(-(total - int(f[:n][~few].sum()) - held) // lam))
        if need < ends:  # F is constant on [T, ends): the least T there that meets the inequality
            T = need
            break
        T = ends
    out.bound = min(T, hi)
    return out
