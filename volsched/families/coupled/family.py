"""The coupled family's :class:`~volsched.families.Family` object, ``FAMILY`` (see the package).

The registry (:data:`volsched.families.FAMILIES`) imports this module on the family's first use;
the package itself stays light, so that the CLI builds its parser without loading solvers.
"""

from __future__ import annotations

from volsched.heuristics.coupled import CONDITIONAL, NAMES, CoupledSimulator, policy
from volsched.heuristics.coupled.simulator import MAX_TASKS
from volsched.instances import coupled as model
from volsched.instances import pathological
from volsched.instances.errors import check_choice, check_flag, check_int, check_number, check_path
from volsched.solvers.coupled import PROBLEMS

from .. import Extras, Family, GeneratorSpec, Heuristic, Option
from . import tables


def _positive(v, k):
    return check_int(v, k, 1)


def _count(v, k):
    return check_int(v, k, 0)


DESCRIPTIONS = {
    "R": "uniform UP workers, passive (VI-C)",
    "I": "passive: tasks one by one by the Section V criterion, at iteration starts and after a DOWN (VI-A)",
    "P": "proactive: switch at any slot to a fresh configuration with a higher success probability (VI-B)",
    "E": "proactive: switch at any slot to a fresh configuration with a lower expected time (VI-B)",
    "Y": "proactive: switch at any slot to a fresh configuration with a higher yield (VI-B)",
}

SEED = Option("seed", _count, 0, "random seed", int)
PROCESSORS = Option("processors", _positive, 20, "p, processors", int)
SLOTS = Option("slots", _positive, 500, "horizon H in slots", int)
TASKS = Option(
    "tasks",
    lambda v, k: check_int(v, k, 1, MAX_TASKS),
    5,
    f"m, tasks per iteration (at most {MAX_TASKS:,}: on-line heuristics place them one by one)",
    int,
)
FILE = Option("file", check_path, None, "the graph file")
PAPER_SLOTS = Option("slots", _positive, 2000, "horizon H in slots", int)

GENERATORS = {
    g.name: g
    for g in (
        GeneratorSpec(
            "markov",
            (PROCESSORS, SLOTS, TASKS, SEED),
            lambda p: model.generate_markov(p["processors"], p["slots"], p["tasks"], p["seed"]),
            "the paper's 3-state chains",
        ),
        GeneratorSpec(
            "planted",
            (
                PROCESSORS,
                SLOTS,
                TASKS,
                Option("block", _positive, 10, "slots of the all-UP block", int),
                Option(
                    "density",
                    lambda v, k: check_number(v, k, 0.0, 1.0),
                    0.5,
                    "UP probability elsewhere",
                    float,
                ),
                SEED,
            ),
            lambda p: model.generate_planted(
                p["processors"], p["slots"], p["tasks"], p["block"], p["density"], p["seed"]
            ),
            "random matrix with a hidden all-UP block",
        ),
        GeneratorSpec(
            "edgelist",
            (FILE, TASKS, Option("transpose", check_flag, False, "columns are the processors", flag=True)),
            lambda p: model.read_edgelist(p["file"], p["tasks"], transpose=p["transpose"]),
            "a bipartite graph file (rows = processors, edge = UP)",
        ),
        GeneratorSpec(
            "encd",
            (
                FILE,
                Option("a", _positive, None, "nodes on the processor side", int),
                Option("b", _positive, None, "nodes on the slot side", int),
                Option("mu", lambda v, k: check_choice(v, k, ("1", "inf")), "1", "which reduction: 1 or inf"),
            ),
            lambda p: model.encd_instance(*model.read_bipartite(p["file"]), p["a"], p["b"], mu=p["mu"]),
            "Theorem 4.1's reduction of a graph file and (a, b)",
        ),
        GeneratorSpec(
            "paper-realization",
            (
                TASKS,
                Option("n_com", _positive, 5, "n_com, the master's bandwidth", int),
                Option("w_min", lambda v, k: model.check_wmin(v, k), 1, "w_min of Section VII-A", int),
                Option("scenario", _count, 0, "scenario index", int),
                Option("trial", _count, 0, "trial index", int),
                PAPER_SLOTS,
                SEED,
            ),
            lambda p: model.paper_realization(
                p["tasks"], p["n_com"], p["w_min"], p["scenario"], p["trial"], p["seed"], p["slots"]
            ),
            "one realization of the Section VII-A experiment space",
        ),
        GeneratorSpec(
            "paper",
            (
                Option("scenarios", _positive, 10, "scenarios per (m, n_com, w_min)", int),
                Option("trials", _positive, 10, "realizations per scenario", int),
                PAPER_SLOTS,
                SEED,
            ),
            lambda p: model.generate_paper(p["seed"], p["scenarios"], p["trials"], p["slots"]),
            "the whole Section VII-A space, one paper-realization file each in --out DIR "
            "(in a sweep grid: preset = 'paper-realization' over lists)",
            many=True,
        ),
        GeneratorSpec(
            "fastest-unreliable",
            (
                TASKS,
                Option("n_com", _positive, 5, "n_com, the master's bandwidth", int),
                Option("w_min", _positive, 2, "w_min, the fast processor's w", int),
                Option(
                    "slowdown",
                    lambda v, k: check_int(v, k, 2, 10),
                    6,
                    "the other processors' w >= slowdown x w_min (2..10)",
                    int,
                ),
                Option(
                    "up_stay",
                    lambda v, k: check_number(v, k, 0.0, 0.99),
                    0.6,
                    "the fast processor's P_uu",
                    float,
                ),
                Option("slots", _positive, 500, "horizon H in slots", int),
                SEED,
            ),
            lambda p: pathological.fastest_unreliable(
                p["tasks"], p["n_com"], p["w_min"], p["slowdown"], p["up_stay"], p["slots"], p["seed"]
            ),
            "a Section VII-A realization with its fastest processor unreliable, where IE and E-IE "
            "fail (VII-B)",
        ),
    )
}


