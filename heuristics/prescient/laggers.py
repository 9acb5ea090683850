"""Section 3.4's lagger analysis of one run: which tasks lag, and why.

Kondo, Chien, Casanova (2007), Section 3.4 (reading 5.3):

* **Laggers.** "we classify completed tasks as laggors by determining the
  interquartile range (IQR) of task completion ... excluding task executions
  that fail to complete ... If a task is completed after the threshold [the
  upper quartile plus F x IQR], it is classified as a laggor", with "an
  intermediate IQR factor of 1". A task's completion is its first completed
  execution, in seconds from the submission; quartiles are numpy's linear ones.
* **Failure cause.** "we look at all tasks completed after the 75th
  percentile; if the task fails after that point, we conclude that failure is
  at least one cause of the lagging": a lagger with a failed execution whose
  host went down after the upper quartile Q3.
* **Slow-host cause.** "we use the clock rate of the slowest host used in the
  corresponding optimal application execution ... to classify whether a
  laggor was assigned to a slow host or not": a lagger whose completing
  execution ran on a host with a clock rate *strictly below* the slowest host
  the optimum uses. The threshold comes from the optimum's schedule
  (``slowest_clock_used_mhz`` of the family's solution), which the
  application layer passes in: heuristics never import the solvers.

The paper reports ">70%" of FCFS's laggers caused by a slow host or a failure
(Section 3.4), and EXCL-S.5 cutting the share of slow-host laggers by "as
high as ~60%" (Section 5.2.1). Laggers are a diagnostic: "When comparing our
heuristics we do not consider the number of laggings".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

#: The lagger threshold's IQR factor (Section 3.4: "We choose an intermediate IQR factor of 1").
IQR_FACTOR = 1.0


def lagger_threshold(completions, factor: float = IQR_FACTOR) -> tuple[float, float]:
    """``(Q3, Q3 + factor x IQR)`` of ``completions``, numpy's linear quantiles (``inf`` when empty)."""
    c = np.asarray(completions, dtype=float)
    if c.size == 0:
        return np.inf, np.inf
    q1, q3 = np.percentile(c, [25.0, 75.0])
    return float(q3), float(q3 + factor * (q3 - q1))


def laggers(completions, factor: float = IQR_FACTOR) -> int:
    """The number of completions after ``Q3 + factor x IQR`` of ``completions`` (Section 3.4)."""
    _, threshold = lagger_threshold(completions, factor)
    return int(np.count_nonzero(np.asarray(completions, dtype=float) > threshold))


def lagger_causes(
    attempts: Iterable[Mapping],
    clock_mhz,
    t0: float,
    slow_below: float | None = None,
    factor: float = IQR_FACTOR,
) -> dict[str, int | None]:
    """Count a run's laggers and classify their causes (Section 3.4).

    Parameters
    ----------
    attempts : iterable of mappings
        The run's executions in the family's schedule format (``task``,
        ``host``, ``end``, ``outcome``; a failed execution's ``end`` is its
        host-down instant).
    clock_mhz : array_like
        Each host's clock rate.
    t0 : float
        The submission time; completions are counted from it.
    slow_below : float, optional
        The clock rate of the slowest host the optimum uses. Without it the
        slow-host cause is not classified (``None``).
    factor : float
        The IQR factor F.

    Returns
    -------
    dict
        ``laggers``; ``laggers_failure`` (a failed execution of the task after
        Q3); ``laggers_slow_host`` (completed on a host slower than
        ``slow_below``); ``laggers_explained`` (either cause). The last two are
        ``None`` without ``slow_below``.
    """
    done: dict[int, tuple[float, int]] = {}
    failures: dict[int, float] = {}
    for a in attempts:
        task, end = int(a["task"]), float(a["end"])
        if a["outcome"] == "completed":
            if task not in done or end < done[task][0]:
                done[task] = (end, int(a["host"]))
        elif a["outcome"] == "failed":
            failures[task] = max(failures.get(task, -np.inf), end)
    tasks = np.fromiter(done, dtype=np.int64, count=len(done))
    ends = np.array([done[t][0] for t in tasks], dtype=float) - t0
    hosts = np.array([done[t][1] for t in tasks], dtype=np.int64)
    q3, threshold = lagger_threshold(ends, factor)
    lag = ends > threshold
    last_failure = np.array([failures.get(int(t), -np.inf) for t in tasks], dtype=float) - t0
    failed_late = lag & (last_failure > q3)
    out: dict[str, int | None] = {
        "laggers": int(lag.sum()),
        "laggers_failure": int(failed_late.sum()),
        "laggers_slow_host": None,
        "laggers_explained": None,
    }
    if slow_below is not None:
        slow = lag & (np.asarray(clock_mhz, dtype=float)[hosts] < slow_below)
        out["laggers_slow_host"] = int(slow.sum())
        out["laggers_explained"] = int((slow | failed_late).sum())
    return out


__all__ = ["IQR_FACTOR", "lagger_causes", "lagger_threshold", "laggers"]
