"""The report of one ratio hunt (one family, one heuristic), from its archive folder alone.

``volsched hunt FAMILY --heuristic H --out DIR --report`` (or :func:`write_report` on ``DIR``
afterwards) reads ``DIR/hunt.json`` and the archived worst instance, its run and its optimum, and
writes ``report.md`` and ``report.json`` with three figures (:mod:`.pictures`):

* the worst ratio found, against the distribution of the heuristic's ratios on ``samples`` random
  instances of the same size (:func:`reference_instance`): n, quantiles and the maximum;
* the search's progress, the random search's curve beside it (``report-progress.png``), and the
  sample's histogram (``report-ratios.png``);
* the worst instance in the family's picture (``report-worst.png``).

Every ratio is the lower end of its proven interval, as the hunt's (:mod:`.driver`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from volsched.instances.errors import check_int, require
from volsched.instances.io import write_json

from . import pictures

#: Random instances the report scores by default.
SAMPLES = 20
QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 1.0)

#: What each family's reference sample is (the report says it).
REFERENCES = {
    "checkpoint": "the paper's jobs (Tables I-II, `volsched generate checkpoint`) with as many slices",
    "prescient": "the paper's SDSC platform (`volsched generate prescient --platform sdsc`) with as many "
    "hosts and tasks of the same size",
    "slack": "uniform random instances of the hunt's space (the paper's generator adds unavailability "
    "that the plain problem of Graham's bounds has not)",
    "coupled": "random instances of the hunt's space, realizations drawn from their chains as the "
    "paper's (Section VII-A fixes 20 processors)",
}


def reference_instance(space, summary: dict, i: int) -> Any:
    """Random instance ``i`` of the reference sample (:data:`REFERENCES`), from the hunt's seed.

    The paper's generator with seed ``seed + i`` where the family's size maps onto it (checkpoint,
    prescient), else candidate ``default_rng([seed, 2, i])`` of the hunt's space (slack, coupled).
    """
    family, b, seed = summary["family"], summary["bounds"], summary["seed"]
    name = f"reference-{i}"
    if family == "checkpoint":
        from volsched.instances.checkpoint import generate

        return generate(b["slices"], seed + i, alpha=b["alpha"])
    if family == "prescient":
        from volsched.instances.prescient.platforms import generate_platform

        return generate_platform("sdsc", b["hosts"], b["tasks"], b["task_minutes"], seed + i)
    return space.build(space.random(np.random.default_rng([seed, 2, i])), name)


def _read(path: Path) -> dict:
    require(path.is_file(), "DIR", f"{path} is missing: not a hunt archive (volsched hunt --out DIR)")
    with path.open() as f:
        return json.load(f)


def write_report(folder: str | Path, samples: int = SAMPLES) -> dict:
    """Write ``report.md``, ``report.json`` and the figures in the archive ``folder``; return the JSON.

    Parameters
    ----------
    folder : path
        A ratio hunt's archive (``volsched hunt ... --out``).
    samples : int
        Random instances of the reference sample (at least 1).
    """
    from volsched.evaluate import evaluate
    from volsched.families import FAMILIES

    from .driver import Scorer

    folder = Path(folder)
    samples = check_int(samples, "--report-samples", 1, 10_000)
    summary = _read(folder / "hunt.json")
    require(
        summary.get("objective") == "ratio" and summary.get("archive"),
        "DIR",
        f"{folder} is not a ratio hunt's archive with an instance (a report compares ratios)",
    )
    family = FAMILIES[summary["family"]]
    scorer = Scorer.from_settings(summary, str(folder))
    heuristic = scorer.heuristic

    def ratio_of(instance) -> float | None:
        report = evaluate(
            family,
            instance,
            [scorer.found],
            method=scorer.method,
            seed=0,
            simulators=scorer.simulators,
            budget=scorer.solve_budget,
        )
        return report["policies"][heuristic]["ratio_lo"]

    ratios = [ratio_of(reference_instance(scorer.space, summary, i)) for i in range(samples)]
    scored = [r for r in ratios if r is not None]
    worst = summary["archive"][0]
    best = float(worst["score"])
    stats: dict[str, Any] = {"n": len(scored), "unscored": samples - len(scored)}
    if scored:
        qs = np.quantile(scored, QUANTILES)
        stats.update({f"q{int(q * 100)}": float(v) for q, v in zip(QUANTILES, qs, strict=True)})
        stats["max"] = float(max(scored))
        stats["mean"] = float(np.mean(scored))
    who = f"{summary['family']} / {heuristic}"
    title = f"{who}: hunt seed {summary['seed']}, {summary['budget']} candidates"
    figures = {
        "progress": pictures.progress_figure(
            folder / "report-progress.png", summary, stats.get("max"), f"Search progress, {title}"
        ),
        "worst": pictures.worst_figure(
            folder / "report-worst.png",
            summary["family"],
            family.load(_read(_local(folder, worst["instance"]))),
            _read(_local(folder, worst["run"])),
            _read(_local(folder, worst["certificate"]))["solution"],
            f"Worst instance found for {who}: ratio {best:.4g}",
        ),
    }
    if scored:
        figures["ratios"] = pictures.ratios_figure(
            folder / "report-ratios.png",
            scored,
            best,
            f"{who}: ratios on {len(scored)} random instances of the same size",
            "random reference sample",
        )
    out = {
        "family": summary["family"],
        "heuristic": heuristic,
        "problem": summary.get("problem"),
        "seed": summary["seed"],
        "budget": summary["budget"],
        "bounds": summary["bounds"],
        "best_ratio": best,
        "random_search_worst_ratio": summary.get("random_worst_ratio"),
        "worst_instance": str(_local(folder, worst["instance"])),
        "worst_status": worst.get("status"),
        "reference": {"what": REFERENCES[summary["family"]], "ratios": ratios, **stats},
        "figures": {k: str(v) for k, v in figures.items()},
    }
    write_json(folder / "report.json", out)
    (folder / "report.md").write_text(_markdown(out, summary))
    return out


def _local(folder: Path, path: str) -> Path:
    """An archive file's path: as recorded, or in ``folder`` (an archive moved or read elsewhere)."""
    p = Path(path)
    return p if p.is_file() else folder / p.name


