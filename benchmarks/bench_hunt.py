"""``volsched hunt`` against its targets: Graham's limits, the checkpoint floors, the baselines, speed.

Usage::

    python benchmarks/bench_hunt.py graham [--machines 3 4 5] [--budget 20000] [--time-limit 60]
    python benchmarks/bench_hunt.py floors [--budget 20000] [--time-limit 60]
    python benchmarks/bench_hunt.py baselines [--seeds 5] [--families slack checkpoint coupled prescient]
    python benchmarks/bench_hunt.py speed [--workers 1 2] [--batch 16] [--families ...]

* ``graham``: on the plain problem (no unavailability) with ``m`` machines, ``2m + 1`` jobs of
  sizes 1..20, the hunt against LPT and against list scheduling, stopped by the candidate budget or
  by the wall-clock limit, against Graham's tight bounds ``4/3 - 1/(3m)`` and ``2 - 1/m`` (target:
  at least 0.99 x the bound within 60 s on 2 cores). The hunt is not told the construction.
* ``floors``: checkpoint, Daly and Young, within the issue's generator bounds (n = 10, p <= 59,
  c <= 19, Weibull shape 0.3-3, scale 20-2,000): floors 4.31 (Daly) and 7.13 (Young).
* ``baselines``: per family, one heuristic, the hunt against pure random search and SciPy's
  differential evolution on the candidate's vector form (``--strategy random`` / ``blackbox``),
  the same candidate budget and seeds 0..S-1, in this process: each strategy's best ratio per seed,
  the hunt's margin (mean and standard deviation over the seeds) and candidates per second.
* ``speed``: candidates per second of each family's hunt on small instances (the baselines'
  bounds, seed 0), in this process and on ``N`` local worker processes (``--workers``), in one run;
  the hunts of one family must find the same best ratio whatever the workers.

Seconds depend on the machine and on its load (``os.getloadavg`` is printed with them); the ratios
found within a candidate budget do not.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from volsched.hunt import hunt

#: (family, heuristic, bounds, budget) of the baseline comparison.
BASELINES = {
    "slack": ("lpt", {"machines": 3, "jobs": 7, "p_max": 20}, 400),
    "checkpoint": ("young", {}, 400),
    "coupled": ("IE", {"processors": 5, "slots": 40}, 400),
    "prescient": ("FCFS", {"hosts": 5, "tasks": 8}, 300),
}


def _machine() -> str:
    return f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"


#: (heuristic, bounds, budget) of the speed measurement: small instances of each family.
SPEED = {
    "slack": ("lpt", {"machines": 3, "jobs": 7, "p_max": 20}, 3000),
    "checkpoint": ("daly", {}, 5000),
    "coupled": ("IE", {"processors": 5, "slots": 40}, 400),
    "prescient": ("FCFS", {"hosts": 5, "tasks": 8}, 600),
}


def speed(args) -> list[dict]:
    rows = []
    for family in args.families:
        heuristic, bounds, budget = SPEED[family]
        hunt(family, heuristic, budget=20, seed=1, bounds=bounds, baseline=False)  # compile and load first
        found = set()
        for workers in args.workers:
            s = hunt(
                family,
                heuristic,
                budget=budget,
                seed=0,
                bounds=bounds,
                baseline=False,
                workers=workers,
                batch=args.batch,
            )
            found.add(s["best_ratio"])
            rows.append(
                {
                    "family": family,
                    "heuristic": heuristic,
                    "workers": workers,
                    "candidates": s["candidates"],
                    "seconds": s["elapsed_s"],
                    "per_s": s["candidates_per_s"],
                    "best": s["best_ratio"],
                }
            )
            print(
                f"{family:10s} {heuristic:5s} workers {workers}: {s['candidates']} candidates in "
                f"{s['elapsed_s']:.1f} s = {s['candidates_per_s']:.0f}/s (best {s['best_ratio']:.4f}; "
                f"{_machine()})",
                flush=True,
            )
        assert len(found) == 1, f"{family}: the workers changed the hunt: {found}"
    return rows


def graham(args) -> list[dict]:
    rows = []
    for m in args.machines:
        for heuristic, bound in (("lpt", 4 / 3 - 1 / (3 * m)), ("list", 2 - 1 / m)):
            begin = time.perf_counter()
            s = hunt(
                "slack",
                heuristic,
                budget=args.budget,
                seed=args.seed,
                time_limit=args.time_limit,
                bounds={"machines": m, "jobs": 2 * m + 1, "p_max": 20},
                baseline=False,
            )
            seconds = time.perf_counter() - begin
            target = 0.99 * bound * (1 - 1e-12)  # 0.99 x 5/3 is 1.65 up to the last bit
            first = next((i for i, v in enumerate(s["progress"]) if v is not None and v >= target), None)
            rows.append(
                {
                    "m": m,
                    "heuristic": heuristic,
                    "bound": bound,
                    "best": s["best_ratio"],
                    "share": s["best_ratio"] / bound,
                    "candidates": s["candidates"],
                    "reached_at": first,
                    "seconds": seconds,
                    "stopped": s["stopped"],
                    "per_s": s["candidates_per_s"],
                }
            )
            r = rows[-1]
            print(
                f"m={m} {heuristic:4s} best {r['best']:.4f} / bound {bound:.4f} = {r['share']:.4f} "
                f"(0.99 x reached at candidate {first}) in {r['candidates']} candidates, {seconds:.1f} s "
                f"({r['per_s']:.0f}/s, {_machine()}), stopped: {r['stopped']}",
                flush=True,
            )
    return rows


def floors(args) -> list[dict]:
    rows = []
    for heuristic, floor in (("daly", 4.31), ("young", 7.13)):
        begin = time.perf_counter()
        s = hunt(
            "checkpoint",
            heuristic,
            budget=args.budget,
            seed=args.seed,
            time_limit=args.time_limit,
            baseline=False,
        )
        seconds = time.perf_counter() - begin
        rows.append(
            {
                "heuristic": heuristic,
                "floor": floor,
                "best": s["best_ratio"],
                "candidates": s["candidates"],
                "seconds": seconds,
                "per_s": s["candidates_per_s"],
                "stopped": s["stopped"],
            }
        )
        print(
            f"{heuristic:5s} best {s['best_ratio']:.3f} (floor {floor}) in {s['candidates']} candidates, "
            f"{seconds:.1f} s "
            f"({s['candidates_per_s']:.0f}/s, {_machine()}), stopped: {s['stopped']}",
            flush=True,
        )
    return rows


def baselines(args) -> list[dict]:
    rows = []
    for family in args.families:
        heuristic, bounds, budget = BASELINES[family]
        budget = args.budget or budget
        best: dict[str, list[float]] = {}
        speed: dict[str, list[float]] = {}
        for strategy in ("hunt", "random", "blackbox"):
            for seed in range(args.seeds):
                s = hunt(
                    family,
                    heuristic,
                    budget=budget,
                    seed=seed,
                    bounds=bounds,
                    strategy=strategy,
                    baseline=False,
                )
                best.setdefault(strategy, []).append(s["best_ratio"])
                speed.setdefault(strategy, []).append(s["candidates_per_s"])
        for other in ("random", "blackbox"):
            margin = [h / o for h, o in zip(best["hunt"], best[other], strict=True)]
            rows.append(
                {
                    "family": family,
                    "heuristic": heuristic,
                    "budget": budget,
                    "against": other,
                    "hunt": best["hunt"],
                    other: best[other],
                    "margin_mean": statistics.mean(margin),
                    "margin_sd": statistics.stdev(margin) if len(margin) > 1 else 0.0,
                    "wins": sum(m > 1 for m in margin),
                    "seeds": args.seeds,
                }
            )
            r = rows[-1]
            print(
                f"{family:10s} {heuristic:5s} {budget} candidates: hunt/{other} = {r['margin_mean']:.3f} "
                f"+- {r['margin_sd']:.3f} (wins {r['wins']}/{args.seeds}); hunt "
                f"{[round(x, 3) for x in best['hunt']]}, {other} {[round(x, 3) for x in best[other]]}",
                flush=True,
            )
        print(
            f"{family:10s} candidates/s: "
            + ", ".join(f"{k} {statistics.median(v):.0f}" for k, v in speed.items())
            + f" ({_machine()})",
            flush=True,
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    g = sub.add_parser("graham")
    g.add_argument("--machines", type=int, nargs="+", default=[3, 4, 5])
    g.add_argument("--budget", type=int, default=20_000)
    g.add_argument("--time-limit", type=float, default=60.0)
    g.add_argument("--seed", type=int, default=0)
    f = sub.add_parser("floors")
    f.add_argument("--budget", type=int, default=20_000)
    f.add_argument("--time-limit", type=float, default=60.0)
    f.add_argument("--seed", type=int, default=0)
    b = sub.add_parser("baselines")
    b.add_argument("--seeds", type=int, default=5)
    b.add_argument("--budget", type=int, default=None, help="override each family's candidate budget")
    b.add_argument("--families", nargs="+", default=list(BASELINES), choices=list(BASELINES))
    sp = sub.add_parser("speed")
    sp.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    sp.add_argument("--families", nargs="+", default=list(SPEED), choices=list(SPEED))
    sp.add_argument("--batch", type=int, default=16, help="candidates per batch (the hunt's --batch)")
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    rows = {"graham": graham, "floors": floors, "baselines": baselines, "speed": speed}[args.what](args)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
