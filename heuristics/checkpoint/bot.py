"""Bag-of-tasks execution on volatile clients (Bouguerra et al. 2011, Section IV).

:func:`simulate_bot` replays Section IV-A's experiment for given per-job
checkpoint vectors: a failure-free server hands out jobs first come, first
served, clients pull work, compute slices, upload checkpoints through a server
that accepts ``max_connections`` transfers at a time, fail, come back and leave
for good. It reports the two metrics of Section IV (the maximum completion
time and the wasted time, split into checkpoint overhead and lost computation).

The simulation is time-stepped at the checkpoint model's quantum (one minute)
and vectorised over clients: every client carries the minute of its next event
and each step processes, as array operations, all clients whose event falls on
the current minute, then jumps to the next such minute.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from volsched.instances.checkpoint import CheckpointInstance, checkpoint_quanta, slice_quanta
from volsched.instances.errors import is_int, require

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from volsched.instances.bot import BotInstance

#: Default cap on simulated time: ten years, in minutes.
DEFAULT_HORIZON_MINUTES = 10 * 365 * 24 * 60

#: "Never" as a minute; far above any horizon and safe to add small numbers to.
NEVER = 2**60

# Client states. TRANS is transient within one minute: the client finished an
# activity and has not started the next one yet.
GONE, UNAVAILABLE, IDLE, COMPUTE, WAIT, TRANSFER, TRANS = range(7)


@dataclass
class BotResult:
    """Metrics of one bag-of-tasks simulation (Section IV: completion time and waste).

    All times are in minutes.

    Attributes
    ----------
    makespan : float
        Maximum job completion time; ``inf`` when some job never completed.
    wasted_checkpoint : float
        Client time spent in transfers (checkpoint uploads, result uploads and
        checkpoint downloads, completed or cut by a failure) and queued for a
        server connection.
    wasted_wait : float
        The part of ``wasted_checkpoint`` spent queued for a connection.
    wasted_lost : float
        Computation that did not survive: the work since a copy's last
        completed upload when a failure hits it (including the unfinished
        slice), and all the work of a copy whose job was already complete when
        the copy ended (its result upload is ignored, it failed, or the
        simulation ended with it still running).
    checkpoints : int
        Completed checkpoint uploads, *excluding* result uploads (the final
        ``a_n = 1`` checkpoint), including those the server ignored as outdated.
    dispatches : int
        Jobs handed out (fresh jobs and duplicates).
    duplicates : int
        Dispatches of a job that had been dispatched before.
    completed_jobs : int
        Jobs whose result reached the server.
    n_jobs : int
        ``J``.
    completion_times : array of float, shape (J,)
        Completion minute of every job, ``inf`` when it never completed.
    end_time : float
        Minute the simulation stopped at.
    stop : str
        ``"complete"`` (every job done), ``"no-clients"`` (every client left
        with jobs unfinished) or ``"horizon"`` (simulated time reached the cap).
    steps : int
        Simulated minutes with at least one event.
    seed : int
        Seed of the run.
    """

    makespan: float
    wasted_checkpoint: float
    wasted_wait: float
    wasted_lost: float
    checkpoints: int
    dispatches: int
    duplicates: int
    completed_jobs: int
    n_jobs: int
    completion_times: np.ndarray
    end_time: float
    stop: str
    steps: int
    seed: int

    @property
    def wasted(self) -> float:
        """Total wasted time, ``wasted_checkpoint + wasted_lost``."""
        return self.wasted_checkpoint + self.wasted_lost

    def to_dict(self) -> dict:
        """JSON-ready values; infinite times become ``None``."""

        def num(x: float) -> float | None:
            return float(x) if math.isfinite(x) else None

        return {
            "makespan": num(self.makespan),
            "wasted": self.wasted,
            "wasted_checkpoint": self.wasted_checkpoint,
            "wasted_wait": self.wasted_wait,
            "wasted_lost": self.wasted_lost,
            "checkpoints": self.checkpoints,
            "dispatches": self.dispatches,
            "duplicates": self.duplicates,
            "completed_jobs": self.completed_jobs,
            "n_jobs": self.n_jobs,
            "completion_times": [num(x) for x in self.completion_times],
            "end_time": self.end_time,
            "stop": self.stop,
            "steps": self.steps,
            "seed": self.seed,
        }


def policy_schedules(
    instance: BotInstance,
    policy: Callable[[CheckpointInstance], Sequence[int] | np.ndarray],
) -> list[np.ndarray]:
    """Apply a single-job checkpoint policy to every job on the nominal client.

    ``policy`` maps :meth:`BotInstance.job_instance` (mean speed 1771 MIPS,
    bandwidth 1.5 Mb/s, availability law) to a 0/1 vector, e.g. a function of
    :data:`~volsched.heuristics.checkpoint.policies.POLICIES` or the optimal
    DP. Section IV-A-2 computes one schedule per job, from the job's own
    slices and checkpoint costs.
    """
    return [np.asarray(policy(instance.job_instance(k))) for k in range(instance.n_jobs)]


def _check_schedules(instance: BotInstance, schedules: Sequence) -> np.ndarray:
    """Concatenate the per-job 0/1 vectors into one bool array over all slices."""
    require(
        isinstance(schedules, (list, tuple, np.ndarray)),
        "schedules",
        "must be a list of 0/1 vectors, one per job",
    )
    require(
        len(schedules) == instance.n_jobs,
        "schedules",
        f"has {len(schedules)} vectors, the instance has {instance.n_jobs} jobs",
    )
    sizes = instance.n_slices
    parts = []
    for k, a in enumerate(schedules):
        require(isinstance(a, (list, tuple, np.ndarray)), f"schedules[{k}]", "must be a 0/1 vector")
        a = np.asarray(a)
        require(
            a.ndim == 1 and len(a) == sizes[k],
            f"schedules[{k}]",
            f"has shape {a.shape}, job {k} has {sizes[k]} slices",
        )
        ok = a.dtype.kind == "b" or (a.dtype.kind in "iu" and bool(np.all((a == 0) | (a == 1))))
        require(ok, f"schedules[{k}]", "must contain only 0 and 1")
        require(
            bool(a[-1]), f"schedules[{k}][{sizes[k] - 1}]", "the last slice must be checkpointed (a_n = 1)"
        )
        parts.append(a.astype(bool))
    return np.concatenate(parts)


def _whole_minutes(x: np.ndarray) -> np.ndarray:
    """Durations drawn from a continuous law, rounded up to whole minutes (at least one)."""
    return np.maximum(1, np.ceil(np.minimum(x, NEVER / 4))).astype(np.int64)


class _Stream:
    """Samples of one law drawn in blocks and consumed in order.

    Drawing a block at a time keeps the per-minute cost of small draws low;
    all streams share one generator and are refilled at points fixed by the
    simulation, so a seed still determines the run.
    """

    def __init__(self, draw: Callable[[int], np.ndarray], block: int):
        self.draw, self.block = draw, block
        self.buf, self.pos = np.empty(0), 0

    def take(self, n: int) -> np.ndarray:
        if self.pos + n > len(self.buf):
            self.buf = np.concatenate([self.buf[self.pos :], self.draw(max(self.block, n))])
            self.pos = 0
        out = self.buf[self.pos : self.pos + n]
        self.pos += n
        return out


class _Fifo:
    """FIFO of connection requests ``(client, request minute)`` in a growable array."""

    def __init__(self, capacity: int):
        self.client = np.empty(capacity, dtype=np.int64)
        self.req = np.empty(capacity, dtype=np.int64)
        self.head = self.tail = 0

    def __len__(self) -> int:
        return self.tail - self.head

    def push(self, clients: np.ndarray, minute: int) -> None:
        n = len(clients)
        if self.tail + n > len(self.client):
            live = self.tail - self.head
            size = max(len(self.client), 2 * (live + n))
            for name in ("client", "req"):
                old = getattr(self, name)
                new = np.empty(size, dtype=np.int64)
                new[:live] = old[self.head : self.tail]
                setattr(self, name, new)
            self.head, self.tail = 0, live
        self.client[self.tail : self.tail + n] = clients
        self.req[self.tail : self.tail + n] = minute
        self.tail += n

    def pop(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        end = min(self.head + n, self.tail)
        out = self.client[self.head : end], self.req[self.head : end]
        self.head = end
        return out


def simulate_bot(
    instance: BotInstance,
    schedules: Sequence[np.ndarray],
    seed: int,
    progress: bool = False,
    horizon: float = DEFAULT_HORIZON_MINUTES,
) -> BotResult:
    """Simulate the bag of tasks under the given checkpoint schedules (Section IV-A).

    Parameters
    ----------
    instance : BotInstance
        Jobs, clients and laws.
    schedules : sequence of 0/1 arrays
        ``schedules[k]`` is job ``k``'s checkpoint vector ``a`` (one entry per
        slice, ``a_n = 1``), whatever policy computed it; every copy of job
        ``k`` on every client follows it.
    seed : int
        Seed of the ``numpy.random.default_rng`` that draws lifetimes, the
        order of fresh dispatches, availability and unavailability periods and
        duplicate choices. Same seed, same result.
    progress : bool
        Show a tqdm bar of completed jobs on stderr.
    horizon : float
        Stop once simulated time exceeds this many minutes (default ten years).

    Returns
    -------
    BotResult

    Notes
    -----
    Time is in minutes, the checkpoint model's quantum (Section IV-A-2). What
    the simulation does, with the choices made where the paper is silent:

    * **Clients** (Table I). All ``M`` clients enter at time 0, available. A
      client alternates availability and unavailability periods drawn from the
      instance's laws and rounded up to whole minutes (at least one); an
      availability period of ``L`` minutes starting at ``s`` covers the
      minutes ``[s, s + L)``, and an activity ending at ``s + L`` or earlier
      completes. The client leaves for good at its lifetime (drawn once,
      rounded up): an availability period is cut there, and a client whose
      unavailability reaches it never returns.
    * **Server** (Section IV-A, FCFS rules 1-3). A client pulls one job when it
      becomes available (its previous job, if any, is abandoned) and after its
      result upload. While some job was never dispatched it gets a uniformly
      random one of those; otherwise it duplicates a uniformly random
      unfinished job, restarting from the most advanced checkpoint the server
      holds for it (no synchronisation between copies; the server keeps the
      most advanced checkpoint and ignores outdated ones and late results);
      when every job is complete the simulation ends. Requests falling on the
      same minute are served in a fixed order: clients that just uploaded a
      result before clients coming back, each group by client index; in the
      connection queue, that minute's uploads before its downloads.
    * **Computation**. A slice of ``h`` hours on a mean client takes
      ``slice_quanta(h, speed)`` minutes (``h * 60 * 1771 / speed``, rounded,
      at least one), as in the checkpoint model the schedules are computed on.
    * **Transfers**. After slice ``j`` with ``a_j = 1`` the client uploads a
      checkpoint of ``checkpoint_mb[j]`` Mb in ``checkpoint_quanta(mb, bw)``
      minutes (``mb / bw`` seconds, rounded up, at least one); the upload after
      the last slice is the job's result and completes the job on arrival. A
      duplicate starting from checkpoint ``j > 0`` first downloads it the same
      way; a copy starting from slice 0 downloads nothing. Every transfer holds
      one of the server's ``max_connections`` connections; requests beyond
      that wait in one FIFO queue, the client idling; connections freed in a
      minute are granted in that same minute.
    * **Failures**. The end of an availability period loses the work since the
      copy's last completed upload, the unfinished slice and any transfer in
      progress (its time still counts as checkpoint overhead); the client then
      forgets the job.
    * **Metrics**. See :class:`BotResult`. When every job completes, copies
      still running are duplicates of complete jobs: their work counts as lost
      and their transfer or queue time as checkpoint overhead, up to the
      makespan. When the run stops early (``"no-clients"`` or ``"horizon"``)
      the work in progress is not counted and ``makespan`` is ``inf``.
    """
    sched = _check_schedules(instance, schedules)
    require(is_int(seed) and seed >= 0, "seed", f"must be a non-negative integer, got {seed!r}")
    ok = isinstance(horizon, (int, float)) and not isinstance(horizon, bool)
    require(ok and horizon > 0, "horizon", f"must be a positive number, got {horizon!r}")

    rng = np.random.default_rng(seed)
    M, J = instance.n_clients, instance.n_jobs
    offsets, n_slices = instance.job_offsets, instance.n_slices
    hours, sizes = instance.slice_hours, instance.checkpoint_mb
    speed, bandwidth = instance.speeds, instance.bandwidths
    max_conn = instance.max_connections

    life_end = _whole_minutes(instance.lifetime.sample(rng, M))
    order = rng.permutation(J)
    block = max(4096, 4 * M)
    up_draws = _Stream(lambda n: instance.availability.sample(rng, n), block)
    down_draws = _Stream(lambda n: instance.unavailability.sample(rng, n), block)
    uniform = _Stream(lambda n: rng.random(n), block)

    state = np.full(M, UNAVAILABLE, dtype=np.int8)
    next_t = np.zeros(M, dtype=np.int64)  # every client becomes available at 0
    avail_end = np.zeros(M, dtype=np.int64)
    act_start = np.zeros(M, dtype=np.int64)
    act_end = np.zeros(M, dtype=np.int64)
    req_t = np.zeros(M, dtype=np.int64)
    job = np.full(M, -1, dtype=np.int64)
    pos = np.zeros(M, dtype=np.int64)  # slices of the job this copy has computed
    unsaved = np.zeros(M, dtype=np.int64)
    run_work = np.zeros(M, dtype=np.int64)
    is_down = np.zeros(M, dtype=bool)

    ckpt = np.zeros(J, dtype=np.int64)  # slices saved on the server, per job
    done_t = np.full(J, NEVER, dtype=np.int64)
    unfinished = np.arange(J)
    unfinished_stale = False
    queue = _Fifo(max(1024, 2 * max_conn))

    in_use = n_done = n_fresh = 0
    w_ckpt = w_wait = w_lost = 0
    n_ckpt = n_disp = n_dup = 0
    steps = 0
    t = 0
    stop = "complete"
    empty = np.empty(0, dtype=np.int64)
    bar = tqdm(total=J, unit="job", desc="bot", file=sys.stderr, disable=not progress, mininterval=0.5)

    while n_done < J:
        t = int(next_t.min())
        if t >= NEVER:
            stop = "no-clients"
            break
        if t > horizon:
            stop = "horizon"
            break
        steps += 1
        due = np.flatnonzero(next_t == t)
        st = state[due]
        ends = act_end[due] == t
        to_compute, to_pull = [], []
        up_req = down_req = empty

        # Transfers that end now (completion wins over a failure on the same minute).
        x = due[(st == TRANSFER) & ends]
        if x.size:
            in_use -= x.size
            w_ckpt += int((t - req_t[x]).sum())
            state[x] = TRANS
            down = is_down[x]
            to_compute.append(x[down])
            ul = x[~down]
            if ul.size:
                k, p = job[ul], pos[ul]
                np.maximum.at(ckpt, k, p)
                unsaved[ul] = 0
                final = p == n_slices[k]
                n_ckpt += int(ul.size - final.sum())
                to_compute.append(ul[~final])
                fin, kf = ul[final], k[final]
                if fin.size:
                    late = done_t[kf] < t
                    w_lost += int(run_work[fin[late]].sum())
                    new = np.unique(kf[~late])
                    new = new[done_t[new] == NEVER]
                    if new.size:
                        done_t[new] = t
                        n_done += new.size
                        unfinished_stale = True
                        bar.update(new.size)
                    job[fin] = -1
                    run_work[fin] = 0
                    to_pull.append(fin)

        # Slices that end now: checkpoint if the schedule says so, else go on.
        c = due[(st == COMPUTE) & ends]
        if c.size:
            d = t - act_start[c]
            run_work[c] += d
            unsaved[c] += d
            pos[c] += 1
            state[c] = TRANS
            wants = sched[offsets[job[c]] + pos[c] - 1]
            up_req = c[wants]
            to_compute.append(c[~wants])

        # Clients back from unavailability (or starting at time 0).
        a = due[st == UNAVAILABLE]
        if a.size:
            avail_end[a] = np.minimum(t + _whole_minutes(up_draws.take(a.size)), life_end[a])
            state[a] = TRANS
            to_pull.append(a)

        # Failures: the availability period (or the lifetime) ends now.
        f = due[avail_end[due] == t]
        if f.size:
            s = state[f]
            partial = np.where(s == COMPUTE, t - act_start[f], 0)
            waiting, moving = s == WAIT, s == TRANSFER
            in_use -= int(moving.sum())
            spent = (t - req_t[f])[waiting | moving]
            w_ckpt += int(spent.sum())
            w_wait += int((t - req_t[f[waiting]]).sum())
            k = job[f]
            has = k >= 0
            finished = has & (done_t[np.maximum(k, 0)] <= t)
            lost = np.where(finished, run_work[f], np.where(has, unsaved[f], 0))
            w_lost += int((lost + np.where(has, partial, 0)).sum())
            job[f] = -1
            run_work[f] = 0
            unsaved[f] = 0
            back = t + _whole_minutes(down_draws.take(f.size))
            gone = back >= life_end[f]
            state[f] = np.where(gone, GONE, UNAVAILABLE)
            next_t[f] = np.where(gone, NEVER, back)

        # Job requests, fresh jobs before duplicates (FCFS rules 1-3).
        if to_pull:
            pl = np.concatenate(to_pull)
            pl = pl[state[pl] == TRANS]
            if pl.size:
                if n_done == J:
                    state[pl] = IDLE
                    next_t[pl] = NEVER
                else:
                    m = min(pl.size, J - n_fresh)
                    fresh = pl[:m]
                    job[fresh] = order[n_fresh : n_fresh + m]
                    pos[fresh] = 0
                    n_fresh += m
                    to_compute.append(fresh)
                    dup = pl[m:]
                    if dup.size:
                        if unfinished_stale:
                            unfinished = np.flatnonzero(done_t == NEVER)
                            unfinished_stale = False
                        pick = (uniform.take(dup.size) * unfinished.size).astype(np.int64)
                        k = unfinished[pick]
                        job[dup] = k
                        p = ckpt[k]
                        pos[dup] = p
                        n_dup += dup.size
                        load = p > 0
                        to_compute.append(dup[~load])
                        down_req = dup[load]
                    n_disp += pl.size
                    run_work[pl] = 0
                    unsaved[pl] = 0

        # Start the next slice.
        if to_compute:
            cs = np.concatenate(to_compute)
            cs = cs[state[cs] == TRANS]
            if cs.size:
                d = slice_quanta(hours[offsets[job[cs]] + pos[cs]], speed[cs])
                act_start[cs] = t
                act_end[cs] = t + d
                state[cs] = COMPUTE
                next_t[cs] = np.minimum(t + d, avail_end[cs])

        # Queue for a connection, uploads before downloads.
        if up_req.size or down_req.size:
            up_req = up_req[state[up_req] == TRANS]
            is_down[up_req] = False
            is_down[down_req] = True
            rq = np.concatenate([up_req, down_req])
            if rq.size:
                state[rq] = WAIT
                req_t[rq] = t
                next_t[rq] = avail_end[rq]
                queue.push(rq, t)

        # Grant free connections in FIFO order; entries of clients that failed
        # while queued are stale and skipped.
        free = max_conn - in_use
        while free > 0 and len(queue):
            cand, creq = queue.pop(free)
            g = cand[(state[cand] == WAIT) & (req_t[cand] == creq)]
            if g.size:
                d = checkpoint_quanta(sizes[offsets[job[g]] + pos[g] - 1], bandwidth[g])
                w_wait += int((t - req_t[g]).sum())
                act_start[g] = t
                act_end[g] = t + d
                state[g] = TRANSFER
                next_t[g] = np.minimum(t + d, avail_end[g])
                in_use += g.size
                free -= g.size

    bar.close()
    if stop == "complete":
        live = (state == COMPUTE) | (state == WAIT) | (state == TRANSFER)
        computing = state == COMPUTE
        w_lost += int(run_work[live].sum() + (t - act_start[computing]).sum())
        transfers = (state == WAIT) | (state == TRANSFER)
        w_ckpt += int((t - req_t[transfers]).sum())
        w_wait += int((t - req_t[state == WAIT]).sum())
    completion = np.where(done_t == NEVER, np.inf, done_t.astype(float))
    return BotResult(
        makespan=float(completion.max()),
        wasted_checkpoint=float(w_ckpt),
        wasted_wait=float(w_wait),
        wasted_lost=float(w_lost),
        checkpoints=n_ckpt,
        dispatches=n_disp,
        duplicates=n_dup,
        completed_jobs=n_done,
        n_jobs=J,
        completion_times=completion,
        end_time=float(t),
        stop=stop,
        steps=steps,
        seed=int(seed),
    )


__all__ = ["DEFAULT_HORIZON_MINUTES", "BotResult", "policy_schedules", "simulate_bot"]
