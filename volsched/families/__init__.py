"""The families the application layer knows, behind one interface.

Each family adapter wires its instance model, its exact ``solve``, its verifier
and its heuristics together so that the CLI, the demo and the experiment
engine treat every family alike.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from volsched.instances.errors import require
from volsched.instances.io import check_envelope


@dataclass(frozen=True)
class Param:
    """A generator parameter a sweep grid may vary.

    ``check(value, key)`` returns the value normalised or raises ``InputError``
    naming ``key``; ``is_list`` marks parameters whose single value is a list.
    """

    check: Callable[[Any, str], Any]
    is_list: bool = False


@dataclass(frozen=True)
class Family:
    """How the application layer drives one family.

    Attributes
    ----------
    name : str
        The ``family`` field of its instance files.
    load : callable
        Parsed instance JSON -> instance model (raises ``InputError``).
    methods : sequence of str
        Exact methods of its ``solve``; the first is the default.
    solve : callable
        ``solve(instance, method=, time_limit=, seed=) -> SolveResult``.
    value : callable
        ``value(instance, solution_dict) -> float``: the verifier's recomputed
        objective of a solution (raises ``InputError`` if it is infeasible).
    heuristics : dict
        Name -> ``heuristic(instance) -> solution_dict``.
    add_generate_arguments, generate : callable
        The ``volsched generate <family>`` options and the generator behind them.
    generator_params : dict
        Name -> :class:`Param`: what a sweep grid may set.
    generate_from : callable
        ``generate_from(params) -> instance`` from grid parameters plus ``seed``;
        the same parameters give the same instance, so a stored row can be re-derived.
    presets : dict
        Name -> list of sweep tables (see :mod:`volsched.experiments.config`);
        each family registers ``<paper>`` and ``<paper>-smoke``.
    sense : str
        ``"min"`` or ``"max"``: how a heuristic's value compares to the optimum.
    problems : dict
        Exact problem -> its methods (the first is its default), for families
        whose ``solve(..., problem=)`` has several; empty when there is one.
    problem_sense : dict
        Problem -> ``"min"``/``"max"`` where it differs from ``sense``.
    """

    name: str
    load: Callable[[dict], Any]
    methods: Sequence[str]
    solve: Callable[..., Any]
    value: Callable[[Any, dict], float]
    heuristics: dict[str, Callable[[Any], dict]]
    add_generate_arguments: Callable[[argparse.ArgumentParser], None]
    generate: Callable[[argparse.Namespace], Any]
    simulate: Callable[..., dict]
    generator_params: dict[str, Param]
    generate_from: Callable[[dict], Any]
    presets: dict[str, list[dict]]
    sense: str = "min"
    problems: dict[str, Sequence[str]] = field(default_factory=dict)
    problem_sense: dict[str, str] = field(default_factory=dict)

    def methods_of(self, problem: str | None) -> Sequence[str]:
        """The exact methods of ``problem`` (``None``: the first problem); the first is the default."""
        if not self.problems:
            return self.methods
        return self.problems[problem or next(iter(self.problems))]

    def sense_of(self, problem: str | None) -> str:
        return self.problem_sense.get(problem, self.sense) if problem else self.sense


def _registry() -> dict[str, Family]:
    from . import checkpoint, coupled

    return {f.name: f for f in (checkpoint.FAMILY, coupled.FAMILY)}


FAMILIES: dict[str, Family] = _registry()


def family_of(obj: Any) -> Family:
    """The family adapter for a parsed instance object."""
    obj = check_envelope(obj)
    name = obj["family"]
    require(name in FAMILIES, "family", f"must be one of {sorted(FAMILIES)}, got {name!r}")
    return FAMILIES[name]
