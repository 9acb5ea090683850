"""OFF-LINE-COUPLED (mu = infinity): the earliest slot by which one iteration completes.

Section IV, "flexible number of workers": with identical ``w``, no
communication and unbounded ``mu``, ``k`` processors can run the ``m`` tasks
with ``ceil(m / k)`` tasks each, a workload of ``W_k = ceil(m / k) w`` slots of
simultaneous UP time. The iteration completes at the end of slot ``T - 1``
(it needs ``T`` slots of wall time) where ``T`` is the smallest horizon in
which some ``k`` processors share ``W_k`` UP slots, over every ``k = 1..m``.

For each ``k`` the smallest such ``T`` is found by binary search over
``T``, each step a proven decision of the fixed-size biclique problem on the
first ``T`` slots (:func:`.bnb.decide_bnb`); sharing ``W`` UP slots is
monotone in ``T``. The best ``T`` so far caps the search of the next ``k``.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from ..problem import Effort
from .bnb import decide_bnb

if TYPE_CHECKING:
    import numpy as np


def solve_offline_inf(
    up: np.ndarray,
    m: int,
    w: int,
    time_limit: float | None = None,
    budget: float | None = None,
    effort: Effort | None = None,
):
    """``(processors, k, T, lower_bound, proven)``; ``T`` is ``None`` if no iteration fits.

    ``budget``: bnb nodes over all the decisions, which ``effort`` counts.

    ``lower_bound`` is the largest horizon proven too short for every ``k``
    (plus one): the optimum lies in ``[lower_bound, T]``.
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    effort = Effort() if effort is None else effort
    p, horizon = up.shape
    best_t, best_rows, best_k = None, None, None
    proven = True
    lower = horizon + 1  # min over k of the smallest horizon not proven too short
    for k in range(min(m, p), 0, -1):
        need = math.ceil(m / k) * w
        hi = horizon if best_t is None else best_t - 1
        if need > hi:
            lower = min(lower, best_t if best_t is not None else horizon + 1)
            continue
        rows, decided = decide_bnb(up[:, :hi], k, need, deadline, budget, effort)
        if rows is None:
            proven &= decided
            lower = min(lower, need if not decided else hi + 1)
            continue
        lo = need  # the answer lies in [lo, hi]: hi is feasible
        found = rows
        while lo < hi:
            mid = (lo + hi) // 2
            rows, decided = decide_bnb(up[:, :mid], k, need, deadline, budget, effort)
            if rows is not None:
                hi, found = mid, rows
            elif decided:
                lo = mid + 1
            else:
                proven = False
                break
        lower = min(lower, lo)
        best_t, best_rows, best_k = hi, found, k
    if best_t is not None:
        lower = min(lower, best_t)
    return best_rows, best_k, best_t, lower, proven
