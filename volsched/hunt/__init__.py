"""Hard instances on demand: search for the instances where a heuristic is furthest from the optimum,
or where an exact method works hardest (``volsched hunt``).

:func:`hunt` searches a family's space (:mod:`.families`, within stated bounds) with the driver of
:mod:`.driver`, compares the worst case found with the worst of as many random instances drawn from
the same seed, and writes an archive (:func:`write_archive`): the best instances in the standard
instance format, each with its optimum's certificate (a ``volsched solve`` result) and, for a ratio
hunt, the heuristic's run (a ``volsched simulate`` result), so that ``volsched verify`` and
``volsched evaluate`` re-check them from the files alone.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from volsched.instances.errors import InputError, check_int, require
from volsched.instances.io import write_json

from .driver import BATCH, OBJECTIVES, SOLVE_BUDGET, STRATEGIES, Hunt, Pool, Scorer, random_worst, search
from .families import SPACES

if TYPE_CHECKING:
    from .spaces import Space

#: The archive's journal of every scored candidate, which a killed hunt resumes from.
JOURNAL = "candidates.jsonl"
#: Most candidates one hunt may take.
MAX_BUDGET = 10**7
#: Most candidates in one batch.
MAX_BATCH = 10**5


def space_for(family: str, bounds: dict[str, Any], heuristic: str | None = None) -> Space:
    """The family's search space under ``bounds`` (bad input for a family without one)."""
    require(family in SPACES, "FAMILY", f"hunts exist for {', '.join(SPACES)}, not {family!r}")
    return SPACES[family].from_bounds(bounds, heuristic or "")


def parse_bounds(items: list[str] | None) -> dict[str, str]:
    """``["machines=3", ...]`` as ``{"machines": "3"}``; each checked later by its space."""
    out: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        require(bool(sep) and bool(name.strip()), "--bound", f"must be NAME=VALUE, got {item!r}")
        name = name.strip().replace("-", "_")
        require(name not in out, "--bound", f"{name} given twice")
        out[name] = value.strip()
    return out


