"""A local sweep's worker turnover and wall time: this checkout against a revision, in one run.

Usage: python benchmarks/bench_sweep_workers.py CONFIG --seed-store DB --before REV [--rounds 2] [--workers 2]

Installs ``REV`` into a temporary virtual environment (the dependencies are this one's), then
sweeps ``CONFIG`` into fresh copies of ``DB`` (a store holding some of its rows, so that only
the others run) with ``volsched sweep --workers W``, alternating the two revisions ``--rounds``
times. While each sweep runs it polls the driver's children every 0.2 s and counts the distinct
worker processes (loky's workers; a sweep that never replaces one has ``W``). Reports, per
revision, the median wall seconds, the workers started and whether the stores' rows agree
(status and objective of every task).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]


def install(rev: str, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(REPO), str(where / "src")], check=True)
    subprocess.run(["git", "-C", str(where / "src"), "checkout", "-q", rev], check=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(where / "venv")], check=True)
    pip = [str(where / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run([*pip, str(where / "src")], check=True, **quiet)
    return where / "venv" / "bin" / "volsched"


def sweep(volsched: str, config: Path, store: Path, workers: int, cwd: Path) -> tuple[float, int]:
    begin = time.perf_counter()
    cmd = [volsched, "sweep", str(config), "--store", str(store), "--workers", str(workers), "--quiet"]
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: set[int] = set()
    driver = psutil.Process(proc.pid)
    while proc.poll() is None:
        try:
            for child in driver.children(recursive=True):
                if "loky" in " ".join(child.cmdline()) or "joblib" in " ".join(child.cmdline()):
                    seen.add(child.pid)
        except psutil.Error:
            pass
        time.sleep(0.2)
    if proc.returncode != 0:
        raise SystemExit(f"{volsched} sweep exited {proc.returncode}")
    return time.perf_counter() - begin, len(seen)


def rows(store: Path) -> dict:
    with sqlite3.connect(store) as db:
        return {k: (s, o) for k, s, o in db.execute("SELECT key, status, objective FROM results")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--seed-store", type=Path, required=True)
    parser.add_argument("--before", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        installed = {"before": install(args.before, tmp / "before"), "after": shutil.which("volsched")}
        cwd = {"before": tmp / "before" / "src", "after": REPO}
        walls: dict[str, list[float]] = {"before": [], "after": []}
        started: dict[str, list[int]] = {"before": [], "after": []}
        stored: dict[str, dict] = {}
        for r in range(args.rounds):
            for name in ("before", "after") if r % 2 == 0 else ("after", "before"):
                store = tmp / f"{name}-{r}.db"
                shutil.copy(args.seed_store, store)
                wall, n = sweep(installed[name], args.config.resolve(), store, args.workers, cwd[name])
                walls[name].append(wall)
                started[name].append(n)
                stored[name] = rows(store)
                print(f"round {r} {name}: {wall:.1f} s, {n} workers started", flush=True)
        same = stored["before"] == stored["after"]
        for name in ("before", "after"):
            print(f"{name}: median {statistics.median(walls[name]):.1f} s, workers started {started[name]}")
        ratio = statistics.median(walls["before"]) / statistics.median(walls["after"])
        print(f"speed-up {ratio:.2f}x; rows the same: {same} ({len(stored['after'])} rows)")


if __name__ == "__main__":
    main()
