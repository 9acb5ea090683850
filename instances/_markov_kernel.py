"""Compiled (numba) kernel of the coupled family's 3-state Markov chains (Section VII-A).

Kept apart from :mod:`.coupled` so that reading an instance file does not import numba; the
generators and :meth:`.coupled.CoupledInstance.realization` import it on first use (numba
compiles it once, about a second, then caches it beside this file).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def markov_steps(cum: np.ndarray, state: np.ndarray, draws: np.ndarray, out: np.ndarray) -> None:
    """Advance every chain ``len(draws)`` steps from ``state``, one uniform per processor and step.

    Parameters
    ----------
    cum : float64 array, shape (p, 3, 3)
        Cumulative transition rows, ``np.cumsum(transitions, axis=2)``.
    state : int64 array, shape (p,)
        The current states; updated in place to the last step's.
    draws : float64 array, shape (T, p)
        Uniforms in [0, 1); row ``t`` draws step ``t`` of every processor.
    out : int8 array, shape (p, T)
        Receives the state after step ``t`` in column ``t``.

    Notes
    -----
    Processor ``q`` moves from ``s`` to the number of ``cum[q, s, j]`` (``j`` = 0, 1, 2) that
    the uniform is at least, capped at 2 (DOWN) for rows summing to slightly less than 1: the
    same comparisons, in the same float64 values, as the numpy reference in
    ``tests/instances/test_coupled_realization.py``, hence the same states bit for bit.
    """
    steps, p = draws.shape
    for t in range(steps):
        for q in range(p):
            u = draws[t, q]
            s = state[q]
            nxt = 0
            for j in range(3):
                if u >= cum[q, s, j]:
                    nxt += 1
            if nxt > 2:
                nxt = 2
            state[q] = nxt
            out[q, t] = nxt
