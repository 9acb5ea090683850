"""Prescient instances at the speed target's scale: N = 10,000 hosts, T = 100,000 tasks, one week at 10 s.

Times, in one run on the same instance: the synthetic generator, ``to_json``,
writing and parsing the file, :meth:`PrescientInstance.from_json` (its
vectorised path against the per-element reference: each pair's types
checked in Python, then :meth:`PrescientInstance.build` per host; the ratio),
and :class:`WorkProfile` over the whole week and over the first hours after
the start (what the exact methods read).

``python benchmarks/bench_prescient_loading.py [--hosts 10000] [--platform sdsc]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from volsched.instances.io import read_json, write_json
from volsched.instances.prescient import PrescientInstance, WorkProfile
from volsched.instances.prescient.model import _host_lists
from volsched.instances.prescient.platforms import generate_platform


def clock(label: str, fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    dt = time.perf_counter() - t
    print(f"{label:<46} {dt:8.2f} s", flush=True)
    return out, dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=10_000)
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--platform", default="sdsc")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}; {args.platform}, N = {args.hosts}, T = {args.tasks}, 7 days")
    inst, _ = clock("generate", generate_platform, args.platform, args.hosts, args.tasks, 15.0, 0)
    print(f"  {inst.up_start.size:,} up intervals, {inst.cpu_index.size:,} CPU runs")
    obj, _ = clock("to_json", inst.to_json)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.json")
        clock("write_json", write_json, path, obj)
        print(f"  file: {os.path.getsize(path) / 2**20:.1f} MiB")
        parsed, t_parse = clock("read_json (JSON parse)", read_json, path)
    back, t_fast = clock("from_json (vectorised)", PrescientInstance.from_json, parsed)
    assert back == inst
    data = parsed["data"]

    def reference():
        # the per-element path: every pair's types checked in Python, then build() per host
        for key in ("up", "cpu"):
            _host_lists(data[key], key, len(data["clock_mhz"]), 2)
        return PrescientInstance.build(
            data["clock_mhz"],
            data["up"],
            tasks=data["tasks"],
            task_minutes=data["task_minutes"],
            cpu=data["cpu"],
            period=data["period"],
            start=data["start"],
            history=tuple(data["history"]),
            horizon=data["horizon"],
            suspension=data["suspension"],
        )

    ref, t_ref = clock("reference: per-element checks + build()", reference)
    assert np.array_equal(ref.up_start, back.up_start)
    print(
        f"  from_json speed-up over the reference: {t_ref / t_fast:.1f}x; "
        f"loading total (parse + from_json): {t_parse + t_fast:.2f} s"
    )
    clock("WorkProfile, whole week", WorkProfile, back)
    for hours in (2, 8):
        clock(f"WorkProfile, until start + {hours} h", WorkProfile, back, until=back.start + hours * 3600.0)


if __name__ == "__main__":
    main()
