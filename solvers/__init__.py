"""Exact methods and independent verifiers (``volsched.solvers``)."""

from .problem import Method, MethodOutcome, Metric, Problem, finish, solve
from .result import Infeasible, SolveResult, SolveStatus, VerificationError, reject_unless

__all__ = [
    "Infeasible",
    "Method",
    "MethodOutcome",
    "Metric",
    "Problem",
    "SolveResult",
    "SolveStatus",
    "VerificationError",
    "finish",
    "reject_unless",
    "solve",
]
