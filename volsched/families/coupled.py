"""The coupled family behind the :class:`~volsched.families.Family` interface (off-line part)."""

from __future__ import annotations

import argparse

from volsched.instances import coupled as model
from volsched.instances.errors import InputError, require
from volsched.solvers import VerificationError
from volsched.solvers import coupled as exact

from . import Family, Param


def _value(instance: model.CoupledInstance, solution: dict) -> float:
    """The verifier's objective of a solution of any coupled problem (``solution.problem``).

    A schedule whose claimed completions differ from the replay is bad input
    here (a user's file), not a solver bug.
    """
    require(isinstance(solution, dict), "solution", "must be a JSON object")
    problem = solution.get("problem", exact.PROBLEMS[0])
    require(problem in exact.PROBLEMS, "solution.problem", f"must be one of {list(exact.PROBLEMS)}")
    if problem in ("iterations", "full"):
        require("schedule" in solution, "solution.schedule", "missing")
        try:
            return float(exact.check_claim(instance, solution["schedule"], communication=problem == "full"))
        except VerificationError as exc:
            raise InputError(f"solution.schedule: {exc}") from None
    require("processors" in solution, "solution.processors", "missing")
    if problem == "offline-coupled-inf":
        return float(exact.verify_flexible(instance, solution["processors"]))
    return float(exact.verify_offline(instance, solution["processors"]))


def _add_generate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", choices=("markov", "planted", "edgelist", "encd", "paper"), required=True,
                        help="markov: the paper's 3-state chains; planted: random matrix with a hidden "
                             "block; edgelist: a bipartite graph file (rows = processors, edge = UP); "
                             "encd: Theorem 4.1's reduction of a graph file and (a, b); paper: the "
                             "Section VII-A experiment space, one file per realization in --out DIR")
    parser.add_argument("--processors", type=int, default=20, help="p (default 20)")
    parser.add_argument("--slots", type=int, help="horizon H in slots (default 500; paper: 2000)")
    parser.add_argument("--tasks", type=int, default=5, help="m, tasks per iteration (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--block", type=int, default=10, help="planted: slots of the all-UP block")
    parser.add_argument("--density", type=float, default=0.5, help="planted: UP probability elsewhere")
    parser.add_argument("--file", help="edgelist, encd: the graph file")
    parser.add_argument("--transpose", action="store_true", help="edgelist: columns are the processors")
    parser.add_argument("--a", type=int, help="encd: nodes on the processor side")
    parser.add_argument("--b", type=int, help="encd: nodes on the slot side")
    parser.add_argument("--mu", choices=("1", "inf"), default="1", help="encd: which reduction (default 1)")
    parser.add_argument("--scenarios", type=int, default=10, help="paper: scenarios per (m, n_com, w_min)")
    parser.add_argument("--trials", type=int, default=10, help="paper: realizations per scenario")


def _generate(args: argparse.Namespace):
    """One instance, or for ``paper`` the list of all realizations."""
    if args.preset in ("edgelist", "encd"):
        require(args.file is not None, "--file", f"the {args.preset} preset needs --file PATH")
    if args.preset == "edgelist":
        return model.read_edgelist(args.file, args.tasks, transpose=args.transpose)
    if args.preset == "encd":
        require(args.a is not None and args.b is not None, "--a", "the encd preset needs --a and --b")
        graph, left, right = model.read_bipartite(args.file)
        return model.encd_instance(graph, left, right, args.a, args.b, mu=args.mu)
    if args.preset == "paper":
        return model.generate_paper(args.seed, args.scenarios, args.trials,
                                    2000 if args.slots is None else args.slots)
    slots = 500 if args.slots is None else args.slots
    if args.preset == "markov":
        return model.generate_markov(args.processors, slots, args.tasks, args.seed)
    return model.generate_planted(args.processors, slots, args.tasks, args.block, args.density, args.seed)


def _int_param(value, key: str) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool)
    require(ok and value >= 1, key, f"must be a positive integer, got {value!r}")
    return value


def _count_param(value, key: str) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool)
    require(ok and value >= 0, key, f"must be a non-negative integer, got {value!r}")
    return value


def _generator_param(value, key: str) -> str:
    require(value in ("markov", "paper"), key, f"must be 'markov' or 'paper', got {value!r}")
    return value


def _generate_from(params: dict) -> model.CoupledInstance:
    """``markov`` (default: processors, slots, tasks) or ``paper`` (tasks, n_com, w_min, scenario, trial)."""
    if params.get("generator", "markov") == "paper":
        return model.paper_realization(params.get("tasks", 5), params.get("n_com", 5), params.get("w_min", 1),
                                       params.get("scenario", 0), params.get("trial", 0), params["seed"],
                                       params.get("slots", 2000))
    return model.generate_markov(params.get("processors", 20), params.get("slots", 500),
                                 params.get("tasks", 5), params["seed"])


#: ``casanova2013``: the ``iterations`` optimum (a lower bound on any schedule's
#: makespan) of the Section VII-A space, 6,000 realizations; OFF-LINE-COUPLED
#: (mu = 1) on the paper's chains with its p = 20 and m in {5, 10}.
PRESETS = {
    "casanova2013": [{
        "name": "casanova2013", "family": model.FAMILY, "seeds": [0],
        "grid": {"generator": "paper", "tasks": list(model.PAPER_TASKS), "n_com": list(model.PAPER_NCOM),
                 "w_min": list(model.PAPER_WMIN), "scenario": list(range(10)), "trial": list(range(10)),
                 "slots": 2000},
        "exact": {"problem": "iterations", "method": "chain", "time_limit": 60}, "heuristics": [],
    }],
    "casanova2013-smoke": [{
        "name": "casanova2013-smoke", "family": model.FAMILY, "seeds": [0],
        "grid": {"generator": "paper", "tasks": [5, 10], "n_com": 5, "w_min": [1, 2],
                 "scenario": [0, 1], "trial": [0, 1], "slots": 2000},
        "exact": {"problem": "iterations", "method": "chain", "time_limit": 10}, "heuristics": [],
    }],
    "casanova2013-offline": [{
        "name": "casanova2013-offline", "family": model.FAMILY, "seeds": 10,
        "grid": {"processors": 20, "slots": [500, 2000], "tasks": [5, 10]},
        "exact": {"method": "bnb", "time_limit": 60}, "heuristics": [],
    }],
    "casanova2013-offline-smoke": [{
        "name": "casanova2013-offline-smoke", "family": model.FAMILY, "seeds": 2,
        "grid": {"processors": 12, "slots": 100, "tasks": [3, 5]},
        "exact": {"method": "bnb", "time_limit": 10}, "heuristics": [],
    }],
}


def _simulate(instance, heuristic, seed, samples=0):
    require(False, "--heuristic", "the coupled family has no on-line heuristics yet")


FAMILY = Family(
    name=model.FAMILY,
    load=model.CoupledInstance.from_json,
    methods=exact.PROBLEM_METHODS[exact.PROBLEMS[0]],
    solve=exact.solve,
    value=_value,
    heuristics={},
    add_generate_arguments=_add_generate_arguments,
    generate=_generate,
    simulate=_simulate,
    generator_params={"generator": Param(_generator_param), "processors": Param(_int_param),
                      "slots": Param(_int_param), "tasks": Param(_int_param), "n_com": Param(_int_param),
                      "w_min": Param(_int_param), "scenario": Param(_count_param),
                      "trial": Param(_count_param)},
    generate_from=_generate_from,
    presets=PRESETS,
    sense="max",
    problems=exact.PROBLEM_METHODS,
    problem_sense={"offline-coupled-inf": "min", "iterations": "min"},
)
