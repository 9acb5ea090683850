"""The exact methods a test runs and their work budgets, read from the registries (never a hand-kept list).

A test that asserts what a finished search proves (an optimum, an agreement, an ``optimal`` status)
gives the method a deterministic work budget (:func:`work_budget`), so that the same search runs on
every machine and no wall clock decides the outcome; a generous time limit
(:data:`SAFETY_NET_S`) may stay beside it as the safety net only.
"""

import importlib

#: Generous work budgets per unit (``volsched.solvers.problem.BUDGET_UNITS``) for tests whose
#: instances are small enough to be finished: each is at least ten times the most work the
#: tests' instances were measured to need in that unit, so a stop on one of them is a regression
#: of the method, not a slow machine. A new unit fails here (``KeyError``) until it gets a budget.
TEST_BUDGETS = {
    "cpsat": 30.0,  # measured: 2.3 (a theorem2 slack optimum of the truth judge)
    "nodes": 100_000,  # 16 (the fuzz seeds)
    "cbc-nodes": 50_000,  # 2,142 (slack milp, a planted 3-PARTITION of 3 groups)
    "greedy-calls": 20_000,  # 596 (the fuzz seeds' paper realizations)
    "states": 5_000_000,  # 171,190 (coupled full search read beyond the stored slots)
}

#: Seconds of the wall-clock safety net beside a test budget: above what spending a whole budget took.
SAFETY_NET_S = 600.0


def registered_methods(family: str, problem: str) -> list[str]:
    """The methods registered for ``problem`` in ``volsched.solvers.<family>.PROBLEMS``."""
    return list(importlib.import_module(f"volsched.solvers.{family}").PROBLEMS[problem].methods)


def work_budget(family: str, problem: str, method: str) -> float | None:
    """The test budget of ``method`` of ``problem``, in the unit the registry gives it.

    ``None`` for a method without a unit (it runs to completion); a method the problem does not
    register is an error of the test (``KeyError``).
    """
    from volsched.families import FAMILIES

    spec = FAMILIES[family].problems[problem]
    if method not in spec.methods:
        raise KeyError(f"{family} {problem} registers no method {method!r}: {list(spec.methods)}")
    unit = spec.budgets.get(method)
    return None if unit is None else TEST_BUDGETS[unit]


def limits(family: str, problem: str, method: str) -> dict:
    """``solve`` keyword arguments for a search the test needs finished: its budget, and the safety net."""
    return {"budget": work_budget(family, problem, method), "time_limit": SAFETY_NET_S}


def budget_argv(family: str, problem: str, method: str) -> list[str]:
    """:func:`limits` as command-line options (no ``--budget`` for a method without a unit)."""
    budget = work_budget(family, problem, method)
    return [*(() if budget is None else ("--budget", repr(budget))), "--time-limit", repr(SAFETY_NET_S)]