def hunt(
    family_name: str,
    heuristic: str | None = None,
    objective: str = "ratio",
    budget: int = 200,
    seed: int = 0,
    bounds: dict[str, Any] | None = None,
    out: str | Path | None = None,
    time_limit: float | None = None,
    solve_budget: float | None = None,
    method: str | None = None,
    problem: str | None = None,
    strategy: str = "hunt",
    keep: int = 5,
    baseline: bool = True,
    workers: int = 1,
    dask_scheduler: str | None = None,
    batch: int = BATCH,
) -> dict:
    """Hunt ``budget`` candidates of ``family_name`` from ``seed``; archive the best in ``out``.

    Parameters
    ----------
    heuristic : str
        Required for ``objective="ratio"``: the heuristic whose ratio is maximised.
    objective : {"ratio", "work"}
        Maximise the heuristic's ratio's lower end, or the exact method's deterministic work.
    budget : int
        Candidates evaluated (a repeated one counts, scored once).
    bounds : dict
        Size and value bounds of the space (:data:`volsched.hunt.families.SPACES`); strings or
        numbers.
    solve_budget : float, optional
        Each exact solve's deterministic work budget (default :data:`.driver.SOLVE_BUDGET`).
    strategy : {"hunt", "random", "blackbox"}
    keep : int
        Instances archived.
    baseline : bool
        Also score the random baseline (``random_worst``).
    workers : int
        Local worker processes that score each batch of candidates (``-1``: all cores; 1: this
        process), as ``volsched sweep --workers``.
    dask_scheduler : str, optional
        Score the batches on this Dask cluster instead (``volsched sweep --dask-scheduler``).

    batch : int
        Candidates bred from the same state and scored together (default
        :data:`.driver.BATCH`): a larger batch keeps more workers busy, a smaller one follows
        each improvement sooner.

    The hunt, its archive and its summary (but seconds) are the same whatever ``workers`` and
    ``dask_scheduler``, for the same seed, budget and batch: candidates are bred in batches from
    the state before them, and scored in the batch's order (:class:`.driver.Pool`).

    Returns
    -------
    dict
        The summary ``volsched hunt --json`` prints (see the keys below).
    """
    from volsched.families import FAMILIES

    require(objective in OBJECTIVES, "--objective", f"choose from {', '.join(OBJECTIVES)}, got {objective!r}")
    require(strategy in STRATEGIES, "--strategy", f"choose from {', '.join(STRATEGIES)}, got {strategy!r}")
    budget = check_int(budget, "--budget", 1, MAX_BUDGET)
    seed = check_int(seed, "--seed", 0, 2**31 - 1)
    keep = check_int(keep, "--keep", 1, 1000)
    batch = check_int(batch, "--batch", 1, MAX_BATCH)
    if time_limit is not None:
        require(
            isinstance(time_limit, int | float) and math.isfinite(time_limit) and time_limit > 0,
            "--time-limit",
            f"must be a positive number of seconds, got {time_limit!r}",
        )
    require(family_name in FAMILIES, "FAMILY", f"must be one of {sorted(FAMILIES)}, got {family_name!r}")
    family = FAMILIES[family_name]
    if objective == "ratio":
        require(heuristic is not None, "--heuristic", "a ratio hunt needs the heuristic it scores")
        family.heuristic(heuristic)
    else:
        require(heuristic is None, "--heuristic", "a work hunt scores an exact method, not a heuristic")
    space = space_for(family_name, bounds or {}, heuristic)
    if solve_budget is None:
        solve_budget = SOLVE_BUDGET.get(family_name)
    elif not (isinstance(solve_budget, int | float) and math.isfinite(solve_budget) and solve_budget > 0):
        raise InputError(f"--solve-budget: must be a positive amount of work, got {solve_budget!r}")
    scorer = Scorer(family, space, heuristic, objective, problem, method, solve_budget, os.getcwd())
    if objective == "work":
        chosen = family.problems[scorer.problem]
        named = scorer.method or chosen.default_method
        require(named in chosen.methods, "--method", f"{scorer.problem} has methods {list(chosen.methods)}")
        require(
            named in chosen.budgets,
            "--method",
            f"{scorer.problem}'s method {named} has no work "
            f"unit (budgeted: {list(chosen.budgets) or 'none'})",
        )
    if out is not None:
        out = Path(out)
        require(not out.is_file(), "--out", f"{out} is a file; the archive is a folder")
    # Compilation and the back ends' first loading stay outside the clock: candidate 0, scored here,
    # is the first of every strategy's random stream and is scored once.
    scorer.pool = Pool(workers, dask_scheduler, os.getcwd())
    try:
        resumed = scorer.attach(out / JOURNAL) if out is not None else 0
        warm = Hunt(space, scorer, seed, 1, None)
        scorer.pool.warm(scorer, (warm.random_candidate(0), "warm-up", None))
        warm.score(warm.random_candidate(0))
        begin = time.perf_counter()
        h = search(space, scorer, strategy, budget, seed, time_limit, warm.seen, batch)
        elapsed = time.perf_counter() - begin
        rest = None if time_limit is None else max(1e-3, time_limit - elapsed)
        base = random_worst(space, scorer, budget, seed, h, rest, batch) if baseline else None
    finally:
        scorer.pool.close()
        if scorer.journal is not None:
            scorer.journal.close()
    # The reported scores are the verified ones (the search's own agree with them up to rounding).
    base_best = (
        [dataclasses.replace(s, score=scorer.check(s.cand, s.score)) for s in base.best()] if base else []
    )
    best = [dataclasses.replace(s, score=scorer.check(s.cand, s.score)) for s in h.best(keep)]
    best.sort(key=lambda s: (-s.score, s.index))
    key = "ratio" if objective == "ratio" else "work"
    summary: dict[str, Any] = {
        "family": family_name,
        "heuristic": heuristic,
        "objective": objective,
        "problem": scorer.problem,
        "method": scorer.method,
        "strategy": strategy,
        "seed": seed,
        "budget": budget,
        "batch": batch,
        "solve_budget": solve_budget,
        "bounds": space.describe(),
        f"best_{key}": best[0].score if best else None,
        f"random_worst_{key}": base_best[0].score if base_best else None,
        "candidates": len(h.order),
        "evaluated": len(h.seen),
        "invalid": scorer.invalid,
        "screened": scorer.screened,
        "resumed": resumed,
        "elapsed_s": elapsed,
        "candidates_per_s": len(h.order) / elapsed if elapsed > 0 else None,
        "stopped": h.stopped or (base.stopped if base else None),
        "instance": None,
        "archive": [],
        "progress": h.progress(),
        "random_progress": base.progress() if base else None,
    }
    if out is not None and best:
        summary["archive"] = write_archive(out, family, scorer, best, summary)
        summary["instance"] = summary["archive"][0]["instance"]
        write_json(out / "hunt.json", summary)
        summary["plot"] = str(plot_progress(out / "progress.png", summary))
    elif best:
        summary["best"] = best[0].detail
    return summary