#: ``casanova2013``: the Section VII-A experiment, 6,000 realizations (2 x 3 x 10 (m, n_com, w_min)
#: x 10 scenarios x 10 trials): the 17 heuristics of Section VI on each (cap 10^6 slots), the
#: ``iterations`` optimum (a lower bound) and the ``full`` bounds and greedy schedule, both on the
#: realization as far as they need (:mod:`volsched.solvers.coupled.horizon`). ``-smoke``: 8
#: realizations. ``-conditional``: the same space with the heuristics
#: built on the conditional E^(S)(W) (reading 2.4; report it with ``--reference "IE[conditional]"``).
#: Work budgets decide every exact task (the same rows on every machine); the time limit is only the
#: safety net. ``chain`` runs to its end; the ``full`` greedy's passes took at most 600 compiled calls
#: on the paper's realizations (benchmarks/RESULTS.md), so 10^5 never binds there.
EXACT = {"problem": "iterations", "method": "chain", "budget": {"full": 100_000}, "time_limit": 600}
OFFLINE = {"method": "bnb", "budget": 10_000_000, "time_limit": 600}
#: The smoke presets' safety net is shorter: their instances finish in seconds.
SMOKE_EXACT, SMOKE_OFFLINE = {**EXACT, "time_limit": 60}, {**OFFLINE, "time_limit": 60}
PRESETS = {
    "casanova2013": [
        {
            "name": "casanova2013",
            "family": model.FAMILY,
            "seeds": [0],
            "grid": {
                "preset": "paper-realization",
                "tasks": list(model.PAPER_TASKS),
                "n_com": list(model.PAPER_NCOM),
                "w_min": list(model.PAPER_WMIN),
                "scenario": list(range(10)),
                "trial": list(range(10)),
                "slots": 2000,
            },
            "exact": EXACT,
            "heuristics": list(NAMES),
        }
    ],
    "casanova2013-smoke": [
        {
            "name": "casanova2013-smoke",
            "family": model.FAMILY,
            "seeds": [0],
            "grid": {
                "preset": "paper-realization",
                "tasks": [5, 10],
                "n_com": 5,
                "w_min": [1, 2],
                "scenario": [0],
                "trial": [0, 1],
                "slots": 2000,
            },
            "exact": SMOKE_EXACT,
            "heuristics": list(NAMES),
        }
    ],
    "casanova2013-conditional": [
        {
            "name": "casanova2013-conditional",
            "family": model.FAMILY,
            "seeds": [0],
            "grid": {
                "preset": "paper-realization",
                "tasks": list(model.PAPER_TASKS),
                "n_com": list(model.PAPER_NCOM),
                "w_min": list(model.PAPER_WMIN),
                "scenario": list(range(10)),
                "trial": list(range(10)),
                "slots": 2000,
            },
            "exact": EXACT,
            "heuristics": ["RANDOM", *CONDITIONAL],
        }
    ],
    "casanova2013-offline": [
        {
            "name": "casanova2013-offline",
            "family": model.FAMILY,
            "seeds": 10,
            "grid": {"preset": "markov", "processors": 20, "slots": [500, 2000], "tasks": [5, 10]},
            "exact": OFFLINE,
            "heuristics": [],
        }
    ],
    "casanova2013-offline-smoke": [
        {
            "name": "casanova2013-offline-smoke",
            "family": model.FAMILY,
            "seeds": 2,
            "grid": {"preset": "markov", "processors": 12, "slots": 100, "tasks": [3, 5]},
            "exact": SMOKE_OFFLINE,
            "heuristics": [],
        }
    ],
}


FAMILY = Family(
    name=model.FAMILY,
    load=model.CoupledInstance.from_json,
    generators=GENERATORS,
    problems=PROBLEMS,
    heuristics={
        name: Heuristic(name, "full", policy(name), CoupledSimulator(), DESCRIPTIONS[name[:1]])
        for name in (*NAMES, *CONDITIONAL)
    },
    extras=Extras(
        presets=PRESETS,
        report=tables.report,
        plots=tables.plots,
    ),
)
