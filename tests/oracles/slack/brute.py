"""Brute-force oracle for the slack family's exact problems on tiny instances (tests only).

Enumerates every assignment of jobs to periods (a machine's availability
before each unavailability, its tail after the last one, a free machine's
whole time line), each period run compactly from its start in non-increasing
``p``, and keeps the best one that obeys the problem's rules. Written from the
rules' statements (slack.md 2), sharing no code with the verifier, the bound
or the models.
"""

from __future__ import annotations

from fractions import Fraction

from volsched.instances.slack import SlackInstance

INF = float("inf")


def periods(instance, horizon: int) -> list[tuple]:
    """``(machine, start, end, e, is_interval)`` of every period starting before ``horizon``."""
    out = []
    for i, rows in enumerate(instance.machines):
        prev = 0
        for s, e in rows.tolist():
            if prev < horizon:
                out.append((i, prev, s, e, True))
            prev = e
        if prev < horizon:
            out.append((i, prev, INF, INF, False))
    return out


def brute_force(instance, problem: str, beta=None):
    """``(makespan, schedule)`` of an optimal schedule, or ``None`` if there is none.

    ``beta`` defaults to the instance's; it is read as the decimal it is written as.
    """
    beta = Fraction(repr(float(instance.beta if beta is None else beta)))
    p = [int(x) for x in instance.p]
    if problem == "slack" and instance.lam == 0:
        return None
    upper = sum(p) + max([int(r[-1, 1]) for r in instance.machines if len(r)], default=0)
    bins = periods(instance, upper)
    order = sorted(range(len(p)), key=lambda j: -p[j])
    loads = [[] for _ in bins]
    best = [INF, None]

    def rules_hold() -> tuple[bool, int]:
        cmax = max(bins[b][1] + sum(p[j] for j in jobs) for b, jobs in enumerate(loads) if jobs)
        if problem == "plain":
            return True, cmax
        for b, jobs in enumerate(loads):
            if not jobs:
                continue
            i, start, end, e, is_interval = bins[b]
            if not is_interval:
                if len(instance.machines[i]):  # a non-free machine's tail: never closed
                    return False, cmax
                continue
            slack = end - start - sum(p[j] for j in jobs)
            if slack < beta * max(p[j] for j in jobs) or e > cmax:
                return False, cmax
        return True, cmax

    def place(k: int) -> None:
        if k == len(order):
            ok, cmax = rules_hold()
            if ok and cmax < best[0]:
                best[0], best[1] = cmax, [list(x) for x in loads]
            return
        j = order[k]
        seen = set()
        for b, (i, start, end, e, is_interval) in enumerate(bins):
            if problem == "slack" and not is_interval and len(instance.machines[i]):
                continue  # a non-free machine's tail is never closed by an unavailability
            load = sum(p[x] for x in loads[b]) + p[j]
            if start + load > end or start + load >= best[0]:
                continue
            longest = p[loads[b][0]] if loads[b] else p[j]  # jobs come in non-increasing p
            if problem == "slack" and is_interval and end - start - load < beta * longest:
                continue  # the slack only shrinks as jobs are added
            # two periods alike with alike contents (sum, longest) lead to mirrored subtrees
            key = (start, end, e, is_interval, load, longest)
            if key in seen:
                continue
            seen.add(key)
            loads[b].append(j)
            place(k + 1)
            loads[b].pop()

    place(0)
    if best[1] is None:
        return None
    schedule = [None] * len(p)
    for b, jobs in enumerate(best[1]):
        clock = bins[b][1]
        for j in sorted(jobs, key=lambda x: -p[x]):
            schedule[j] = [bins[b][0], int(clock)]
            clock += p[j]
    return int(best[0]), schedule


#: The betas the beta-aware bounds are checked at against :func:`brute_force`.
BETAS = (0.0, 0.25, 0.5, 0.7, 1.0)


def small_instance(rng):
    """1-2 free machines and 1-3 machines of 1-3 intervals, jobs about as long as the availabilities."""
    machines = [[] for _ in range(int(rng.integers(1, 3)))]
    for _ in range(int(rng.integers(1, 4))):
        rows, end = [], 0
        for _ in range(int(rng.integers(1, 4))):
            s = end + int(rng.integers(2, 17))
            end = s + int(rng.integers(1, 5))
            rows.append([s, end])
        machines.append(rows)
    p = [int(x) for x in rng.integers(1, 9, size=int(rng.integers(2, 7)))]
    return SlackInstance(machines=machines, p=p)


def medium_instance(rng) -> SlackInstance:
    """1-2 free machines, 2-3 machines of 1-2 intervals that hold 1-3 jobs, 4-7 jobs."""
    machines = [[] for _ in range(int(rng.integers(1, 3)))]
    for _ in range(int(rng.integers(2, 4))):
        rows, end = [], 0
        for _ in range(int(rng.integers(1, 3))):
            s = end + int(rng.integers(6, 30))
            end = s + int(rng.integers(1, 6))
            rows.append([s, end])
        machines.append(rows)
    p = [int(x) for x in rng.integers(2, 12, size=int(rng.integers(4, 8)))]
    return SlackInstance(machines=machines, p=p)


def tight_instance(rng) -> SlackInstance:
    """One free machine, 2-3 machines of 1-3 short intervals, 3-7 jobs of 4-9 slots."""
    machines = [[]]
    for _ in range(int(rng.integers(2, 4))):
        rows, end = [], 0
        for _ in range(int(rng.integers(1, 4))):
            s = end + int(rng.integers(4, 15))
            end = s + int(rng.integers(1, 3))
            rows.append([s, end])
        machines.append(rows)
    p = [int(x) for x in rng.integers(4, 10, size=int(rng.integers(3, 8)))]
    return SlackInstance(machines=machines, p=p)
