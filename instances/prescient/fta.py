"""Failure Trace Archive reader: ``event_trace.tab`` files as prescient instances.

The FTA format (fta.scem.westernsydney.edu.au, "FTAFormat") stores one event
per line: ``event_id component_id node_id platform_id node_name event_type
event_start_time event_end_time event_end_reason``, separated by tabs or
spaces; ``event_type`` 1 is availability and 0 unavailability; times are UNIX
epoch seconds; ``event_end_reason`` is an integer code (0 undefined, 1
miscellaneous, 2 mouse activity, 3 keyboard activity, 4 scheduled downtime, 5
graceful shutdown, 6 hard shutdown; "NULL" is read as -1). Some files name
the end column ``event_stop_time``; both are accepted. A first line naming the
columns (it contains ``event_type``) sets their order; without it the order
above is assumed. Blank lines and lines starting with ``#`` are skipped.

Each node's availability events (type 1) become its up intervals, in time
order, with their end reasons (:attr:`PrescientInstance.end_reasons`).

Checked of every event, whatever its type:

* ``event_type`` is 0 or 1;
* both times are decimal numbers (``1100000000``, ``500.5``, ``1.1e9``) in
  ``[0, MAX_TIME_S]`` (1e12) seconds, the end after the start;
* ``event_end_reason`` (when the column is there) is a decimal integer in
  ``[-1, MAX_FIELD_INT]`` (10**9) or a null token (``NULL``, ``\\N``, ``NA``,
  ``-``, read as -1);
* no two events of one node overlap, neither two of one type nor an
  availability and an unavailability event (events are ``[start, end)``:
  they may touch).

Beyond that check, unavailability events carry nothing: a node is down
outside its availability events, whether or not an unavailability event
says so. Every node needs at least one availability event.

Defaults, documented (reading 1.10, 1.11):

* an FTA trace carries **no clock rate and no CPU share**: hosts run at the
  reference **1500 MHz** (or ``clock``) with the **whole CPU** while available,
  so there is no suspension (share 0 never occurs) and no clock heterogeneity;
* the application **starts at the trace's first event** unless ``start`` is
  given; the history window is then the 24 hours before ``start`` when the
  trace covers them (REP-PROB's "previous day"), else none;
* the horizon is the trace's last event end.

Malformed files are :class:`InputError` naming the file and line.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from ..errors import MAX_FIELD_INT, InputError, check_int, check_number, require
from ..io import read_text
from .model import MAX_TIME_S, REF_CLOCK_MHZ, PrescientInstance

COLUMNS = (
    "event_id",
    "component_id",
    "node_id",
    "platform_id",
    "node_name",
    "event_type",
    "event_start_time",
    "event_end_time",
    "event_end_reason",
)
_ALIASES = {"event_stop_time": "event_end_time"}
_NEEDED = ("node_id", "event_type", "event_start_time", "event_end_time")
_NULLS = ("NULL", "\\N", "NA", "-")
# ASCII only: float() and int() also take "1_000", "inf" and other scripts' digits.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_KINDS = {1: "availability", 0: "unavailability"}


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _time(text: str, where: str, what: str) -> float:
    if _DECIMAL.fullmatch(text) is None:
        raise InputError(f"{where}: {what} must be a number of seconds, got {_shown(text)}")
    value = float(text)
    if not (0 <= value <= MAX_TIME_S):
        bound = f"<= {MAX_TIME_S:g}"
        raise InputError(f"{where}: {what} must be a finite time >= 0 and {bound}, got {_shown(text)}")
    return value


def _reason(token: str, where: str) -> int:
    if token.upper() in _NULLS:
        return -1
    try:  # int() refuses more than sys.get_int_max_str_digits() digits with a ValueError
        ok = _INTEGER.fullmatch(token) is not None and -1 <= int(token) <= MAX_FIELD_INT
    except ValueError:
        ok = False
    if not ok:
        raise InputError(
            f"{where}: event_end_reason must be an integer code in [-1, {MAX_FIELD_INT}] or NULL, "
            f"got {_shown(token)}"
        )
    return int(token)


def read_events(path) -> dict:
    """Parse an ``event_trace.tab`` file: per node, its events ``(start, end, type, reason, line)``."""
    text = read_text(path)
    columns = None
    width = 0
    nodes: dict[str, dict] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        where = f"{path}, line {lineno}"
        if columns is None and "event_type" in fields:
            named = [_ALIASES.get(f, f) for f in fields]
            for need in _NEEDED:
                require(
                    need in named, where, f"the header has no column {need!r} (columns: {' '.join(fields)})"
                )
            columns = {name: i for i, name in enumerate(named)}
            width = len(fields)  # names may repeat: every header field is a column
            continue
        if columns is None:
            columns = {name: i for i, name in enumerate(COLUMNS)}
            width = len(COLUMNS)
        if len(fields) < width:
            raise InputError(
                f"{where}: has {len(fields)} fields, expected {width} "
                f"({' '.join(sorted(columns, key=columns.get))})"
            )
        node = fields[columns["node_id"]]
        etype = fields[columns["event_type"]]
        if etype not in ("0", "1"):
            raise InputError(f"{where}: event_type must be 1 (available) or 0 (unavailable), got {etype!r}")
        start = _time(fields[columns["event_start_time"]], where, "event_start_time")
        end = _time(fields[columns["event_end_time"]], where, "event_end_time")
        if end <= start:
            raise InputError(f"{where}: the event ends ({end!r}) at or before it starts ({start!r})")
        reason = -1
        if "event_end_reason" in columns and columns["event_end_reason"] < len(fields):
            reason = _reason(fields[columns["event_end_reason"]], where)
        name = (
            fields[columns["node_name"]]
            if "node_name" in columns and columns["node_name"] < len(fields)
            else node
        )
        entry = nodes.setdefault(node, {"name": name, "line": lineno, "events": []})
        entry["events"].append((start, end, int(etype), reason, lineno))
    require(nodes, str(path), "has no events")
    return nodes


def _check_overlaps(path, name: str, events: list) -> None:
    """``InputError`` at the first event (by start) that begins before an earlier one of its node ends.

    Any two events count, whatever their types: an availability event inside an
    unavailability one would leave the host's state undefined.
    """
    latest = None  # the event ending last among those started so far
    for ev in events:
        if latest is not None and ev[0] < latest[1]:
            raise InputError(
                f"{path}, line {ev[4]}: event_start_time: node {name}: this {_KINDS[ev[2]]} event starts at "
                f"{ev[0]!r}, before the {_KINDS[latest[2]]} event on line {latest[4]} ends ({latest[1]!r})"
            )
        if latest is None or ev[1] > latest[1]:
            latest = ev


def read_fta(
    path, tasks: int, task_minutes: float, clock: float | None = None, start: float | None = None
) -> PrescientInstance:
    """A prescient instance from an FTA ``event_trace.tab`` (module docstring for the defaults)."""
    tasks = check_int(tasks, "tasks", 1)
    task_minutes = check_number(task_minutes, "task_minutes", 0.0)
    require(task_minutes > 0, "task_minutes", f"must be positive, got {task_minutes!r}")
    clock = REF_CLOCK_MHZ if clock is None else check_number(clock, "clock", 0.0)
    require(clock > 0, "clock", f"must be a positive clock rate in MHz, got {clock!r}")
    nodes = read_events(path)
    ups, reasons, names = [], [], []
    first, last = math.inf, 0.0
    for entry in nodes.values():
        events = sorted(entry["events"], key=lambda ev: (ev[0], ev[4]))
        first = min(first, events[0][0])
        last = max(last, max(e[1] for e in events))
        _check_overlaps(path, entry["name"], events)
        avail = [ev for ev in events if ev[2] == 1]
        if not avail:
            raise InputError(
                f"{path}, line {entry['line']}: node {entry['name']} has no availability "
                f"event over the whole trace"
            )
        ups.append([(ev[0], ev[1]) for ev in avail])
        reasons.append([ev[3] for ev in avail])
        names.append(entry["name"])
    if start is None:
        start = first
        history = None
    else:
        start = check_number(start, "start", 0.0)
        history = (start - 86400.0, start) if start - 86400.0 >= first else None
    require(start < last, "start", f"must be before the trace's last event end {last!r}, got {start!r}")
    return PrescientInstance.build(
        [clock] * len(ups),
        ups,
        tasks=tasks,
        task_minutes=task_minutes,
        cpu=None,
        start=start,
        history=history,
        horizon=last,
        end_reasons=reasons,
        host_names=names,
        name=f"prescient-fta-{Path(str(path)).stem}-t{tasks}-m{task_minutes:g}",
        params={
            "fta": str(path),
            "tasks": tasks,
            "task_minutes": task_minutes,
            "clock": clock,
            "start": start,
        },
    )


def write_fta(inst: PrescientInstance, path) -> None:
    """Write an instance's host availability as an ``event_trace.tab`` (with a header line).

    Availability events carry the instance's end reasons (-1 as ``NULL``);
    unavailability events fill the gaps between them. CPU shares and clock
    rates are not part of the format and are lost.
    """
    rows = ["\t".join(COLUMNS)]
    eid = 0
    for h in range(inst.n_hosts):
        name = inst.host_names[h] if inst.host_names is not None else f"host{h}"
        lo, hi = int(inst.up_ptr[h]), int(inst.up_ptr[h + 1])
        prev_end = None
        for k in range(lo, hi):
            s, e = float(inst.up_start[k]), float(inst.up_end[k])
            if prev_end is not None and s > prev_end:
                rows.append("\t".join(map(str, (eid, h, h, 0, name, 0, repr(prev_end), repr(s), "NULL"))))
                eid += 1
            reason = -1 if inst.end_reasons is None else int(inst.end_reasons[k])
            rows.append(
                "\t".join(
                    map(str, (eid, h, h, 0, name, 1, repr(s), repr(e), "NULL" if reason < 0 else reason))
                )
            )
            eid += 1
            prev_end = e
    Path(path).write_text("\n".join(rows) + "\n", encoding="utf-8")


__all__ = ["COLUMNS", "read_events", "read_fta", "write_fta"]
