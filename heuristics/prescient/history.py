"""What the previous weekday says about each host: the statistics the history-based heuristics read.

Kondo, Chien, Casanova (2007): PRI-HISTORY (Section 4) "calculates the expected
operations per availability interval ... using the previous weekday's trace";
EXCL-PRED's predictor (Section 5.2) needs "the average operations completed per
second for each host taking into account host load and availability using the
traces and then computing the average over all hosts (call this average r)";
REP-PROB (Section 6) uses per host "the probability of task completion (as
computed by random incidence)" and "the expected time to task failure (which we
can compute with random incidence) plus the expected length of unavailability".

The paper does not say which traces feed ``r`` (reading 4.6); an on-line
heuristic may not read the future, so every statistic here comes from the
instance's history window (:meth:`PrescientInstance.history_window`, the
previous weekday, ``[h0, h1)`` with ``h1 <= start``). An instance without one
(an FTA trace started at its first event) cannot run these heuristics.

Random incidence is computed exactly instead of by sampling ("we chose many
thousands of random points to start the execution of a task", Section 3.3):
for a start ``u`` drawn uniformly over a host's up time in the window, the task
of ``s`` operations completes iff the work left in its availability interval,
``C(b) - C(u)``, is at least ``s``, i.e. iff ``u <= u*``, the last instant with
``C(u) <= C(b) - s`` (``C`` the cumulative available work, non-decreasing). An
interval cut by the window's end is censored: its starts after ``u*`` are
neither completions nor failures and are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from volsched.instances.errors import MissingData
from volsched.instances.prescient import PrescientInstance, WorkProfile


@dataclass(frozen=True)
class History:
    """Per-host statistics of the previous weekday for tasks of ``s`` operations.

    Attributes
    ----------
    available : bool
        The instance has a history window (``False``: every array is zeros and
        the history-based heuristics refuse to run, :meth:`require`).
    window : (float, float)
    r : float
        Mean over all hosts of the operations delivered per second of the
        window (availability and load included): EXCL-PRED's ``r``.
    ops_per_interval : ndarray
        Operations delivered per availability interval (PRI-HISTORY).
    ops_per_second : ndarray
        Operations delivered per second of up time (PRI-HISTORY's "speed").
    p : ndarray
        Probability that a task started at a random instant of up time
        completes before its host goes down (random incidence).
    time_to_failure : ndarray
        Mean time from a random start to the failure, over the starts that
        fail (0 when none fails).
    unavailability : ndarray
        Mean length of the down periods between two availability intervals in
        the window (0 when there is none).
    """

    available: bool
    window: tuple[float, float]
    r: float
    ops_per_interval: np.ndarray
    ops_per_second: np.ndarray
    p: np.ndarray
    time_to_failure: np.ndarray
    unavailability: np.ndarray

    @property
    def L(self) -> np.ndarray:
        """REP-PROB's length of a failed attempt: expected time to failure plus unavailability (Section 6)."""
        return self.time_to_failure + self.unavailability

    def require(self, heuristic: str) -> None:
        """Refuse a history-based heuristic on an instance without a history window (``InputError``)."""
        if not self.available:
            raise MissingData(
                f"data.history: heuristic {heuristic} reads the previous weekday's traces "
                "(Sections 4-6), and this instance has no history window (generate one with a "
                "preceding weekday, or give --start after a day of trace)"
            )

    @classmethod
    def of(cls, instance: PrescientInstance, s: float) -> History:
        """The statistics of ``instance``'s history window for tasks of ``s`` operations."""
        n = instance.n_hosts
        window = instance.history_window()
        if window is None:
            z = np.zeros(n)
            return cls(False, (0.0, 0.0), 0.0, z, z, z, z, z)
        return cls.of_profile(WorkProfile(window), n, (window.t0, window.t1), s)

    @classmethod
    def of_profile(cls, profile: WorkProfile, n: int, window: tuple[float, float], s: float) -> History:
        h0, h1 = window
        a, b = profile.iv_start, profile.iv_end
        host = profile.iv_host.astype(np.int64)
        cum1 = profile.iv_cum1
        work = profile.iv_work
        length = b - a
        up_time = np.bincount(host, weights=length, minlength=n)
        delivered = np.bincount(host, weights=work, minlength=n)
        count = np.bincount(host, minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            per_interval = np.where(count > 0, delivered / np.maximum(count, 1), 0.0)
            per_second = np.where(up_time > 0, delivered / np.where(up_time > 0, up_time, 1.0), 0.0)
        r = float(np.mean(delivered / (h1 - h0)))

        # u*: the last instant of each interval from which s operations still fit.
        fits = work >= s
        u_star = a.copy()
        if fits.any():
            y = cum1[fits] - np.longdouble(s)
            j = np.searchsorted(profile.bp_cum, y, side="right") - 1
            j = np.clip(j, 0, len(profile.bp_cum) - 1)
            rate = profile.bp_rate[j].astype(np.longdouble)
            gap = y - profile.bp_cum[j]
            u = profile.bp_time[j] + np.where(rate > 0, gap / np.where(rate > 0, rate, 1), 0).astype(float)
            u_star[fits] = np.clip(u, a[fits], b[fits])
        ok = u_star - a
        censored = b >= h1
        failing = np.where(censored, 0.0, b - u_star)
        considered = ok + failing
        total = np.bincount(host, weights=considered, minlength=n)
        completing = np.bincount(host, weights=ok, minlength=n)
        p = np.where(total > 0, completing / np.where(total > 0, total, 1), 0.0)
        fail_measure = np.bincount(host, weights=failing, minlength=n)
        fail_moment = np.bincount(host, weights=failing**2 / 2.0, minlength=n)
        ttf = np.where(fail_measure > 0, fail_moment / np.where(fail_measure > 0, fail_measure, 1), 0.0)

        # Down periods between consecutive intervals of one host inside the window.
        same = host[1:] == host[:-1]
        gaps = (a[1:] - b[:-1])[same]
        gap_host = host[1:][same]
        n_gaps = np.bincount(gap_host, minlength=n)
        down = np.bincount(gap_host, weights=gaps, minlength=n) / np.maximum(n_gaps, 1)
        arrays = [per_interval, per_second, p, ttf, down]
        for x in arrays:
            x.setflags(write=False)
        return cls(True, (float(h0), float(h1)), r, *arrays)
