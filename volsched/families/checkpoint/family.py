"""The checkpoint family's :class:`~volsched.families.Family` object, ``FAMILY`` (see the package).

The registry (:data:`volsched.families.FAMILIES`) imports this module on the family's first use;
the package itself stays light, so that the CLI builds its parser without loading solvers.
"""

from __future__ import annotations

from volsched.heuristics.checkpoint import POLICY_OBJECTS, SingleJobSimulator
from volsched.instances import checkpoint as model
from volsched.instances import pathological
from volsched.instances.errors import check_choice, check_int, check_number, require
from volsched.solvers.checkpoint import PROBLEMS

from .. import Extras, Family, GeneratorSpec, Heuristic, Option

#: Longest slice, in hours on a mean client: its quanta (x 600 on the slowest client) stay far below
#: the instance's 10^9 (a longer one overflowed the conversion to integer quanta).
MAX_SLICE_HOURS = 10**6


def _pair(value, key: str) -> list[float]:
    require(
        isinstance(value, (list, tuple)) and len(value) == 2,
        key,
        f"must be a [low, high] pair of hours, got {value!r}",
    )
    return [check_number(v, f"{key}[{i}]", 0, MAX_SLICE_HOURS) for i, v in enumerate(value)]


GENERATOR = GeneratorSpec(
    name="paper",
    help="one job drawn from the paper's Tables I and II for one client",
    options=(
        Option("slices", lambda v, k: check_int(v, k, 1, model.MAX_SLICES), 20, "number of slices n", int),
        Option("seed", lambda v, k: check_int(v, k, 0), 0, "random seed", int),
        Option("alpha", lambda v, k: check_number(v, k), 1.0, "re-execution ratio", float),
        Option(
            "law",
            lambda v, k: check_choice(v, k, model.LAW_CHOICES),
            "weibull",
            f"failure law, one of {', '.join(model.LAW_CHOICES)} "
            "(the paper's Weibull; the others share its mean)",
        ),
        Option(
            "slice_hours",
            _pair,
            list(model.SLICE_HOURS_ON_MEAN_CLIENT),
            "slice length range LOW HIGH on a mean-speed client",
            float,
            nargs=2,
        ),
    ),
    make=lambda p: model.generate(
        p["slices"], p["seed"], alpha=p["alpha"], law=p["law"], slice_hours=tuple(p["slice_hours"])
    ),
)


def _heavy_shape(value, key: str) -> float:
    shape = check_number(value, key, 0.01, 1.0)
    require(shape < 1.0, key, f"must be below 1 (a heavy-tailed Weibull), got {value!r}")
    return shape


HEAVY_TAIL = GeneratorSpec(
    name="heavy-tail",
    help="equal slices, costly checkpoints but every k-th cheap, a heavy-tailed Weibull: against "
    "Young and Daly (Section IV-A-2)",
    options=(
        Option("slices", lambda v, k: check_int(v, k, 1, model.MAX_SLICES), 10, "number of slices n", int),
        Option("p", lambda v, k: check_int(v, k, 1, 10**6), 30, "every slice's duration in quanta", int),
        Option("c_low", lambda v, k: check_int(v, k, 1, 10**6), 1, "the cheap checkpoints' cost", int),
        Option("c_high", lambda v, k: check_int(v, k, 1, 10**6), 300, "the other checkpoints' cost", int),
        Option("cheap_every", lambda v, k: check_int(v, k, 1), 3, "every k-th checkpoint is cheap", int),
        Option("shape", _heavy_shape, 0.5, "Weibull shape, in [0.01, 1): heavy-tailed", float),
        Option("scale", lambda v, k: check_number(v, k, 1e-3, 1e9), 20.0, "Weibull scale in quanta", float),
    ),
    make=lambda p: pathological.heavy_tail(
        p["slices"], p["p"], p["c_low"], p["c_high"], p["cheap_every"], p["shape"], p["scale"]
    ),
)


#: Section IV-A's single-job question on a grid: every law (the paper's Weibull and
#: four with its mean), the paper's 1-5 h slices and short 3-30 min ones.
PRESETS = {
    "bouguerra2011": [
        {
            "name": "bouguerra2011",
            "family": model.FAMILY,
            "seeds": 10,
            "grid": {
                "slices": [10, 25, 50],
                "law": list(model.LAW_CHOICES),
                "slice_hours": [[1.0, 5.0], [0.05, 0.5]],
            },
            "exact": {"method": "dp"},
        }
    ],
    "bouguerra2011-smoke": [
        {
            "name": "bouguerra2011-smoke",
            "family": model.FAMILY,
            "seeds": 2,
            "grid": {"slices": [8, 16], "law": ["weibull", "exponential"], "slice_hours": [[0.05, 0.5]]},
            "exact": {"method": "dp"},
        }
    ],
}

SIMULATOR = SingleJobSimulator()


FAMILY = Family(
    name=model.FAMILY,
    load=model.CheckpointInstance.from_json,
    generators={GENERATOR.name: GENERATOR, HEAVY_TAIL.name: HEAVY_TAIL},
    # without --preset, the paper's generator, as before the named constructions
    pick_generator=lambda given: GENERATOR.name,
    problems=PROBLEMS,
    heuristics={
        name: Heuristic(name, "checkpoint", policy, SIMULATOR) for name, policy in POLICY_OBJECTS.items()
    },
    extras=Extras(
        presets=PRESETS,
    ),
)
