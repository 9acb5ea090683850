"""Exact off-line problems of the coupled family (Casanova et al. 2013, Sections III-IV).

:data:`PROBLEMS` holds the four problems (:mod:`.problems`); :func:`solve`
runs one of them by one of its methods through :func:`volsched.solvers.finish`,
which verifies every solution (:mod:`.verify`, :mod:`.replay`) before it is
reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from volsched.instances.coupled import FAMILY, CoupledInstance

from ..problem import solve as solve_problem
from .problems import PROBLEMS, trivial_bound
from .replay import check_claim, replay
from .verify import verify_offline, verify_offline_inf

if TYPE_CHECKING:
    from ..result import SolveResult


def solve(
    instance: CoupledInstance,
    problem: str | None = None,
    method: str | None = None,
    time_limit: float | None = None,
    seed: int | None = None,
    budget: float | None = None,
) -> SolveResult:
    """Solve one of :data:`PROBLEMS` with one of its methods (default: the first of each)."""
    return solve_problem(FAMILY, PROBLEMS, instance, problem, method, time_limit, seed, budget)


__all__ = [
    "PROBLEMS",
    "check_claim",
    "replay",
    "solve",
    "trivial_bound",
    "verify_offline",
    "verify_offline_inf",
]
