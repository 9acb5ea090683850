"""Exact minimum makespan on identical machines without unavailability (``P||C_max``), for small ``n``.

On an instance with no interval (every machine free, ``lambda = m``), both problems of the family
are ``P||C_max``: the slack rule and the last-period rule constrain intervals only (Canon et al.
2011, Sections 3.3 and 5.1), and a job on a free machine runs whole. This is the plain problem on
which Graham's bounds hold. :func:`solve_pcmax` settles it by a finished combinatorial search:

* **Lower bound** ``L = max(ceil(sum p / m), p_max, p_(m) + p_(m+1))`` (job sizes in non-increasing
  order, 1-based): the average load, the longest job, and, among the ``m + 1`` longest jobs, two
  share a machine (pigeonhole), the two shortest of them at least.
* **Decision** for a target ``T``: can the jobs be packed on ``m`` machines of capacity ``T``?
  Depth-first search over the jobs in non-increasing ``p``; job ``k`` goes to one machine per
  distinct load (machines of equal load are interchangeable). Three rules cut the search, each
  keeping at least one packing whenever one exists:

  - a job that fills a machine's remaining room exactly goes there and nowhere else (any packing
    with that machine's later jobs ``S``, ``sum S <= p_k``, and ``k`` elsewhere stays a packing
    when ``S`` and ``k`` trade places);
  - room that no remaining job fits (less than the shortest one) is wasted; when the waste exceeds
    ``m T - sum p``, no packing completes;
  - a failed state (the next job and the sorted loads) is remembered and not searched again.

  A target whose search ends without a packing is proven infeasible: ``C_max > T``.
* **Optimisation**: targets ``L, L + 1, ...`` up to ``hi - 1``, ``hi`` a known schedule's makespan;
  the first feasible target is the optimum, and if none is, ``hi`` is.

The search counts its nodes (deterministic work); with ``max_nodes`` it stops when they run out and
returns the bound it has proven so far (every target below the current one was searched to its
end) and the best schedule known: no proof comes from an unfinished search.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PcmaxResult:
    """What :func:`solve_pcmax` proved.

    Attributes
    ----------
    machine : list of int or None
        Each job's machine (``0..m-1``) in a schedule of makespan ``value``; ``None`` when the
        search found none better than the caller's ``hi``.
    value : int
        That schedule's makespan, or the caller's ``hi``.
    lower : int
        A proven lower bound on the optimum (``value`` when ``finished``).
    nodes : int
        Search nodes spent.
    finished : bool
        The search ended: ``value`` is the optimum.
    """

    machine: list[int] | None
    value: int
    lower: int
    nodes: int
    finished: bool


class _OutOfNodes(Exception):
    pass


def lower_bound(p: list[int], m: int) -> int:
    """``max(ceil(sum p / m), p_max, p_(m) + p_(m+1))`` (module docstring); 0 without jobs."""
    if not p:
        return 0
    q = sorted(p, reverse=True)
    pair = q[m - 1] + q[m] if len(q) > m else 0
    return max(-(-sum(q) // m), q[0], pair)


def _pack(q: list[int], m: int, target: int, nodes: list[int], max_nodes: int | None) -> list[int] | None:
    """Each job's machine (jobs in the order of ``q``, non-increasing) in a packing of capacity ``target``."""
    n = len(q)
    smallest = q[-1]
    slack = m * target - sum(q)
    if slack < 0 or (n and q[0] > target):
        return None
    failed: set[tuple] = set()
    loads = [0] * m
    where = [0] * n

    def dfs(k: int) -> bool:
        if k == n:
            return True
        nodes[0] += 1
        if max_nodes is not None and nodes[0] > max_nodes:
            raise _OutOfNodes
        state = (k, *sorted(loads))
        if state in failed:
            return False
        pk = q[k]
        waste = sum(target - x for x in loads if target - x < smallest)
        if waste <= slack:
            exact = next((i for i in range(m) if loads[i] + pk == target), None)
            tried: set[int] = set()
            for i in range(m) if exact is None else (exact,):
                x = loads[i]
                if x in tried or x + pk > target:
                    continue
                tried.add(x)
                loads[i] = x + pk
                where[k] = i
                if dfs(k + 1):
                    return True
                loads[i] = x
        failed.add(state)
        return False

    return where if dfs(0) else None


def solve_pcmax(p: list[int], m: int, hi: int, max_nodes: int | None = None) -> PcmaxResult:
    """Minimum makespan of jobs ``p`` on ``m`` identical machines, given a schedule of makespan ``hi``.

    See the module docstring. ``max_nodes``: stop after that many search nodes (``None``: none).
    """
    order = sorted(range(len(p)), key=lambda j: (-p[j], j))
    q = [p[j] for j in order]
    lo = lower_bound(p, m)
    nodes = [0]
    target = lo
    try:
        while target < hi:
            found = _pack(q, m, target, nodes, max_nodes)
            if found is not None:
                machine = [0] * len(p)
                for k, j in enumerate(order):
                    machine[j] = found[k]
                return PcmaxResult(machine, target, target, nodes[0], True)
            target += 1
    except _OutOfNodes:
        return PcmaxResult(None, hi, target, nodes[0], False)
    return PcmaxResult(None, hi, hi, nodes[0], True)
