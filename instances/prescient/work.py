"""Cumulative available work per host: the primitive the prescient optimum and the simulators share.

Reading 2.5: "Cumulative work must restart at zero at every host-down event
... Search within each availability interval, from max(host free time,
interval start), for the first point where the accumulated work reaches s.
Skip the interval if it ends first." A task must finish inside one
availability interval (Section 2.1: a failed task restarts from scratch).

:class:`WorkProfile` turns a host's traces into a piecewise-linear function
``C(t)``, the operations the host could have delivered since the beginning,
on breakpoints (interval bounds and CPU changes), with the rate
``110.7e6 * clock / 1500 * share`` on each piece and 0 while the host is down.
All hosts' breakpoints are laid end to end and ``C`` is accumulated across
hosts too, so it is non-decreasing over the whole array: "the earliest time
at which a task of ``w`` operations started at ``t`` on host ``h`` completes"
is one ``np.searchsorted`` for any number of queries at once
(:meth:`WorkProfile.earliest_completion`). ``C`` is summed in
``np.longdouble`` (64-bit mantissa on x86-64), so a difference of two values is
exact to about 0.1 operation (1e-9 s) even after a week of 10,000 hosts.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import require
from .model import REF_CLOCK_MHZ, REF_OPS_PER_S

_END, _CPU, _START = 0, 1, 2


def _sort_by_host_time(host: np.ndarray, time: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """The order by (host, time, kind): one stable float sort, checked exactly, else a lexsort."""
    if host.size == 0:
        return np.zeros(0, dtype=np.int64)
    low = float(time.min())
    span = float(time.max()) - low + 1.0
    stride = 2.0 ** math.ceil(math.log2(span))
    key = host * stride + (time - low)
    order = np.argsort(key, kind="stable")
    h, t, k = host[order], time[order], kind[order]
    dh, dt = np.diff(h), np.diff(t)
    ok = (dh > 0) | ((dh == 0) & ((dt > 0) | ((dt == 0) & (np.diff(k) >= 0))))
    if bool(ok.all()):
        return order
    return np.lexsort((kind, time, host))  # keys that rounded together (times within ~1e-6 relative)


class WorkProfile:
    """Per-host cumulative available work, restarted at every (effective) host-down.

    Parameters
    ----------
    traces : PrescientInstance or TraceWindow
        Anything with the CSR trace fields of
        :class:`~volsched.instances.prescient.model.PrescientInstance`.
    until : float, optional
        Build the profile only over ``[0, until]`` (intervals still open at
        ``until`` are cut there). Every finite answer is then exact; ``inf``
        means "not by ``until``" and the caller may build a longer profile.
        Reading only as far as the answer needs keeps one-week traces of
        10,000 hosts cheap.

    Attributes
    ----------
    iv_start, iv_end : float arrays, shape (M,)
        The effective availability intervals, host by host: the up intervals,
        and without suspension also cut at every run of share 0 (UCB).
    iv_ptr : int array, shape (N + 1,)
        Host ``h`` owns effective intervals ``iv_ptr[h]:iv_ptr[h + 1]``.
    iv_host : int array, shape (M,)
    iv_work : float array, shape (M,)
        Operations each interval delivers from its start to its end: a task of
        ``w`` operations fits in interval ``k`` iff ``iv_work[k] >= w``.
    bp_time, bp_cum, bp_rate, bp_ptr
        The breakpoints: times, ``C`` at them (longdouble), the rate on
        ``[bp_time[i], bp_time[i + 1])`` (ops/s), and per-host offsets.
    """

    def __init__(self, traces, until: float | None = None):
        n = traces.clock_mhz.shape[0]
        speed = traces.clock_mhz * (REF_OPS_PER_S / REF_CLOCK_MHZ)
        s, e, ptr = traces.up_start, traces.up_end, traces.up_ptr
        uhost = np.repeat(np.arange(n), np.diff(ptr))
        if until is not None:
            keep = s < until
            s, e, uhost = s[keep], np.minimum(e[keep], until), uhost[keep]
        self.until = np.inf if until is None else float(until)

        cidx, cshare, cptr = traces.cpu_index, traces.cpu_share, traces.cpu_ptr
        ctime = cidx * traces.period
        chost = np.repeat(np.arange(n), np.diff(cptr))
        if until is not None:
            keep = ctime < until
            ctime, cshare, chost = ctime[keep], cshare[keep], chost[keep]

        m = s.shape[0]
        # ends, CPU changes, starts: at equal times a host goes down before a new share and a new
        # interval (touching intervals stay two intervals)
        host = np.concatenate([uhost, chost, uhost])
        time = np.concatenate([e, ctime, s])
        kind = np.concatenate(
            [np.full(m, _END, np.int8), np.full(ctime.shape[0], _CPU, np.int8), np.full(m, _START, np.int8)]
        )
        order = _sort_by_host_time(host, time, kind)
        host, time, kind = host[order], time[order], kind[order]
        nev = order.shape[0]
        pos = np.arange(nev)

        # The share and the up interval in force after each event: forward fills
        # (a host's first CPU run starts at time 0, before all its other events).
        is_cpu = kind == _CPU
        last_cpu = np.maximum.accumulate(np.where(is_cpu, pos, -1))
        share_src = np.concatenate([np.zeros(m), cshare, np.zeros(m)])[order]
        share = np.where(last_cpu >= 0, share_src[np.maximum(last_cpu, 0)], 0.0)
        first_of_host = np.ones(nev, dtype=bool)
        first_of_host[1:] = host[1:] != host[:-1]
        # A TraceWindow host may lack a CPU run before its first event; a
        # forward fill from another host must not leak in.
        cpu_host = host[np.maximum(last_cpu, 0)]
        share = np.where(cpu_host == host, share, 0.0)
        is_bound = kind != _CPU
        last_bound = np.maximum.accumulate(np.where(is_bound, pos, -1))
        up = (
            (last_bound >= 0)
            & (kind[np.maximum(last_bound, 0)] == _START)
            & (host[np.maximum(last_bound, 0)] == host)
        )
        # Which up interval (global event position of its START) each piece belongs to.
        up_id = np.where(up, last_bound, -1)

        nxt_time = np.empty(nev)
        nxt_time[:-1] = time[1:]
        nxt_time[-1] = time[-1]
        last_of_host = np.ones(nev, dtype=bool)
        last_of_host[:-1] = host[1:] != host[:-1]
        nxt_time[last_of_host] = time[last_of_host]
        on = up & (share > 0) if not traces.suspension else up.copy()
        rate = np.where(up, speed[host] * share, 0.0)
        dt = nxt_time - time

        # Effective intervals: maximal runs of "on" pieces of one up interval.
        # Zero-length pieces (events at one instant) neither open nor split one.
        pieces = on & (dt > 0)
        prev_piece = np.full(nev, -1)
        live = np.flatnonzero(pieces)
        # For each live piece, the previous live piece (of any host).
        prev_piece[live[1:]] = live[:-1]
        contiguous = np.zeros(nev, dtype=bool)
        if live.size:
            p = prev_piece[live]
            ok = p >= 0
            pp = np.maximum(p, 0)
            contiguous[live] = ok & (up_id[pp] == up_id[live]) & (nxt_time[pp] == time[live])
            if not traces.suspension:
                contiguous[live] &= ok & (share[pp] > 0)
        opens = pieces & ~contiguous
        open_pos = np.flatnonzero(opens)
        iv_of_piece = np.cumsum(opens) - 1
        # Each effective interval ends where its last live piece ends.
        last_live = np.zeros(open_pos.shape[0], dtype=np.int64)
        if live.size:
            ids = iv_of_piece[live]
            last_live[ids] = live  # later pieces overwrite: the last one wins
        self.iv_start = time[open_pos]
        self.iv_end = nxt_time[last_live] if open_pos.size else np.zeros(0)
        self.iv_host = host[open_pos]
        counts = np.bincount(self.iv_host, minlength=n)
        self.iv_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

        # C over all events, accumulated across hosts (non-decreasing everywhere).
        # A piece that is not "on" (down, or share 0 without suspension) delivers nothing.
        delivered = np.where(on, rate * dt, 0.0).astype(np.longdouble)
        cum = np.empty(nev, dtype=np.longdouble)
        if nev:
            cum[0] = 0
            np.cumsum(delivered[:-1], out=cum[1:])
        self.bp_time = time
        self.bp_cum = cum
        self.bp_rate = np.where(on, rate, 0.0)
        self.bp_host = host
        self.bp_ptr = np.concatenate([[0], np.cumsum(np.bincount(host, minlength=n))]).astype(np.int64)
        self.iv_bp0 = open_pos
        self.iv_bp1 = last_live + 1
        self.iv_cum0 = cum[open_pos]
        self.iv_cum1 = (
            cum[np.minimum(self.iv_bp1, max(nev - 1, 0))] if open_pos.size else np.zeros(0, np.longdouble)
        )
        self.iv_work = (self.iv_cum1 - self.iv_cum0).astype(np.float64)
        self.n_hosts = n
        self._span = (
            float(max(np.max(time, initial=0.0), self.until if np.isfinite(self.until) else 0.0)) + 1.0
        )
        self._iv_key = self._key(self.iv_host, self.iv_end)
        self._bp_key = self._key(host, time)

    # ------------------------------------------------------------------ searches
    def _key(self, host: np.ndarray, time: np.ndarray) -> np.ndarray:
        """A (host, time) order key; the searches correct its rounding exactly afterwards."""
        return host.astype(np.longdouble) * np.longdouble(self._span) + np.asarray(time, dtype=np.longdouble)

    def _first_interval_ending_after(self, hosts: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Per query, the first effective interval of ``hosts`` with ``iv_end > t`` (or the host's end)."""
        k = np.searchsorted(self._iv_key, self._key(hosts, t), side="right")
        lo, hi = self.iv_ptr[hosts], self.iv_ptr[hosts + 1]
        k = np.clip(k, lo, hi)
        for _ in range(64):
            back = (k > lo) & (self.iv_end[np.maximum(k - 1, 0)] > t)
            fwd = (
                (k < hi) & (self.iv_end[np.minimum(k, len(self.iv_end) - 1)] <= t)
                if self.iv_end.size
                else np.zeros_like(back)
            )
            if not (back.any() or fwd.any()):
                return k
            k = k - back + fwd
        raise AssertionError("interval search did not settle")  # pragma: no cover

    def _cum_at(self, hosts: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``C(t)`` of each query's host (longdouble)."""
        j = np.searchsorted(self._bp_key, self._key(hosts, t), side="right") - 1
        lo, hi = self.bp_ptr[hosts], self.bp_ptr[hosts + 1]
        j = np.clip(j, lo - 1, hi - 1)
        for _ in range(64):
            back = (j >= lo) & (self.bp_time[np.maximum(j, 0)] > t)
            fwd = (j + 1 < hi) & (self.bp_time[np.minimum(j + 1, len(self.bp_time) - 1)] <= t)
            if not (back.any() or fwd.any()):
                break
            j = j - back + fwd
        before = j < lo
        jj = np.clip(j, 0, max(len(self.bp_time) - 1, 0))
        if not len(self.bp_time):
            return np.zeros(len(hosts), dtype=np.longdouble)
        out = self.bp_cum[jj] + (np.asarray(t, np.longdouble) - self.bp_time[jj]) * self.bp_rate[jj]
        first = self.bp_cum[np.minimum(lo, len(self.bp_cum) - 1)]
        return np.where(before, first, out)

    # ------------------------------------------------------------------ public queries
    def work_between(self, hosts, t0, t1) -> np.ndarray:
        """Operations host ``hosts`` could deliver over ``[t0, t1]`` (not restarted: aggregate power)."""
        hosts, t0, t1 = np.broadcast_arrays(
            np.asarray(hosts, np.int64), np.asarray(t0, float), np.asarray(t1, float)
        )
        return (
            (self._cum_at(hosts.ravel(), t1.ravel()) - self._cum_at(hosts.ravel(), t0.ravel()))
            .astype(np.float64)
            .reshape(hosts.shape)
        )

    def earliest_completion(self, hosts, t, work) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Earliest completion of a task of ``work`` operations given to host ``hosts`` free at ``t``.

        The prescient rule (Section 3.4, reading 2.4): the task starts "as soon
        as the host is available", in the first effective availability interval
        (the one containing ``t``, from ``t``, else a later one, from its start)
        that can finish it, so it never fails. All three arguments broadcast.

        Returns
        -------
        finish : float array
            Completion times (``inf``: none within the profile).
        begin : float array
            The start of the successful run (``max(t, interval start)``).
        interval : int array
            The effective interval used (index into ``iv_start``), -1 if none.
        """
        hosts, t, work = np.broadcast_arrays(
            np.asarray(hosts, np.int64), np.asarray(t, float), np.asarray(work, float)
        )
        shape = hosts.shape
        hosts, t, work = hosts.ravel(), t.ravel(), work.ravel()
        require(bool(np.all(work > 0)), "work", "must be positive")
        q = hosts.shape[0]
        finish = np.full(q, np.inf)
        begin = np.full(q, np.inf)
        chosen = np.full(q, -1, dtype=np.int64)
        if q == 0 or self.iv_start.size == 0:
            return finish.reshape(shape), begin.reshape(shape), chosen.reshape(shape)
        k = self._first_interval_ending_after(hosts, t)
        hi = self.iv_ptr[hosts + 1]
        has = k < hi
        kk = np.minimum(k, len(self.iv_start) - 1)
        inside = has & (self.iv_start[kk] <= t)
        b = np.where(inside, t, self.iv_start[kk])
        c0 = np.where(inside, self._cum_at(hosts, t), self.iv_cum0[kk])
        target = c0 + work.astype(np.longdouble)
        fits = has & (target <= self.iv_cum1[kk])
        # Otherwise: the next interval of the host (after k when t was inside or
        # k was too short) whose whole work is at least ``work``.
        rest = np.flatnonzero(has & ~fits)
        if rest.size:
            after = k[rest] + 1
            nk = np.full(rest.size, -1, dtype=np.int64)
            for w in np.unique(work[rest]):
                sel = np.flatnonzero(work[rest] == w)
                good = np.flatnonzero(self.iv_work >= w)
                # iv_work is rounded to float64; confirm in longdouble.
                good = good[(self.iv_cum1[good] - self.iv_cum0[good]) >= np.longdouble(w)]
                pos = np.searchsorted(good, after[sel])
                cand = (
                    good[np.minimum(pos, max(good.size - 1, 0))]
                    if good.size
                    else np.zeros(sel.size, np.int64)
                )
                ok = (pos < good.size) & (cand < hi[rest[sel]])
                nk[sel] = np.where(ok, cand, -1)
            found = nk >= 0
            idx = rest[found]
            kk[idx] = nk[found]
            b[idx] = self.iv_start[nk[found]]
            target[idx] = self.iv_cum0[nk[found]] + work[idx].astype(np.longdouble)
            fits[idx] = True
        done = np.flatnonzero(fits)
        if done.size:
            j = np.searchsorted(self.bp_cum, target[done], side="left")
            j = np.maximum(j, self.iv_bp0[kk[done]] + 1)
            p = j - 1
            f = self.bp_time[p] + (
                (target[done] - self.bp_cum[p]) / self.bp_rate[p].astype(np.longdouble)
            ).astype(np.float64)
            f = np.minimum(np.maximum(f, b[done]), self.iv_end[kk[done]])
            finish[done] = f
            begin[done] = b[done]
            chosen[done] = kk[done]
        return finish.reshape(shape), begin.reshape(shape), chosen.reshape(shape)

    def next_up(self, hosts, t) -> np.ndarray:
        """The earliest time ``>= t`` at which each host is (effectively) up; ``inf`` if never."""
        hosts, t = np.broadcast_arrays(np.asarray(hosts, np.int64), np.asarray(t, float))
        shape = hosts.shape
        hosts, t = hosts.ravel(), t.ravel()
        if self.iv_start.size == 0:
            return np.full(shape, np.inf)
        k = self._first_interval_ending_after(hosts, t)
        has = k < self.iv_ptr[hosts + 1]
        kk = np.minimum(k, len(self.iv_start) - 1)
        return np.where(has, np.maximum(t, self.iv_start[kk]), np.inf).reshape(shape)
