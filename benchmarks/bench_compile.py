"""Where numba's cold compilation cost goes: per kernel, per specialisation, per command.

Every measurement runs in a child process with a private, fresh ``NUMBA_CACHE_DIR`` (cold),
then, where asked, again on the same directory (warm), so the caches of other users of the
machine are never read or written. Seconds are reported as wall time and as the child's own
CPU time (user + system): on a shared machine the CPU time is the steadier figure.

Commands (run from the repository root)::

    python benchmarks/bench_compile.py kernels [--workload compile] [--top 25]
        per function: specialisations compiled, inclusive and exclusive compile seconds
    python benchmarks/bench_compile.py cli [--only compile,bnb,ie,evaluate,demo]
        cold and warm seconds of each CLI command
    python benchmarks/bench_compile.py imports
        which modules of ``volsched.cli`` pull numba in at import
    python benchmarks/bench_compile.py bnb --before OLD_KERNEL.py
        the bnb's search with the current kernel and with another copy of ``_bnb_kernel.py``
        (e.g. ``git show REV:solvers/coupled/_bnb_kernel.py``), alternating in one process on
        seeded Markov instances: optimum and nodes must be equal; thread CPU seconds compared
        (the kernel dispatched second in a process pays about 1 ms per search of numba's slow
        argument typing, two ``Level`` classes of one name: small instances show that, not the
        kernel)
    python benchmarks/bench_compile.py bnb-cold KERNEL.py [KERNEL.py ...]
        each copy of ``_bnb_kernel.py`` compiled cold, in its own process at the same time:
        CPU seconds of a greedy, a tabu and a search on each side

Workloads of ``kernels``: ``compile`` (``volsched compile``), ``bnb`` (a coupled
``solve --method bnb``), ``ie`` (``simulate --heuristic IE``), ``evaluate`` (on a coupled paper
realization), ``demo``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The CLI commands measured; ``{dir}`` is a scratch folder holding the instances.
COMMANDS = {
    "compile": ["compile", "--json"],
    "bnb": ["solve", "{dir}/markov.json", "--method", "bnb", "--json"],
    "ie": ["simulate", "{dir}/paper.json", "--heuristic", "IE", "--json"],
    "evaluate": ["evaluate", "{dir}/paper.json", "--json"],
    "demo": ["demo", "--out", "{dir}/demo", "--json"],
}
#: The instances those commands read (``volsched generate coupled ...``).
INSTANCES = {
    "markov.json": ["--preset", "markov", "--processors", "20", "--slots", "500", "--seed", "0"],
    "paper.json": ["--preset", "paper-realization", "--tasks", "5", "--seed", "0"],
}


#: ``--tree DIR``: run another copy of the package (``DIR/volsched`` with its ``instances``,
#: ``solvers`` and ``heuristics`` inside), e.g. the code before a change, beside the current one.
TREE: str | None = None


def _child_env(cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    env.pop("NUMBA_DISABLE_JIT", None)
    if TREE:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [TREE, env.get("PYTHONPATH")]))
    return env


def _instances(scratch: Path) -> None:
    for name, args in INSTANCES.items():
        subprocess.run(
            ["volsched", "generate", "coupled", *args, "--out", str(scratch / name)],
            check=True,
            capture_output=True,
            env=_child_env(str(scratch / "gen-cache")),
        )


def _timed(argv: list[str], env: dict) -> dict:
    """Wall and CPU seconds of one child process."""
    before = os.times()
    begin = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - begin
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "stdout": proc.stdout}


def cmd_cli(args) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bench-compile-"))
    try:
        _instances(scratch)
        rows = []
        for name in args.only.split(","):
            argv = ["volsched", *(a.format(dir=scratch) for a in COMMANDS[name])]
            cache = tempfile.mkdtemp(prefix="h6-cache-")
            cold = _timed(argv, _child_env(cache))
            shutil.rmtree(scratch / "demo", ignore_errors=True)
            warm = _timed(argv, _child_env(cache))
            shutil.rmtree(scratch / "demo", ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
            row = {
                "command": name,
                "cold_wall_s": cold["wall_s"],
                "cold_cpu_s": cold["cpu_s"],
                "warm_wall_s": warm["wall_s"],
                "warm_cpu_s": warm["cpu_s"],
                "load": round(os.getloadavg()[0], 1),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_workload(workload: str, scratch: Path) -> None:
    """Run a workload in this process (the CLI's own entry point, so that imports are the same)."""
    from volsched.cli import main

    argv = [a.format(dir=scratch) for a in COMMANDS[workload]]
    with open(os.devnull, "w") as sink:
        stdout = sys.stdout
        sys.stdout = sink
        try:
            main(argv)
        finally:
            sys.stdout = stdout


def _profile(workload: str, scratch: Path) -> dict:
    """Inside the child: compile events nested into a call tree, attributed per function."""
    from numba.core import event
    from numba.core.registry import CPUDispatcher

    stack: list[list] = []  # [key, start, child seconds]
    inclusive: dict[str, float] = {}
    exclusive: dict[str, float] = {}
    compiles: dict[str, int] = {}
    passes: dict[str, float] = {}
    pass_start: list[float] = []

    class Listener(event.Listener):
        def on_start(self, ev):
            now = time.perf_counter()
            if ev.kind == "numba:compile":
                disp = ev.data["dispatcher"]
                stack.append([f"{disp.py_func.__module__}.{disp.py_func.__qualname__}", now, 0.0])
            elif ev.kind == "numba:run_pass":
                pass_start.append(now)

        def on_end(self, ev):
            now = time.perf_counter()
            if ev.kind == "numba:compile":
                key, start, child = stack.pop()
                spent = now - start
                inclusive[key] = inclusive.get(key, 0.0) + spent
                exclusive[key] = exclusive.get(key, 0.0) + spent - child
                compiles[key] = compiles.get(key, 0) + 1
                if stack:
                    stack[-1][2] += spent
            elif ev.kind == "numba:run_pass":
                name = ev.data["name"].split(" [")[0]
                passes[name] = passes.get(name, 0.0) + now - pass_start.pop()

    listener = Listener()
    event.register("numba:compile", listener)
    event.register("numba:run_pass", listener)
    begin = time.perf_counter()
    cpu0 = time.process_time()
    _run_workload(workload, scratch)
    total = time.perf_counter() - begin
    cpu = time.process_time() - cpu0
    import gc

    signatures = {}
    for obj in gc.get_objects():
        if isinstance(obj, CPUDispatcher):
            key = f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"
            if obj.signatures and key.startswith("volsched."):
                signatures[key] = [str(s) for s in obj.signatures]
    return {
        "workload": workload,
        "wall_s": total,
        "cpu_s": cpu,
        "inclusive": inclusive,
        "exclusive": exclusive,
        "compiles": compiles,
        "signatures": signatures,
        "passes": passes,
    }


def cmd_kernels(args) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bench-compile-"))
    cache = tempfile.mkdtemp(prefix="h6-cache-")
    try:
        _instances(scratch)
        proc = subprocess.run(
            [sys.executable, __file__, "_child", args.workload, str(scratch)],
            capture_output=True,
            text=True,
            env=_child_env(cache),
        )
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-3000:])
        out = json.loads(proc.stdout.splitlines()[-1])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    if args.json:
        print(json.dumps(out))
        return
    sigs = out["signatures"]
    n_sigs = sum(len(v) for v in sigs.values())
    top_level = sum(v for k, v in out["exclusive"].items())
    print(
        f"workload {out['workload']}: {out['wall_s']:.1f} s wall, {out['cpu_s']:.1f} s CPU; "
        f"{len(sigs)} kernels compiled, {n_sigs} specialisations; "
        f"compile events {top_level:.1f} s (load {os.getloadavg()[0]:.1f})"
    )
    print(f"{'exclusive s':>11} {'incl. s':>8} {'specs':>5}  function")
    for key, excl in sorted(out["exclusive"].items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{excl:11.2f} {out['inclusive'][key]:8.2f} {out['compiles'][key]:5d}  {key}")
    several = {k: v for k, v in sigs.items() if len(v) > 1}
    if several:
        print("\nfunctions with several specialisations:")
        for key, v in several.items():
            print(f"  {key}:")
            for s in v:
                print(f"    {s}")
    print("\npasses (s):")
    for name, spent in sorted(out["passes"].items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {spent:8.2f}  {name}")


def cmd_imports(args) -> None:
    """Modules imported by ``import volsched.cli`` that import numba (``-X importtime``)."""
    cache = tempfile.mkdtemp(prefix="h6-cache-")
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-X",
                "importtime",
                "-c",
                "import sys, volsched.cli; print('numba' in sys.modules)",
            ],
            capture_output=True,
            text=True,
            env=_child_env(cache),
        )
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, cumul, name = line.split(":", 1)[1].split("|")
        rows.append((int(cumul), name.rstrip()))
    total = max(c for c, _ in rows)
    numba = sum(c for c, n in rows if n.strip() == "numba")
    print(
        f"import volsched.cli: {total / 1e6:.2f} s; numba imported: {proc.stdout.strip()}"
        f" ({numba / 1e6:.2f} s of it)"
    )
    for cumul, name in sorted(rows, reverse=True)[: args.top]:
        print(f"  {cumul / 1e6:6.2f} s  {name}")


