"""Drop data at every new configuration: does it move the heuristics toward the paper's Figure 2?

Issue 15, part 0 keeps, for a worker that stays enrolled and is not DOWN, the data of the current
iteration up to x_q T_data of its new allocation (III-C's x'_q, VI-A). The paper also says, informally,
"restart the iteration from scratch" (III-C) and "the communication phase would have been restarted
from scratch" (Figure 1's text). Table II's Figure 2 differs here (IE is not best at large w_min), and
a switch that keeps data is cheaper than one that does not: this benchmark measures the other reading.
Two rules of what a worker keeps when a new configuration is put in force:

* default: the library's rule (``configure``: ``d[q] = min(d[q], new[q] * t_data)``);
* drop: every new configuration (iteration start, after a DOWN, a proactive switch) starts with no
  data, and the constructions credit a new configuration no data. Programs as in the default.

The drop rule is not in the library (the replay verifier reads one rule): it is the patch
``benchmarks/patches/coupled-drop-data.diff`` (a flag ``simulator.DROP_DATA``), applied to a worktree::

    git worktree add /tmp/wtdrop HEAD && git -C /tmp/wtdrop apply benchmarks/patches/coupled-drop-data.diff
    pip install --no-deps --target /tmp/wtdrop-site /tmp/wtdrop
    PYTHONPATH=/tmp/wtdrop-site python benchmarks/bench_coupled_drop_data.py --scenarios 8,8,3

On the paper's m = 10 realizations (``paper_realization(10, n_com, w_min, scenario, trial)``, 2,000
stored slots, continued up to the 10^6-slot cap), whole scenarios (10 trials each) are drawn with
numpy seed 2013 for w_min in {1, 5, 10}: for each w_min a permutation of its 30 scenarios (n_com in
5, 10, 20 x scenario 0..9), of which the first ``--scenarios`` are run. Default runs are checked by
the replay verifier; drop runs by an independent count (every enrolled worker of the entry in which
an iteration completes was sent all its x_q T_data data messages in that entry).

%diff against IE of the same rule, the paper's way: per scenario, over the trials where both H and IE
finished, (mean H - mean IE) / min(mean H, mean IE); averaged over scenarios (x 100), with its stdv
over scenarios (numpy std, ddof 0, x 100).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from tqdm import tqdm

from volsched.experiments.report import scenario_differences
from volsched.heuristics.coupled import policy
from volsched.heuristics.coupled import simulator as sim
from volsched.instances.coupled import paper_realization
from volsched.solvers.coupled.replay import replay_trace

NAMES = ("IE", "IAY", "IY", "Y-IE", "P-IE", "E-IAY", "E-IY", "E-IP", "P-IY", "Y-IY")
RULES = ("default", "drop")
W_MINS = (1, 5, 10)
N_COMS = (5, 10, 20)
TASKS = 10


def draw(k) -> list[tuple[int, int, int]]:
    """The first ``k`` scenarios (n_com, w_min, scenario) of each w_min's permutation (seed 2013);
    ``k`` an int, or one count per w_min of :data:`W_MINS`."""
    counts = dict(zip(W_MINS, k if isinstance(k, (list, tuple)) else [k] * len(W_MINS), strict=True))
    rng = np.random.default_rng(2013)
    per = {}
    for w_min in W_MINS:
        space = [(n_com, w_min, s) for n_com in N_COMS for s in range(10)]
        per[w_min] = [space[i] for i in rng.permutation(len(space))[:counts[w_min]]]
    # Interleaved, so that a run stopped early still has every w_min.
    return [per[w][i] for i in range(max(counts.values())) for w in W_MINS if i < counts[w]]


def data_check(inst, result) -> None:
    """Drop rule: in the entry where an iteration completes, each enrolled worker got x_q T_data messages."""
    conf = result.schedule["configurations"]
    comm = result.schedule["communication"]
    starts = [e["start"] for e in conf]
    for c in result.schedule["completions"]:
        i = max(j for j in range(len(conf)) if starts[j] <= c)
        for q, xq in enumerate(conf[i]["allocation"]):
            if xq:
                sent = comm[q][starts[i]:c + 1].count("D")
                assert sent == xq * inst.T_data, ("drop rule broken", inst.name, q, starts[i], c, sent)


def one(inst, name: str, rule: str) -> dict:
    sim.DROP_DATA = rule == "drop"
    try:
        t0 = time.perf_counter()
        result = sim.simulate(inst, policy(name), np.random.default_rng(0))
        seconds = time.perf_counter() - t0
    finally:
        sim.DROP_DATA = False
    if rule == "default":
        assert replay_trace(inst, result.schedule).completions == result.schedule["completions"], inst.name
    else:
        data_check(inst, result)
    return {"makespan": result.makespan, "switches": result.switches,
            "entries": len(result.schedule["configurations"]), "slots": result.slots, "seconds": seconds}


def diffs(runs: dict, scenarios: list, rule: str, name: str) -> list[float]:
    """Per scenario with a paired trial, the report's (mean H - mean IE) / min(mean H, mean IE)."""
    keep = set(scenarios)
    rows = [{"family": "coupled", "method": k[4], "kind": "heuristic", "status": "ok", "sense": "min",
             "objective": r["makespan"], "instance_key": json.dumps(k[:4]),
             "params": dict(zip(("n_com", "w_min", "scenario", "trial"), k[:4], strict=True))}
            for k, r in runs.items() if k[5] == rule and k[:3] in keep and r["makespan"] is not None]
    return [d for _, d in scenario_differences(rows, "coupled", name, "IE")[0]]


