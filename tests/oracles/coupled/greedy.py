"""Oracle of the compiled ``full`` greedy: a verbatim copy of the pure-Python greedy it replaced.

Copied from commit 7351c49 (``solvers/coupled/full_greedy.py``'s ``greedy_full``) before its
steps moved to :mod:`volsched.solvers.coupled._greedy_kernel`. The new code must give the same
schedules, bit for bit. Only the name was changed (``_oracle`` suffix) and imports adapted;
in session 24 both gained the same candidate orders (the fastest among the processors UP for
the next 2, 4, 8, ... slots; ``spans``), added here in the loop's own terms. It is one pass:
``greedy_pass`` of the package.
"""

from __future__ import annotations

import heapq
import itertools
import time

import numpy as np

from volsched.instances.coupled import DOWN, UP, CoupledInstance
from volsched.solvers.coupled.replay import DATA, LETTERS, PROG

ALL_SUBSETS = 5
"""With at most this many processors UP, every subset of at most ``m`` of them is a candidate."""


def _water_fill(chosen, w, cap, m: int, p: int) -> np.ndarray | None:
    """Allocation of ``m`` tasks on ``chosen`` (one each, then the smallest ``(x + 1) w`` next)."""
    if len(chosen) > m or sum(cap[q] for q in chosen) < m:
        return None
    x = np.zeros(p, dtype=np.int64)
    x[chosen] = 1
    heap = [(2 * int(w[q]), q) for q in chosen if cap[q] > 1]
    heapq.heapify(heap)
    for _ in range(m - len(chosen)):
        _, q = heapq.heappop(heap)
        x[q] += 1
        if x[q] < cap[q]:
            heapq.heappush(heap, ((int(x[q]) + 1) * int(w[q]), q))
    return x


def _next(mask: np.ndarray) -> np.ndarray:
    """``out[q, t]``: the first slot ``>= t`` where ``mask[q]`` holds (``H`` if none), for ``t = 0..H``."""
    rows, horizon = mask.shape
    out = np.full((rows, horizon + 1), horizon, dtype=np.int64)
    out[:, :-1] = np.where(mask, np.arange(horizon), horizon)
    np.minimum.accumulate(out[:, ::-1], axis=1, out=out[:, ::-1])
    return out