def cmd_startup(args) -> None:
    """Wall seconds of ``volsched --help`` and of a warm checkpoint ``solve`` (median of ``--reps``).

    The same commands alternate in one run, so that the machine's load weighs on both alike; the
    kernels are warm (a checkpoint solve compiles none) and the load average is printed beside.
    """
    folder = Path(tempfile.mkdtemp(prefix="startup-"))
    try:
        job = folder / "job.json"
        subprocess.run(
            ["volsched", "generate", "checkpoint", "--seed", "1", "--out", str(job)],
            check=True,
            capture_output=True,
        )
        commands = {
            "volsched --help": ["volsched", "--help"],
            "volsched solve JOB (checkpoint, n = 20)": ["volsched", "solve", str(job)],
        }
        walls: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.reps):
            for name, command in commands.items():
                start = time.perf_counter()
                subprocess.run(command, check=True, capture_output=True)
                walls[name].append(time.perf_counter() - start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f}, {args.reps} runs each")
    for name, values in walls.items():
        values.sort()
        print(f"  {name}: median {values[len(values) // 2]:.2f} s, max {values[-1]:.2f} s")


#: ``bnb``'s instances: ``(processors, slots, m, seed)`` of ``generate_markov``; the last ones have
#: fewer common slots than ``m``, so that the search runs on the slot side.
BNB_CASES = [
    (60, 2000, 10, 1),
    (60, 2000, 10, 2),
    (200, 5000, 10, 1),
    (200, 5000, 10, 2),
    (40, 200, 30, 1),
    (40, 200, 30, 2),
]


