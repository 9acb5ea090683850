"""Problem ``iterations`` by enumeration of every allocation (the tests' oracle, p <= 6)."""

from __future__ import annotations

import itertools

from volsched.instances.errors import require

MAX_PROCESSORS = 6


def iterations_brute(instance) -> list[tuple[int, int, list[int], int]]:
    """Problem ``iterations`` by enumeration: ``[(start, completion, allocation, W)]``.

    Every allocation ``x`` (``0 <= x_q <= min(mu_q, m)``, ``sum x = m``) is
    scanned slot by slot from the iteration's start: its count of all-UP
    slots restarts after each DOWN of an enrolled worker and the iteration
    completes when it reaches ``max x_q w_q``; the earliest over all
    allocations is chained (``p <= 6``).
    """
    p = instance.p
    require(
        p <= MAX_PROCESSORS,
        "method",
        f"iterations brute enumerates every allocation; p = {p} > {MAX_PROCESSORS}",
    )
    limits = [int(min(mu, instance.m)) for mu in instance.mu]
    allocations = [x for x in itertools.product(*(range(c + 1) for c in limits)) if sum(x) == instance.m]
    state = instance.availability
    done, start = [], 0
    while len(done) < instance.K:
        best = None
        for x in allocations:
            enrolled = [q for q in range(p) if x[q]]
            need = max(x[q] * int(instance.w[q]) for q in enrolled)
            count, begin = 0, start
            for t in range(start, instance.horizon):
                if any(state[q, t] == 2 for q in enrolled):
                    count, begin = 0, t + 1
                elif all(state[q, t] == 0 for q in enrolled):
                    count += 1
                    if count == need:
                        if best is None or t < best[1]:
                            best = (begin, t, list(x), need)
                        break
        if best is None:
            break
        done.append(best)
        start = best[1] + 1
    return done
