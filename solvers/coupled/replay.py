"""Independent verifier of coupled schedules: a slot-by-slot replay of Section III's execution model.

Casanova, Dufossé, Robert, Vivien (HCW 2013), Section III. A schedule is a JSON-able dict::

    {"configurations": [{"start": t, "allocation": [x_0, ..., x_{p-1}]}, ...],
     "communication": ["..PPD...", ...],
     "completions": [c_1, ..., c_K]}

**Configurations** (III-C, "the scheduler may choose a new configuration at each
time t"). Starts are strictly increasing slots in ``[0, H)``; an entry is in
force from its start to the slot before the next start (the last one to the end
of the horizon); before the first start nothing is enrolled. An allocation gives
``0 <= x_q <= mu_q`` tasks per processor (integers) and is either all zero (idle)
or sums to ``m`` ("each enrolled worker P_q is assigned x_q tasks, where
sum x_q = m"). The enrolled workers are those with ``x_q >= 1``; the workload is
``W = max_q x_q w_q`` ("the computation of an iteration requires max_q(x_q w_q)
time-slots of concurrent computations").

**Communication** is one string per processor over ``.`` (nothing), ``P`` (one
slot of the program) and ``D`` (one slot of task data); a string shorter than
the horizon ends in ``.``. The list may be omitted (no transfer at all). Other
top-level keys are ignored; an entry has exactly ``start`` and ``allocation``.

The state is replayed for ``t = 0 .. H-1``; every rule below is checked and a
violation raises :class:`~volsched.solvers.result.Infeasible` naming the field,
e.g. ``schedule.communication[1][57]: ...``.

* **Program.** Each processor has a program progress ``g_q`` (complete when
  ``g_q >= T_prog``). A ``P`` adds one slot. A DOWN slot resets it to 0: a
  processor that becomes DOWN "loses the application program" (III-B), while a
  RECLAIMED one "does not lose any state"; a worker needs the program "unless it
  has received it at some previous time and has not be[en] DOWN since then" (III-C).
  A complete program survives leaving the configuration and the end of an
  iteration; a partial one is lost when its worker leaves the configuration
  ("any interrupted communication must be resumed from scratch if the worker
  became DOWN or was removed from the configuration", III-C).
* **Attempts.** An iteration attempt begins at slot ``t`` when a configuration
  entry starts at ``t`` (an explicit restart even if the allocation is unchanged),
  when an iteration completed at ``t - 1`` (the next one runs on the same
  allocation unless a new entry says otherwise), or when an enrolled worker was
  DOWN at ``t - 1`` ("if at least one worker in config(t) becomes DOWN ... restart
  the iteration", III-C; here on the same allocation unless a new entry is
  given). A new attempt zeroes the compute progress ``c``.
* **Kept data** (``../shared/readings/coupled-online.md`` 1.3).
  The data progress ``d_q`` counts the data slots worker ``q`` received in the
  current iteration:

  - a worker that stays enrolled across a new entry and is not DOWN keeps
    ``min(d_q, x_q' T_data)`` of it, ``x_q'`` its new task count, a partial
    message included (III-C: "Suppose that since the begin of the current
    iteration P_q has received x'_q data messages. At least (x_q - x'_q) T_data
    time-slots are needed"; VI-A: "a worker that has not become DOWN but has
    already received task data, can reuse that data if the scheduler
    reassigns tasks to it"; an interrupted message restarts only "if the
    worker became DOWN or was removed");
  - a worker that leaves the configuration loses all of it, complete messages
    included (III-C: "P_q needs to receive task data, i.e., x_q messages ...
    even if P_q had been enrolled at time t' < t but was un-enrolled since
    then");
  - a DOWN slot loses all of it (III-B: "loses the application program and all
    the data for its current tasks");
  - a completed iteration zeroes everybody's (data is per task and iteration,
    III-A, and ``x'_q`` counts "since the begin of the current iteration").

  The paper also says "restart the iteration from scratch" (III-C) and "the
  communication phase would have been restarted from scratch" (Figure 1).
  Those informal phrases lose to the specific rules quoted above: the
  computation restarts, the data a surviving worker holds does not.
* **Data.** A ``D`` adds one slot to ``d_q``; worker ``q`` needs ``x_q T_data``
  data slots (III-C, "x_q data messages (one per task)").
* **Transfer validity.** A ``P`` or ``D`` at slot ``t`` needs processor ``q`` UP at
  ``t`` (RECLAIMED suspends a transfer, III-B) and enrolled in the configuration
  in force (the master sends the program and data to enrolled workers, III-C);
  a ``P`` needs ``g_q < T_prog`` and a ``D`` needs ``d_q < x_q T_data`` (no useless
  transfer); at most ``n_com`` transfers per slot (``n_prog + n_data <= n_com``,
  III-B). A transfer may be split over non-consecutive slots (suspended while
  RECLAIMED, while the master serves others, or across a new entry that keeps
  the worker); an unfinished one is lost when the worker is DOWN or leaves the
  configuration (see above).
* **Computation.** At slot ``t`` the attempt computes (``c += 1``) iff the
  allocation is not idle and every enrolled worker is UP at ``t``, has the whole
  program and all its data at the start of ``t`` and receives nothing at ``t``
  ("there is no overlap between communication and computations", III-A; "the
  computation can start at a time t only if each of the k enrolled workers is in
  the UP state, has the program, has the data of all its allocated tasks", III-C).
  Computing is not optional. A RECLAIMED enrolled worker suspends everybody
  (III-B). When ``c`` reaches ``W`` the iteration completes at the end of ``t``.
* **DOWN.** An enrolled worker DOWN at ``t`` loses the attempt: the computation
  restarts with the next slot's new attempt (III-B, "If it was computing some of
  these tasks, these computations are lost"); the DOWN worker's program and data
  are lost, the others' kept.

``completions`` lists the slot at whose end each of the first ``K`` iterations
completes (later ones are not counted); the makespan is ``completions[K-1] + 1``.
With ``communication=False`` the schedule is replayed as the communication-free
relaxation (``T_prog = T_data = 0``, no transfer allowed).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from volsched.instances.coupled import DOWN, RECLAIMED, UP, CoupledInstance
from volsched.instances.errors import is_int

from ..result import Infeasible, reject_unless

IDLE, PROG, DATA = 0, 1, 2
LETTERS = ".PD"
# The compiled loop reads the states and the transfers as these codes.
assert (UP, RECLAIMED, DOWN) == (0, 1, 2) and (IDLE, PROG, DATA) == (0, 1, 2)
_STATE = ("UP", "RECLAIMED", "DOWN")
_ENTRY_KEYS = {"start", "allocation"}


@dataclass
class Trace:
    """What the replay saw in every slot ``t`` (state at the start of ``t``, after any reset).

    ``entry`` a configuration starts at ``t``; ``new_attempt``; ``progress`` ``c``;
    ``transfer`` (p, H) codes ``IDLE``/``PROG``/``DATA``; ``compute``; ``complete``
    (an iteration completes at the end of ``t``, counted or not); ``completions``
    the first ``K`` completion slots. Per-processor states are not kept: an
    on-line run's replay may read 10^6 slots.
    """

    entry: np.ndarray
    new_attempt: np.ndarray
    progress: np.ndarray
    transfer: np.ndarray
    compute: np.ndarray
    complete: np.ndarray
    completions: list[int]


def _configurations(instance: CoupledInstance, confs, horizon: int) -> dict[int, np.ndarray]:
    name = "schedule.configurations"
    reject_unless(isinstance(confs, (list, tuple)), name, "must be a list of {start, allocation} objects")
    p, m = instance.p, instance.m
    out: dict[int, np.ndarray] = {}
    previous = -1
    for i, conf in enumerate(confs):
        field = f"{name}[{i}]"
        reject_unless(isinstance(conf, Mapping), field, "must be an object with 'start' and 'allocation'")
        unknown = sorted(set(conf) - {"start", "allocation"})
        reject_unless(not unknown, field, f"unknown keys {unknown}")
        start = conf.get("start")
        reject_unless(
            is_int(start) and 0 <= start < horizon,
            f"{field}.start",
            f"must be an integer slot in [0, {horizon}), got {start!r}",
        )
        reject_unless(
            start > previous,
            f"{field}.start",
            f"starts must be strictly increasing, {start} follows {previous}",
        )
        previous = int(start)
        alloc = conf.get("allocation")
        reject_unless(
            isinstance(alloc, (list, tuple)) and len(alloc) == p,
            f"{field}.allocation",
            f"must list one integer per processor ({p})",
        )
        for q, v in enumerate(alloc):
            reject_unless(
                is_int(v) and v >= 0, f"{field}.allocation[{q}]", f"must be a non-negative integer, got {v!r}"
            )
            # Against m first: a huge integer cannot be compared with the float mu (OverflowError).
            reject_unless(v <= m, f"{field}.allocation[{q}]", f"{v} tasks exceed the m = {m} of an iteration")
            reject_unless(
                v <= instance.mu[q],
                f"{field}.allocation[{q}]",
                f"{v} tasks exceed mu[{q}] = {instance.mu[q]:g}",
            )
        # Summed in Python integers: 2^62-sized entries must not wrap around to m in int64.
        total = sum(int(v) for v in alloc)
        reject_unless(
            total in (0, m),
            f"{field}.allocation",
            f"must be all zero (idle) or sum to m = {m}, sums to {total}",
        )
        out[int(start)] = np.asarray([int(v) for v in alloc], dtype=np.int64)
    return out


def _types(values) -> set[type]:
    # map runs in C: an on-line run's schedule holds millions of values
    return set(map(type, values))


def _plain_starts(confs) -> list[int] | None:
    """The starts of a plain JSON list of entries (``dict`` with exactly ``start`` and
    ``allocation``, ``int`` starts), checked in bulk; ``None`` for anything else."""
    if type(confs) is not list or not confs or _types(confs) != {dict}:
        return None
    if not all(map(operator.eq, map(dict.keys, confs), itertools.repeat(_ENTRY_KEYS))):
        return None
    starts = list(map(operator.itemgetter("start"), confs))
    return starts if _types(starts) == {int} else None


def _entries(instance: CoupledInstance, confs, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """The configuration entries as arrays ``(starts, allocations)``, validated as by :func:`_configurations`.

    An on-line run has tens of thousands of entries; most files are plain JSON (``int`` values,
    ``dict`` entries), checked here in bulk. Anything else, and any entry that breaks a rule,
    goes through :func:`_configurations`, which names the first offending field.
    """
    p, m = instance.p, instance.m
    starts = _plain_starts(confs)
    if starts is not None:
        allocs = list(map(operator.itemgetter("allocation"), confs))
        if (
            _types(allocs) == {list}
            and set(map(len, allocs)) == {p}
            and _types(itertools.chain.from_iterable(allocs)) == {int}
        ):
            try:
                s = np.asarray(starts, dtype=np.int64)
                x = np.asarray(allocs, dtype=np.int64).reshape(len(allocs), p)
            except OverflowError:
                pass
            else:
                total = x.sum(axis=1)  # no wrap-around: every value is in [0, m] when it is used
                if (
                    s[0] >= 0
                    and s[-1] < horizon
                    and bool(np.all(s[1:] > s[:-1]))
                    and bool(np.all((x >= 0) & (x <= m) & (x <= instance.mu)))
                    and bool(np.all((total == 0) | (total == m)))
                ):
                    return s, x
    entries = _configurations(instance, confs, horizon)
    starts = np.fromiter(entries, dtype=np.int64, count=len(entries))
    allocations = np.stack(list(entries.values())) if entries else np.zeros((0, p), dtype=np.int64)
    return starts, allocations


def _communication(instance: CoupledInstance, comm, communication: bool, horizon: int) -> np.ndarray:
    name = "schedule.communication"
    p = instance.p
    codes = np.zeros((p, horizon), dtype=np.int8)
    if comm is None or (isinstance(comm, (list, tuple)) and len(comm) == 0):
        return codes
    reject_unless(
        isinstance(comm, (list, tuple)) and len(comm) == p, name, f"must list one string per processor ({p})"
    )
    table = np.full(256, -1, dtype=np.int8)
    for code, letter in enumerate(LETTERS):
        table[ord(letter)] = code
    for q, row in enumerate(comm):
        reject_unless(
            isinstance(row, str) and row.isascii(), f"{name}[{q}]", "must be a string over '.', 'P', 'D'"
        )
        reject_unless(len(row) <= horizon, f"{name}[{q}]", f"has {len(row)} slots, the horizon is {horizon}")
        arr = table[np.frombuffer(row.encode(), dtype=np.uint8)]
        bad = np.flatnonzero(arr < 0)
        if bad.size:
            raise Infeasible(f"{name}[{q}][{bad[0]}]: {row[bad[0]]!r} is not '.', 'P' or 'D'")
        if not communication and np.any(arr != IDLE):
            t = int(np.flatnonzero(arr != IDLE)[0])
            raise Infeasible(f"{name}[{q}][{t}]: no transfer in the communication-free replay")
        codes[q, : len(row)] = arr
    return codes


def replay_horizon(instance: CoupledInstance, schedule) -> int:
    """The slots a replay reads: ``H``, or as far as the schedule's entries and transfers reach when
    the instance continues its realization beyond ``H`` (an on-line run may end after the stored
    slots, :meth:`CoupledInstance.realization`; it closes with an entry at its last slot), at most
    :meth:`CoupledInstance.max_realization`. Claimed completions play no part: a claim is checked
    against the replay, never the reverse.
    """
    reach = instance.horizon
    if not instance.extendable or not isinstance(schedule, Mapping):
        return reach
    limit = instance.max_realization()
    confs, comm = schedule.get("configurations"), schedule.get("communication")
    starts = _plain_starts(confs)
    if starts is None:
        entries = confs if isinstance(confs, (list, tuple)) else ()
        starts = [int(s) for e in entries if isinstance(e, Mapping) and is_int(s := e.get("start"))]
    last = max(starts, default=-1)
    if last >= 0:
        reach = max(reach, min(last, limit - 1) + 1)
    for row in comm if isinstance(comm, (list, tuple)) else ():
        if isinstance(row, str):
            reach = max(reach, len(row))
    return min(reach, limit)


def replay_trace(instance: CoupledInstance, schedule, *, communication: bool = True) -> Trace:
    """Replay ``schedule`` slot by slot and return everything it did (see the module docstring).

    The replay reads the realization over :func:`replay_horizon` slots. The schedule is parsed
    and validated here; the slots are replayed by a compiled loop
    (:func:`._replay_kernel.replay_slots`, 10^6 slots in well under a second), whose first
    broken rule becomes the message below.

    Raises
    ------
    Infeasible
        The schedule is malformed or breaks a rule; the message names the field.
    """
    # numba loads on first use, not when the package is imported (start-up time)
    from ._replay_kernel import BANDWIDTH, DATA_HELD, NOT_ENROLLED, NOT_UP, OK, replay_slots

    reject_unless(isinstance(schedule, Mapping), "schedule", "must be an object with 'configurations'")
    horizon = replay_horizon(instance, schedule)
    starts, allocations = _entries(instance, schedule.get("configurations"), horizon)
    comm = _communication(instance, schedule.get("communication"), communication, horizon)
    t_prog, t_data = (instance.T_prog, instance.T_data) if communication else (0, 0)
    avail = instance.realization(horizon)
    trace = Trace(
        entry=np.zeros(horizon, dtype=bool),
        new_attempt=np.zeros(horizon, dtype=bool),
        progress=np.zeros(horizon, dtype=np.int64),
        transfer=comm,
        compute=np.zeros(horizon, dtype=bool),
        complete=np.zeros(horizon, dtype=bool),
        completions=[],
    )
    completions = np.zeros(instance.K, dtype=np.int64)
    error = np.zeros(4, dtype=np.int64)
    found = replay_slots(
        starts,
        allocations,
        comm,
        avail,
        instance.w,
        t_prog,
        t_data,
        instance.n_com,
        instance.K,
        trace.entry,
        trace.new_attempt,
        trace.progress,
        trace.compute,
        trace.complete,
        completions,
        error,
    )
    kind, t, q, extra = (int(v) for v in error)
    if kind != OK:
        field = f"schedule.communication[{q}][{t}]"
        letter = LETTERS[comm[q, t]]
        if kind == NOT_UP:
            raise Infeasible(f"{field}: {letter!r} while processor {q} is {_STATE[avail[q, t]]}")
        if kind == NOT_ENROLLED:
            raise Infeasible(f"{field}: {letter!r} to processor {q}, which is not enrolled at slot {t}")
        if kind == DATA_HELD:
            raise Infeasible(
                f"{field}: 'D' but processor {q} already has the data of its "
                f"{extra} task(s) (T_data = {t_data})"
            )
        if kind == BANDWIDTH:
            raise Infeasible(
                f"schedule.communication[*][{t}]: {extra} transfers at slot {t}, the master "
                f"sends at most n_com = {instance.n_com}"
            )
        raise Infeasible(f"{field}: 'P' but processor {q} already has the program (T_prog = {t_prog})")
    trace.completions = completions[:found].tolist()
    return trace


def replay(instance: CoupledInstance, schedule, *, communication: bool = True) -> list[int]:
    """Completion slots of the first ``K`` iterations of ``schedule`` (fewer if it completes fewer).

    Parameters
    ----------
    instance : CoupledInstance
    schedule : dict
        ``configurations``, optional ``communication``; ``completions`` is ignored here
        (see :func:`check_claim`).
    communication : bool
        ``False`` replays the communication-free relaxation (``T_prog = T_data = 0``).

    Raises
    ------
    Infeasible
        Malformed schedule or a broken rule of Section III, naming the field and index.
    """
    return replay_trace(instance, schedule, communication=communication).completions


def claimed_completions(schedule) -> list[int]:
    """The schedule's ``completions``: a list of integer slots (a JSON ``6.0`` or ``true`` is not one)."""
    claimed = schedule.get("completions") if isinstance(schedule, Mapping) else None
    reject_unless(
        isinstance(claimed, (list, tuple)) and all(is_int(v) for v in claimed),
        "schedule.completions",
        f"must be a list of integer slots, got {claimed!r}",
    )
    return [int(v) for v in claimed]


def check_claim(instance: CoupledInstance, schedule, communication: bool = True) -> int:
    """Makespan ``completions[K-1] + 1`` of a solver's schedule, after replaying it.

    Raises
    ------
    Infeasible
        The schedule breaks a rule, or ``schedule["completions"]`` is not a list of integers.
    Infeasible
        The claimed completions differ from the replay, or fewer than ``K`` iterations complete.
    """
    completions = replay(instance, schedule, communication=communication)
    claimed = claimed_completions(schedule)
    if claimed != completions:
        raise Infeasible(f"schedule.completions: claimed {claimed} but the replay completes at {completions}")
    if len(completions) < instance.K:
        raise Infeasible(
            f"schedule.completions: the schedule completes {len(completions)} of the "
            f"K = {instance.K} iterations"
        )
    return completions[-1] + 1


__all__ = ["Trace", "check_claim", "claimed_completions", "replay", "replay_horizon", "replay_trace"]
