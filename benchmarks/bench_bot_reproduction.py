"""Figures 1-3 of the checkpoint paper with both readings of its periodic policy, and paired tests.

Usage:
  python benchmarks/bench_bot_reproduction.py figures [--clients 5000 10000 20000]
      [--jobs 1000 3000 5000 7000 9000 10000] [--policies ...] [--seed 0] [--workers 2]
      [--extra-rows ROWS.json ...] [--out DIR]
  python benchmarks/bench_bot_reproduction.py seeds --clients 5000 --jobs 10000 --seeds 0 1 2 ...
      [--out DIR]
  python benchmarks/bench_bot_reproduction.py test ROWS.json [ROWS.json ...] [--clients M ...] [--jobs J ...]
  python benchmarks/bench_bot_reproduction.py merge ROWS.json [ROWS.json ...] [--out DIR]
  python benchmarks/bench_bot_reproduction.py jobs [--clients 5000] [--jobs 10000] [--seed 0]
  python benchmarks/bench_bot_reproduction.py redraw TABLE.md [--out DIR]

``figures`` runs :func:`volsched.families.checkpoint.bot.reproduce` (what
``volsched demo --full`` runs for the checkpoint family) on the given client
counts and BoT sizes and policies (default all: ``optimal``, ``periodic``,
``periodic-printed``, ``none``), writes its ``rows.json``, merges the rows of
``--extra-rows`` runs (same seed) and writes ``table.md``, ``all-rows.json``
and one PNG per client count into ``--out``; ``merge`` does the same from
stored rows only. ``seeds`` runs one (clients, jobs) cell
on several seeds with ``optimal`` and both periodic readings, appending to
``--out``/``seeds.json`` as it goes. ``test`` reads such rows and, for each
periodic reading, runs a two-sided Wilcoxon signed-rank test (scipy, exact
distribution) of the paired per-run wasted times ``optimal`` vs. the reading,
over every (clients, jobs, seed) present in both (``--metric``: another
per-run value, e.g. ``checkpoints``), and prints the effect size:
the median and range of the ratio optimal/periodic and the matched-pairs
rank-biserial correlation (``-1``: optimal wastes less in every pair).
``jobs`` compares, job by job on the nominal client, the expected waste of
Expression 1 (the objective the optimum minimises) of ``optimal`` and of each
reading, and the checkpoints each places. ``redraw`` draws the figures again from a
``table.md`` alone (``benchmarks/checkpoint-reproduction-table.md``), at the table's
rounding (0.1 h of makespan, 0.01 h per client of waste: below a pixel), so a change
of the plotting style needs no new simulation.

Section IV-B's claim tested: "the proposed model reduces by a factor of 2 the
average wasted time when the number of clients is two times less that the
number of jobs (BoTs = 10000)". Verdict, fixed before the runs: "reproduced"
when p < 0.05 with optimal lower and the median ratio at most 0.6; "not
reproduced (tie)" when p >= 0.05; "not reproduced (reversed)" when p < 0.05
with optimal higher; "not reproduced (direction only, ratio R)" when optimal is
significantly lower but by less than the paper's factor.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.stats import rankdata, wilcoxon

from volsched.families.checkpoint.bot import (
    BOT_POLICIES,
    PAPER_CLIENTS,
    PAPER_JOBS,
    reproduce,
    run_bot,
    schedules_for,
)
from volsched.instances.bot import generate_bot
from volsched.instances.io import write_json

READINGS = ("periodic", "periodic-printed")
ALPHA = 0.05
HALVING_RATIO = 0.6


def paired_test(rows: list[dict], reading: str, metric: str = "wasted") -> dict:
    """Wilcoxon signed-rank of a per-run metric, ``optimal`` against ``reading``, paired by run."""
    key = lambda r: (r["clients"], r["jobs"], r.get("seed", 0))  # noqa: E731
    opt = {key(r): r[metric] for r in rows if r["policy"] == "optimal"}
    per = {key(r): r[metric] for r in rows if r["policy"] == reading}
    pairs = sorted(set(opt) & set(per))
    x = np.array([opt[k] for k in pairs], dtype=float)
    y = np.array([per[k] for k in pairs], dtype=float)
    d = x - y
    res = wilcoxon(x, y, alternative="two-sided", zero_method="wilcox", method="auto")
    nonzero = d[d != 0]
    ranks = rankdata(np.abs(nonzero))
    r_rb = float((ranks[nonzero > 0].sum() - ranks[nonzero < 0].sum()) / ranks.sum()) if len(ranks) else 0.0
    ratio = x / y
    med = float(np.median(ratio))
    p = float(res.pvalue)
    if p >= ALPHA:
        verdict = "not reproduced (tie)"
    elif med > 1:
        verdict = "not reproduced (reversed)"
    elif med <= HALVING_RATIO:
        verdict = "reproduced"
    else:
        verdict = f"not reproduced (direction only, ratio {med:.3f})"
    return {
        "reading": reading,
        "metric": metric,
        "pairs": len(pairs),
        "wilcoxon_statistic": float(res.statistic),
        "p_value": p,
        "median_ratio": med,
        "min_ratio": float(ratio.min()),
        "max_ratio": float(ratio.max()),
        "optimal_lower": int((d < 0).sum()),
        "rank_biserial": r_rb,
        "verdict": verdict,
    }


def _figures(args) -> None:
    out = Path(args.out)
    t = time.perf_counter()
    res = reproduce(
        out,
        clients=args.clients,
        jobs=args.jobs,
        seed=args.seed,
        workers=args.workers,
        policies=args.policies,
    )
    rows = [{**r, "seed": args.seed} for r in res["rows"]]
    write_json(out / "rows.json", rows)
    print(f"{len(rows)} simulations in {time.perf_counter() - t:.0f} s wall")
    for path in args.extra_rows or []:
        rows += [r for r in json.loads(Path(path).read_text()) if r["seed"] == args.seed]
    _write_merged(rows, args.clients, out)


def _write_merged(rows: list[dict], clients: list[int], out: Path) -> None:
    from volsched.families.checkpoint.bot import bot_table
    from volsched.plots import bot_figure

    rank = {p: k for k, p in enumerate(BOT_POLICIES)}
    rows = sorted(rows, key=lambda r: (r["clients"], r["jobs"], rank[r["policy"]]))
    write_json(out / "all-rows.json", rows)
    table = bot_table(rows)
    (out / "table.md").write_text(table + "\n")
    for k, m in enumerate(clients):
        bot_figure(rows, m, out / f"figure-{k + 1}-{m}-clients.png")
    print(table)


def _merge(args) -> None:
    rows = [r for p in args.rows for r in json.loads(Path(p).read_text())]
    _write_merged(rows, sorted({r["clients"] for r in rows}), Path(args.out))


def rows_from_table(text: str) -> list[dict]:
    """The rows :func:`~volsched.families.checkpoint.bot.bot_table` printed, in minutes as simulated."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 9 or not cells[0].isdigit():
            continue
        m, jobs, policy, makespan, wasted, ckpt, lost, checkpoints, duplicates = cells
        per_client = int(m) * 60
        rows.append(
            {
                "clients": int(m),
                "jobs": int(jobs),
                "policy": policy,
                "makespan": None if makespan == "never" else float(makespan) * 60,
                "wasted": float(wasted) * per_client,
                "wasted_checkpoint": float(ckpt) * per_client,
                "wasted_lost": float(lost) * per_client,
                "checkpoints": int(checkpoints),
                "duplicates": int(duplicates),
            }
        )
    if not rows:
        raise SystemExit("bench_bot_reproduction: error: no table rows in the file")
    return rows


