"""The slack family's own options of ``solve``, ``simulate``, ``evaluate`` and ``verify``.

A module of its own, light to import, so that the CLI builds its parser
without loading the family's solvers (:func:`volsched.families.run_options`).
"""

from __future__ import annotations

from volsched.heuristics.slack.simulator import DISTURBANCES
from volsched.instances import slack as model
from volsched.instances.errors import check_choice, check_flag

from .. import Option, RunOption

RUN_OPTIONS = (
    RunOption(
        Option(
            "beta",
            model.check_beta,
            help="solve, simulate or verify at this beta instead of the instance's",
            cli_type=float,
        ),
        commands=("solve", "simulate", "evaluate", "verify"),
        instance=lambda instance, beta: instance.with_beta(beta),
    ),
    RunOption(
        Option("plain", check_flag, help="the plain problem (no slack rule, no last-period rule)", flag=True),
        commands=("solve",),
        problem="plain",
    ),
    RunOption(
        Option(
            "disturbance",
            lambda v, k: check_choice(v, k, DISTURBANCES),
            help=f"evaluation of the schedule: {', '.join(DISTURBANCES)}",
        ),
        commands=("simulate", "evaluate"),
        simulator_field="disturbance",
    ),
)
