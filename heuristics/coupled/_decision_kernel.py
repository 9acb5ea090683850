"""Compiled (numba) decision points of the coupled on-line simulator (:mod:`.simulator`).

:func:`play` runs a simulation between two moments where Python is needed: it plays the slots
(:func:`._simulator_kernel.advance`), takes the decisions of the policies it can take itself
(RANDOM's draws on the run's own ``numpy.random.Generator``, the passive construction of
Section VI-A on the values the compiled evaluation knows, and the proactive slot rule of
:mod:`._proactive_kernel`), applies them (:func:`configure`, :func:`wait`) and logs the
schedule's entries. It returns to Python when the realization read so far ends, when the log
is full, or when a decision needs Python (a value not known yet, or a policy with no compiled
rule); Python then decides with the policy's ``decide``, which computes and learns the missing
values, and applies the decision with the same :func:`configure` and :func:`wait`. A decision
is the same wherever it is taken (``tests/heuristics/coupled/test_simulator_kernel.py`` compares
every run with the pure-Python loop of ``tests/oracles/coupled/online.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._estimates_kernel import assign_tasks
from ._proactive_kernel import _ASK, SWITCH, _decide
from ._simulator_kernel import (
    DONE,
    FINISHED,
    HOLD,
    ITER_START,
    ITERATION,
    LIMIT,
    LOST,
    NO_HOLD,
    ONE_SLOT,
    QUEUED,
    STOP,
    T_DATA,
    T_PROG,
    WORKLOAD,
    C,
    T,
    advance,
    build_queue,
)

#: More slots of the register ``st`` (after :data:`._simulator_kernel.ITER_START`): why the next
#: decision is due (a ``R_*`` code), whether Python took the decision at ``st[T]`` already, the
#: decisions and switches so far, the entries logged, the decision Python is asked for, and what
#: was wrong with a configuration (``BAD_*``).
REASON, DECIDED, DECISIONS, SWITCHES, ENTRIES, ASKED, ERROR = range(ITER_START + 1, ITER_START + 8)
REGISTER = ERROR + 1
#: ``st[REASON]``: no decision due (but a proactive policy's slot decision), an iteration starts,
#: an enrolled worker was DOWN, the master waits; and the proactive slot decision.
R_NONE, R_ITERATION, R_DOWN, R_WAIT, R_SLOT = -1, 0, 1, 2, 3
#: :func:`play`'s returns besides ``LIMIT`` and ``FINISHED``: Python must decide (``st[ASKED]``),
#: the log is full, a configuration broke a rule (``st[ERROR]``).
ASK, FULL, BAD = 5, 6, 7
BAD_MU, BAD_UP = 1, 2
#: Policy kinds: every decision in Python; RANDOM; the passive construction (also the proactive
#: policies' construction at an iteration's start and after a DOWN).
PYTHON, RANDOM, ASSIGN = 0, 1, 2

_UP = 0


class Rules(NamedTuple):
    """What :func:`play` needs to take a policy's decisions (:func:`arguments`)."""

    kind: int
    rule: bool
    proactive: bool
    mu: np.ndarray
    m: int
    w: np.ndarray
    n_com: int
    tables: tuple
    criterion: int
    measure: int
    timed: bool
    memo: object
    fresh_order: np.ndarray
    fresh_x: np.ndarray
    fresh_parts: np.ndarray
    fresh_found: np.ndarray
    count: np.ndarray
    x2: np.ndarray
    parts: np.ndarray
    order: np.ndarray
    up: np.ndarray
    batch: np.ndarray