def _redraw(args) -> None:
    from volsched.plots import bot_figure

    rows = rows_from_table(Path(args.table).read_text())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for k, m in enumerate(sorted({r["clients"] for r in rows})):
        print(bot_figure(rows, m, out / f"figure-{k + 1}-{m}-clients.png"))


def _seeds(args) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "seeds.json"
    rows = json.loads(path.read_text()) if path.exists() else []
    for m in args.clients:
        for j in args.jobs:
            for seed in args.seeds:
                if any((r["clients"], r["jobs"], r["seed"]) == (m, j, seed) for r in rows):
                    continue
                t = time.perf_counter()
                res = run_bot(m, j, seed, policies=("optimal", *READINGS), workers=args.workers)
                for policy, v in res["policies"].items():
                    rows.append({"clients": m, "jobs": j, "seed": seed, "policy": policy, **v})
                write_json(path, rows)
                w = {p: f"{v['wasted'] / 60 / m:.2f}" for p, v in res["policies"].items()}
                print(
                    f"{m} clients x {j} jobs, seed {seed}: waste/client (h) {w} "
                    f"[{time.perf_counter() - t:.0f} s]",
                    flush=True,
                )


def _test(args) -> None:
    rows = [r for p in args.rows for r in json.loads(Path(p).read_text())]
    rows = [r for r in rows if (not args.clients or r["clients"] in args.clients)]
    rows = [r for r in rows if (not args.jobs or r["jobs"] in args.jobs)]
    for reading in READINGS:
        print(json.dumps(paired_test(rows, reading, args.metric)))


