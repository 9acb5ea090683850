"""Independent oracles for the slack family's exact methods: brute force and instance builders.

Shares no code with ``volsched.solvers.slack``: it reads the instance's raw
``[s, e]`` dates and recomputes every rule in Python ints and Fractions.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import TYPE_CHECKING

from volsched.instances.slack import SlackInstance

if TYPE_CHECKING:
    import numpy as np


def places(instance: SlackInstance, problem: str) -> list[tuple]:
    """Where a job can go: ``("free", i)``, ``("interval", i, start, a, e)``, ``("tail", i, start)``."""
    out = []
    for i, rows in enumerate(instance.machines):
        rows = [(int(s), int(e)) for s, e in rows]
        if not rows:
            out.append(("free", i))
            continue
        prev = 0
        for s, e in rows:
            out.append(("interval", i, prev, s - prev, e))
            prev = e
        if problem == "plain":
            out.append(("tail", i, prev))
    return out


def evaluate(instance: SlackInstance, problem: str, assignment, where) -> int | None:
    """``C_max`` of jobs put at ``where[assignment[j]]`` (compact), ``None`` if a rule fails."""
    p = [int(v) for v in instance.p]
    beta = Fraction(repr(float(instance.beta)))
    jobs: dict[int, list[int]] = {}
    for j, w in enumerate(assignment):
        jobs.setdefault(w, []).append(p[j])
    ends, closing = [], []
    for w, sizes in jobs.items():
        place = where[w]
        load = sum(sizes)
        if place[0] == "free":
            ends.append(load)
        elif place[0] == "tail":
            ends.append(place[2] + load)
        else:
            _, _, start, a, e = place
            if problem == "plain":
                if load > a:
                    return None
            else:
                if Fraction(a - load) < beta * max(sizes):
                    return None
                closing.append(e)
            ends.append(start + load)
    cmax = max(ends)
    if any(e > cmax for e in closing):
        return None
    return cmax


def brute(instance: SlackInstance, problem: str) -> int | None:
    """The optimum by enumerating every job-to-place assignment (``None``: no schedule)."""
    where = places(instance, problem)
    best = None
    for assignment in itertools.product(range(len(where)), repeat=instance.n):
        value = evaluate(instance, problem, assignment, where)
        if value is not None and (best is None or value < best):
            best = value
    return best


def random_instance(
    rng: np.random.Generator,
    n_max: int = 5,
    machines_max: int = 3,
    intervals_max: int = 2,
    p_max: int = 8,
    a_max: int = 14,
    free_min: int = 0,
    betas=(0.0, 0.3, 0.5, 1.0),
) -> SlackInstance:
    """A small random instance (seeded); some machines free, others with 1..intervals_max intervals."""
    m = int(rng.integers(1, machines_max + 1))
    n_free = int(rng.integers(free_min, m + 1))
    machines = []
    for i in range(m):
        rows, t = [], 0
        if i >= n_free:
            for _ in range(int(rng.integers(1, intervals_max + 1))):
                s = t + int(rng.integers(0, a_max + 1))
                e = s + int(rng.integers(1, 5))
                rows.append([s, e])
                t = e
        machines.append(rows)
    p = rng.integers(1, p_max + 1, size=int(rng.integers(1, n_max + 1))).tolist()
    beta = float(betas[int(rng.integers(0, len(betas)))])
    return SlackInstance(machines=machines, p=p, beta=beta, name="random")


def three_partition(elements, B: int, u: int = 1, later: int = 1, beta: float = 1.0) -> SlackInstance:
    """Theorem 1's construction completed as in slack.md 4.3.

    ``m`` machines with an availability of ``3B+2`` then an unavailability
    ``u`` (and ``later`` further intervals of the same shape, past the target),
    one free machine; the ``3m`` element jobs, ``m`` jobs of ``B+1`` and a
    filler of ``3B+2+u``. The optimum at ``beta = 1`` is ``3B+2+u`` iff the
    elements split into ``m`` triples of sum ``B``.
    """
    m = len(elements) // 3
    a = 3 * B + 2
    rows = [[k * (a + u) + a, (k + 1) * (a + u)] for k in range(1 + later)]
    machines = [rows for _ in range(m)] + [[]]
    p = list(elements) + [B + 1] * m + [a + u]
    return SlackInstance(machines=machines, p=p, beta=beta, name="three-partition")


def falkenauer(path, u: int = 1) -> tuple[SlackInstance, int]:
    """A Falkenauer T file as 3-PARTITION (every weight + 1, ``B = C + 3``: data README) and its target."""
    with open(path) as f:
        words = [int(w) for w in f.read().split()]
    n, capacity, weights = words[0], words[1], words[2:]
    assert len(weights) == n
    B = capacity + 3
    return three_partition([w + 1 for w in weights], B, u=u), 3 * B + 2 + u
