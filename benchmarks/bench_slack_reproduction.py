"""Figure 4's stability at high beta under per-machine correlated availability (Canon et al. 2011, Section 6).

A benchmark-only variant of the ``paper`` stand-in (``instances/slack/generators.py``, unchanged):
the paper samples whole SETI@home machines, whose availability is correlated per machine (slack.md
7.1: more than 20 % of them are available 95 % of the time); the stand-in draws every availability
i.i.d. from one Weibull (shape 0.431, scale 1.682 h). Here each non-free machine ``i`` draws once a
factor ``f_i = exp(sigma Z_i - sigma^2 / 2)`` (``Z_i`` standard normal, so ``E f_i = 1``: the mean
availability over machines is unchanged; ``--centre median``: ``f_i = exp(sigma Z_i)``, the median
machine keeps the stand-in's law and the mean grows by ``exp(sigma^2 / 2)``) and multiplies its
Weibull scale by it; the shape, the
unavailability law, the jobs and the free machines are the stand-in's. ``sigma = 0`` is the
stand-in itself (checked: the instance equals ``generate_paper``'s, byte for byte).

For each ``sigma``, ``--instances`` seeds of ``--machines`` x ``--jobs`` and beta = 0, 0.1, ..., 1:
GAPS through the family's simulate path (the verifier checks each schedule, the paper's sampled
disturbance: median of 30 uniform draws), the makespan over the beta-independent ``slack`` lower
bound and the stability; medians and quartiles per beta. Run::

    python benchmarks/bench_slack_reproduction.py --instances 10 --sigma 0 1 2
    python benchmarks/bench_slack_reproduction.py --instances 10 --sigma 1 2 --centre median
    python benchmarks/bench_slack_reproduction.py --instances 10 --sigma 0 --after-makespan free

``--after-makespan free`` is a second diagnostic, not the paper's model: the same GAPS schedule is
evaluated (same draws) on a copy of the instance that keeps only the unavailabilities ending by the
schedule's reference makespan, so that every machine is available for ever after it (as if the
traces stopped at the makespan); no unavailability after ``C_max`` is disturbed or waited for.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from volsched.families import FAMILIES
from volsched.heuristics.slack import gaps, sampled_makespans
from volsched.instances.slack import SlackInstance
from volsched.instances.slack import generators as gen
from volsched.solvers.slack.bound import lower_bound

BETAS = [round(0.1 * k, 1) for k in range(11)]


def correlated_paper(
    machines: int,
    jobs: int,
    seed: int,
    sigma: float,
    centre: str = "mean",
    free_fraction: float = gen.FREE_FRACTION,
    horizon: float = gen.HORIZON_FACTOR,
    beta: float = 1.0,
    job_median: float = gen.JOB_MEDIAN_HOURS,
    down_scale: float = 1.0,
) -> SlackInstance:
    """``generate_paper`` with a per-machine log-normal factor (mean 1) on the availability durations.

    Same seeding as :func:`generate_paper` (one spawned generator per machine); the factor is drawn
    first from the machine's generator only when ``sigma > 0``, so ``sigma = 0`` gives its instance.
    ``job_median`` (hours) moves the job law's median (still at least 30 minutes) and ``down_scale``
    multiplies every unavailability: the two sensitivity knobs of ``--job-median`` / ``--down-scale``.
    """
    job_seq, machine_seq = np.random.SeedSequence(seed).spawn(2)
    lam = gen._n_free(machines, free_fraction)
    p = gen.draw_jobs(np.random.default_rng(job_seq), jobs, job_median)
    end = math.ceil(horizon * gen.lpt_free_bound(p, lam))
    a_law, u_law = gen.paper_failure_law(), gen.paper_unavailability_law()
    minute = gen.SECONDS_PER_MINUTE

    def machine(child):
        rng = np.random.default_rng(child)
        shift = sigma**2 / 2 if centre == "mean" else 0.0
        f = math.exp(sigma * rng.standard_normal() - shift) if sigma > 0 else 1.0
        return gen._draw_machine(
            end,
            lambda k: np.rint(a_law.sample(rng, k) * minute * f).astype(np.int64),
            lambda k: np.maximum(1, np.rint(u_law.sample(rng, k) * minute * down_scale)).astype(np.int64),
        )

    rows = [machine(s) for s in machine_seq.spawn(machines - lam)]
    rows += [np.zeros((0, 2), np.int64)] * lam
    name = f"paper-corr{sigma:g}-m{machines}-n{jobs}-s{seed}"
    return SlackInstance(
        machines=rows,
        p=p,
        beta=beta,
        name=name,
        params={
            "preset": "paper",
            "machines": machines,
            "jobs": jobs,
            "seed": seed,
            "free_fraction": free_fraction,
            "horizon": horizon,
            "beta": beta,
            "time_unit": "second",
            "sigma": sigma,
            "centre": centre,
        },
    )


def free_after_makespan(inst: SlackInstance, beta: float, seed: int) -> tuple[int, float]:
    """GAPS(beta)'s makespan and its sampled stability with every machine free after the makespan."""
    schedule = gaps(inst, beta)
    cmax = schedule.makespan(inst.p)
    rows = [
        np.stack([inst.s(i), inst.e(i)], axis=1)[inst.e(i) <= cmax]
        if len(inst.machines[i])
        else np.zeros((0, 2), np.int64)
        for i in range(len(inst.machines))
    ]
    cut = SlackInstance(machines=rows, p=inst.p, beta=beta)
    runs = sampled_makespans(cut, schedule, np.random.default_rng(seed), 30)
    return cmax, float(np.median(runs)) / cmax


