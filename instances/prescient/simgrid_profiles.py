"""SimGrid host profiles: ``speed_file`` and ``state_file`` traces, read and written.

SimGrid 3.32's profile format: one event per line, ``date value`` (seconds,
a number), dates non-decreasing; blank lines and lines starting with ``#``
are skipped; ``LOOPAFTER d`` (d >= 0) or its older spelling ``PERIODICITY d``
(d > 0) makes the profile repeat: ``d`` seconds after the last event the
first event happens again, then the others at their original spacing (one
cycle lasts ``last - first + d``). A **state** profile's values are 1 (on)
and 0 (off); a **speed** profile's values scale the host's peak speed.

A looping profile is read over a horizon by unrolling its cycles up to it.
The unrolling is refused beforehand, as bad input naming the file and its
``LOOPAFTER`` line, when it would make more than :data:`MAX_UNROLLED_EVENTS`
events (``0 1`` with ``LOOPAFTER 1e-300`` over a week would make 6e305).

For a prescient host (DESIGN.md, SimGrid as an oracle), the state profile is
its effective availability (up intervals, and without suspension the runs of
share 0 cut out) and the speed profile its CPU share; the host's peak speed is
``110.7e6 * clock / 1500`` operations (flops) per second, so that SimGrid's
completion times are volsched's (a 3e9-flop task on a 1
Gflop/s host with speed profile ``0 1.0 / 1 0.5 / 3 1.0`` ends at 4.0 s).

Malformed files are :class:`InputError` naming the file and line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError, require
from ..io import read_text
from .model import DEFAULT_PERIOD_S, MAX_TIME_S, PrescientInstance
from .work import WorkProfile

#: Most events one looping profile may unroll to over the horizon it is read for: about a
#: second and 100 MB to turn into intervals; a week of 1-s samples, or a year of 1-minute
#: on/off pairs, fits. Beyond it the profile is refused before any unrolling.
MAX_UNROLLED_EVENTS = 1_000_000


@dataclass(frozen=True, eq=False)
class Profile:
    """A SimGrid profile: event dates and values, and the loop delay (``None``: no loop).

    ``loop_field`` names the loop delay in errors (the file and line of its
    ``LOOPAFTER`` when the profile was read from one).
    """

    dates: np.ndarray
    values: np.ndarray
    loop_after: float | None = None
    loop_field: str = "LOOPAFTER"

    def __post_init__(self):
        dates = np.asarray(self.dates, dtype=float)
        values = np.asarray(self.values, dtype=float)
        require(dates.ndim == 1 and dates.shape == values.shape, "profile", "dates and values must match")
        require(
            bool(np.all(np.isfinite(dates)) and np.all(np.isfinite(values))),
            "profile",
            "dates and values must be finite",
        )
        require(bool(np.all(np.diff(dates) >= 0)), "profile", "dates must be non-decreasing")
        if self.loop_after is not None:
            require(
                self.loop_after >= 0 and math.isfinite(self.loop_after),
                "profile",
                "the loop delay must be >= 0",
            )
            require(
                dates.size > 0 and (dates[-1] - dates[0] + self.loop_after) > 0,
                "profile",
                "a looping profile must last more than 0 s per cycle",
            )
        object.__setattr__(self, "dates", dates)
        object.__setattr__(self, "values", values)

    def repeats(self, until: float) -> int:
        """How many times the loop repeats the events up to ``until`` (``InputError`` beyond the budget).

        The unrolling makes ``(repeats + 1) * len(dates)`` events when the loop
        repeats at all; more than :data:`MAX_UNROLLED_EVENTS` is refused here,
        before any is made.
        """
        if self.loop_after is None or self.dates.size == 0:
            return 0
        cycle = float(self.dates[-1] - self.dates[0] + self.loop_after)
        first_loop = float(self.dates[-1] + self.loop_after)
        if not until >= first_loop:
            return 0
        spans = (until - first_loop) / cycle  # a Python float: inf, not an error, for a subnormal cycle
        cap = MAX_UNROLLED_EVENTS // self.dates.size
        n = int(spans) + 1 if spans < cap else cap + 1  # floor: spans >= 0
        if (n + 1) * self.dates.size > MAX_UNROLLED_EVENTS:
            raise InputError(
                f"{self.loop_field}: repeating {self.dates.size} event(s) every {cycle!r} s up to "
                f"{float(until)!r} s makes more than {MAX_UNROLLED_EVENTS:,} events (MAX_UNROLLED_EVENTS)"
            )
        return n

    def unrolled(self, until: float) -> tuple[np.ndarray, np.ndarray]:
        """The events up to ``until``, the loop unrolled (at most :data:`MAX_UNROLLED_EVENTS`)."""
        n = self.repeats(until)
        if n == 0:
            keep = self.dates <= until
            return self.dates[keep], self.values[keep]
        cycle = self.dates[-1] - self.dates[0] + self.loop_after
        first_loop = self.dates[-1] + self.loop_after
        # Cycle k's dates are (first_loop + k * cycle) + offset: the same float operations, in the same
        # order, for every k at once.
        starts = first_loop + np.arange(n, dtype=float) * cycle
        looped = (starts[:, None] + (self.dates - self.dates[0])[None, :]).ravel()
        d = np.concatenate([self.dates, looped])
        v = np.tile(self.values, n + 1)
        keep = d <= until
        return d[keep], v[keep]

    def value_at(self, t: float, initial: float) -> float:
        """The profile's value at ``t`` (the last event at or before ``t``; ``initial`` before the first)."""
        d, v = self.unrolled(t)
        return float(v[-1]) if d.size else initial


