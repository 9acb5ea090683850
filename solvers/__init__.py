"""Exact methods and independent verifiers (``volsched.solvers``)."""

from .result import SolveResult, SolveStatus, VerificationError

__all__ = ["SolveResult", "SolveStatus", "VerificationError"]