def arguments(p: int, m: int, mu: np.ndarray, w: np.ndarray, n_com: int, proactive: bool, compiled) -> Rules:
    """:func:`play`'s policy arguments from a policy's ``compiled()`` (``None``: Python decides).

    ``compiled`` is ``("random",)``, ``("assign", engine)`` or ``("assign", engine, rule)``
    with ``engine`` a :class:`.passive.SetEstimates` and ``rule`` the proactive slot rule's
    ``(measure, timed, memo, fresh_order, fresh_x, fresh_parts, fresh_found, count)``
    (:meth:`.proactive.Proactive.compiled`). The arrays a kind does not use are empty, with
    the types :func:`play` is compiled for.
    """
    from numba import types
    from numba.typed import Dict

    kind, engine, rule = PYTHON, None, None
    if compiled is not None:
        kind = {"random": RANDOM, "assign": ASSIGN}[compiled[0]]
        engine = compiled[1] if len(compiled) > 1 else None
        rule = compiled[2] if len(compiled) > 2 else None
    if engine is not None:
        tables = engine.tables
        criterion = int(engine.criterion)
    else:
        tables = (
            np.zeros((1, 1)),
            np.zeros((1, 1, 2)),
            np.zeros((1, 1, 2, 2)),
            1,
            False,
            np.full(1, -1, dtype=np.int64),
            np.zeros((1, 2)),
            np.full((1, 2), -1, dtype=np.int64),
            np.zeros(1),
        )
        criterion = 0
    if rule is None:
        memo = Dict.empty(types.UniTuple(types.int64, 2), types.int64)
        rule_args = (
            0,
            False,
            memo,
            np.zeros((1, m), dtype=np.int64),
            np.zeros((1, p), dtype=np.int64),
            np.zeros((1, 2)),
            np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
        )
    else:
        rule_args = rule
    return Rules(
        kind,
        rule is not None,
        bool(proactive),
        np.asarray(mu, dtype=float),
        int(m),
        np.asarray(w, dtype=np.int64),
        int(n_com),
        tables,
        criterion,
        *rule_args,
        np.zeros(p, dtype=np.int64),
        np.zeros(2),
        np.zeros(m, dtype=np.int64),
        np.zeros(p, dtype=np.int64),
        np.zeros((p, p), dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def configure(order, states, x, g, d, needs, queue, st, mu, w, new, log_start, log_alloc):
    """Put the configuration ``order`` (the workers of the ``m`` tasks, in assignment order) in force.

    It must enroll UP workers only, within ``mu``; otherwise ``st[ERROR]`` says what is wrong
    and nothing changes (returns False). A worker that leaves loses a partial program; every
    worker keeps at most the data of its new allocation (III-C); the
    computation restarts; the master's queue is rebuilt (:func:`._simulator_kernel.build_queue`).
    The entry is logged at ``st[T]``.
    """
    p = x.shape[0]
    t = st[T]
    t_prog, t_data = st[T_PROG], st[T_DATA]
    new[:] = 0
    for i in range(order.shape[0]):
        new[order[i]] += 1
    for q in range(p):
        if new[q] > mu[q]:
            st[ERROR] = BAD_MU
            return False
        if new[q] > 0 and states[q, t] != _UP:
            st[ERROR] = BAD_UP
            return False
    workload = 0
    for q in range(p):
        if x[q] > 0 and new[q] == 0 and g[q] < t_prog:
            g[q] = 0
        d[q] = min(d[q], new[q] * t_data)
        x[q] = new[q]
        workload = max(workload, x[q] * w[q])
    st[WORKLOAD], st[C] = workload, 0
    st[QUEUED] = build_queue(order, g, d, t_prog, t_data, queue, needs)
    _log(st, x, log_start, log_alloc)
    st[REASON], st[HOLD] = R_NONE, NO_HOLD
    return True


@njit(cache=True, nogil=True)
def wait(x, g, d, needs, st, log_start, log_alloc):
    """No configuration: the master waits. Enrolled workers leave, losing a partial program and all
    data (III-C), and an idle entry is logged (the replay applies the same rule to it)."""
    enrolled = False
    for q in range(x.shape[0]):
        enrolled = enrolled or x[q] > 0
    if enrolled:
        for q in range(x.shape[0]):
            if x[q] > 0 and g[q] < st[T_PROG]:
                g[q] = 0
        x[:] = 0
        d[:] = 0
        needs[:] = 0
        st[WORKLOAD] = st[C] = st[QUEUED] = 0
        _log(st, x, log_start, log_alloc)
    st[REASON], st[HOLD] = R_WAIT, NO_HOLD


@njit(cache=True, nogil=True)
def _log(st, x, log_start, log_alloc):
    i = st[ENTRIES]
    log_start[i] = st[T]
    log_alloc[i] = x
    st[ENTRIES] = i + 1


@njit(cache=True, nogil=True, error_model="numpy")
def _construct(states, g, d, st, rng, r):
    """The configuration of an iteration's start or after a DOWN: 1 found (``r.order``), 0 none
    (the UP workers cannot take the ``m`` tasks), -1 Python must decide."""
    if r.kind == PYTHON:
        return -1
    p = g.shape[0]
    t = st[T]
    n_up = 0
    room = 0.0
    for q in range(p):
        if states[q, t] == _UP:
            r.up[n_up] = q
            n_up += 1
            room += min(r.mu[q], float(r.m))
    if room < r.m:
        return 0
    if r.kind == RANDOM:
        # Random.decide's draws, on the same Generator: numba's integers(0, k) gives numpy's bits.
        held = r.x2
        held[:] = 0
        for i in range(r.m):
            k = 0
            for j in range(n_up):
                q = r.up[j]
                if held[q] < r.mu[q]:
                    r.batch[0, k] = q
                    k += 1
            q = r.batch[0, rng.integers(0, k)]
            held[q] += 1
            r.order[i] = q
        return 1
    program = np.empty(p, dtype=np.bool_)
    for q in range(p):
        program[q] = g[q] >= st[T_PROG]
    span1, rows, pow2, big_t, conditional, set_keys, set_values, power_keys, power_values = r.tables
    k = assign_tasks(
        r.up[:n_up],
        r.mu,
        r.m,
        r.w,
        program,
        d,
        st[T_PROG],
        st[T_DATA],
        r.n_com,
        span1,
        rows,
        pow2,
        big_t,
        conditional,
        r.criterion,
        t - st[ITER_START],
        set_keys,
        set_values,
        power_keys,
        power_values,
        r.order,
        r.batch,
    )
    return 1 if k < 0 else -1


@njit(cache=True, nogil=True)
def _enrolled(x):
    for q in range(x.shape[0]):
        if x[q] > 0:
            return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def play(
    states, comm, x, g, d, needs, queue, st, hold, new, log_start, log_alloc, completions, per_iter, rng, r
):
    """Run from ``st[T]`` until Python is needed; returns why (``LIMIT``, ``FINISHED``, ``ASK``, ``FULL``,
    ``BAD``).

    At each decision point (:mod:`.simulator`): the decision due (``st[REASON]``, or a
    proactive policy's slot decision while a configuration is in force), unless Python took it
    (``st[DECIDED]``); then the slots up to the next decision point. ``completions`` and
    ``per_iter`` (switches per iteration) are filled as iterations complete.
    """
    while True:
        t = st[T]
        if t >= st[STOP]:
            return LIMIT
        if st[ENTRIES] + 1 >= log_start.shape[0]:
            return FULL
        ask = st[REASON]
        if ask == R_NONE and r.proactive and _enrolled(x):
            ask = R_SLOT
        if st[DECIDED]:
            st[DECIDED] = 0
            ask = R_NONE
        if ask == R_SLOT:
            if not r.rule:
                st[ASKED] = ask
                return ASK
            verdict = _decide(
                states,
                x,
                g,
                needs,
                st,
                hold,
                r.mu,
                r.m,
                r.w,
                r.n_com,
                r.tables,
                r.criterion,
                r.measure,
                r.timed,
                r.memo,
                r.fresh_order,
                r.fresh_x,
                r.fresh_parts,
                r.fresh_found,
                r.count,
                r.x2,
                r.parts,
                r.order,
            )
            if verdict == _ASK:
                st[ASKED] = ask
                return ASK
            st[DECISIONS] += 1
            if verdict == SWITCH:
                if not configure(
                    r.order, states, x, g, d, needs, queue, st, r.mu, r.w, new, log_start, log_alloc
                ):
                    return BAD
                st[SWITCHES] += 1
                per_iter[st[DONE]] += 1
        elif ask != R_NONE:
            found = _construct(states, g, d, st, rng, r)
            if found < 0:
                st[ASKED] = ask
                return ASK
            st[DECISIONS] += 1
            if found == 1:
                if not configure(
                    r.order, states, x, g, d, needs, queue, st, r.mu, r.w, new, log_start, log_alloc
                ):
                    return BAD
            else:
                wait(x, g, d, needs, st, log_start, log_alloc)
        st[ONE_SLOT] = st[REASON] == R_WAIT or (r.proactive and _enrolled(x))
        code = advance(states, comm, x, g, d, needs, queue, st, hold)
        if code == FINISHED or code == ITERATION:
            completions[st[DONE] - 1] = st[T] - 1
            if code == FINISHED:
                return FINISHED
            st[ITER_START] = st[T]
            st[REASON], st[HOLD] = R_ITERATION, NO_HOLD
        elif code == LOST:
            st[REASON], st[HOLD] = R_DOWN, NO_HOLD


def entry(args: tuple):
    """:func:`play`'s compiled entry point for the types of ``args``.

    Calling it skips the dispatcher's typing of every argument at every call, about 0.2 ms for
    the policy tuple (a run calls :func:`play` hundreds of times); the simulator asks again
    whenever it replaces an array.
    """
    from numba import typeof

    return play.compile(tuple(typeof(a) for a in args))
