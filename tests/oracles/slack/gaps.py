"""GAPS(beta), Canon et al. 2011, Section 5.1, Algorithm 1, transcribed literally: the oracle of ``gaps``.

The double loop as the pseudo-code writes it (every interval scans every unscheduled job, the sums
recomputed each time, the tests in exact rationals), read as ``readings/slack.md`` section 6
reads it; :func:`volsched.heuristics.slack.gaps` computes the same schedule in loglinear time.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from volsched.heuristics.slack import Schedule
from volsched.instances.errors import InputError
from volsched.instances.slack import SlackInstance, beta_ratio


def gaps_reference(instance: SlackInstance, beta: float | None = None) -> Schedule:
    """Algorithm 1 line by line (double loop, exact rationals); ``beta`` defaults to the instance's."""
    lam = instance.lam
    if lam == 0:
        raise InputError("instance: GAPS needs a free machine (lambda >= 1): line 7 divides by lambda")
    b = instance.beta if beta is None else float(beta)
    num, den = beta_ratio(b)
    if not 0 <= num <= den:
        raise InputError(f"--beta: must be a number in [0, 1], got {b!r}")
    beta_q = Fraction(num, den)
    p = instance.p.tolist()
    t = instance.table
    intervals = sorted(
        zip(
            t["e"].tolist(),
            t["machine"].tolist(),
            t["k"].tolist(),
            t["a"].tolist(),
            t["start"].tolist(),
            strict=True,
        )
    )  # line 1
    S = sorted(range(len(p)), key=lambda j: (-p[j], j))  # lines 2-3
    machine = np.full(len(p), -1, dtype=np.int64)
    start = np.zeros(len(p), dtype=np.int64)
    for e, i, _k, a, begin in intervals:  # line 4
        pi: list[int] = []
        for j in list(S):  # line 5
            M = sum(p[x] for x in pi)  # line 6
            if e <= Fraction(sum(p[x] for x in S) - p[j], lam):  # noqa: SIM102 - line 7 (line 8 stays apart)
                if a - M - p[j] >= beta_q * max(p[x] for x in [*pi, j]):  # line 8
                    pi.append(j)  # line 9
                    S.remove(j)  # line 10
        clock = begin
        for j in sorted(pi, key=lambda x: (-p[x], x)):
            machine[j], start[j] = i, clock
            clock += p[j]
    # line 15: LPT on the free machines, each job to the least-loaded one, the lowest index on ties
    load = dict.fromkeys(instance.free, 0)
    for j in S:
        i = min(load, key=lambda m: (load[m], m))
        machine[j], start[j] = i, load[i]
        load[i] += p[j]
    return Schedule(machine, start, b)
