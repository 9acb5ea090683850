"""The families the application layer knows, behind one interface (DESIGN.md, the family interface).

A :class:`Family` bundles what the CLI, the demo, the sweep and the report
need, and nothing reaches a family except through it:

* **generators**: one :class:`GeneratorSpec` each, typed options with defaults
  and help. The spec builds the ``volsched generate FAMILY`` options and
  validates sweep grids, whose keys are the option names (``--n-com`` is
  ``n_com``; ``preset`` chooses the generator where a family has several);
* **problems**: ``{name: Problem}`` from the family's solvers, each with its
  sense, exact methods, verifier and metrics (:mod:`volsched.solvers.problem`);
* **heuristics**: ``{name: Heuristic}``, a policy, the simulator that runs it
  and the problem it is scored against;
* **presets**: named sweeps, and a **demo** part;
* **run options**: a family's own options of ``solve``, ``simulate`` and
  ``evaluate`` (:class:`RunOption`; slack: ``--beta``, ``--plain``,
  ``--disturbance``), and **exports** (``volsched export FORMAT``; prescient:
  ``simgrid``).

:data:`FAMILIES` is the registry; a new family adds its package's name to ``_Registry.BUILT_IN``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import MutableMapping
from typing import Any

from volsched.instances.errors import require
from volsched.instances.io import check_envelope

from .base import (
    DemoPart,
    Extras,
    Family,
    GeneratorSpec,
    Heuristic,
    Option,
    RunOption,
    Setup,
    check_fields,
    solution_error,
    with_fields,
)
from .plugins import ENTRY_POINT_GROUP, entry_points_of


class _Registry(MutableMapping):
    """Family name -> :class:`Family`, each imported on first use (``volsched --help`` loads none).

    A built-in family is the package ``volsched.families.<name>``: its module ``family`` defines
    ``FAMILY``, and its optional light module ``options`` its ``RUN_OPTIONS``; adding one means adding
    its name to :data:`BUILT_IN`. ``FAMILIES[name] = family`` registers another one (a test's
    toy family).
    """

    BUILT_IN = ("checkpoint", "coupled", "slack", "prescient")

    def __init__(self):
        self._names = list(self.BUILT_IN)
        self._loaded: dict[str, Family] = {}

    def __getitem__(self, name: str) -> Family:
        if name not in self._names:
            raise KeyError(name)
        if name not in self._loaded:
            self._loaded[name] = importlib.import_module(f"{__name__}.{name}.family").FAMILY
        return self._loaded[name]

    def __setitem__(self, name: str, family: Family) -> None:
        if name not in self._names:
            self._names.append(name)
        self._loaded[name] = family

    def __delitem__(self, name: str) -> None:
        self._names.remove(name)
        self._loaded.pop(name, None)

    def __iter__(self):
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def run_options_of(self, name: str) -> tuple[RunOption, ...]:
        """``name``'s run options, from its light ``options`` module while the family is not loaded.

        The CLI builds its parser from these without importing any family's solvers; a test checks that
        each built-in ``FAMILY.run_options`` is that module's ``RUN_OPTIONS``.
        """
        if name in self._loaded:
            return self._loaded[name].run_options
        module = f"{__name__}.{name}.options"
        if importlib.util.find_spec(module) is None:
            return ()
        return importlib.import_module(module).RUN_OPTIONS


FAMILIES = _Registry()


def family_of(obj: Any) -> Family:
    """The family adapter for a parsed instance object."""
    obj = check_envelope(obj)
    name = obj["family"]
    require(name in FAMILIES, "family", f"must be one of {sorted(FAMILIES)}, got {name!r}")
    return FAMILIES[name]


def run_options(command: str) -> dict[str, Option]:
    """Every registered family's run options of ``command``, by name (the CLI adds each once)."""
    out: dict[str, Option] = {}
    for name in FAMILIES:
        for run in FAMILIES.run_options_of(name):
            if command in run.commands:
                out.setdefault(run.option.name, run.option)
    return out


def run_option_owners(name: str) -> list[str]:
    """The families that have the run option ``name`` (none loaded for it)."""
    return [f for f in FAMILIES if any(r.option.name == name for r in FAMILIES.run_options_of(f))]


def exports() -> dict[str, list[str]]:
    """Export format -> the families that have it."""
    out: dict[str, list[str]] = {}
    for family in FAMILIES.values():
        for name in family.extras.exports:
            out.setdefault(name, []).append(family.name)
    return out


__all__ = [
    "ENTRY_POINT_GROUP",
    "FAMILIES",
    "DemoPart",
    "Extras",
    "Family",
    "GeneratorSpec",
    "Heuristic",
    "Option",
    "RunOption",
    "Setup",
    "check_fields",
    "entry_points_of",
    "exports",
    "family_of",
    "run_option_owners",
    "run_options",
    "solution_error",
    "with_fields",
]