def short_share(inst: SlackInstance) -> float:
    """The share of availability periods shorter than 30 minutes."""
    a = np.concatenate([inst.a(i) for i in range(len(inst.machines)) if len(inst.machines[i])])
    return float(np.mean(a < 1800))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=10)
    ap.add_argument("--machines", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=3000)
    ap.add_argument("--sigma", type=float, nargs="+", default=[0.0, 1.0, 2.0])
    ap.add_argument("--centre", choices=["mean", "median"], default="mean")
    ap.add_argument(
        "--job-median",
        type=float,
        nargs="+",
        default=[gen.JOB_MEDIAN_HOURS],
        help="hours: the job law's median (the stand-in: 2)",
    )
    ap.add_argument("--down-scale", type=float, default=1.0, help="multiplies every unavailability")
    ap.add_argument(
        "--after-makespan",
        choices=["model", "free"],
        default="model",
        help="free: no unavailability after the reference makespan (a diagnostic)",
    )
    args = ap.parse_args()
    fam = FAMILIES["slack"]
    base = correlated_paper(args.machines, args.jobs, 0, 0.0)
    assert base.to_json()["data"] == gen.generate_paper(args.machines, args.jobs, 0).to_json()["data"]
    for sigma, job_median in ((s, j) for s in args.sigma for j in args.job_median):
        ratio = {b: [] for b in BETAS}
        stab = {b: [] for b in BETAS}
        short, begin = [], time.perf_counter()
        for seed in range(args.instances):
            inst = correlated_paper(
                args.machines,
                args.jobs,
                seed,
                sigma,
                args.centre,
                job_median=job_median,
                down_scale=args.down_scale,
            )
            short.append(short_share(inst))
            bound = lower_bound(inst, "slack")
            for beta in BETAS:
                if args.after_makespan == "free":
                    cmax, stability = free_after_makespan(inst, beta, seed)
                else:
                    run = fam.simulate(inst.with_beta(beta), "gaps", seed)
                    cmax, stability = run["metrics"]["makespan"], run["metrics"]["stability"]
                ratio[beta].append(cmax / bound)
                stab[beta].append(stability)
        print(
            f"sigma {sigma:g} ({args.centre} 1), job median {job_median:g} h, unavailability x "
            f"{args.down_scale:g}, after the makespan: {args.after_makespan}; "
            f"{args.instances} instances of {args.machines} x "
            f"{args.jobs}, {time.perf_counter() - begin:.0f} s; periods under 30 min: median share "
            f"{np.median(short):.3f}"
        )
        print("beta | ratio q1 / median / q3 | stability q1 / median / q3 / max")
        for b in BETAS:
            r, s = np.percentile(ratio[b], [25, 50, 75]), np.percentile(stab[b], [25, 50, 75])
            print(
                f"{b:.1f} | {r[0]:.3f} / {r[1]:.3f} / {r[2]:.3f} | {s[0]:.3f} / {s[1]:.3f} / {s[2]:.3f} / "
                f"{max(stab[b]):.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
