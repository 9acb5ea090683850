"""A sample of Figure 4 (Canon et al. 2011, Section 6) on the ``paper`` stand-in, without exact solves.

For ``--instances`` seeds of ``--machines`` x ``--jobs`` and beta = 0, 0.1, ..., 1: GAPS through the
family (``volsched simulate``'s path: the verifier checks each schedule), the paper's sampled
disturbance (median of 30 uniform draws), the makespan over the beta-independent slack lower bound
(``solvers/slack/bound.py``) and the stability; medians and quartiles per beta. Run::

    python benchmarks/slack_figure4_sample.py --instances 10
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from volsched.families import FAMILIES
from volsched.instances.slack.generators import generate_paper
from volsched.solvers.slack.bound import lower_bound

BETAS = [round(0.1 * k, 1) for k in range(11)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=10)
    ap.add_argument("--machines", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=3000)
    args = ap.parse_args()
    fam = FAMILIES["slack"]
    ratio = {b: [] for b in BETAS}
    stab = {b: [] for b in BETAS}
    begin = time.perf_counter()
    for seed in range(args.instances):
        inst = generate_paper(args.machines, args.jobs, seed)
        bound = lower_bound(inst, "slack")
        for beta in BETAS:
            run = fam.simulate(inst.with_beta(beta), "gaps", seed)
            ratio[beta].append(run["metrics"]["makespan"] / bound)
            stab[beta].append(run["metrics"]["stability"])
    print(f"{args.instances} instances of {args.machines} x {args.jobs}, {time.perf_counter() - begin:.0f} s")
    print("beta | ratio q1 / median / q3 | stability q1 / median / q3 / max")
    for b in BETAS:
        r, s = np.percentile(ratio[b], [25, 50, 75]), np.percentile(stab[b], [25, 50, 75])
        print(f"{b:.1f} | {r[0]:.3f} / {r[1]:.3f} / {r[2]:.3f} | {s[0]:.3f} / {s[1]:.3f} / {s[2]:.3f} / "
              f"{max(stab[b]):.3f}")


if __name__ == "__main__":
    main()
