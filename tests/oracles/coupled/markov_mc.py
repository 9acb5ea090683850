"""Monte-Carlo oracles for the Section V estimates: the 3-state chains simulated slot by slot.

Shared by ``tests/heuristics/coupled/test_estimates.py`` and
``benchmarks/bench_coupled_estimates.py``. Each function simulates ``samples``
independent runs of the chains of a set ``S`` (rows of ``trans``, states UP = 0,
RECLAIMED = 1, DOWN = 2), vectorised over the runs; every processor of ``S`` is
UP in slot 1. Nothing here shares code with ``heuristics/coupled/estimates.py``.
"""

from __future__ import annotations

import numpy as np


def _stepper(trans: np.ndarray):
    cum = np.cumsum(np.asarray(trans, dtype=float), axis=2)
    cols = np.arange(len(cum))[None, :]

    def step(states: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        u = rng.random(states.shape)
        return ((u >= cum[cols, states, 0]).astype(np.int8) + (u >= cum[cols, states, 1])).astype(np.int8)

    return step


def computation(
    trans: np.ndarray, W: int, samples: int, rng: np.random.Generator, max_slots: int = 100_000
) -> tuple[np.ndarray, np.ndarray]:
    """``W`` slots of simultaneous computation (Definition 2).

    Slot 1 is the first all-UP slot (``t_1 = 1``); a run succeeds when ``S``
    has been all-UP in ``W`` slots without any of its processors DOWN in
    between, and its span is then ``t_W - t_1 + 1 = t_W``. A run still pending
    after ``max_slots`` counts as a failure.

    Returns
    -------
    success : bool array (samples,)
    span : int array (samples,), ``t_W`` for a success, -1 otherwise
    """
    step = _stepper(trans)
    k = len(trans)
    success = np.zeros(samples, dtype=bool)
    span = np.full(samples, -1, dtype=np.int64)
    if W == 1:
        return np.ones(samples, dtype=bool), np.ones(samples, dtype=np.int64)
    live = np.arange(samples)
    states = np.zeros((samples, k), dtype=np.int8)
    count = np.ones(samples, dtype=np.int64)
    for t in range(2, max_slots + 1):
        states = step(states, rng)
        down = (states == 2).any(axis=1)
        count += (states == 0).all(axis=1)
        done = ~down & (count == W)
        success[live[done]] = True
        span[live[done]] = t
        keep = ~down & ~done
        live, states, count = live[keep], states[keep], count[keep]
        if live.size == 0:
            break
    return success, span


def not_down(trans: np.ndarray, slots: int, samples: int, rng: np.random.Generator) -> np.ndarray:
    """Per run, whether each processor of ``S`` (UP in slot 0) is out of DOWN in slots ``1..slots``.

    Returns
    -------
    bool array (samples, k)
    """
    step = _stepper(trans)
    states = np.zeros((samples, len(trans)), dtype=np.int8)
    alive = np.ones(states.shape, dtype=bool)
    for _ in range(slots):
        states = step(states, rng)
        alive &= states != 2
    return alive


def communication(
    trans: np.ndarray,
    n: np.ndarray,
    n_com: int,
    samples: int,
    rng: np.random.Generator,
    max_slots: int = 100_000,
) -> tuple[np.ndarray, np.ndarray]:
    """A communication phase: worker ``q`` of ``S`` needs ``n[q]`` UP slots of reception.

    In each slot the master serves at most ``n_com`` of the UP workers that
    still need slots, one message stream per worker, the workers with the most
    slots left first (ties: lower index). Slot 1 is the first slot, every
    worker UP; the phase ends in the slot of the last reception. A run fails as
    soon as a worker of ``S`` (including one with ``n[q] = 0``) is DOWN before
    the end.

    Returns
    -------
    success : bool array (samples,)
    span : int array (samples,), the last reception slot for a success (0 when
        nothing is to be received), -1 otherwise
    """
    step = _stepper(trans)
    k = len(trans)
    n = np.asarray(n, dtype=np.int64)
    success = np.zeros(samples, dtype=bool)
    span = np.full(samples, -1, dtype=np.int64)
    if n.sum() == 0:
        return np.ones(samples, dtype=bool), np.zeros(samples, dtype=np.int64)
    live = np.arange(samples)
    states = np.zeros((samples, k), dtype=np.int8)
    left = np.tile(n, (samples, 1))
    for t in range(1, max_slots + 1):
        if t > 1:
            states = step(states, rng)
        down = (states == 2).any(axis=1)
        want = (states == 0) & (left > 0)
        key = np.where(want, left, -1)
        order = np.argsort(-key, axis=1, kind="stable")
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(k)[None, :].repeat(len(order), 0), axis=1)
        left = left - (want & (rank < n_com))
        done = ~down & (left.sum(axis=1) == 0)
        success[live[done]] = True
        span[live[done]] = t
        keep = ~down & ~done
        live, states, left = live[keep], states[keep], left[keep]
        if live.size == 0:
            break
    return success, span
