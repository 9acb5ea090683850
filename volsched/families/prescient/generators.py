"""The prescient family's generators: synthetic platforms and FTA traces.

``volsched generate prescient --platform sdsc|deug|lri|ucb|gimps|lri-wisc|ucb-lri-n33...
--hosts N --tasks T --task-minutes X --seed S --out FILE`` and ``volsched
generate prescient --fta PATH --tasks T --task-minutes X --out FILE``: the
generator is chosen by which of ``--platform`` and ``--fta`` is given
(:func:`pick_generator`), or by ``--preset platform|fta``.
"""

from __future__ import annotations

import math
import sys

from volsched.instances.errors import InputError, check_flag, check_int, check_number, check_path, require
from volsched.instances.prescient import model
from volsched.instances.prescient.calibration import calibrate, format_calibration
from volsched.instances.prescient.fta import read_fta
from volsched.instances.prescient.platforms import (
    PLATFORMS,
    check_platform,
    generate_platform,
    platforms,
    weekday_windows,
)

from .. import GeneratorSpec, Option


def _positive(v, k):
    value = check_number(v, k, 0.0, model.MAX_TIME_S)
    require(value > 0, k, f"must be positive, got {v!r}")
    return value


def _start(v, k):
    if v == "first":
        return v
    try:
        value = float(v)
    except (TypeError, ValueError):
        raise InputError(f"{k}: must be 'first' or a time in seconds, got {v!r}") from None
    require(math.isfinite(value) and value >= 0, k, f"must be 'first' or a time >= 0, got {v!r}")
    return value


TASKS = Option("tasks", lambda v, k: check_int(v, k, 1, model.MAX_TASKS), 100, "number of tasks T", int)
MINUTES = Option(
    "task_minutes",
    _positive,
    15.0,
    "task size in minutes on a dedicated 1.5 GHz host (110.7e6 operations per second)",
    float,
)
CALIBRATE = Option(
    "calibrate",
    check_flag,
    False,
    "print the calibration check (failure rates, aggregate power CV, stable hosts) on stderr",
    flag=True,
)


def _make_platform(p: dict):
    inst = generate_platform(p["platform"], p["hosts"], p["tasks"], p["task_minutes"], p["seed"], p["days"])
    if p["calibrate"]:
        av = platforms()[p["platform"]].availability
        figures = calibrate(inst, weekday_windows(av.window, p["days"]))
        print(format_calibration(p["platform"], figures), file=sys.stderr)
    return inst


def _make_fta(p: dict):
    inst = read_fta(
        p["fta"],
        p["tasks"],
        p["task_minutes"],
        clock=p["clock"],
        start=None if p["start"] == "first" else p["start"],
    )
    if p["calibrate"]:
        print(format_calibration(None, calibrate(inst)), file=sys.stderr)
    return inst


PLATFORM = GeneratorSpec(
    name="platform",
    help="a synthetic desktop grid modelled on the paper's platforms (Sections 3.1, 3.2, 6.2)",
    options=(
        Option("platform", check_platform, "sdsc", f"one of {', '.join(PLATFORMS)}", choices=PLATFORMS),
        Option("hosts", lambda v, k: check_int(v, k, 1, 100_000), 200, "number of hosts N", int),
        TASKS,
        MINUTES,
        Option("seed", lambda v, k: check_int(v, k, 0), 0, "random seed", int),
        Option("days", lambda v, k: check_int(v, k, 2, 366), 7, "days of traces from Monday 00:00", int),
        CALIBRATE,
    ),
    make=_make_platform,
)

FTA = GeneratorSpec(
    name="fta",
    help="a Failure Trace Archive event_trace.tab (hosts at --clock MHz with the whole CPU)",
    options=(
        Option("fta", check_path, None, "path of an FTA event_trace.tab"),
        TASKS,
        MINUTES,
        Option(
            "clock",
            _positive,
            model.REF_CLOCK_MHZ,
            "clock rate of every host in MHz (FTA has none: the reference 1.5 GHz)",
            float,
        ),
        Option(
            "start",
            _start,
            "first",
            "submission time in the trace's seconds ('first': the trace's first event)",
        ),
        CALIBRATE,
    ),
    make=_make_fta,
)

GENERATORS = {PLATFORM.name: PLATFORM, FTA.name: FTA}


def pick_generator(given: set[str]) -> str | None:
    """The generator named by the options given without ``--preset``: ``--fta`` or else ``platform``."""
    if "fta" in given:
        return FTA.name
    return PLATFORM.name