def _jobs(args) -> None:
    bot = generate_bot(args.clients, args.jobs, args.seed)
    jobs = [bot.job_instance(k) for k in range(bot.n_jobs)]
    plans = {p: schedules_for(bot, p, workers=2) for p in ("optimal", *READINGS)}
    waste = {
        p: np.array([job.expected_waste(a) for job, a in zip(jobs, v, strict=True)]) for p, v in plans.items()
    }
    print(f"{bot.n_jobs} jobs, {int(bot.n_slices.sum())} slices (seed {args.seed}, nominal client)")
    for p, v in plans.items():
        line = f"{p}: {sum(int(a.sum()) for a in v)} checkpoints, Expression 1 waste {waste[p].sum():.0f} min"
        if p != "optimal":
            ratio = waste[p] / waste["optimal"]
            line += (
                f"; per-job ratio to optimal: median {np.median(ratio):.4f}, "
                f"mean {ratio.mean():.4f}, max {ratio.max():.4f}"
            )
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("figures")
    f.add_argument("--clients", type=int, nargs="+", default=list(PAPER_CLIENTS))
    f.add_argument("--jobs", type=int, nargs="+", default=list(PAPER_JOBS))
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--workers", type=int, default=2)
    f.add_argument("--policies", nargs="+", default=list(BOT_POLICIES), choices=BOT_POLICIES)
    f.add_argument(
        "--extra-rows", nargs="*", help="rows.json files of other runs to merge into table and figures"
    )
    f.add_argument("--out", default="bot-reproduction")
    s = sub.add_parser("seeds")
    s.add_argument("--clients", type=int, nargs="+", default=[5000])
    s.add_argument("--jobs", type=int, nargs="+", default=[10000])
    s.add_argument("--seeds", type=int, nargs="+", required=True)
    s.add_argument("--workers", type=int, default=1)
    s.add_argument("--out", default="bot-reproduction")
    t = sub.add_parser("test")
    t.add_argument("rows", nargs="+")
    t.add_argument("--metric", default="wasted", choices=["wasted", "checkpoints", "makespan"])
    t.add_argument("--clients", type=int, nargs="*", help="only these client counts")
    t.add_argument("--jobs", type=int, nargs="*", help="only these BoT sizes")
    g = sub.add_parser("merge")
    g.add_argument("rows", nargs="+")
    g.add_argument("--out", default="bot-reproduction")
    j = sub.add_parser("jobs")
    j.add_argument("--clients", type=int, default=5000)
    j.add_argument("--jobs", type=int, default=10000)
    j.add_argument("--seed", type=int, default=0)
    r = sub.add_parser("redraw")
    r.add_argument("table")
    r.add_argument("--out", default="bot-reproduction")
    args = ap.parse_args()
    assert set(READINGS) < set(BOT_POLICIES)
    commands = {"figures": _figures, "seeds": _seeds, "test": _test, "jobs": _jobs, "merge": _merge}
    commands["redraw"] = _redraw
    commands[args.cmd](args)


if __name__ == "__main__":
    main()
