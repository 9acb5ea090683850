"""Slack heuristics (Canon et al. 2011): GAPS(beta), LPT and list baselines, disturbed execution."""

from .baselines import list_schedule, lpt, plain_list
from .disturbance import (
    EXECUTORS,
    MachinePlan,
    WorstCase,
    disturbed_makespans,
    execute,
    machine_plans,
    run_machine,
    sampled_makespans,
    worst_case,
    worst_machine,
)
from .gaps import Schedule, gaps
from .simulator import DISTURBANCES, POLICIES, SchedulePolicy, SlackSimulator

__all__ = [
    "DISTURBANCES",
    "EXECUTORS",
    "POLICIES",
    "MachinePlan",
    "Schedule",
    "SchedulePolicy",
    "SlackSimulator",
    "WorstCase",
    "disturbed_makespans",
    "execute",
    "gaps",
    "list_schedule",
    "lpt",
    "machine_plans",
    "plain_list",
    "run_machine",
    "sampled_makespans",
    "worst_case",
    "worst_machine",
]