def cmd_bnb(args) -> None:
    import importlib.util

    import numpy as np

    from volsched.instances.coupled import generate_markov
    from volsched.solvers.coupled import bnb

    spec = importlib.util.spec_from_file_location("bnb_kernel_before", args.before)
    before = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = before  # numba's object mode (the kernel's clock) looks the module up
    spec.loader.exec_module(before)
    kernels = {"before": before, "after": bnb.kernel}

    def one_thread(kernel, up, m):
        bnb.kernel = kernel
        try:
            best, chosen = bnb._incumbent(bnb._pack(up), m, np.inf)
            begin = time.thread_time()
            rows, _, nodes, stopped, _ = bnb._search(
                up, m, best, chosen, bnb._NO_TARGET, best + 1 < m, np.inf, 1
            )
            seconds = time.thread_time() - begin
        finally:
            bnb.kernel = kernels["after"]
        assert not stopped
        return (bnb._value(up, rows), nodes, best + 1 < m), seconds

    for case in BNB_CASES:
        p, slots, m, seed = case
        up = np.ascontiguousarray(generate_markov(p, slots, m, seed).availability == 0)
        one_thread(before, up, m)  # compiled or loaded outside the timings
        one_thread(kernels["after"], up, m)
        times = {"before": [], "after": []}
        results = {}
        for rep in range(args.reps):
            order = ("before", "after") if rep % 2 == 0 else ("after", "before")
            for key in order:
                results[key], seconds = one_thread(kernels[key], up, m)
                times[key].append(seconds)
        assert results["before"] == results["after"], (case, results)
        old, new = min(times["before"]), min(times["after"])
        value, nodes, slot_side = results["after"]
        print(
            f"markov p={p} H={slots} m={m} seed={seed}: optimum {value}, {nodes} nodes in both"
            f"{' (slot side)' if slot_side else ''}; thread CPU best of {args.reps}: before {old:.3f} s, "
            f"after {new:.3f} s, ratio {new / old:.3f} (load {os.getloadavg()[0]:.1f})",
            flush=True,
        )


