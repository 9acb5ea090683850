"""The checkpoint family behind the :class:`~volsched.families.Family` interface."""

from __future__ import annotations

import argparse

import numpy as np

from volsched.heuristics.checkpoint import POLICIES
from volsched.instances import checkpoint as model
from volsched.instances.errors import require
from volsched.solvers import checkpoint as exact

from . import Family, Param


def _value(instance: model.CheckpointInstance, solution: dict) -> float:
    require(isinstance(solution, dict) and "a" in solution, "solution.a", "missing")
    return exact.verify(instance, instance.check_schedule(solution["a"]))


def _heuristic(policy):
    def run(instance: model.CheckpointInstance) -> dict:
        a = policy(instance)
        return {"a": [int(v) for v in a], "checkpoints": int(a.sum())}

    return run


def _add_generate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--slices", type=int, required=True, help="number of slices n")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--alpha", type=float, default=1.0, help="re-execution ratio (default 1)")
    parser.add_argument("--law", choices=model.LAW_CHOICES, default="weibull",
                        help="failure law (default: the paper's Weibull; others share its mean)")
    parser.add_argument("--slice-hours", type=float, nargs=2, metavar=("LOW", "HIGH"),
                        default=model.SLICE_HOURS_ON_MEAN_CLIENT,
                        help="slice length range on a mean-speed client (default 1 5)")


def _generate(args: argparse.Namespace) -> model.CheckpointInstance:
    return model.generate(args.slices, args.seed, alpha=args.alpha, law=args.law,
                          slice_hours=tuple(args.slice_hours))


def simulate(instance: model.CheckpointInstance, heuristic: str, seed: int,
             samples: int = 100_000) -> dict:
    """A policy's schedule, its expected waste, and a Monte-Carlo estimate of it.

    The estimate samples ``samples`` failure times from the law and measures
    the waste of Expression (1) for each: the accumulated checkpoint overhead
    of the interval the failure falls in plus ``alpha`` times the time since
    that interval's start (0 when the job ends first).
    """
    require(samples >= 2, "samples", f"must be at least 2, got {samples}")
    solution = FAMILY.heuristics[heuristic](instance)
    a = np.asarray(solution["a"], dtype=bool)
    sigma = np.cumsum(np.where(a, instance.c, 0))[a]
    ends = instance.tau[1:][a] + sigma
    starts = np.concatenate([[0], ends[:-1]])
    t = instance.law.sample(np.random.default_rng(seed), samples)
    k = np.searchsorted(ends, t, side="left")
    inside = k < len(ends)
    kk = np.minimum(k, len(ends) - 1)
    waste = np.where(inside, sigma[kk] + instance.alpha * (t - starts[kk]), 0.0)
    return {
        "heuristic": heuristic,
        "solution": solution,
        "expected_waste": _value(instance, solution),
        "monte_carlo": {"samples": samples, "seed": seed, "mean": float(waste.mean()),
                        "stderr": float(waste.std(ddof=1) / np.sqrt(samples))},
    }


def _integer(value, key: str) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool)
    require(ok and value >= 1, key, f"must be a positive integer, got {value!r}")
    return value


def _number(value, key: str) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    require(ok, key, f"must be a number, got {value!r}")
    return float(value)


def _law(value, key: str) -> str:
    require(value in model.LAW_CHOICES, key, f"must be one of {list(model.LAW_CHOICES)}, got {value!r}")
    return value


def _pair(value, key: str) -> list[float]:
    ok = isinstance(value, list) and len(value) == 2
    require(ok, key, f"must be a [low, high] pair of hours, got {value!r}")
    return [_number(v, f"{key}[{i}]") for i, v in enumerate(value)]


def _generate_from(params: dict) -> model.CheckpointInstance:
    return model.generate(params.get("slices", 20), params["seed"], alpha=params.get("alpha", 1.0),
                          law=params.get("law", "weibull"),
                          slice_hours=tuple(params.get("slice_hours", model.SLICE_HOURS_ON_MEAN_CLIENT)))


#: Section IV-A's single-job question on a grid: every law (the paper's Weibull and
#: four with its mean), the paper's 1-5 h slices and short 3-30 min ones.
PRESETS = {
    "bouguerra2011": [{
        "name": "bouguerra2011", "family": model.FAMILY, "seeds": 10,
        "grid": {"slices": [10, 25, 50], "law": list(model.LAW_CHOICES),
                 "slice_hours": [[1.0, 5.0], [0.05, 0.5]]},
        "exact": {"method": "dp"},
    }],
    "bouguerra2011-smoke": [{
        "name": "bouguerra2011-smoke", "family": model.FAMILY, "seeds": 2,
        "grid": {"slices": [8, 16], "law": ["weibull", "exponential"], "slice_hours": [[0.05, 0.5]]},
        "exact": {"method": "dp"},
    }],
}


FAMILY = Family(
    name=model.FAMILY,
    load=model.CheckpointInstance.from_json,
    methods=tuple(exact.METHODS),
    solve=exact.solve,
    value=_value,
    heuristics={name: _heuristic(policy) for name, policy in POLICIES.items()},
    add_generate_arguments=_add_generate_arguments,
    generate=_generate,
    simulate=simulate,
    generator_params={"slices": Param(_integer), "alpha": Param(_number), "law": Param(_law),
                      "slice_hours": Param(_pair, is_list=True)},
    generate_from=_generate_from,
    presets=PRESETS,
)
