"""Section V estimates (Casanova et al. 2013): accuracy against Monte Carlo, and the cost per call.

Usage: python benchmarks/bench_coupled_estimates.py [--samples 200000] [--seed 2013] [--repeat 300]

Chains: the paper's (``markov_chains``, P_xx ~ U[0.90, 0.99]), seeded; the
Monte-Carlo oracles are ``tests/oracles/coupled/markov_mc.py`` (slot-by-slot simulation
of the 3-state chains, every processor UP in slot 1).

(a) ``E^(S)(W)``: the printed formula, the conditional one and the Monte-Carlo
    mean span of the successful runs (± one standard error).
(b) ``P^(S)(W) = P_+^(W-1)`` against the Monte-Carlo success rate.
(c) Section V-B: ``E_comm`` and ``P_comm`` against a simulated communication
    phase (worker ``q`` needs ``n_q = T_prog + x_q T_data`` UP slots of
    reception, one stream per worker, at most ``n_com`` workers served per slot,
    most slots left first; mean span of the runs with no DOWN in ``S``, and the
    rate of such runs).
(d) Cost of one call for 20 candidate sets ``S ∪ {q}``: the vectorised
    ``expected_span`` with an empty memo and with the sets memoised (and
    ``communication`` for the same sets), against a
    reference that loops over the sets (per-set sums of ``(M_q^t)[0, 0]``
    by ``numpy.linalg.matrix_power`` over the same ``T(S)``), same inputs,
    same process.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from oracles.coupled import markov_mc as mc

from volsched.heuristics.coupled.estimates import MarkovEstimates
from volsched.instances.coupled import markov_chains

P = 20


def mask(members) -> np.ndarray:
    m = np.zeros(P, dtype=bool)
    m[list(members)] = True
    return m


def span_table(est, trans, rng, samples) -> None:
    print(
        "(a) E^(S)(W): printed vs conditional vs Monte Carlo (successful runs)   "
        "(b) P^(S)(W) = P_+^(W-1) vs MC success rate"
    )
    print(
        f"{'|S|':>3} {'W':>4} | {'printed':>10} {'conditional':>11} {'MC mean':>9} {'± SE':>6} "
        f"{'printed/MC':>10} {'(cond-MC)/SE':>12} | {'P_+^(W-1)':>9} {'MC rate':>8} {'± SE':>7} "
        f"{'z':>5} | {'successes':>9}"
    )
    for size, W in [(1, 5), (1, 30), (2, 20), (3, 5), (3, 20), (5, 10), (5, 20), (10, 5)]:
        members = rng.choice(P, size, replace=False)
        m = mask(members)
        ok, span = mc.computation(trans[members], W, samples, rng)
        d = span[ok]
        printed = est.expected_span(m, W, "printed")
        cond = est.expected_span(m, W, "conditional")
        p_w = est.success_probability(m, W)
        rate, rate_se = ok.mean(), math.sqrt(p_w * (1 - p_w) / samples)
        if len(d) > 1:
            mean, se = d.mean(), d.std(ddof=1) / math.sqrt(len(d))
            tail = f"{mean:9.3f} {se:6.3f} {printed / mean:10.2f} {(cond - mean) / se:12.2f}"
        else:
            tail = f"{'-':>9} {'-':>6} {'-':>10} {'-':>12}"
        print(
            f"{size:3d} {W:4d} | {printed:10.3f} {cond:11.3f} {tail} | {p_w:9.5f} {rate:8.5f} "
            f"{rate_se:7.5f} {(p_w - rate) / rate_se:5.2f} | {len(d):9d}"
        )


def communication_table(est, trans, rng, samples) -> None:
    print("\n(c) communication phase: E_comm and P_comm (Section V-B) vs Monte Carlo")
    print("    w_min = 2: T_prog = 10, T_data = 2, n_q = T_prog + x_q T_data")
    print(
        f"{'|S|':>3} {'x_q':>14} {'n_com':>5} | {'E_comm cond':>11} {'E_comm pr':>10} {'MC span':>8} "
        f"{'± SE':>5} {'err cond':>8} | {'P_comm cond':>11} {'P_comm pr':>9} {'MC no-DOWN':>10} "
        f"{'err cond':>8}"
    )
    errors = []
    for size, n_com in [(1, 1), (2, 5), (3, 1), (3, 2), (3, 5), (5, 2), (5, 5), (8, 5)]:
        members = rng.choice(P, size, replace=False)
        x = rng.integers(1, 3, size)
        n_members = 10 + 2 * x
        n = np.zeros(P, dtype=np.int64)
        n[members] = n_members
        m = mask(members)
        cond = est.communication(m, n, n_com, "conditional")
        printed = est.communication(m, n, n_com, "printed")
        ok, span = mc.communication(trans[members], n_members, n_com, samples, rng)
        d = span[ok]
        mean, se = d.mean(), d.std(ddof=1) / math.sqrt(len(d))
        rate = ok.mean()
        err_t, err_p = (cond.time - mean) / mean, (cond.success - rate) / rate
        errors.append((abs(err_t), abs(err_p)))
        xs = str(tuple(int(v) for v in x))
        print(
            f"{size:3d} {xs:>14} {n_com:5d} | {cond.time:11.2f} {printed.time:10.2f} {mean:8.2f} {se:5.2f} "
            f"{err_t:8.1%} | {cond.success:11.4f} {printed.success:9.4f} {rate:10.4f} {err_p:8.1%}"
        )
    worst = np.max(errors, axis=0)
    print(
        f"    worst |relative error| of the conditional estimates: E_comm {worst[0]:.1%}, "
        f"P_comm {worst[1]:.1%}"
    )


def reference_sums(trans, members, T):
    """Per-set loop: ``sum_{0<t<T} prod_q (M_q^t)[0, 0]`` by ``matrix_power`` (the reference)."""
    t = np.arange(1, T)
    prod = np.ones(T - 1)
    for q in members:
        M = trans[q, :2, :2]
        prod *= np.array([np.linalg.matrix_power(M, int(s))[0, 0] for s in t])
    e_u, a = prod.sum(), (t * prod).sum()
    p_plus = e_u / (1 + e_u)
    e_c = a / (1 + e_u) ** 2
    return p_plus, e_c


def cost_table(trans, rng, repeat) -> None:
    print(
        f"\n(d) cost of one call for 20 candidate sets S ∪ {{q}} ({os.cpu_count()} cores); "
        "expected_span(masks, W) with W per set"
    )
    print(
        f"{'|S|':>3} {'T(S) max':>8} | {'cold memo':>10} {'memo hit':>9} | {'reference loop':>14} "
        f"{'ratio ref/cold':>14} | {'max |rel diff|':>14} | {'communication':>13}"
    )
    base = MarkovEstimates(trans)
    for size in (0, 1, 2, 4, 9):
        S = rng.choice(P, size, replace=False)
        masks = np.repeat(mask(S)[None], P, axis=0)
        masks[np.arange(P), np.arange(P)] = True
        W = rng.integers(10, 1000, P)
        T = base.truncation(masks)

        t0 = time.perf_counter()
        for _ in range(repeat):
            base.memo.clear()
            base.expected_span(masks, W, "conditional")
        t_cold = (time.perf_counter() - t0) / repeat
        base.expected_span(masks, W, "conditional")
        t0 = time.perf_counter()
        for _ in range(repeat):
            got = base.expected_span(masks, W, "conditional")
        t_hit = (time.perf_counter() - t0) / repeat
        n = np.where(masks, rng.integers(10, 150, masks.shape), 0)
        t0 = time.perf_counter()
        for _ in range(repeat):
            base.communication(masks, n, 5, "conditional")
        t_comm = (time.perf_counter() - t0) / repeat
        n_ref = 3 if size <= 1 else 20
        t0 = time.perf_counter()
        ref = []
        for i in range(n_ref):
            p_plus, e_c = reference_sums(trans, np.flatnonzero(masks[i]), int(T[i]))
            ref.append(1 + (W[i] - 1) * e_c / p_plus)
        t_ref = (time.perf_counter() - t0) / n_ref * P
        diff = np.max(np.abs(np.array(ref) - got[:n_ref]) / got[:n_ref])
        print(
            f"{size:3d} {int(T.max()):8d} | {t_cold * 1e6:8.0f}µs {t_hit * 1e6:7.0f}µs | "
            f"{t_ref * 1e3:12.1f}ms {t_ref / t_cold:14.0f} | {diff:14.1e} | {t_comm * 1e6:11.0f}µs"
        )
    print("    (|S| = 0: the singletons, memoised when the object is built; cold memo = recomputed here;")
    print("     communication: E_comm and P_comm for the 20 sets, n_q ~ U[10, 150) on S ∪ {q}, n_com = 5)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=2013)
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    trans = markov_chains(rng, P)
    est = MarkovEstimates(trans)
    print(
        f"paper chains, p = {P}, seed {args.seed}, {args.samples:,} Monte-Carlo runs per row, "
        f"eps = {est.eps:g}, table T = {est.T}\n"
    )
    span_table(est, trans, rng, args.samples)
    communication_table(est, trans, rng, args.samples)
    cost_table(trans, rng, args.repeat)


if __name__ == "__main__":
    main()
