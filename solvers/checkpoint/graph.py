"""The paper's shortest path, literally: the DAG of Section III-C in networkx + Dijkstra.

Vertices ``v_j^sigma`` (last checkpoint after slice ``j``, accumulated
checkpoint overhead ``sigma``), built forward from ``v_0^0`` so that only
reachable states exist. Edges:

1. ``v_j^sigma -> v_i^{sigma + c_i}`` for ``j < i <= n``, cost Expression 3,
   ``int_{tau_j+sigma}^{tau_i+sigma+c_i} [sigma + c_i + alpha (t - tau_j - sigma)] f(t) dt``;
2. ``v_0^0 -> v_i^{c_i}``: Expression 4, i.e. rule 1 at ``(j, sigma) = (0, 0)``
   (see :meth:`CheckpointInstance.expected_waste` on the printed form);
3. ``v_n^sigma -> v_sink`` with cost 0.

The reference for :mod:`.dp`; slow (about ``n^3 c_max / 6`` edges). A job
whose DAG would not fit :data:`.states.MEMORY_BUDGET` is refused as bad input
before it is built (:func:`.states.reachable_overheads`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .states import reachable_overheads

if TYPE_CHECKING:
    import networkx as nx

    from volsched.instances.checkpoint import CheckpointInstance

SINK = "sink"


def build_graph(instance: CheckpointInstance) -> nx.DiGraph:
    """The DAG; :class:`~volsched.instances.errors.InputError` if it would exceed the memory budget."""
    reachable_overheads(instance, "graph")
    n, c, alpha, law = instance.n, instance.c, instance.alpha, instance.law
    tau = instance.tau
    # Imported here: networkx takes about 0.1 s to import, and the default method (dp) needs no graph.
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_node((0, 0))
    frontier = {0: {0}}
    for j in range(n):
        sigmas = np.array(sorted(frontier.pop(j, ())), dtype=np.int64)
        if len(sigmas) == 0:
            continue
        targets = np.arange(j + 1, n + 1)
        start = (tau[j] + sigmas)[:, None].astype(float)
        new_sigma = sigmas[:, None] + c[targets - 1][None, :]
        end = (tau[targets][None, :] + new_sigma).astype(float)
        prob = law.interval_probability(start, end)
        weight = (new_sigma - alpha * start) * prob + alpha * law.partial_expectation(start, end)
        weight = np.maximum(weight, 0.0)  # the integrand is >= 0; Dijkstra needs no rounding below
        graph.add_weighted_edges_from(
            ((j, int(s)), (int(i), int(ns)), float(w))
            for s, row_ns, row_w in zip(sigmas, new_sigma, weight, strict=True)
            for i, ns, w in zip(targets, row_ns, row_w, strict=True)
        )
        for i, column in zip(targets, new_sigma.T, strict=True):
            frontier.setdefault(int(i), set()).update(column.tolist())
    graph.add_weighted_edges_from(((n, int(s)), SINK, 0.0) for s in frontier.pop(n, ()))
    return graph


def solve_graph(instance: CheckpointInstance) -> tuple[np.ndarray, float]:
    """Optimal checkpoint vector and its expected waste, by Dijkstra on the DAG."""
    import networkx as nx

    graph = build_graph(instance)
    length, path = nx.single_source_dijkstra(graph, (0, 0), SINK)
    a = np.zeros(instance.n, dtype=bool)
    for node in path[1:-1]:
        a[node[0] - 1] = True
    return a, float(length)