def rule_pairs(runs: dict, scenarios: list, name: str) -> list[tuple]:
    """``name``'s (default, drop) makespans on every trial of ``scenarios`` run under both rules."""
    return [(runs[(*s, t, name, "default")]["makespan"], runs[(*s, t, name, "drop")]["makespan"])
            for s in scenarios for t in range(10)
            if (*s, t, name, "default") in runs and (*s, t, name, "drop") in runs]


def drop_ratio(pairs: list[tuple]) -> float:
    """Mean of drop / default over the pairs both rules finished (NaN if none)."""
    fin = [b for b in pairs if b[0] is not None and b[1] is not None]
    return float(np.mean([b[1] / b[0] for b in fin])) if fin else float("nan")


def fmt(values: list[float]) -> str:
    if not values:
        return "-"
    a = 100 * np.asarray(values)
    return f"{a.mean():+.1f} ({a.std():.1f})"


def tables(runs: dict, scenarios: list) -> str:
    lines = []
    groups = [(f"w_min = {w}", [s for s in scenarios if s[1] == w]) for w in W_MINS] + [("all", scenarios)]
    for rule in RULES:
        lines.append(f"\n### Rule: {rule}\n")
        lines.append("%diff vs IE of the same rule, mean over scenarios (stdv over scenarios); "
                     "failures = runs that did not finish 10 iterations in 10^6 slots; sw/run = proactive "
                     "switches per run (all runs); cfg/run = configurations put in force per run "
                     "(log entries, idle entries included).\n")
        head = "| heuristic | " + " | ".join(f"{g} %diff (stdv)" for g, _ in groups) + " | " + \
            " | ".join(f"fails {g}" for g, _ in groups) + " | sw/run | cfg/run |"
        lines.append(head)
        lines.append("|---|" + "---:|" * (2 * len(groups) + 2))
        for name in NAMES:
            cells = [fmt(diffs(runs, sc, rule, name)) for _, sc in groups]
            fails = []
            for _, sc in groups:
                rs = [runs[(*s, t, name, rule)] for s in sc for t in range(10) if (*s, t, name, rule) in runs]
                fails.append(f"{sum(r['makespan'] is None for r in rs)}/{len(rs)}")
            rs = [r for k, r in runs.items() if k[4] == name and k[5] == rule and k[:3] in scenarios]
            sw = np.mean([r["switches"] for r in rs]) if rs else float("nan")
            cfg = np.mean([r["entries"] for r in rs]) if rs else float("nan")
            lines.append(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(fails) +
                         f" | {sw:.1f} | {cfg:.1f} |")
    # Side by side: each heuristic's %diff under both rules, and how each rule moves the raw makespans.
    lines.append("\n### Side by side (all scenarios): %diff vs IE of the same rule\n")
    lines.append("| heuristic | default | drop | mean over runs of makespan drop / default "
                 "(runs both rules finished) | runs whose makespan changed |")
    lines.append("|---|---:|---:|---:|---:|")
    for name in NAMES:
        both = rule_pairs(runs, scenarios, name)
        changed = sum(b[0] != b[1] for b in both)
        lines.append(f"| {name} | {fmt(diffs(runs, scenarios, 'default', name))} "
                     f"| {fmt(diffs(runs, scenarios, 'drop', name))} | {drop_ratio(both):.3f} "
                     f"| {changed}/{len(both)} |")
    lines.append("\n### Per w_min: mean over runs of makespan drop / default (runs both rules finished)\n")
    lines.append("| heuristic | " + " | ".join(g for g, _ in groups) + " |")
    lines.append("|---|" + "---:|" * len(groups))
    for name in NAMES:
        ratios = [drop_ratio(rule_pairs(runs, sc, name)) for _, sc in groups]
        cells = ["-" if r != r else f"{r:.3f}" for r in ratios]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", default="4",
                        help="scenarios per w_min (10 trials each): one count, or one per w_min as 8,8,3")
    parser.add_argument("--out", default="drop_data_runs.jsonl", help="one line per run (resumable)")
    args = parser.parse_args()
    if not hasattr(sim, "DROP_DATA"):
        raise SystemExit("bench_coupled_drop_data: the simulator has no drop rule; run it on a worktree with "
                         "benchmarks/patches/coupled-drop-data.diff applied (see the module docstring)")
    counts = [int(c) for c in args.scenarios.split(",")]
    scenarios = draw(counts if len(counts) > 1 else counts[0])
    runs: dict = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                r = json.loads(line)
                runs[tuple(r["key"])] = r
    todo = [(*sc, t, name, rule) for sc in scenarios for t in range(10) for name in NAMES for rule in RULES]
    todo = [k for k in todo if k not in runs]
    print(f"scenarios (n_com, w_min, scenario), {args.scenarios} per w_min {W_MINS}, seed 2013: {scenarios}")
    print(f"{len(todo)} runs to do, {len(runs)} read from {args.out}", flush=True)
    begin = time.perf_counter()
    with open(args.out, "a") as f:
        for key in tqdm(todo, unit="run", mininterval=5):
            n_com, w_min, sc, trial, name, rule = key
            r = one(paper_realization(TASKS, n_com, w_min, sc, trial), name, rule)
            r["key"] = list(key)
            runs[key] = r
            f.write(json.dumps(r) + "\n")
            f.flush()
    print(f"\n{len(todo)} runs in {time.perf_counter() - begin:.0f} s "
          f"(simulation time of all {len(runs)} runs read: {sum(r['seconds'] for r in runs.values()):.0f} s)")
    per = {}
    for k, r in runs.items():
        if k[:3] in scenarios:
            per.setdefault((k[1], k[5]), []).append(r["seconds"])
    print("seconds per run by (w_min, rule): " + ", ".join(f"{k}: {np.mean(v):.2f} (n={len(v)})"
                                                          for k, v in sorted(per.items())))
    print(tables(runs, scenarios))


if __name__ == "__main__":
    main()
