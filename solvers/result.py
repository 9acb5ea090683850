"""The result type every exact method of every family returns (DESIGN.md, Contracts)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class SolveStatus(StrEnum):
    """How far a method got. ``OPTIMAL`` only with a proof (bound equals objective)."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"


class VerificationError(RuntimeError):
    """A method returned a solution the independent verifier rejects (a bug, not bad input: exit 1)."""


class Infeasible(Exception):
    """A verifier rejects a solution: malformed, infeasible, or a claim that does not hold.

    Deliberately not an ``InputError``: under ``solve`` it becomes a
    :class:`VerificationError` (our bug), under ``verify`` an ``InputError``
    (the user's file). The message names the field, as ``InputError``'s do.
    """


def reject_unless(condition: bool, field: str, message: str) -> None:
    """Raise :class:`Infeasible` ``"<field>: <message>"`` unless ``condition`` (a verifier's ``require``)."""
    if not condition:
        raise Infeasible(f"{field}: {message}")


def verified_value(value: Any) -> float:
    """A verifier's objective as a float; :class:`Infeasible` when no finite float holds it.

    Verifiers compute with Python integers, so a solution may claim dates beyond any float (a
    start of ``10^400``): such a value is rejected as the solution's fault, not converted.
    """
    try:
        out = float(value)
    except OverflowError:
        raise Infeasible(
            f"objective: the solution's value is about 2^{int(value).bit_length()}, beyond any float"
        ) from None
    if not math.isfinite(out):
        raise Infeasible(f"objective: the solution's value is {out!r}, not a finite number")
    return out


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """``|objective - bound| / max(|objective|, |bound|)``: 0 when both are 0, ``None`` when one is missing.

    Finite whenever both are present (an incumbent of 0 against a bound of 15
    has gap 1, not infinity), and in [0, 1] when they share a sign. For a
    minimisation with ``0 <= bound <= objective`` it is the usual
    ``(objective - bound) / objective``.
    """
    if objective is None or bound is None:
        return None
    scale = max(abs(objective), abs(bound))
    return 0.0 if scale == 0 else abs(objective - bound) / scale


@dataclass
class SolveResult:
    """One method's answer on one instance.

    ``objective`` is the verifier's recomputation of the returned solution,
    ``bound`` the best proven bound, ``gap`` their relative difference,
    ``info`` what the method adds (nodes, which model ran, a claim it got wrong),
    ``stopped`` why an unfinished search ended (``"budget"``: the same on every
    machine; ``"wall clock"``: the time limit cut it) and ``work`` what it
    spent, in its budget unit.
    """

    family: str
    instance: str
    method: str
    status: SolveStatus
    objective: float | None
    bound: float | None
    runtime_s: float
    solution: dict = field(default_factory=dict)
    verified: bool = False
    info: dict = field(default_factory=dict)
    stopped: str | None = None
    work: float | None = None

    @property
    def gap(self) -> float | None:
        return relative_gap(self.objective, self.bound)

    def to_dict(self) -> dict:
        return {
            "family": self.family,
            "instance": self.instance,
            "method": self.method,
            "status": self.status.value,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "runtime_s": self.runtime_s,
            "solution": self.solution,
            "verified": self.verified,
            "stopped": self.stopped,
            "work": self.work,
            "info": self.info,
        }