def write_archive(out: Path, family, scorer: Scorer, best: list, summary: dict) -> list[dict]:
    """The best candidates as files: instance, optimum certificate, heuristic run (ratio hunts).

    ``NAME.json`` is the instance; ``NAME.optimum.json`` (``certificate``) the exact method's result
    under the hunt's solve budget (``volsched solve NAME.json --budget B --out ...``); ``NAME.run.json`` the
    heuristic's run with seed 0 under its default simulator (``volsched simulate NAME.json
    --heuristic H --out ...``). Both pass ``volsched verify NAME.json FILE``.
    """
    rows = []
    for rank, s in enumerate(best, 1):
        who = summary["heuristic"] or summary["objective"]
        name = f"hunt-{family.name}-{who}-s{summary['seed']}-{rank:02d}"
        instance = scorer.instance(s.cand, name)
        obj = instance.to_json()
        obj["params"] = {
            **obj["params"],
            "hunt": {
                k: summary[k]
                for k in ("heuristic", "objective", "strategy", "seed", "budget", "batch", "solve_budget")
            },
            "candidate": s.index,
        }
        path = out / f"{name}.json"
        write_json(path, obj)
        result = family.solve(
            instance, problem=scorer.problem, method=scorer.method, budget=scorer.solve_budget
        )
        opt_path = out / f"{name}.optimum.json"
        write_json(opt_path, result.to_dict())
        row = {
            **s.detail,
            "rank": rank,
            "candidate": s.index,
            "score": s.score,
            "instance": str(path),
            "certificate": str(opt_path),
            "status": result.status.value,
            "objective": result.objective,
            "bound": result.bound,
            "work": result.work,
        }
        if scorer.heuristic is not None:
            run = family.simulate(instance, scorer.heuristic, seed=0)
            run_obj = {
                "family": family.name,
                "instance": instance.name,
                **run,
                **run["metrics"],
                **{k: v for k, v in run["solution"].items() if k != "problem"},
            }
            run_path = out / f"{name}.run.json"
            write_json(run_path, run_obj)
            row["run"] = str(run_path)
        budget = "" if scorer.solve_budget is None else f" --budget {scorer.solve_budget:g}"
        budget += "" if scorer.method is None else f" --method {scorer.method}"
        row["evaluate_command"] = f"volsched evaluate {path}{budget}" + (
            f" --heuristics {scorer.heuristic}" if scorer.heuristic else ""
        )
        rows.append(row)
    return rows


def plot_progress(path: Path, summary: dict) -> Path:
    """The search's progress: the best score after each candidate, the hunt's and random search's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    key = "ratio" if summary["objective"] == "ratio" else "work"
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for label, curve in (("hunt", summary["progress"]), ("random search", summary["random_progress"])):
        if curve:
            xs = [i + 1 for i, v in enumerate(curve) if v is not None]
            ax.step(xs, [v for v in curve if v is not None], where="post", label=label)
    ax.set_xlabel("candidates")
    ax.set_ylabel(f"best {key} (proven lower end)" if key == "ratio" else "best work")
    who = summary["heuristic"] or summary["method"] or "exact"
    ax.set_title(f"{summary['family']} {who}, seed {summary['seed']}", fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


__all__ = [
    "OBJECTIVES",
    "SPACES",
    "STRATEGIES",
    "hunt",
    "parse_bounds",
    "plot_progress",
    "space_for",
    "write_archive",
]