def _fmt(x) -> str:
    return "n/a" if x is None else f"{x:.4g}"


def _markdown(out: dict, summary: dict) -> str:
    ref = out["reference"]
    bounds = ", ".join(f"{k} = {v}" for k, v in out["bounds"].items())
    lines = [
        f"# Hunt report: {out['family']} / {out['heuristic']}",
        "",
        f"Problem `{out['problem']}`, seed {out['seed']}, budget {out['budget']} candidates, "
        f"within the bounds {bounds}.",
        "",
        "| | ratio (proven lower end) |",
        "|---|---|",
        f"| hunt's worst instance | {_fmt(out['best_ratio'])} ({out['worst_status']}) |",
        f"| random search, same seed and budget | {_fmt(out['random_search_worst_ratio'])} |",
        f"| reference sample max (n = {ref['n']}) | {_fmt(ref.get('max'))} |",
        "",
        f"Reference sample: {ref['n']} instances, {ref['what']}"
        + (f"; {ref['unscored']} without a ratio (no finished run)" if ref["unscored"] else "")
        + ".",
        "",
        "| n | min | 25 % | median | 75 % | 90 % | max | mean |",
        "|---|---|---|---|---|---|---|---|",
        "| "
        + " | ".join(
            [str(ref["n"]), *(_fmt(ref.get(k)) for k in ("q0", "q25", "q50", "q75", "q90", "max", "mean"))]
        )
        + " |",
        "",
        f"Worst instance: `{Path(out['worst_instance']).name}`; re-check it with "
        f"`{summary['archive'][0].get('evaluate_command', 'volsched evaluate')}`.",
        "",
    ]
    for key, caption in (
        ("progress", "Search progress"),
        ("ratios", "Ratios of the reference sample"),
        ("worst", "The worst instance"),
    ):
        if key in out["figures"]:
            lines += [f"![{caption}]({Path(out['figures'][key]).name})", ""]
    return "\n".join(lines)
