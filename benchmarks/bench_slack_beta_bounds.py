"""Slack at beta > 0: certified gaps before and after the beta-aware phases, in one run.

Before: the galloping CP-SAT search with the beta-blind bounds and the greedy schedule. After: the
same search behind the beta-aware cut, the primal heuristic and the column-generation bound
(:func:`volsched.solvers.slack.problems._beta_phases`). Both on the same instances, the same
deterministic budget (work units: CP-SAT deterministic time plus the phases' ticks), the same
process. Prints one row per solve and a summary per beta; ``--json`` prints one JSON object.

    python benchmarks/bench_slack_beta_bounds.py --seeds 0 1 2 --betas 0 0.5 0.7 1 --budget 2
"""

from __future__ import annotations

import argparse
import json
import os
import time

from volsched.instances.io import read_json
from volsched.instances.slack import FAMILY, SlackInstance
from volsched.instances.slack.generators import generate_paper
from volsched.solvers.problem import finish
from volsched.solvers.slack import PROBLEMS
from volsched.solvers.slack.problems import _galloping


def run(instance: SlackInstance, budget: float, after: bool, time_limit: float) -> dict:
    problem = PROBLEMS["slack"]
    start = time.perf_counter()
    result = finish(
        FAMILY,
        problem,
        "cpsat",
        instance,
        lambda: _galloping(instance, "slack", time_limit, 0, budget, beta_phases=after),
    )
    ub, lb = result.objective, result.bound
    return {
        "ub": ub,
        "lb": lb,
        "gap": (ub - lb) / ub,
        "proven": result.status.value == "optimal",
        "work": result.work,
        "stopped": result.stopped,
        "seconds": time.perf_counter() - start,
        "info": {
            k: result.info.get(k)
            for k in ("greedy_makespan", "beta_cut", "primal_makespan", "lp_bound", "lp_rounds")
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--betas", type=float, nargs="+", default=[0.0, 0.5, 0.7, 1.0])
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--time-limit", type=float, default=600.0, help="safety net only")
    ap.add_argument("--falkenauer", default=None, help="an instance file (the perturbed t60_00 repro)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    cases = [(f"paper s{s}", b, generate_paper(300, 3000, s, beta=b)) for s in args.seeds for b in args.betas]
    if args.falkenauer:
        inst = SlackInstance.from_json(read_json(args.falkenauer))
        cases.append((os.path.basename(args.falkenauer), inst.beta, inst))
    for name, beta, inst in cases:
        row = {"instance": name, "beta": beta}
        for side in ("before", "after"):
            row[side] = run(inst, args.budget, side == "after", args.time_limit)
        rows.append(row)
        if not args.json:
            b, a = row["before"], row["after"]
            print(
                f"{name:>24} beta {beta:<4} before {b['lb']:>9.0f}-{b['ub']:<9.0f} gap {b['gap']:7.2%} "
                f"work {b['work']:.2f} {b['seconds']:5.1f}s | after {a['lb']:>9.0f}-{a['ub']:<9.0f} "
                f"gap {a['gap']:7.2%} work {a['work']:.2f} {a['seconds']:5.1f}s proven {a['proven']}"
                f" {a['info']}",
                flush=True,
            )
    if args.json:
        print(json.dumps({"budget": args.budget, "cores": os.cpu_count(), "rows": rows}))
        return
    print(f"summary (budget {args.budget} work units, {os.cpu_count()} cores)")
    for beta in sorted({r["beta"] for r in rows}):
        sel = [r for r in rows if r["beta"] == beta]
        for side in ("before", "after"):
            gaps = [r[side]["gap"] for r in sel]
            print(
                f"  beta {beta:<4} {side:>6}: gap {min(gaps):.2%}-{max(gaps):.2%}, proven "
                f"{sum(r[side]['proven'] for r in sel)}/{len(sel)}, "
                f"work {sum(r[side]['work'] for r in sel) / len(sel):.2f} mean"
            )


if __name__ == "__main__":
    main()
