"""Named pathological instances: the constructions the papers and the literature describe.

Each builds on the family's own model (and, where the paper's construction starts from one, on
its ordinary generator) and changes only what makes the heuristic fail:

* slack, :func:`graham_lpt` and :func:`graham_list`: Graham's tight instances of ``P||C_max``
  (Graham 1969, Theorem 2; Graham 1966), the plain problem of Canon et al. 2011 without
  unavailability (Section 3.1) at ``beta = 0``; :func:`gaps_intervals`: intervals on which GAPS's
  first-fit-decreasing fill (Canon et al. 2011, Section 5.1, Algorithm 1) is ``1 + q h / F`` from
  the optimum of the slack problem, unbounded in the number ``q`` of interval pairs;
* coupled, :func:`fastest_unreliable`: the fastest processor unreliable, the instances on which
  the expected-time heuristics go wrong (Casanova et al. 2013, HCW, Section VII-B);
* checkpoint, :func:`heavy_tail`: a heavy-tailed Weibull (shape below 1) with checkpoint costs
  that vary along the job, against the periodic rules that read only the mean cost (Bouguerra
  et al. 2011, Section IV-A-2);
* prescient, :func:`volatile_fast`: Section 6.2's "achilles heel" of EXCL-PRED-TO (Kondo et al.
  2007): half the hosts volatile and all slightly faster than the stable half.
"""

from __future__ import annotations

import numpy as np

from volsched.instances.checkpoint import CheckpointInstance
from volsched.instances.coupled import CoupledInstance, markov_realization, paper_realization
from volsched.instances.errors import MAX_FIELD_INT, check_int, check_number, require
from volsched.instances.laws import Weibull
from volsched.instances.prescient.platforms import UCB_LRI_SHIFTS, generate_platform
from volsched.instances.slack import SlackInstance, beta_ratio, check_beta

#: Most machines of Graham's instances (``m (m - 1)`` unit jobs for list scheduling).
MAX_GRAHAM_MACHINES = 1000


# --- slack: Graham's tight instances ------------------------------------------------------------
def graham_lpt_sizes(m: int) -> list[int]:
    """LPT's tight job sizes for ``m`` machines: ``2m-1, 2m-1, 2m-2, 2m-2, ..., m+1, m+1, m, m, m``."""
    return [s for s in range(2 * m - 1, m, -1) for _ in range(2)] + [m, m, m]


def graham_lpt(machines: int) -> SlackInstance:
    """Graham's tight instance for LPT on ``m`` identical machines (Graham 1969, Theorem 2).

    ``2m + 1`` jobs of sizes :func:`graham_lpt_sizes`. LPT puts the ``2m`` largest two per machine
    with every load ``3m - 1``, then the third ``m`` on machine 0: makespan ``4m - 1``. The optimum
    is ``3m`` (the three ``m`` together, and ``2m - 1 - k`` with ``m + 1 + k`` on the other
    machines), hence the ratio ``4/3 - 1/(3m)``. On the plain problem of Canon et al. 2011
    (Section 3.1: free machines, no unavailability), ``beta = 0``. ``m = 1`` is the single
    machine, where every list schedule is optimal.
    """
    m = check_int(machines, "machines", 1, MAX_GRAHAM_MACHINES)
    return SlackInstance(
        machines=tuple(np.zeros((0, 2), np.int64) for _ in range(m)),
        p=np.asarray(graham_lpt_sizes(m), np.int64),
        beta=0.0,
        name=f"slack-graham-lpt-m{m}",
        params={"preset": "graham-lpt", "machines": m},
    )


def graham_list(machines: int) -> SlackInstance:
    """Graham's tight instance for list scheduling on ``m`` identical machines (Graham 1966).

    ``m (m - 1)`` unit jobs, then one job of size ``m``, in that (list) order: the unit jobs load
    every machine to ``m - 1`` and the long job ends at ``2m - 1``; the optimum is ``m`` (the long
    job alone, ``m`` unit jobs on each other machine), hence the ratio ``2 - 1/m``. Plain problem,
    ``beta = 0``.
    """
    m = check_int(machines, "machines", 1, MAX_GRAHAM_MACHINES)
    return SlackInstance(
        machines=tuple(np.zeros((0, 2), np.int64) for _ in range(m)),
        p=np.asarray([1] * (m * (m - 1)) + [m], np.int64),
        beta=0.0,
        name=f"slack-graham-list-m{m}",
        params={"preset": "graham-list", "machines": m},
    )