_BNB_COLD = """
import importlib.util, json, sys, time
import numpy as np
begin = time.process_time()
spec = importlib.util.spec_from_file_location("bnb_kernel_cold", sys.argv[1])
k = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = k
spec.loader.exec_module(k)
up = np.random.default_rng(0).random((12, 100)) < 0.6


def pack(m):
    padded = np.zeros((m.shape[0], -(-m.shape[1] // 64) * 64), dtype=bool)
    padded[:, : m.shape[1]] = m
    return np.ascontiguousarray(np.packbits(padded, axis=1, bitorder="little").view("<u8").astype(np.uint64))


A, B = pack(up), pack(up.T)
best, chosen = k.greedy(A, 3)
k.tabu(A, chosen, 10, 1e18)
k.search(A, B, 0, 3, best + 1, best, chosen.copy(), 10**9, 1e18, np.zeros(1, np.int64), -1)
k.search(B, A, 1, 3, 3, 0, np.zeros(3, np.int64), 10**9, 1e18, np.zeros(1, np.int64), -1)
print(json.dumps({"cpu_s": round(time.process_time() - begin, 1)}))
"""


def cmd_bnb_cold(args) -> None:
    procs = []
    for path in args.kernels:
        cache = tempfile.mkdtemp(prefix="h6-cache-")
        proc = subprocess.Popen(
            [sys.executable, "-c", _BNB_COLD, path], stdout=subprocess.PIPE, text=True, env=_child_env(cache)
        )
        procs.append((path, cache, proc))
    for path, cache, proc in procs:
        out, _ = proc.communicate()
        shutil.rmtree(cache, ignore_errors=True)
        print(f"{path}: {json.loads(out)['cpu_s']} s CPU, cold (load {os.getloadavg()[0]:.1f})")


def main(argv=None) -> None:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "_child":
        import volsched

        out = _profile(sys.argv[2], Path(sys.argv[3]))
        out["package"] = str(Path(volsched.__file__).parent)
        print(json.dumps(out))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("kernels", help="compile seconds per function, cold, in one workload")
    k.add_argument("--workload", default="compile", choices=sorted(COMMANDS))
    k.add_argument("--top", type=int, default=25)
    k.add_argument("--json", action="store_true")
    k.set_defaults(func=cmd_kernels)
    c = sub.add_parser("cli", help="cold and warm seconds of the CLI commands")
    c.add_argument("--only", default=",".join(COMMANDS))
    c.set_defaults(func=cmd_cli)
    i = sub.add_parser("imports", help="what import volsched.cli costs, and whether numba is in it")
    i.add_argument("--top", type=int, default=15)
    i.set_defaults(func=cmd_imports)
    st = sub.add_parser("startup", help="wall seconds of volsched --help and a warm checkpoint solve")
    st.add_argument("--reps", type=int, default=9)
    st.set_defaults(func=cmd_startup)
    b = sub.add_parser("bnb", help="the bnb's search, current kernel against another copy of it")
    b.add_argument("--before", required=True, help="a copy of _bnb_kernel.py to compare with")
    b.add_argument("--reps", type=int, default=3)
    b.set_defaults(func=cmd_bnb)
    bc = sub.add_parser("bnb-cold", help="copies of _bnb_kernel.py compiled cold, side by side")
    bc.add_argument("kernels", nargs="+")
    bc.set_defaults(func=cmd_bnb_cold)
    for p in (k, c):
        p.add_argument("--tree", help="run the package copy in this folder instead of the installed one")
    args = parser.parse_args(argv)
    global TREE
    TREE = getattr(args, "tree", None)
    args.func(args)


if __name__ == "__main__":
    main()
