"""Small random slack instances for the heuristic tests (hypothesis strategies and seeded numpy ones)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import strategies as st

from volsched.instances.slack import SlackInstance

if TYPE_CHECKING:
    import numpy as np


def dates(avail: list[int], unavail: list[int]) -> list[list[int]]:
    """``[[s, e], ...]`` from availabilities ``a^k`` and unavailability lengths ``u^k``."""
    out, t = [], 0
    for a, u in zip(avail, unavail, strict=True):
        out.append([t + a, t + a + u])
        t += a + u
    return out


@st.composite
def instances(
    draw,
    max_busy=3,
    max_free=2,
    max_k=4,
    a_max=12,
    u_max=5,
    max_n=8,
    p_max=8,
    min_free=1,
    theorem2=False,
    beta=None,
):
    """A small instance: ``busy`` machines with intervals, ``free`` machines, ``n`` jobs.

    ``theorem2``: every availability is at least ``2 p_max`` (Theorem 2's assumption).
    """
    busy = draw(st.integers(1, max_busy))
    free = draw(st.integers(min_free, max_free))
    n = draw(st.integers(1, max_n))
    p = draw(st.lists(st.integers(1, p_max), min_size=n, max_size=n))
    a_lo = 2 * max(p) if theorem2 else 0
    machines = []
    for _ in range(busy):
        k = draw(st.integers(1, max_k))
        avail = draw(st.lists(st.integers(a_lo, a_lo + a_max), min_size=k, max_size=k))
        unavail = draw(st.lists(st.integers(1, u_max), min_size=k, max_size=k))
        machines.append(dates(avail, unavail))
    machines += [[] for _ in range(free)]
    order = draw(st.permutations(range(len(machines))))
    b = draw(st.sampled_from([i / 10 for i in range(11)])) if beta is None else beta
    return SlackInstance(machines=[machines[i] for i in order], p=p, beta=b)


def random_instance(
    rng: np.random.Generator,
    busy: int,
    free: int,
    n: int,
    k: int,
    a_hi: int = 60,
    u_hi: int = 20,
    p_hi: int = 20,
    beta: float = 0.5,
) -> SlackInstance:
    """A seeded instance: ``busy`` machines of ``k`` intervals each, ``free`` free ones, ``n`` jobs."""
    machines = [
        dates(rng.integers(0, a_hi + 1, k).tolist(), rng.integers(1, u_hi + 1, k).tolist())
        for _ in range(busy)
    ] + [[] for _ in range(free)]
    return SlackInstance(machines=machines, p=rng.integers(1, p_hi + 1, n).tolist(), beta=beta)
