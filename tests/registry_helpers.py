"""The exact methods a test runs, read from the solver registries (never a hand-kept list)."""

import importlib


def registered_methods(family: str, problem: str) -> list[str]:
    """The methods registered for ``problem`` in ``volsched.solvers.<family>.PROBLEMS``."""
    return list(importlib.import_module(f"volsched.solvers.{family}").PROBLEMS[problem].methods)
