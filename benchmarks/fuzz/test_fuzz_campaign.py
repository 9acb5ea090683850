"""The long fuzz campaign: ``python -m pytest benchmarks/fuzz --runslow -s``.

Thousands of mutants of every family's instance files, result files and bare solutions, command
lines, sweep configs, result stores and generator input files (the engine and oracle of
``tests/fuzz``), each run through ``volsched`` in-process and checked against the CLI contract
and, for an accepting ``verify``, the independent oracle. Prints the counts per family and kind;
the figures go to ``benchmarks/RESULTS.md`` ("Fuzz campaign and truth judge").

``VOLSCHED_FUZZ_MUTANTS`` (default 50,000, about 5 minutes on 2 cores) and ``VOLSCHED_FUZZ_SEED``
(default 0) set the size and the random stream; a defect prints its mutant and the command that met it.
"""

from __future__ import annotations

import os
import time

import pytest
from fuzz.engine import Tally, run_campaign


def _table(tally: dict, wall: float, mutants: int, seed: int, seeds: int) -> str:
    rows = [
        "| family | kind | mutants | accepted (exit 0) | rejected cleanly (exit 2) | verify accepts "
        "judged by the oracle | defects |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    total = Tally()
    for (family, kind), t in sorted(tally.items()):
        rows.append(
            f"| {family} | {kind} | {t.tried:,} | {t.accepted:,} | {t.rejected:,} | {t.judged:,} | "
            f"{t.defects} |"
        )
        for name in ("tried", "accepted", "rejected", "judged", "defects"):
            setattr(total, name, getattr(total, name) + getattr(t, name))
    rows.append(
        f"| **all** | | **{total.tried:,}** | **{total.accepted:,}** | **{total.rejected:,}** | "
        f"**{total.judged:,}** | **{total.defects}** |"
    )
    return (
        f"{mutants:,} mutants, random seed {seed}, {seeds} valid seed files, {wall:.0f} s wall "
        f"({os.cpu_count()} cores)\n\n" + "\n".join(rows)
    )


@pytest.mark.slow
def test_fuzz_campaign(tmp_path):
    mutants = int(os.environ.get("VOLSCHED_FUZZ_MUTANTS", "50000"))
    seed = int(os.environ.get("VOLSCHED_FUZZ_SEED", "0"))
    begin = time.perf_counter()

    def progress(i, _):
        if i % 2000 == 0:
            print(f"  {i:,} mutants, {time.perf_counter() - begin:.0f} s", flush=True)

    report = run_campaign(mutants, seed, tmp_path, progress=progress)
    wall = time.perf_counter() - begin
    print("\n" + _table(report["tally"], wall, mutants, seed, report["seeds"]))
    for kind, what, argv, code, defects in report["defects"][:50]:
        print(f"DEFECT {kind} {what}\n  volsched {' '.join(argv)}\n  exit {code}: {defects}")
    assert not report["defects"], f"{len(report['defects'])} defects (first ones printed above)"
