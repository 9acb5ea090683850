"""The smoke preset swept on a cold numba cache and on a warm one: the rows must be the same.

Usage: ``python benchmarks/bench_smoke_determinism.py [--preset smoke] [--busy 2]``. The cold run
gets a fresh ``NUMBA_CACHE_DIR`` and ``--busy`` CPU-bound processes beside it; the warm run reuses
that cache. Prints the task counts, the statuses, the wall-clock stops and the rows that differ
(runtimes aside), and exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMPARED = ("status", "objective", "bound", "metrics", "error")


def _rows(store: Path) -> dict[str, tuple]:
    with sqlite3.connect(store) as db:
        return {row[0]: row[1:] for row in db.execute(f"SELECT key, {', '.join(COMPARED)} FROM results")}


def _sweep(preset: str, store: Path, env: dict, busy: int) -> float:
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    begin = time.perf_counter()
    try:
        subprocess.run(
            ["volsched", "sweep", "--preset", preset, "--store", str(store), "--quiet"], env=env, check=True
        )
    finally:
        for proc in spinners:
            proc.kill()
    return time.perf_counter() - begin


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="smoke")
    parser.add_argument("--busy", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}
        cold_s = _sweep(args.preset, Path(tmp) / "cold.db", env, args.busy)
        warm_s = _sweep(args.preset, Path(tmp) / "warm.db", env, 0)
        cold, warm = _rows(Path(tmp) / "cold.db"), _rows(Path(tmp) / "warm.db")
    differ = sorted(k for k in cold if cold[k] != warm.get(k))
    statuses: dict[str, int] = {}
    for row in cold.values():
        statuses[row[0]] = statuses.get(row[0], 0) + 1
    print(f"tasks: cold {len(cold)}, warm {len(warm)}; statuses (cold) {statuses}")
    print(
        f"wall-clock stops (timeout rows): cold {statuses.get('timeout', 0)}, "
        f"errors {statuses.get('error', 0)}"
    )
    print(
        f"rows differing (runtimes aside): {len(differ)}; cold {cold_s:.0f} s "
        f"(with {args.busy} busy processes), warm {warm_s:.0f} s"
    )
    return 1 if differ or set(cold) != set(warm) else 0


if __name__ == "__main__":
    sys.exit(main())
