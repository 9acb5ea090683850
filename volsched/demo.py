"""``volsched demo``: every registered family end to end on seeded instances.

Each family contributes its own part (:mod:`volsched.demos`): it generates
instances, solves them exactly (verified), cross-checks the exact methods,
scores its heuristics against the optimum, and writes instances, results and
plots under the output folder. This module only asks each family in turn.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from typing import TYPE_CHECKING

from volsched.instances.errors import InputError
from volsched.instances.io import write_json

from . import demos
from .families import FAMILIES

if TYPE_CHECKING:
    from pathlib import Path

#: Result fields measured in seconds: they vary from run to run, so ``results.json`` (byte-identical
#: on every run and machine) leaves them to ``timings.json``, keyed by their path in the results.
TIMING_KEYS = ("runtime_s", "elapsed_s")


def _without_timings(obj, timings: dict, path: str):
    """``obj`` without its :data:`TIMING_KEYS` fields, which go to ``timings`` by path."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            where = f"{path}/{key}"
            if key in TIMING_KEYS:
                timings[where] = value
            else:
                out[key] = _without_timings(value, timings, where)
        return out
    if isinstance(obj, list):
        return [_without_timings(v, timings, f"{path}/{i}") for i, v in enumerate(obj)]
    return obj


def run_demo(out: Path, full: bool = False, quiet: bool = False, seed: int = 0) -> dict:
    """Run every family's demo part into ``out``; return a summary whose ``text`` is the printed report.

    With ``full``, a family runs its paper-size reproduction where it has one
    (checkpoint: the bag-of-tasks Figures 1-3, hours on 2 cores). Every exact
    method runs on a work budget, so ``results.json`` is the same bytes on
    every run and machine; the seconds are in ``timings.json``.
    """
    begin = time.perf_counter()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out: cannot create {out} ({exc.strerror or exc})") from None
    results, lines = {}, []
    for name in FAMILIES:
        module = f"{demos.__name__}.{name}"
        if importlib.util.find_spec(module) is None:
            continue
        part = importlib.import_module(module).demo(out, quiet=quiet, full=full, seed=seed)
        results[name] = part.results
        lines += ([""] if lines else []) + part.lines
    timings: dict = {}
    write_json(out / "results.json", _without_timings(results, timings, ""))
    write_json(out / "timings.json", timings)
    elapsed = time.perf_counter() - begin
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    lines.append(f"\nwrote {out}/: {len(files)} files (instances/, results.json, plots) in {elapsed:.1f} s")
    return {"out": str(out), "files": files, "elapsed_s": elapsed, "text": "\n".join(lines)}