#: Most interval pairs and the largest half-size of :func:`gaps_intervals` (dates stay far below
#: the model's largest field).
MAX_GAPS_GROUPS = 10_000
MAX_GAPS_HALF = 10**5


def _ceil_beta(beta: float, x: int) -> int:
    """``ceil(beta x)`` exactly, ``beta`` read as the decimal it is written as (the rules' reading)."""
    num, den = beta_ratio(beta)
    return -(-num * x // den)


def gaps_intervals_sizes(groups: int, half: int, beta: float) -> dict[str, int]:
    """The dates and sizes of :func:`gaps_intervals`: availabilities, the long job, both makespans."""
    q, h = groups, half
    wide = 2 * h + _ceil_beta(beta, h)
    narrow = h + 1 + _ceil_beta(beta, h + 1)
    long = wide + 2
    return {"wide": wide, "narrow": narrow, "long": long, "optimum": long, "gaps": long + q * h}


def gaps_intervals(groups: int = 3, half: int = 4, beta: float = 1.0) -> SlackInstance:
    """Interval pairs on which GAPS(beta) takes the longest fitting job first and wastes them.

    GAPS fills the intervals by non-decreasing end date, each once, first-fit decreasing inside
    (Canon et al. 2011, Section 5.1, Algorithm 1, lines 1-2 and 4-10; "a modified version of First
    Fit Decreasing", L232), then puts what is left on the free machines by LPT (line 15). With
    ``q = groups``, ``h = half >= 3`` and ``c(x) = ceil(beta x)`` (line 8's slack, the max
    including the job itself):

    * ``q`` *wide* machines, availability ``A = 2h + c(h)`` then unavailability ``[A, A + 1)``;
    * ``q`` *narrow* machines, availability ``h + 1 + c(h + 1)``, unavailability ending at
      ``A + 2``, one date later than the wide ones;
    * one free machine (``lambda = 1``); every non-free machine then has one availability of 1
      (no job fits) and an unavailability to past any makespan;
    * jobs: one *long* job ``F = A + 2``, ``q`` *big* jobs ``h + 1``, ``2q`` *halves* ``h``.

    Optimum ``F``: the long job exceeds every availability, so it runs on the free machine and
    ``C_max >= F``; two halves per wide interval (slack ``c(h)``) and one big job per narrow one
    (slack ``c(h + 1)``) meet the slack rule, and every used interval ends by ``A + 2 = F``
    (the last-period rule).

    GAPS(beta): the wide intervals come first (line 1). In each, line 8 skips the long job and
    takes a big one (``(h + 1)(1 + beta) <= A`` as ``h >= 2``), after which neither a big job nor a
    half fits (``A - (h + 1) - c(h + 1) <= h - 1``): the ``q`` big jobs fill the wide intervals.
    Each narrow interval then takes one half and no second one (``1 + c(h + 1) - c(h) <= 2 < h``).
    Line 7 passes throughout (the work left exceeds ``F`` plus the job), and the long job and ``q``
    halves go to the free machine: ``C_max = F + q h``. The ratio is therefore exactly

        ``(F + q h) / F = 1 + q h / (2h + c(h) + 2)``,

    ``1 + q / (2 + beta)`` as ``h`` grows, unbounded in ``q`` (``13/7`` at the defaults ``q = 3,
    h = 4, beta = 1``). The instance does not meet Theorem 2's ``2 p_max <= a_min`` (the long job),
    which bounds stability, not makespan.
    """
    q = check_int(groups, "groups", 1, MAX_GAPS_GROUPS)
    h = check_int(half, "half", 3, MAX_GAPS_HALF)
    beta = check_beta(beta)
    d = gaps_intervals_sizes(q, h, beta)
    wide, narrow, long = d["wide"], d["narrow"], d["long"]
    p = [long] + [h + 1] * q + [h] * (2 * q)
    horizon = long + sum(p)
    require(
        horizon <= MAX_FIELD_INT,
        "half",
        f"{q} groups of half {h} put dates past {MAX_FIELD_INT:,}; use fewer groups or a smaller half",
    )

    def machine(a: int, e: int) -> np.ndarray:
        return np.asarray([[a, e], [e + 1, horizon]], np.int64)

    free = np.zeros((0, 2), np.int64)
    return SlackInstance(
        machines=(*[machine(wide, wide + 1)] * q, *[machine(narrow, long)] * q, free),
        p=np.asarray(p, np.int64),
        beta=beta,
        name=f"slack-gaps-intervals-q{q}-h{h}-b{beta:g}",
        params={"preset": "gaps-intervals", "groups": q, "half": h, "beta": beta},
    )


# --- coupled: the fastest processor unreliable --------------------------------------------------
def unreliable_chain(up_stay: float) -> np.ndarray:
    """The fast processor's chain (rows from, columns to, over UP, RECLAIMED, DOWN).

    It stays UP with probability ``up_stay`` and otherwise leaves to RECLAIMED or DOWN alike; it
    comes back UP from either with probability 0.3 a slot.
    """
    leave = (1.0 - up_stay) / 2.0
    return np.array([[up_stay, leave, leave], [0.3, 0.7, 0.0], [0.3, 0.0, 0.7]])


def fastest_unreliable(
    tasks: int = 5,
    n_com: int = 5,
    w_min: int = 2,
    slowdown: int = 6,
    up_stay: float = 0.6,
    slots: int = 500,
    seed: int = 0,
) -> CoupledInstance:
    """Section VII-A's platform with its fastest processor unreliable (Casanova et al. 2013, VII-B).

    The paper's explanation of E-IE's poor results: "E-IE leads to inefficient schedules for problem
    instances in which the fastest processor is unreliable". The construction starts from one
    realization of the paper's space (:func:`~volsched.instances.coupled.paper_realization`,
    scenario 0, trial 0) and changes processor 0 only: it computes a task in ``w_min`` slots while
    every other processor takes at least ``slowdown * w_min`` (at most the paper's ``10 w_min``),
    and its chain (:func:`unreliable_chain`) leaves UP with probability ``1 - up_stay`` each
    slot. Its string is redrawn from that chain. The expected-time rules (IE, E-IE) weigh speed
    and enrol it; its failures then cost the whole iteration (tight coupling, Section III-C).
    """
    tasks = check_int(tasks, "tasks", 1, 200)
    n_com = check_int(n_com, "n_com", 1, 1000)
    w_min = check_int(w_min, "w_min", 1, 1000)
    slowdown = check_int(slowdown, "slowdown", 2, 10)
    up_stay = check_number(up_stay, "up_stay", 0.0, 0.99)
    slots = check_int(slots, "slots", 1, 100_000)
    seed = check_int(seed, "seed", 0, 2**31 - 1)
    base = paper_realization(tasks, n_com, w_min, 0, 0, seed, slots)
    trans = base.transitions.copy()
    trans[0] = unreliable_chain(up_stay)
    availability = base.availability.copy()
    availability[0] = markov_realization(np.random.default_rng([seed, 1]), trans[:1], slots)[0]
    w = np.maximum(np.asarray(base.w, np.int64), slowdown * w_min)
    w[0] = w_min
    return CoupledInstance(
        availability=availability,
        w=w.tolist(),
        mu=[None] * len(w),
        m=base.m,
        n_com=base.n_com,
        T_prog=base.T_prog,
        T_data=base.T_data,
        K=base.K,
        transitions=trans,
        continuation_seed=base.continuation_seed,
        name=f"coupled-fastest-unreliable-m{tasks}-wmin{w_min}-x{slowdown}-s{seed}",
        params={
            "preset": "fastest-unreliable",
            "tasks": tasks,
            "n_com": n_com,
            "w_min": w_min,
            "slowdown": slowdown,
            "up_stay": up_stay,
            "slots": slots,
            "seed": seed,
        },
    )


# --- checkpoint: heavy tails and variable costs against Daly ------------------------------------
def heavy_tail(
    slices: int = 10,
    p: int = 30,
    c_low: int = 1,
    c_high: int = 300,
    cheap_every: int = 3,
    shape: float = 0.5,
    scale: float = 20.0,
) -> CheckpointInstance:
    """Equal slices, costly checkpoints but every ``cheap_every``-th one cheap, a heavy-tailed Weibull.

    Young's and Daly's periods (Bouguerra et al. 2011, Section IV-A-2) read the mean checkpoint cost
    ``C = (1/n) sum c_j`` and the mean time to failure only. A Weibull of shape below 1 (decreasing
    hazard, heavier tail than the exponential; the paper's fitted availability law has shape 0.431,
    Table I) has a mean far above its typical lifetime, and the costs alternate between ``c_high``
    and, after slices ``cheap_every - 1, 2 cheap_every - 1, ...``, ``c_low``: the period lands on
    costly boundaries, while the optimum (the shortest path of Section III-B) checkpoints at the
    cheap ones.
    """
    slices = check_int(slices, "slices", 1, 100_000)
    p = check_int(p, "p", 1, 10**6)
    c_low = check_int(c_low, "c_low", 1, 10**6)
    c_high = check_int(c_high, "c_high", 1, 10**6)
    require(c_low <= c_high, "c_low", f"exceeds c_high ({c_low} > {c_high})")
    cheap_every = check_int(cheap_every, "cheap_every", 1, slices)
    shape = check_number(shape, "shape", 0.01, 1.0)
    require(shape < 1.0, "shape", "must be below 1: a heavy-tailed Weibull (decreasing hazard)")
    scale = check_number(scale, "scale", 1e-3, 1e9)
    require(scale > 0, "scale", "must be positive")
    c = np.full(slices, c_high, np.int64)
    c[cheap_every - 1 :: cheap_every] = c_low
    return CheckpointInstance(
        p=np.full(slices, p, np.int64),
        c=c,
        alpha=1.0,
        law=Weibull(shape=shape, scale=scale),
        name=f"checkpoint-heavy-tail-n{slices}-k{cheap_every}",
        params={
            "preset": "heavy-tail",
            "slices": slices,
            "p": p,
            "c_low": c_low,
            "c_high": c_high,
            "cheap_every": cheap_every,
            "shape": shape,
            "scale": scale,
        },
    )


# --- prescient: volatile hosts slightly faster than stable ones ---------------------------------
VOLATILE_FAST_PLATFORMS = tuple(f"ucb-lri-{tag}" for tag in UCB_LRI_SHIFTS)


def _intersect(a_s, a_e, b_s, b_e) -> tuple[np.ndarray, np.ndarray]:
    """The intersection of two unions of sorted, disjoint ``[s, e)`` intervals, maximal pieces."""
    pts = np.unique(np.concatenate([a_s, a_e, b_s, b_e]))
    if pts.size < 2:
        return pts[:0], pts[:0]
    mid = (pts[:-1] + pts[1:]) / 2
    both = (np.searchsorted(a_s, mid, "right") > np.searchsorted(a_e, mid, "right")) & (
        np.searchsorted(b_s, mid, "right") > np.searchsorted(b_e, mid, "right")
    )
    edge = np.diff(np.concatenate([[0], both.astype(np.int8), [0]]))
    return pts[np.flatnonzero(edge == 1)], pts[np.flatnonzero(edge == -1)]


def _bursts(rng: np.random.Generator, mean: float, down: float, end: float) -> tuple[np.ndarray, np.ndarray]:
    """Up windows of exponential length ``mean``, each then ``down`` seconds down, over ``[0, end)``."""
    lengths = np.empty(0)
    while lengths.size == 0 or np.sum(lengths + down) < end:
        lengths = np.concatenate([lengths, rng.exponential(mean, int(end / (mean + down)) + 16)])
    starts = np.concatenate([[0.0], np.cumsum(lengths + down)[:-1]])
    keep = starts < end
    return starts[keep], starts[keep] + lengths[keep]


def volatile_fast(
    platform: str = "ucb-lri-n06",
    hosts: int = 40,
    tasks: int = 20,
    task_minutes: float = 15.0,
    edge: float = 0.05,
    seed: int = 0,
    days: int = 7,
    up_mean: float = 0.5,
    down_s: float = 120.0,
):
    """Section 6.2's pathological case of EXCL-PRED-TO, on a UCB-LRI platform (Kondo et al. 2007).

    "One could imagine the scenario where half the hosts are extremely volatile while the other half
    are extremely stable but have slightly lower clock rates than the volatile hosts. In this case,
    EXCL-PRED-TO will tend to schedule tasks to hosts with faster (albeit only slightly faster)
    clock rates, which are also the most volatile". The UCB-LRI platforms
    (:mod:`~volsched.instances.prescient.platforms`) draw the volatile (UCB) half's clocks from
    normal(1500, 250) MHz, so that some are slower than the stable (LRI) half, and many UCB hosts
    are in fact stable for hours. Here both halves of the sentence hold:

    * every volatile host runs at ``(1 + edge)`` times the stable hosts' clock ("slightly faster");
    * every volatile host is "extremely volatile": on top of its own trace, it is up only in windows
      of exponential length, of mean ``up_mean`` times a task's dedicated time on it, each followed
      by ``down_s`` seconds down (a renewal process from time 0, history window included, from the
      seed's own stream); its up intervals are its trace's cut to those windows.

    The stable (LRI) half, the CPU shares, the start and the history window are the platform's,
    from the same seed. EXCL-PRED-TO sorts hosts by clock only (Section 5.2), so originals, re-issued
    originals and the replicas of Section 6's timeouts all go to volatile hosts first, where most
    attempts fail; REP-PROB, which weighs each host's probability of completion, does not
    (Section 6.2: "REP-PROB on the other hand will take into account host volatility").
    """
    import dataclasses

    require(
        platform in VOLATILE_FAST_PLATFORMS,
        "platform",
        f"must be one of {list(VOLATILE_FAST_PLATFORMS)}, got {platform!r}",
    )
    edge = check_number(edge, "edge", 0.0, 1.0)
    require(edge > 0, "edge", "must be positive: the volatile hosts are the faster ones")
    up_mean = check_number(up_mean, "up_mean", 0.01, 100.0)
    down_s = check_number(down_s, "down_s", 1.0, 86_400.0)
    hosts = check_int(hosts, "hosts", 2, 100_000)
    base = generate_platform(platform, hosts, tasks, task_minutes, seed, days)
    clocks = np.asarray(base.clock_mhz, float).copy()
    volatile = hosts - hosts // 2  # generate_platform's first hosts are the UCB half
    clocks[:volatile] = clocks[-1] * (1.0 + edge)
    rng = np.random.default_rng([seed, 2])
    dedicated = float(np.max(base.task_minutes)) * 60.0 * 1500.0 / clocks[0]
    ptr = np.asarray(base.up_ptr)
    end = float(base.horizon if base.horizon is not None else np.max(base.up_end))
    starts, ends, counts = [], [], []
    for h in range(volatile):
        own = slice(ptr[h], ptr[h + 1])
        w_s, w_e = _bursts(rng, up_mean * dedicated, down_s, end)
        s, e = _intersect(base.up_start[own], base.up_end[own], w_s, w_e)
        if s.size == 0:  # keep one up interval: the model needs one per host
            s, e = base.up_start[own][:1], np.minimum(base.up_end[own][:1], base.up_start[own][:1] + 60.0)
        starts.append(s)
        ends.append(e)
        counts.append(s.size)
    rest = slice(ptr[volatile], ptr[-1])
    counts += np.diff(ptr[volatile:]).tolist()
    return dataclasses.replace(
        base,
        clock_mhz=clocks,
        up_start=np.concatenate([*starts, base.up_start[rest]]),
        up_end=np.concatenate([*ends, base.up_end[rest]]),
        up_ptr=np.concatenate([[0], np.cumsum(counts)]).astype(ptr.dtype),
        end_reasons=None,
        name=f"prescient-volatile-fast-{platform}-n{hosts}-t{tasks}-e{edge:g}-u{up_mean:g}-s{seed}",
        params={
            **base.params,
            "preset": "volatile-fast",
            "edge": edge,
            "up_mean": up_mean,
            "down_s": down_s,
        },
    )