def parse_profile(text: str, source: str = "profile") -> Profile:
    """Parse profile text (module docstring); errors name ``source`` and the line."""
    dates, values, loop, loop_field = [], [], None, "LOOPAFTER"
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        where = f"{source}, line {lineno}"
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        if fields[0] in ("LOOPAFTER", "PERIODICITY"):
            require(len(fields) == 2, where, f"{fields[0]} takes one number, got {line!r}")
            require(loop is None, where, "a second LOOPAFTER / PERIODICITY")
            try:
                loop = float(fields[1])
            except ValueError:
                raise InputError(
                    f"{where}: {fields[0]} must be followed by a number, got {fields[1]!r}"
                ) from None
            ok = math.isfinite(loop) and (loop > 0 if fields[0] == "PERIODICITY" else loop >= 0)
            require(
                ok,
                where,
                f"{fields[0]} must be {'> 0' if fields[0] == 'PERIODICITY' else '>= 0'}, got {fields[1]!r}",
            )
            loop_field = f"{where}: {fields[0]}"
            continue
        require(len(fields) == 2, where, f"must be 'date value', got {line!r}")
        try:
            date, value = float(fields[0]), float(fields[1])
        except ValueError:
            raise InputError(f"{where}: must be two numbers 'date value', got {line!r}") from None
        require(
            math.isfinite(date) and 0 <= date <= MAX_TIME_S,
            where,
            f"the date must be a time >= 0, got {fields[0]!r}",
        )
        require(
            math.isfinite(value) and value >= 0, where, f"the value must be a number >= 0, got {fields[1]!r}"
        )
        if dates:
            require(date >= dates[-1], where, f"events must be sorted: date {fields[0]} after {dates[-1]!r}")
        dates.append(date)
        values.append(value)
    if loop is not None:
        require(
            dates and dates[-1] - dates[0] + loop > 0,
            source,
            "a looping profile must have events and last more than 0 s per cycle",
        )
    return Profile(np.array(dates), np.array(values), loop, loop_field)


def read_profile(path) -> Profile:
    """Read a profile file (:func:`parse_profile`)."""
    return parse_profile(read_text(path), str(path))


def format_profile(profile: Profile) -> str:
    """Profile text that :func:`parse_profile` reads back exactly (``repr`` of every float)."""
    lines = [f"{d!r} {v!r}" for d, v in zip(profile.dates.tolist(), profile.values.tolist(), strict=True)]
    if profile.loop_after is not None:
        lines.append(f"LOOPAFTER {profile.loop_after!r}")
    return "\n".join(lines) + "\n"


def write_profile(path, profile: Profile) -> None:
    Path(path).write_text(format_profile(profile), encoding="utf-8")


# ---------------------------------------------------------------------- prescient hosts
def host_profiles(inst: PrescientInstance, h: int) -> tuple[Profile, Profile]:
    """Host ``h``'s (state, speed) profiles over the instance's trace (module docstring).

    The state profile starts with ``0 v`` (``v`` = on at time 0), then ``1`` at
    every effective interval start and ``0`` at every end (touching intervals
    give an off and an on at one date: a kill). The speed profile holds the
    CPU share from ``cpu_index * period``.
    """
    # the effective intervals (no suspension) are the primitive's
    prof = WorkProfile(_one_host(inst, h))
    s, e = prof.iv_start, prof.iv_end
    dates = [0.0] if (s.size == 0 or s[0] > 0) else []
    values = [0.0] if dates else []
    for a, b in zip(s.tolist(), e.tolist(), strict=True):
        dates += [a, b]
        values += [1.0, 0.0]
    idx, share = inst.cpu_runs(h)
    return (
        Profile(np.array(dates), np.array(values)),
        Profile(idx.astype(float) * inst.period, share.copy()),
    )


