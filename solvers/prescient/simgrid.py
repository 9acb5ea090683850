"""Export a prescient instance (and optionally a schedule) as a SimGrid 3.32 scenario.

``volsched export simgrid FILE --out DIR`` calls :func:`export_simgrid`; the
tests replay its output in SimGrid as an independent oracle of volsched's
completion and failure times. The module only writes files (SimGrid is not
needed to export).

What is written
---------------
``platform.xml`` (DTD 4.1): one ``<host>`` per instance host, ``id`` its name
(``host_names`` if unique, else ``h<index>``), ``speed`` its dedicated operations per second
``110.7e6 * clock / 1500`` (so one SimGrid flop is one of the paper's
operations, Section 3.1), with

* ``speed_file="h<index>.speed"``: the CPU share as SimGrid's speed scale, one
  ``date value`` line per CPU run;
* ``state_file="h<index>.state"``: ``date 1`` when the host comes up, ``date 0``
  when it goes down; an up interval that touches the next one is written as
  ``date 0`` then ``date 1`` at the same date, which SimGrid applies in that
  order (the host-down kills the running task). Without suspension (UCB), the
  runs of share 0 are off periods too, as the model reads them
  (:class:`~volsched.instances.prescient.WorkProfile`'s effective intervals).

plus a host ``server`` (1 Gflop/s, never down) for a master or a keeper actor.
Dates are seconds **from the application's submission** (``instance.start``,
SimGrid's time 0); the traces before it (the history window) are not written.

Two limits of SimGrid 3.32 found while building this, and how the export
handles them: a speed scale of ``0`` is *ignored* when it comes after another
value (a running task keeps its previous speed) and aborts the run at date 0
("The Impossible Did Happen"). A share of 0 is therefore written as
:data:`ZERO_SPEED` (1e-12), which moves a completion by at most 1e-12 times the
time spent at share 0. And the simulation ends when no actor is left, even
with state events pending: the deployment keeps a ``keeper`` on ``server``.

One tie is left as SimGrid has it: a task whose work is done exactly when its
host goes off completes in volsched (the model's rule: a completion at the
interval's end counts), but SimGrid applies the host-off first and kills it at
that same instant. Only exact fits meet it (round clock rates, shares and
times); the tests accept it as a tie.

With a ``schedule`` (the verifier's format, :mod:`.verify`),
``deployment.xml`` has one ``worker`` actor per host that runs attempts,
``on_failure="RESTART"`` (SimGrid restarts it when its host comes back up),
with one ``<argument value="task start flops cancel_at"/>`` per attempt on that
host in start order: ``start`` in SimGrid time, ``flops`` the task's
operations, ``cancel_at`` the SimGrid date at which a cancelled attempt is
stopped (``inf`` otherwise). A worker sleeps until each ``start`` at or after
its (re)start date, executes, and stops a cancelled attempt at ``cancel_at``;
SimGrid's host-down kills it (a failure). The ``keeper`` actor sleeps until
after the last attempt's end. ``volsched-simgrid.json`` records the origin,
the host names and these conventions.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from volsched.instances.prescient import PrescientInstance, WorkProfile, ops_per_second, task_ops

#: What a CPU share of 0 becomes in a speed profile (SimGrid 3.32 mishandles 0; module docstring).
ZERO_SPEED = 1e-12
_HEADER = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"


def host_ids(instance: PrescientInstance) -> list[str]:
    """SimGrid host ids: the host names if unique and none is ``server``, else ``h<index>``."""
    names = instance.host_names
    if names is not None and len(set(names)) == len(names) and "server" not in names:
        return [str(n) for n in names]
    return [f"h{h}" for h in range(instance.n_hosts)]


def _num(x: float) -> str:
    return repr(float(x))


def _speed_lines(instance: PrescientInstance, h: int) -> list[str]:
    idx, share = instance.cpu_runs(h)
    times = idx * instance.period - instance.start
    first = max(int(np.searchsorted(times, 0.0, side="right")) - 1, 0)
    lines = []
    for j in range(first, len(times)):
        date = max(float(times[j]), 0.0)
        if instance.horizon - instance.start < date:
            break
        value = float(share[j]) if share[j] > 0 else ZERO_SPEED
        lines.append(f"{_num(date)} {_num(value)}")
    return lines


def _state_lines(start: np.ndarray, end: np.ndarray) -> list[str]:
    lines = []
    if len(start) == 0 or start[0] > 0:
        lines.append("0.0 0")
    for a, b in zip(start.tolist(), end.tolist(), strict=True):
        lines.append(f"{_num(max(a, 0.0))} 1")
        lines.append(f"{_num(b)} 0")
    return lines


def export_simgrid(instance: PrescientInstance, out_dir, schedule: dict | None = None) -> list[Path]:
    """Write the SimGrid scenario of ``instance`` (and of ``schedule``) into ``out_dir``.

    Parameters
    ----------
    instance : PrescientInstance
    out_dir : path
        Created if missing; existing files of the same names are replaced.
    schedule : dict, optional
        A solution in the verifier's format (``{"attempts": [...]}``); its
        attempts become the workers' arguments (module docstring). It is not
        verified here: verify it first.

    Returns
    -------
    list of Path
        The files written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ids = host_ids(instance)
    t0 = float(instance.start)
    speed = ops_per_second(instance.clock_mhz)
    profile = WorkProfile(instance)
    written = []
    rows = []
    for h, name in enumerate(ids):
        lo, hi = profile.iv_ptr[h], profile.iv_ptr[h + 1]
        s = profile.iv_start[lo:hi] - t0
        e = profile.iv_end[lo:hi] - t0
        keep = e > 0
        speed_file, state_file = out / f"h{h}.speed", out / f"h{h}.state"
        speed_file.write_text("\n".join(_speed_lines(instance, h)) + "\n")
        state_file.write_text("\n".join(_state_lines(s[keep], e[keep])) + "\n")
        written += [speed_file, state_file]
        rows.append(
            f'    <host id={quoteattr(name)} speed="{_num(speed[h])}f" '
            f"speed_file={quoteattr(speed_file.name)} state_file={quoteattr(state_file.name)}/>"
        )
    rows.append('    <host id="server" speed="1e9f"/>')
    platform = out / "platform.xml"
    platform.write_text(
        _HEADER
        + '<platform version="4.1">\n  <zone id="volsched" routing="Full">\n'
        + "\n".join(rows)
        + "\n  </zone>\n</platform>\n"
    )
    written.append(platform)
    meta = {
        "format": "volsched-simgrid",
        "origin": t0,
        "hosts": ids,
        "zero_speed": ZERO_SPEED,
        "suspension": bool(instance.suspension),
        "server": "server",
        "time": "SimGrid date = trace time - origin (the application's submission)",
    }
    if schedule is not None:
        ops = task_ops(instance.task_minutes)
        per_host: dict[int, list] = {}
        last = 0.0
        for a in schedule["attempts"]:
            cancel = float(a["end"]) - t0 if a["outcome"] == "cancelled" else math.inf
            per_host.setdefault(int(a["host"]), []).append(
                (float(a["start"]) - t0, int(a["task"]), float(ops[int(a["task"])]), cancel)
            )
            last = max(last, float(a["end"]) - t0)
        actors = []
        for h in sorted(per_host):
            args = "".join(
                f'\n    <argument value="{task} {_num(st)} {_num(fl)} '
                f'{_num(ca) if ca < math.inf else "inf"}"/>'
                for st, task, fl, ca in sorted(per_host[h])
            )
            actors.append(
                f'  <actor host={quoteattr(ids[h])} function="worker" on_failure="RESTART">{args}\n  </actor>'
            )
        actors.append(
            '  <actor host="server" function="keeper">\n'
            f'    <argument value="{_num(last + 1.0)}"/>\n  </actor>'
        )
        deployment = out / "deployment.xml"
        deployment.write_text(_HEADER + '<platform version="4.1">\n' + "\n".join(actors) + "\n</platform>\n")
        written.append(deployment)
        meta["deployment"] = deployment.name
    meta_file = out / "volsched-simgrid.json"
    meta_file.write_text(json.dumps(meta, indent=1) + "\n")
    written.append(meta_file)
    return written
