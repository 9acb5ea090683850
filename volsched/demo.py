"""``volsched demo``: every registered family end to end on seeded instances.

Each family contributes its own part (``Family.demo``): it generates
instances, solves them exactly (verified), cross-checks the exact methods,
scores its heuristics against the optimum, and writes instances, results and
plots under the output folder. This module only asks each family in turn.
"""

from __future__ import annotations

import time
from pathlib import Path

from volsched.instances.errors import InputError
from volsched.instances.io import write_json

from .families import FAMILIES


def run_demo(out: Path, full: bool = False, quiet: bool = False, seed: int = 0) -> dict:
    """Run every family's demo part into ``out``; return a summary whose ``text`` is the printed report.

    With ``full``, a family runs its paper-size reproduction where it has one
    (checkpoint: the bag-of-tasks Figures 1-3, hours on 2 cores).
    """
    begin = time.perf_counter()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out: cannot create {out} ({exc.strerror or exc})") from None
    results, lines = {}, []
    for name, family in FAMILIES.items():
        if family.demo is None:
            continue
        part = family.demo(out, quiet=quiet, full=full, seed=seed)
        results[name] = part.results
        lines += ([""] if lines else []) + part.lines
    write_json(out / "results.json", results)
    elapsed = time.perf_counter() - begin
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    lines.append(f"\nwrote {out}/: {len(files)} files (instances/, results.json, plots) in {elapsed:.1f} s")
    return {"out": str(out), "files": files, "elapsed_s": elapsed, "text": "\n".join(lines)}
