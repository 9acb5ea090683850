"""Slack at beta > 0: certified gaps of two versions of the exact search, in one run.

Before: the slack solvers package as it was at a git revision (``--before-rev``; extracted with
``git archive`` and imported beside the current one as ``volsched.solvers.slack_before``). After:
the current package. Both run :func:`~volsched.solvers.slack.problems._galloping` (the bound
phases, then CP-SAT) on the same instances, at the same deterministic budget (work units), in the
same process, and :func:`volsched.solvers.problem.finish` verifies every schedule. Per solve it
prints the greedy's makespan, each phase's bound (beta-aware cut, primal heuristic, leader-class
LP, column generation) with its seconds, the final certified interval, the gap (UB - LB) / UB,
the work and the seconds; then a summary per beta. ``--json`` prints one JSON object.

    python benchmarks/bench_slack_beta_bounds.py --seeds 0 1 2 --betas 0.5 0.7 1 --budget 2 \\
        --before-rev 4e639f7
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import time

from revision import package_at

from volsched.instances.io import read_json
from volsched.instances.slack import FAMILY, SlackInstance
from volsched.instances.slack.generators import generate_paper
from volsched.solvers.problem import finish

#: The phases timed, by module and function (wrapped, in both packages, when present).
TIMED = {"primal": "best_fill", "bound": "leader_lp_bound", "colgen": "lp_bound"}


def load_package(rev: str | None):
    """The slack solvers package, current (``rev=None``) or at ``rev``, with its phases timed."""
    if rev is None:
        name = "volsched.solvers.slack"
        package = importlib.import_module(name)
    else:
        name = "volsched.solvers.slack_before"
        package = package_at(rev, "solvers/slack", name)
    seconds: dict = {}
    for module, function in TIMED.items():
        try:
            mod = importlib.import_module(f"{name}.{module}")
        except ImportError:
            continue
        if not hasattr(mod, function):
            continue

        def timed(*args, _fn=mod.__dict__[function], _key=module, **kwargs):
            start = time.perf_counter()
            try:
                return _fn(*args, **kwargs)
            finally:
                seconds[_key] = seconds.get(_key, 0.0) + time.perf_counter() - start

        setattr(mod, function, timed)
    return package, importlib.import_module(f"{name}.problems"), seconds


def run(pkg, instance: SlackInstance, budget: float, time_limit: float) -> dict:
    package, problems, seconds = pkg
    seconds.clear()
    start = time.perf_counter()
    result = finish(
        FAMILY,
        package.PROBLEMS["slack"],
        "cpsat",
        instance,
        lambda: problems._galloping(instance, "slack", time_limit, 0, budget),
    )
    ub, lb = result.objective, result.bound
    keys = (
        "greedy_makespan",
        "beta_cut",
        "fill_bound",
        "pack_makespan",
        "primal_makespan",
        "leader_lp_bound",
        "lp_bound",
        "lp_rounds",
    )
    return {
        "ub": ub,
        "lb": lb,
        "gap": (ub - lb) / ub,
        "proven": result.status.value == "optimal",
        "work": result.work,
        "seconds": time.perf_counter() - start,
        "info": {k: result.info.get(k) for k in keys},
        "phase_seconds": {k: round(v, 2) for k, v in seconds.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--betas", type=float, nargs="+", default=[0.5, 0.7, 1.0])
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--before-rev", default=None, help="git revision of the 'before' package (else none)")
    ap.add_argument("--time-limit", type=float, default=600.0, help="safety net only")
    ap.add_argument("--falkenauer", default=None, help="an instance file (the perturbed t60_00 repro)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sides = {"after": load_package(None)}
    if args.before_rev:
        sides = {"before": load_package(args.before_rev), **sides}
    rows = []
    cases = [(f"paper s{s}", b, generate_paper(300, 3000, s, beta=b)) for s in args.seeds for b in args.betas]
    if args.falkenauer:
        inst = SlackInstance.from_json(read_json(args.falkenauer))
        cases.append((os.path.basename(args.falkenauer), inst.beta, inst))
    for name, beta, inst in cases:
        row = {"instance": name, "beta": beta}
        for side, pkg in sides.items():
            row[side] = r = run(pkg, inst, args.budget, args.time_limit)
            if not args.json:
                print(
                    f"{name:>12} beta {beta:<4} {side:>6}: {r['lb']:>9.0f}-{r['ub']:<9.0f} "
                    f"gap {r['gap']:7.2%} work {r['work']:.2f} {r['seconds']:5.1f}s proven {r['proven']} "
                    f"{r['info']} "
                    f"phase seconds {r['phase_seconds']}",
                    flush=True,
                )
        rows.append(row)
    if args.json:
        print(json.dumps({"budget": args.budget, "cores": os.cpu_count(), "rows": rows}))
        return
    print(f"summary (budget {args.budget} work units, {os.cpu_count()} cores)")
    for beta in sorted({r["beta"] for r in rows}):
        sel = [r for r in rows if r["beta"] == beta]
        for side in sides:
            gaps = [r[side]["gap"] for r in sel]
            print(
                f"  beta {beta:<4} {side:>6}: gap {min(gaps):.2%}-{max(gaps):.2%}, proven "
                f"{sum(r[side]['proven'] for r in sel)}/{len(sel)}, "
                f"work {sum(r[side]['work'] for r in sel) / len(sel):.2f} mean, "
                f"{sum(r[side]['seconds'] for r in sel) / len(sel):.1f} s mean"
            )


if __name__ == "__main__":
    main()
