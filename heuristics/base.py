"""What a heuristic is: small policy protocols with an explicit RNG, and one simulator shape.

In the style of alns' operator protocols: every policy names itself and takes
a ``numpy.random.Generator`` it is given (never a global RNG), so the same
seed gives the same decisions.

* An :class:`OfflinePolicy` plans once from what it is allowed to know before
  the run (the checkpoint policies need only the failure law and the job).
* An :class:`OnlinePolicy` decides at each time ``t`` from an
  :class:`Observation`, which exposes only what is known at ``t``: the
  simulator builds it from the realization up to ``t`` (read-only arrays that
  end at ``t``) and never hands the policy the instance itself.
* A :class:`Simulator` runs one policy on one instance and returns the
  solution, in the format the family's verifier replays, and the metrics the
  problem declares.

Each family states its own policy protocol, exactly (what the policy sees, and
when; what it returns), in ``volsched.heuristics.<family>.protocol``. A policy
written outside volsched runs behind that module's ``checked`` wrapper
(:class:`CheckedPolicy`), which turns a wrong return value, or an exception of
the policy's own code, into an :class:`~volsched.instances.errors.InputError`
naming the policy and what was expected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from volsched.instances.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Callable


@runtime_checkable
class Observation(Protocol):
    """What an on-line policy may see at time ``t``; families add their fields (the past only)."""

    t: int


@runtime_checkable
class OfflinePolicy(Protocol):
    name: str

    def plan(self, instance: Any, rng: np.random.Generator) -> Any:
        """A whole plan from what is known before the run."""


@runtime_checkable
class OnlinePolicy(Protocol):
    name: str

    def decide(self, observation: Observation, rng: np.random.Generator) -> Any:
        """The decision at ``observation.t``, from the past only."""


@runtime_checkable
class Simulator(Protocol):
    def run(self, instance: Any, policy: Any, rng: np.random.Generator) -> tuple[dict, dict[str, float]]:
        """``(solution, metrics)``: the solution for the verifier, the problem's metrics by name."""


def past(array: np.ndarray, t: int) -> np.ndarray:
    """A read-only view of ``array[..., : t + 1]``: the part of a realization known at ``t``."""
    view = array[..., : t + 1]
    view.flags.writeable = False
    return view


def describe(value: Any) -> str:
    """A short description of a value a policy returned, for an error message."""
    if value is None:
        return "None"
    if isinstance(value, dict):
        keys = list(value)[:5]
        return f"a dict with keys {keys}" + (" ..." if len(value) > 5 else "")
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} items"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


class CheckedPolicy:
    """A policy from outside volsched, behind its family's checks of what it returns.

    The other attributes of the wrapped policy (a coupled policy's ``begin``,
    ``hold``...) read through. Subclasses (one per family, in its ``protocol``
    module) call the policy's methods through :meth:`call` and check the value.

    Parameters
    ----------
    policy : object
        The user's policy object.
    name : str
        The name it runs under (its import path, e.g. ``mine.py:EveryOther``).
    """

    def __init__(self, policy: Any, name: str):
        self.policy = policy
        self.name = name

    def __getattr__(self, attr: str) -> Any:
        if attr == "policy":  # not set yet (unpickling): no recursion
            raise AttributeError(attr)
        return getattr(self.policy, attr)

    def call(self, method: str, *args: Any) -> Any:
        """``policy.<method>(*args)``; a missing method or an exception of the policy is ``InputError``."""
        fn: Callable | None = getattr(self.policy, method, None)
        if not callable(fn):
            raise InputError(
                f"heuristic {self.name}: has no method {method}() (see the family's policy "
                "protocol: volsched.heuristics.<family>.protocol)"
            )
        try:
            return fn(*args)
        except InputError:
            raise
        except Exception as exc:  # the user's code: say whose, keep the cause for VOLSCHED_DEBUG
            raise InputError(f"heuristic {self.name}: {method}() raised {type(exc).__name__}: {exc}") from exc

    def bad(self, method: str, expected: str, got: Any) -> InputError:
        """The error for a wrong return value of ``method``."""
        return InputError(f"heuristic {self.name}: {method}() must return {expected}; got {describe(got)}")


__all__ = ["CheckedPolicy", "Observation", "OfflinePolicy", "OnlinePolicy", "Simulator", "describe", "past"]