def greedy_full_oracle(
    instance: CoupledInstance, deadline: float | None = None, spans: bool = True
) -> dict | None:
    """A schedule of ``K`` iterations in the format of :mod:`.replay`, or ``None`` if none was found.

    ``None`` does not prove infeasibility. Once the replay accepts it, its
    makespan is an upper bound on the optimum. With ``deadline`` (a
    ``time.perf_counter()`` value) it gives up, with ``None``, once that has passed.
    """
    p, horizon, m, big_k = instance.p, instance.horizon, instance.m, instance.K
    avail, w, n_com = instance.availability, instance.w, instance.n_com
    t_prog, t_data = instance.T_prog, instance.T_data
    up = avail == UP
    cap = [int(min(mu, m)) for mu in instance.mu]
    # next_down[q, t]: first DOWN slot of q at or after t (H if none); next_rise[t]: first slot
    # after t where some processor becomes UP.
    next_down = _next(avail == DOWN)
    next_off = _next(~up)  # first slot not UP
    rises = np.zeros((1, horizon), dtype=bool)
    rises[0, 1:] = (up[:, 1:] & ~up[:, :-1]).any(axis=0)
    next_rise = np.full(horizon + 1, horizon, dtype=np.int64)
    next_rise[:-1] = _next(rises)[0, 1:]

    filled: dict[tuple[int, ...], np.ndarray | None] = {}

    def candidates(t0: int, prog: np.ndarray):
        ready = [int(q) for q in np.flatnonzero(up[:, t0])]
        if len(ready) <= ALL_SUBSETS:
            sets = [c for k in range(1, min(m, len(ready)) + 1) for c in itertools.combinations(ready, k)]
        else:
            orders = [
                sorted(ready, key=lambda q: (w[q], q)),
                sorted(ready, key=lambda q: (-next_down[q, t0], w[q], q)),
                sorted(ready, key=lambda q: (-next_off[q, t0], w[q], q)),
                sorted(ready, key=lambda q: (-prog[q], w[q], q)),
            ]
            reach = max(int(next_off[q, t0]) - t0 for q in ready) if spans else 0
            span = 2
            while span <= reach:
                orders.append(sorted(ready, key=lambda q, s=span: (next_off[q, t0] - t0 < s, w[q], q)))
                span *= 2
            sets = [tuple(sorted(order[:k])) for order in orders for k in range(1, min(m, len(order)) + 1)]
        seen = set()
        for q in ready:
            if cap[q] >= m:
                x = np.zeros(p, dtype=np.int64)
                x[q] = m
                seen.add(x.tobytes())
                yield x
        for chosen in sets:
            if chosen not in filled:
                filled[chosen] = _water_fill(list(chosen), w, cap, m, p)
            x = filled[chosen]
            if x is not None and x.tobytes() not in seen:
                seen.add(x.tobytes())
                yield x

    up_rows = up.tolist()
    # count[q, t]: UP slots of q before t, to find a worker's n-th UP slot at once.
    count = np.zeros((p, horizon + 1), dtype=np.int64)
    np.cumsum(up, axis=1, out=count[:, 1:])

    def attempt(x: np.ndarray, t0: int, prog: np.ndarray, limit: int, record: bool = False):
        """``(completion slot or None, failure slot, transfers)`` of one attempt from ``t0``.

        Transfers go to the UP workers with the most left to receive, at most
        ``n_com`` per slot; with no more workers than ``n_com`` each simply
        receives in each of its UP slots, computed directly unless ``record``.
        """
        rows = [int(q) for q in np.flatnonzero(x)]
        fail = int(next_down[rows, t0].min())
        end = min(fail, limit)
        need_p = [t_prog - int(prog[q]) for q in rows]
        need_d = [int(x[q]) * t_data for q in rows]
        sends = []
        if len(rows) <= n_com and not record:
            t = t0
            for q, a, b in zip(rows, need_p, need_d, strict=True):
                if a + b:
                    t = max(t, int(np.searchsorted(count[q], count[q, t0] + a + b)))
        else:
            t = t0
            while any(need_p) or any(need_d):
                if t >= end:
                    return None, fail, sends
                waiting = [i for i, q in enumerate(rows) if up_rows[q][t] and need_p[i] + need_d[i]]
                waiting.sort(key=lambda i: -(need_p[i] + need_d[i]))
                for i in waiting[:n_com]:
                    if need_p[i]:
                        need_p[i] -= 1
                        sends.append((rows[i], t, PROG))
                    else:
                        need_d[i] -= 1
                        sends.append((rows[i], t, DATA))
                t += 1
        if t >= end:
            return None, fail, sends
        computing = np.flatnonzero(up[rows, t:end].all(axis=0))
        workload = int((x * w).max())
        if len(computing) < workload:
            return None, fail, sends
        return t + int(computing[workload - 1]), fail, sends

    def enter(previous: np.ndarray, x: np.ndarray, prog: np.ndarray) -> np.ndarray:
        """Put ``x`` in force: a worker that leaves loses a partial program (Section III-C)."""
        prog[(previous > 0) & (x == 0) & (prog < t_prog)] = 0
        return x

    prog = np.zeros(p, dtype=np.int64)  # program progress at t0
    comm = np.zeros((p, horizon), dtype=np.int8)
    configurations, completions = [], []
    current = np.zeros(p, dtype=np.int64)  # allocation in force (all zero: idle or none yet)
    t0 = 0
    while len(completions) < big_k and t0 < horizon:
        if deadline is not None and time.perf_counter() > deadline:
            return None
        best, best_t, first_fail, last_fail, longest = None, horizon, horizon, -1, None
        for x in candidates(t0, prog):
            done, fail, _ = attempt(x, t0, prog, best_t)
            first_fail = min(first_fail, fail)
            if fail > last_fail:
                last_fail, longest = fail, x
            if done is not None and done < best_t:
                best, best_t = x, done
        if best is None:
            nxt = min(first_fail + 1, int(next_rise[t0]))
            sends = [] if longest is None else attempt(longest, t0, prog, nxt, record=True)[2]
            sends = [(q, t) for q, t, code in sends if code == PROG and t < nxt]
            if sends:
                configurations.append({"start": t0, "allocation": [int(v) for v in longest]})
                current = enter(current, longest, prog)
                for q, t in sends:
                    comm[q, t] = PROG
                    prog[q] += 1
            elif current.any():
                configurations.append({"start": t0, "allocation": [0] * p})
                current = enter(current, np.zeros(p, dtype=np.int64), prog)
            prog[next_down[:, t0] < nxt] = 0
            t0 = nxt
            continue
        # After a completion at t0 - 1 the same allocation restarts by itself: no entry needed.
        continuing = bool(completions) and completions[-1] == t0 - 1 and np.array_equal(current, best)
        if not continuing:
            configurations.append({"start": t0, "allocation": [int(v) for v in best]})
            enter(current, best, prog)
        _, _, best_sends = attempt(best, t0, prog, horizon, record=True)
        for q, t, code in best_sends:
            comm[q, t] = code
        prog[next_down[:, t0] <= best_t] = 0
        prog[best > 0] = t_prog
        current = best
        completions.append(best_t)
        t0 = best_t + 1
    if len(completions) < big_k:
        return None
    codes = np.frombuffer(LETTERS.encode(), dtype=np.uint8)
    return {
        "configurations": configurations,
        "communication": [codes[row].tobytes().decode().rstrip(LETTERS[0]) for row in comm],
        "completions": completions,
    }


__all__ = ["greedy_full_oracle"]
