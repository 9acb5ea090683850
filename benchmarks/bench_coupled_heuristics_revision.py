"""The 17 coupled heuristics' runs, as ``Family.simulate`` scores them, now and at an earlier revision.

Usage: python benchmarks/bench_coupled_heuristics_revision.py --before-rev REV [--instances 12]
       [--seed 2013] [--tasks 10]

Samples ``--instances`` realizations of the ``casanova2013`` grid (``paper-realization``, 2,000
stored slots, ``--tasks`` tasks; n_com, w_min, scenario and trial drawn with ``--seed``) and runs
every heuristic of Table I on each, seed 0, as a sweep's task does (``Family.simulate``: the run,
then the replay that verifies it). "Before" is the package at ``--before-rev``, installed from
``git archive`` into a virtual environment that shares this one's site packages; "after" is the
package imported here. Each side is a worker process fed the same realizations in turn, one
realization at a time, alternating which side goes first, so that both meet the same load; each
times its own runs in CPU seconds (``time.process_time``) after a warm-up run of every heuristic
(numba's cache loaded, nothing compiled in the timing). Prints the CPU seconds per heuristic on
each side, their ratio, and how many runs' objectives differ (a faster evaluation must not change
a decision).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from volsched.heuristics.coupled import NAMES

ROOT = Path(__file__).resolve().parent.parent
HEURISTICS = list(NAMES)

#: The worker: reads one realization's parameters per line, answers with its runs' CPU seconds and
#: objectives. Its first line warms every heuristic up on the first realization.
WORKER = r"""
import json, sys, time
from volsched.families import FAMILIES
family = FAMILIES["coupled"]
names = json.loads(sys.argv[1])
heuristics = [family.heuristic(n) for n in names]
warm = True
for line in sys.stdin:
    instance = family.generate_from(json.loads(line))
    if warm:
        for h in heuristics:
            family.simulate(instance, h, 0)
        warm = False
    out = {}
    for h in heuristics:
        begin = time.process_time()
        run = family.simulate(instance, h, 0)
        out[h.name] = [time.process_time() - begin, run["objective"]]
    print(json.dumps(out), flush=True)
"""


def before_python(rev: str, where: Path) -> str:
    """A Python whose volsched is the package at ``rev`` (``git archive``, a venv over this one's site)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    src = where / "src"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(src, filter="data")
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(src)], check=True)
    return python


def sample(n: int, seed: int, tasks: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [
        {
            "preset": "paper-realization",
            "tasks": tasks,
            "n_com": int(rng.choice([5, 10, 20])),
            "w_min": int(rng.integers(1, 11)),
            "scenario": int(rng.integers(10)),
            "trial": int(rng.integers(10)),
            "seed": 0,
            "slots": 2000,
        }
        for _ in range(n)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before-rev", required=True)
    ap.add_argument("--instances", type=int, default=12)
    ap.add_argument("--seed", type=int, default=2013)
    ap.add_argument("--tasks", type=int, default=10)
    args = ap.parse_args()
    # One BLAS thread per process, as a sweep's workers have.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory(prefix="before_") as tmp:
        pythons = {"before": before_python(args.before_rev, Path(tmp)), "after": sys.executable}
        workers = {
            side: subprocess.Popen(
                [python, "-c", WORKER, json.dumps(HEURISTICS)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
                cwd=tmp,  # not ROOT: the checkout's folders would shadow the installed package
            )
            for side, python in pythons.items()
        }
        cpu = {side: dict.fromkeys(HEURISTICS, 0.0) for side in workers}
        differ = []
        for i, params in enumerate(sample(args.instances, args.seed, args.tasks)):
            answers = {}
            for side in ("before", "after") if i % 2 == 0 else ("after", "before"):
                worker = workers[side]
                worker.stdin.write(json.dumps(params) + "\n")
                worker.stdin.flush()
                answers[side] = json.loads(worker.stdout.readline())
            for name in HEURISTICS:
                for side in workers:
                    cpu[side][name] += answers[side][name][0]
                if answers["before"][name][1] != answers["after"][name][1]:
                    differ.append((params, name, answers["before"][name][1], answers["after"][name][1]))
            print(f"realization {i + 1}/{args.instances}: {params}", file=sys.stderr, flush=True)
        for worker in workers.values():
            worker.stdin.close()
            worker.wait()
    print(f"| heuristic | before: CPU s | after: CPU s | before / after |  (rev {args.before_rev})")
    print("|---|---:|---:|---:|")
    for name in [*HEURISTICS, "all"]:
        b = sum(cpu["before"].values()) if name == "all" else cpu["before"][name]
        a = sum(cpu["after"].values()) if name == "all" else cpu["after"][name]
        print(f"| {name} | {b:.2f} | {a:.2f} | {b / a:.2f}x |")
    runs = args.instances * len(HEURISTICS)
    print(f"objectives differing: {len(differ)} of {runs} runs")
    for d in differ:
        print("  ", d)


if __name__ == "__main__":
    main()
