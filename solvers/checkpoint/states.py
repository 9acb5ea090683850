"""The reachable accumulated overheads of the checkpoint DAG, and the exact methods' memory budget.

A state ``(j, sigma)`` of the DAG (:mod:`.graph`) is the last checkpoint, after
slice ``j``, with the overhead ``sigma`` of the checkpoints taken so far: a
sum of a subset of ``c_1 .. c_j`` that includes ``c_j`` (``sigma = 0`` for
``j = 0``). The values the states of rows ``< i`` can have are therefore the
subset sums of ``c_1 .. c_{i-1}``,

.. math:: U_0 = \\{0\\}, \\qquad U_k = U_{k-1} \\cup (U_{k-1} + c_k),

row ``j >= 1`` holds ``|U_{j-1}|`` states, and every state that precedes
another has its ``sigma`` in ``U = U_{n-1}``. With small integer costs ``U``
is (nearly) the whole range ``0 .. c_1 + ... + c_{n-1}``; with a few large
costs it is far smaller (``c = [10^9, 1, 1, 1, 1, 1]``: 10 values, not
``10^9``); with distinct costs it can have ``2^(n-1)`` values.

:func:`reachable_overheads` computes ``U`` for one method and refuses (as bad
input, :class:`~volsched.instances.errors.InputError`, exit 2) a job whose
states that method cannot hold in :data:`MEMORY_BUDGET`: ``dp`` keeps
:data:`DP_ARRAYS` arrays of ``n x |U|`` doubles (:func:`dp_bytes`), ``graph``
about :data:`GRAPH_BYTES_PER_EDGE` bytes per edge of its networkx DAG (the
``|U_{j-1}|`` states of row ``j`` times their ``n - j`` successors, plus the
edges to the sink). ``U`` grows one cost at a time and its growth stops as
soon as the footprint passes the budget, so computing it cannot exhaust the
memory either (with 100,000 distinct costs ``U`` could have billions of
values). The refusal names the size and a method that can still solve the
job, if any.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from volsched.instances.errors import InputError

from .brute import MAX_SLICES

if TYPE_CHECKING:
    from volsched.instances.checkpoint import CheckpointInstance

#: The most memory (bytes) an exact checkpoint method may plan to hold: 2 GiB.
#: A job above it is refused as bad input rather than left to fail with a
#: ``MemoryError`` (exit 1) or to take the machine's memory.
MEMORY_BUDGET = 2 * 2**30

#: Arrays of ``n x |U|`` doubles :mod:`.dp` holds at its peak: the CDF at the
#: interval starts and ends, the best paths, the path values plus the
#: separable term, and the two temporaries of a relaxation step.
DP_ARRAYS = 6

#: Bytes per edge of :mod:`.graph`'s networkx DAG at the peak of Dijkstra
#: (measured with ``tracemalloc``: 420-440 held by the graph, 520-920 at the
#: peak of the search on jobs of 30 to 60 slices).
GRAPH_BYTES_PER_EDGE = 1024

#: While the costs summed so far stay below this, ``U`` is grown as a bit set.
_BITSET_BITS = 2**24


def dp_bytes(n: int, columns: int) -> int:
    """Memory of :mod:`.dp`'s state arrays: :data:`DP_ARRAYS` of ``n x columns`` doubles."""
    return DP_ARRAYS * 8 * n * columns


def _bits_to_array(bits: int) -> np.ndarray:
    raw = np.frombuffer(bits.to_bytes((bits.bit_length() + 7) // 8, "little"), dtype=np.uint8)
    return np.flatnonzero(np.unpackbits(raw, bitorder="little")).astype(np.int64)


def _grow(instance: CheckpointInstance, method: str) -> tuple[np.ndarray | None, int, int]:
    """``(U, size, need)``: ``U`` and the method's footprint in bytes on it.

    ``U`` is ``None`` when the footprint passed :data:`MEMORY_BUDGET` before
    ``U`` was complete; then ``size`` and ``need`` are lower bounds (those of
    the first ``U_k`` over the budget).
    """
    n, costs = instance.n, instance.c[: instance.n - 1].tolist()
    edges = n  # row 0: the one state (0, 0) and its n successors
    bits, values, size, reach = 1, None, 1, 0
    for k in range(n):
        if k:
            v = costs[k - 1]
            reach += v
            if values is None and reach < _BITSET_BITS:
                bits |= bits << v
                size = bits.bit_count()
            else:
                if values is None:
                    values = _bits_to_array(bits)
                merged = np.concatenate([values, values + v])
                merged.sort(kind="stable")  # two sorted runs: a linear merge
                values = merged[np.concatenate([[True], merged[1:] != merged[:-1]])]
                size = len(values)
        # size = |U_k|: row k + 1 holds that many states, each with n - k - 1 successors
        # (row n: one edge to the sink).
        edges += size * max(n - k - 1, 1)
        need = dp_bytes(n, size) if method == "dp" else GRAPH_BYTES_PER_EDGE * edges
        if need > MEMORY_BUDGET:
            return None, size, need
    return (_bits_to_array(bits) if values is None else values), size, need


def _gib(nbytes: int) -> str:
    return f"{nbytes / 2**30:.3g} GiB"


def reachable_overheads(instance: CheckpointInstance, method: str) -> np.ndarray:
    """``U``, the sorted reachable ``sigma`` of the states (int64), if ``method`` fits the budget.

    ``method`` is ``"dp"`` or ``"graph"``.

    Raises
    ------
    InputError
        ``method`` would need more than :data:`MEMORY_BUDGET` on this job.
    """
    values, size, need = _grow(instance, method)
    if values is not None:
        return values
    n, more = instance.n, "at least "
    if method == "dp":
        what = f"n x |U| = {n} x {more}{size:,} states (|U|: the reachable checkpoint overheads)"
    else:
        what = f"{more}{need // GRAPH_BYTES_PER_EDGE:,} DAG edges over {more}{size:,} reachable overheads"
    other = "graph" if method == "dp" else "dp"
    if _grow(instance, other)[0] is not None:
        hint = f"use --method {other}"
    elif n <= MAX_SLICES:
        hint = "use --method brute"
    else:
        hint = "the job is too large for an exact method"
    raise InputError(
        f"method: {method} needs {more}{_gib(need)} for {what}, above the budget of "
        f"{_gib(MEMORY_BUDGET)} ({hint})"
    )


__all__ = ["DP_ARRAYS", "GRAPH_BYTES_PER_EDGE", "MEMORY_BUDGET", "dp_bytes", "reachable_overheads"]