def _one_host(inst: PrescientInstance, h: int) -> PrescientInstance:
    lo, hi = int(inst.up_ptr[h]), int(inst.up_ptr[h + 1])
    clo, chi = int(inst.cpu_ptr[h]), int(inst.cpu_ptr[h + 1])
    return PrescientInstance(
        clock_mhz=inst.clock_mhz[h : h + 1],
        up_start=inst.up_start[lo:hi],
        up_end=inst.up_end[lo:hi],
        up_ptr=np.array([0, hi - lo]),
        cpu_index=inst.cpu_index[clo:chi],
        cpu_share=inst.cpu_share[clo:chi],
        cpu_ptr=np.array([0, chi - clo]),
        task_minutes=inst.task_minutes[:1],
        period=inst.period,
        start=0.0,
        horizon=inst.horizon,
        suspension=inst.suspension,
    )


def intervals_from_state(profile: Profile, horizon: float, source: str = "state profile") -> list[tuple]:
    """Up intervals ``[on, off)`` of a state profile over ``[0, horizon)`` (on before the first event)."""
    dates, values = profile.unrolled(horizon)
    out = []
    on_since = 0.0
    for d, v in zip(dates.tolist(), values.tolist(), strict=True):
        if v > 0 and on_since is None:
            on_since = d
        elif v <= 0 and on_since is not None:
            if d > on_since:
                out.append((on_since, d))
            on_since = None
    if on_since is not None and horizon > on_since:
        out.append((on_since, horizon))
    return out


def runs_from_speed(profile: Profile, period: float, horizon: float, source: str = "speed profile") -> list:
    """CPU runs ``(sample, share)`` of a speed profile whose dates lie on the ``period`` grid.

    A speed above 1 is an error (a share is at most 1); before the first event
    the share is 1 (the host's peak speed, SimGrid's default).
    """
    dates, values = profile.unrolled(horizon)
    runs = [(0, 1.0)]
    for d, v in zip(dates.tolist(), values.tolist(), strict=True):
        k = d / period
        if abs(k - round(k)) > 1e-9 * max(1.0, abs(k)):
            raise InputError(f"{source}: date {d!r} is not on the {period:g}-s sample grid")
        if v > 1:
            raise InputError(f"{source}: speed {v!r} at date {d!r} is above 1 (a CPU share is at most 1)")
        k = int(round(k))
        if runs and runs[-1][0] == k:
            runs[-1] = (k, v)
        else:
            runs.append((k, v))
    return runs


def read_profiles(
    state_paths: list,
    speed_paths: list | None,
    clock_mhz: list,
    tasks: int,
    task_minutes: float,
    horizon: float,
    period: float = DEFAULT_PERIOD_S,
    start: float = 0.0,
    suspension: bool = True,
) -> PrescientInstance:
    """A prescient instance from one state profile (and optionally one speed profile) per host."""
    require(len(state_paths) == len(clock_mhz), "clock_mhz", "one clock rate per state profile")
    require(
        speed_paths is None or len(speed_paths) == len(state_paths), "speed", "one speed profile per host"
    )
    ups, cpu = [], []
    for h, path in enumerate(state_paths):
        ups.append(intervals_from_state(read_profile(path), horizon, str(path)))
        if speed_paths is not None:
            cpu.append(runs_from_speed(read_profile(speed_paths[h]), period, horizon, str(speed_paths[h])))
    return PrescientInstance.build(
        clock_mhz,
        ups,
        tasks=tasks,
        task_minutes=task_minutes,
        cpu=cpu if speed_paths is not None else None,
        period=period,
        start=start,
        horizon=horizon,
        suspension=suspension,
    )


def write_profiles(inst: PrescientInstance, folder) -> list[Path]:
    """Write ``host<h>.state`` and ``host<h>.speed`` for every host; returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for h in range(inst.n_hosts):
        state, speed = host_profiles(inst, h)
        for kind, prof in (("state", state), ("speed", speed)):
            path = folder / f"host{h}.{kind}"
            write_profile(path, prof)
            out.append(path)
    return out
