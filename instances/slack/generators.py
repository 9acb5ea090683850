"""Generators of slack instances: the Section 6 stand-in, Theorem 2's own, and Theorem 1's reduction.

* :func:`generate_paper` - Section 6 of Canon et al. (2011) with stand-in laws
  (slack.md 7.1-7.3): heavy-tailed availability and unavailability durations
  from the checkpoint paper's Table I (Weibull, shape 0.431, scale 1.682 h;
  hyper-exponential), whole machines, a documented stand-in for the
  Docking@Home jobs (at least 30 minutes), 20 % free machines, time in
  integer seconds.
* :func:`generate_theorem2` - small integer instances on which Theorem 2's
  assumption ``2 p_max <= a_min`` holds by construction (slack.md 5.4).
* :func:`read_bpplib`, :func:`three_partition_instance` - Theorem 1's
  reduction from 3-PARTITION, completed so that it survives the last-period
  rule (slack.md 4.3), read from a BPPLIB file.
* :func:`generate_planted` - random 3-PARTITION instances with a planted YES
  answer, or perturbed ones certified NO by an exact search, through the same
  reduction.

Every generator takes an explicit seed: the same seed gives the same bytes.
``numpy.random.SeedSequence(seed)`` spawns one generator for the jobs and
one per machine, so that a longer horizon extends the same intervals and the
jobs do not depend on the machines.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..checkpoint import paper_failure_law, paper_unavailability_law
from ..errors import MAX_FIELD_INT, InputError, require
from ..io import read_text
from ..laws import LogNormal
from . import MAX_INTERVALS, SlackInstance

# --- Section 6 stand-in ------------------------------------------------------------------------------

SECONDS_PER_MINUTE = 60
#: Docking@Home stand-in (the paper gives no distribution, slack.md 7.2): log-normal job lengths with
#: a median of 2 hours and sigma 0.75 (a right tail up to about a day among 3,000 jobs), jobs shorter
#: than 30 minutes redrawn, as the paper removes them ("We remove 382 jobs that are shorter than 30
#: minutes", Section 6).
JOB_MEDIAN_HOURS = 2.0
JOB_SIGMA = 0.75
JOB_MIN_MINUTES = 30
#: Section 6: "20% of processors are free".
FREE_FRACTION = 0.2
#: Machines' intervals extend to this many times an upper bound on every reasonable makespan.
HORIZON_FACTOR = 10.0
#: The most intervals a generator draws (a guard against a horizon that would fill the memory).
MAX_GENERATED_INTERVALS = min(MAX_INTERVALS, 5 * 10**6)


def docking_standin_law(median_hours: float = JOB_MEDIAN_HOURS) -> LogNormal:
    """The job-length law of the stand-in, in seconds (before the 30-minute cut)."""
    return LogNormal(mu=math.log(median_hours * 3600.0), sigma=JOB_SIGMA)


def draw_jobs(rng: np.random.Generator, n: int, median_hours: float = JOB_MEDIAN_HOURS) -> np.ndarray:
    """``n`` job lengths in integer seconds, each at least 30 minutes (shorter draws are redrawn).

    ``median_hours`` moves the law's median (a sensitivity knob of the benchmarks; the stand-in's is 2).
    """
    law, low = docking_standin_law(median_hours), JOB_MIN_MINUTES * SECONDS_PER_MINUTE
    out = np.empty(0)
    while len(out) < n:
        draw = np.rint(law.sample(rng, 2 * (n - len(out)) + 8))
        out = np.concatenate([out, draw[draw >= low]])
    return out[:n].astype(np.int64)


def lpt_free_bound(p: np.ndarray, lam: int) -> int:
    """``ceil(sum p / lam) + p_max``: no list schedule of the jobs on ``lam`` free machines ends later.

    GAPS' makespan and both problems' optima are at most this (GAPS' line 7
    keeps every used interval below the free machines' load; slack.md 6).
    """
    lam = max(lam, 1)
    return -(-int(p.sum()) // lam) + int(p.max())


def _check_horizon(horizon: float, name: str = "--horizon") -> None:
    require(
        horizon <= MAX_FIELD_INT // 2,
        name,
        f"the machines' intervals would extend to t = {horizon:.4g}, beyond the largest date "
        f"{MAX_FIELD_INT // 2} a generator allows; use fewer jobs, more free machines or a "
        "smaller --horizon",
    )


#: Intervals drawn at once per machine. Fixed, and each machine has its own generator (spawned from
#: the seed), so that a machine's sequence depends on neither the horizon nor the other machines: a
#: longer horizon extends the same intervals.
CHUNK = 64


def _draw_machine(horizon: int, draw_a, draw_u, chunk: int = CHUNK) -> np.ndarray:
    """One machine's ``[s, e]`` rows, contiguous from 0, up to the first ``e >= horizon``.

    ``draw_a(k)`` and ``draw_u(k)`` give ``k`` availability and unavailability durations, drawn
    alternately in chunks from the machine's own generator.
    """
    rows, end = [], 0
    while end < horizon:
        a, u = draw_a(chunk), draw_u(chunk)
        e = end + np.cumsum(a + u)
        s = e - u
        stop = int(np.searchsorted(e, horizon))  # first e >= horizon
        keep = min(stop + 1, chunk)
        rows.append(np.stack([s[:keep], e[:keep]], axis=1))
        end = int(e[keep - 1])
    return np.concatenate(rows) if rows else np.zeros((0, 2), np.int64)


def _n_free(machines: int, free_fraction: float) -> int:
    """``round(free_fraction * machines)``, at least one when the fraction is positive."""
    lam = int(round(free_fraction * machines))
    return max(lam, 1) if free_fraction > 0 else 0


def generate_paper(
    machines: int = 300,
    jobs: int = 3000,
    seed: int = 0,
    free_fraction: float = FREE_FRACTION,
    horizon: float = HORIZON_FACTOR,
    beta: float = 1.0,
) -> SlackInstance:
    """A Section 6 stand-in instance (slack.md 7.1-7.3).

    The paper samples whole machines and jobs from the SETI@home and
    Docking@Home traces. Here each non-free machine is one whole availability
    sequence starting available at ``t = 0`` (slack.md 7.1), with independent
    availability durations from the checkpoint paper's Table I Weibull
    (shape 0.431, scale 1.682 h: about 45 % of periods are shorter than 30
    minutes) and unavailability durations from its hyper-exponential law
    (weights renormalised). The trace's correlations within a machine are not
    reproduced. Jobs follow :func:`docking_standin_law`, at least 30 minutes.
    ``round(free_fraction * machines)`` machines (at least one if the fraction
    is positive) are free; they are the last indices.

    Durations are rounded to integer seconds: availability to the nearest
    second (0 allowed), unavailability to the nearest second but at least 1.
    Each machine's intervals extend to the first ``e >= horizon *``
    :func:`lpt_free_bound`: beyond any makespan a reasonable schedule reaches
    (GAPS, the optima) by the factor ``horizon``, which leaves room for the
    disturbed executions' re-runs. After its last interval a machine is
    available for ever (see :mod:`volsched.instances.slack`).

    Theorem 2's ``2 p_max <= a_min`` is reported by
    :attr:`SlackInstance.theorem2_assumption`; with these laws it essentially
    never holds (slack.md 5.4).
    """
    job_seq, machine_seq = np.random.SeedSequence(seed).spawn(2)
    lam = _n_free(machines, free_fraction)
    p = draw_jobs(np.random.default_rng(job_seq), jobs)
    end = math.ceil(horizon * lpt_free_bound(p, lam))
    _check_horizon(end)
    a_law, u_law = paper_failure_law(), paper_unavailability_law()  # minutes
    cycle = (a_law.mean + u_law.mean) * SECONDS_PER_MINUTE
    expected = (machines - lam) * (end / cycle + 1)
    require(
        expected <= MAX_GENERATED_INTERVALS,
        "--horizon",
        f"about {expected:,.0f} intervals would be drawn (at most {MAX_GENERATED_INTERVALS:,}); "
        "use fewer machines or jobs, more free machines or a smaller --horizon",
    )

    def draw(rng):
        return (
            lambda k: np.rint(a_law.sample(rng, k) * SECONDS_PER_MINUTE).astype(np.int64),
            lambda k: np.maximum(1, np.rint(u_law.sample(rng, k) * SECONDS_PER_MINUTE)).astype(np.int64),
        )

    rows = [_draw_machine(end, *draw(np.random.default_rng(s))) for s in machine_seq.spawn(machines - lam)]
    rows += [np.zeros((0, 2), np.int64)] * lam
    return SlackInstance(
        machines=rows,
        p=p,
        beta=beta,
        name=f"paper-m{machines}-n{jobs}-s{seed}",
        params={
            "preset": "paper",
            "machines": machines,
            "jobs": jobs,
            "seed": seed,
            "free_fraction": free_fraction,
            "horizon": horizon,
            "beta": beta,
            "time_unit": "second",
        },
    )


def generate_theorem2(
    machines: int = 4,
    jobs: int = 12,
    seed: int = 0,
    lam: int = 1,
    p_max: int = 5,
    a_min: int = 10,
    a_max: int = 30,
    u_max: int = 10,
    horizon: float = 3.0,
    beta: float = 1.0,
) -> SlackInstance:
    """Theorem 2's own instances: ``2 p_max <= a_min`` by construction (Section 5.2; slack.md 5.4).

    ``p_j`` uniform on ``{1..p_max}``, ``a_i^k`` uniform on ``{a_min..a_max}``,
    ``u_i^k`` uniform on ``{1..u_max}`` (integers, abstract time unit), ``lam``
    free machines (the last indices) among ``machines``. Intervals extend to
    the first ``e >= horizon *`` :func:`lpt_free_bound`. Small sizes suit the
    exact worst-case disturbance evaluation.
    """
    require(0 <= lam <= machines, "--lam", f"must be in [0, machines = {machines}], got {lam}")
    require(
        2 * p_max <= a_min,
        "--a-min",
        f"Theorem 2 needs 2 p_max <= a_min: 2 x {p_max} = {2 * p_max} > {a_min}",
    )
    require(a_min <= a_max, "--a-max", f"must be at least a_min = {a_min}, got {a_max}")
    job_seq, machine_seq = np.random.SeedSequence(seed).spawn(2)
    p = np.random.default_rng(job_seq).integers(1, p_max, size=jobs, endpoint=True).astype(np.int64)
    end = math.ceil(horizon * lpt_free_bound(p, lam))
    _check_horizon(end)
    require(
        (machines - lam) * (end / (a_min + 1) + 1) <= MAX_GENERATED_INTERVALS,
        "--horizon",
        "too many intervals; use fewer machines or jobs or a smaller --horizon",
    )

    def draw(rng):
        return (
            lambda k: rng.integers(a_min, a_max, size=k, endpoint=True).astype(np.int64),
            lambda k: rng.integers(1, u_max, size=k, endpoint=True).astype(np.int64),
        )

    rows = [_draw_machine(end, *draw(np.random.default_rng(s))) for s in machine_seq.spawn(machines - lam)]
    rows += [np.zeros((0, 2), np.int64)] * lam
    return SlackInstance(
        machines=rows,
        p=p,
        beta=beta,
        name=f"theorem2-m{machines}-n{jobs}-s{seed}",
        params={
            "preset": "theorem2",
            "machines": machines,
            "jobs": jobs,
            "seed": seed,
            "lam": lam,
            "p_max": p_max,
            "a_min": a_min,
            "a_max": a_max,
            "u_max": u_max,
            "horizon": horizon,
            "beta": beta,
            "time_unit": "unit",
        },
    )


# --- Theorem 1: 3-PARTITION -----------------------------------------------------------------------------


def read_bpplib(path: str | Path) -> tuple[list[int], int, list[int]]:
    """Weights, capacity and the weights' line numbers of a BPPLIB bin-packing file.

    Format: line 1 the number of items ``n``, line 2 the capacity ``C``, then
    ``n`` weights, one per line (blank lines are ignored). Every problem is an
    ``InputError`` naming the file and the line: a count line that disagrees
    with the items, a negative, zero or non-integer weight, a line with more
    than one number.
    """
    text = read_text(path)
    lines = [(k, line.strip()) for k, line in enumerate(text.splitlines(), start=1) if line.strip()]

    def integer(k: int, token: str, what: str) -> int:
        require(len(token.split()) == 1, f"{path} line {k}", f"expected one integer ({what}), got {token!r}")
        try:
            value = int(token)
        except ValueError:
            raise InputError(f"{path} line {k}: {what} must be a positive integer, got {token!r}") from None
        require(
            1 <= value <= MAX_FIELD_INT,
            f"{path} line {k}",
            f"{what} must be a positive integer (at most {MAX_FIELD_INT}), got {token!r}",
        )
        return value

    require(len(lines) >= 2, str(path), "a BPPLIB file starts with the number of items and the capacity")
    n = integer(lines[0][0], lines[0][1], "the number of items")
    capacity = integer(lines[1][0], lines[1][1], "the capacity")
    items = lines[2:]
    require(
        len(items) == n,
        f"{path} line {lines[0][0]}",
        f"says {n} items, but the file lists {len(items)} weights",
    )
    return [integer(k, token, "a weight") for k, token in items], capacity, [k for k, _ in items]


def check_three_partition(weights: list[int], B: int, where: str, lines: list[int] | None = None) -> int:
    """``m`` if ``weights`` is a 3-PARTITION instance for ``B`` (Garey-Johnson SP15; the paper's L183).

    ``3m`` elements, each strictly between ``B/4`` and ``B/2``, summing to
    ``m B``; otherwise ``InputError`` naming ``where`` (and the line of a bad weight).
    """
    n = len(weights)
    require(n >= 3 and n % 3 == 0, where, f"3-PARTITION needs 3m items (m >= 1), got {n}")
    m = n // 3
    total = sum(weights)
    require(
        total == m * B, where, f"the {n} weights sum to {total}; 3-PARTITION needs m B = {m} x {B} = {m * B}"
    )
    for j, w in enumerate(weights):
        line = f" line {lines[j]}" if lines else f" item {j}"
        require(
            4 * w > B and 2 * w < B,
            where + line,
            f"weight {w} is not strictly between B/4 = {B / 4:g} and B/2 = {B / 2:g} (3-PARTITION); "
            "the Falkenauer T files need --shift 1 (their README: +1 to every weight, B = 1003)",
        )
    return m


def three_partition_instance(
    elements: list[int],
    B: int,
    u: int = 1,
    beta: float = 1.0,
    name: str = "three-partition",
    params: dict | None = None,
) -> SlackInstance:
    """Theorem 1's reduction, completed so that it survives the last-period rule (slack.md 4.3).

    From a 3-PARTITION instance (``3m`` elements ``B/4 < s < B/2`` summing to
    ``m B``), with ``A = 3B + 2`` and ``T = A + u`` (``u >= 1``):

    * machines ``0..m-1`` each have one interval: availability ``[0, A)``, then
      unavailability ``[A, T)``; machine ``m`` is free (``lambda = 1``);
    * jobs: the ``3m`` elements, ``m`` jobs of length ``B + 1``, and a filler
      job of length ``T`` (last);
    * ``target = T``, ``beta = 1``.

    **Claim.** The slack problem at ``beta = 1`` has a schedule of makespan at
    most ``T`` (then exactly ``T``: the filler alone lasts ``T``) iff the
    3-PARTITION instance is a YES instance.

    *If.* Given ``A_1..A_m`` with ``sum A_i = B``, machine ``i`` runs its job of
    ``B + 1`` then the three elements of ``A_i`` (non-increasing, since
    ``s < B/2 < B + 1``), load ``2B + 1``, slack ``A - (2B + 1) = B + 1``, the
    longest job: the slack rule holds. The filler runs on the free machine over
    ``[0, T)``, so ``C_max = T = e_i^0`` for every ``i``: the last-period rule
    ``e <= C_max`` holds.

    *Only if.* Take a schedule with ``C_max <= T``. The filler (``T > A``)
    fits in no availability ``[0, A)``, and a machine's tail starts at ``T``:
    it runs on the free machine, which it fills over ``[0, T)``. Every other
    job then lies in some ``[0, A)``, since any later position ends after
    ``T``. Two jobs of ``B + 1`` in one interval leave a slack of at most
    ``A - 2(B + 1) = B < B + 1``: the slack rule fails, so each of the ``m``
    intervals holds exactly one of the ``m`` such jobs, which is its longest.
    Its slack rule reads ``A - (B + 1) - sum(elements) >= B + 1``, so its
    elements sum to at most ``B``; they total ``m B``, so each interval's sum
    is exactly ``B``, and with ``B/4 < s < B/2`` that takes exactly three
    elements. This is a 3-partition. The reduction is polynomial and the
    numbers stay polynomial in ``B``: strong NP-hardness carries over.

    The filler has length exactly ``T``, not more, so that no job fits after an
    interval whatever a machine does after it. The completion relies on
    allowing ``e_i^k = C_max`` (slack.md 2.2). It needs ``beta = 1``: two jobs
    of ``B + 1`` share an interval as soon as ``A - 2(B + 1) >= beta (B + 1)``,
    i.e. ``B >= beta / (1 - beta)``, and the counting breaks (slack.md 4.3:
    the brute force's NO instance with ``B = 13`` becomes feasible at
    ``beta = 0.9``).
    """
    check_three_partition(list(elements), B, "elements")
    require(u >= 1, "--u", f"the unavailability must last at least 1, got {u}")
    m = len(elements) // 3
    A = 3 * B + 2
    T = A + u
    _check_horizon(T, "--u")
    machines = [[[A, T]] for _ in range(m)] + [[]]
    p = list(elements) + [B + 1] * m + [T]
    return SlackInstance(
        machines=machines,
        p=p,
        beta=beta,
        name=name,
        target=T,
        params=params if params is not None else {"B": B, "m": m, "u": u},
    )


def three_partition_from_file(
    path: str | Path, shift: int = 0, u: int = 1, beta: float = 1.0
) -> SlackInstance:
    """:func:`three_partition_instance` of a BPPLIB file read as 3-PARTITION with ``B`` = the capacity.

    ``shift`` adds ``shift`` to every weight and ``3 shift`` to ``B``: a
    partition into triples of sum ``B`` maps to one of sum ``B + 3 shift`` and
    back. The Falkenauer T files need ``shift = 1`` (some weights equal
    ``B/4 = 250``; ``../shared/data/falkenauer_t/README.md``).
    """
    weights, capacity, lines = read_bpplib(path)
    weights = [w + shift for w in weights]
    B = capacity + 3 * shift
    check_three_partition(weights, B, str(path), lines)
    return three_partition_instance(
        weights,
        B,
        u=u,
        beta=beta,
        name=f"3part-{Path(path).stem}",
        params={
            "preset": "three-partition",
            "file": str(path),
            "shift": shift,
            "u": u,
            "beta": beta,
            "time_unit": "unit",
        },
    )


def solve_three_partition(elements: list[int], B: int, node_limit: int = 2_000_000) -> list[list[int]] | None:
    """A partition of ``elements`` (indices) into triples of sum ``B``, or ``None`` if none exists.

    Depth-first: the largest unplaced element opens each triple, memoised on
    the multiset of unplaced values. Exact; raises ``RuntimeError`` beyond
    ``node_limit`` nodes (meant for the generator's small NO certificates).
    """
    order = sorted(range(len(elements)), key=lambda j: -elements[j])
    dead: set[tuple[int, ...]] = set()
    nodes = 0

    def search(left: list[int]) -> list[list[int]] | None:
        nonlocal nodes
        if not left:
            return []
        key = tuple(elements[j] for j in left)
        if key in dead:
            return None
        nodes += 1
        if nodes > node_limit:
            raise RuntimeError(f"3-PARTITION search exceeded {node_limit} nodes")
        first, rest = left[0], left[1:]
        need = B - elements[first]
        tried = set()
        for x in range(len(rest)):
            for y in range(x + 1, len(rest)):
                pair = (elements[rest[x]], elements[rest[y]])
                if pair[0] + pair[1] != need or pair in tried:
                    continue
                tried.add(pair)
                found = search([j for k, j in enumerate(rest) if k not in (x, y)])
                if found is not None:
                    return [[first, rest[x], rest[y]], *found]
        dead.add(key)
        return None

    return search(order)


def _planted_yes(rng: np.random.Generator, m: int, B: int) -> list[int]:
    lo, hi = B // 4 + 1, (B - 1) // 2
    out = []
    while len(out) < 3 * m:
        s1, s2 = (int(x) for x in rng.integers(lo, hi, size=2, endpoint=True))
        s3 = B - s1 - s2
        if lo <= s3 <= hi:
            out += [s1, s2, s3]
    return [int(x) for x in rng.permutation(out)]


#: Largest ``m`` of a certified NO instance (the exact search certifies it).
MAX_NO_GROUPS = 12


def generate_planted(
    groups: int = 4,
    B: int = 1000,
    seed: int = 0,
    answer: str = "yes",
    u: int = 1,
    beta: float = 1.0,
    attempts: int = 200,
) -> SlackInstance:
    """A random 3-PARTITION instance through :func:`three_partition_instance`.

    ``answer = "yes"``: ``groups`` random triples, each of sum ``B`` with every
    element strictly between ``B/4`` and ``B/2``, shuffled (a planted YES).
    ``answer = "no"``: such an instance perturbed by moving one unit from an
    element to another (the sum and the bounds kept), repeated until
    :func:`solve_three_partition` certifies that no 3-partition exists (at
    most ``attempts`` moves; ``groups <= MAX_NO_GROUPS``). The certificate is
    exact; the exact solver must prove the slack instance's optimum above its
    target.
    """
    lo, hi = B // 4 + 1, (B - 1) // 2
    require(3 * lo <= B <= 3 * hi, "--B", f"no three integers strictly between B/4 and B/2 sum to B = {B}")
    require(answer in ("yes", "no"), "--answer", f"must be yes or no, got {answer!r}")
    require(
        answer == "yes" or groups <= MAX_NO_GROUPS,
        "--groups",
        f"a certified NO instance needs m <= {MAX_NO_GROUPS}, got {groups}",
    )
    rng = np.random.default_rng(seed)
    elements = _planted_yes(rng, groups, B)
    if answer == "no":
        for _ in range(attempts):
            x, y = (int(v) for v in rng.choice(len(elements), size=2, replace=False))
            if elements[x] - 1 >= lo and elements[y] + 1 <= hi:
                elements[x] -= 1
                elements[y] += 1
                if solve_three_partition(elements, B) is None:
                    break
        else:
            raise InputError(
                f"--seed: no NO instance found in {attempts} perturbations of seed {seed}; "
                "try another seed or a larger B"
            )
    return three_partition_instance(
        elements,
        B,
        u=u,
        beta=beta,
        name=f"planted-{answer}-m{groups}-B{B}-s{seed}",
        params={
            "preset": "planted",
            "groups": groups,
            "B": B,
            "seed": seed,
            "answer": answer,
            "u": u,
            "beta": beta,
            "time_unit": "unit",
        },
    )
