"""The result objects of volsched's Python API (:mod:`volsched.api`).

Each verb returns one frozen dataclass with typed fields and a ``to_dict()``
that gives the JSON object the matching command prints with ``--json``
(DESIGN.md, Contracts: CLI), so that a script and a shell pipeline read the
same keys.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from volsched.solvers.result import SolveResult, SolveStatus, relative_gap

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping


def _jsonable(obj: Any) -> Any:
    """``obj`` with non-finite floats as ``None`` (not valid JSON), as the CLI prints it."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    return obj


@dataclass(frozen=True)
class Instance:
    """An instance of a family, as read from a file or generated.

    Attributes
    ----------
    family : str
        Its family (``checkpoint``, ``coupled``, ``prescient``, ``slack``).
    model : object
        The family's instance model (a frozen dataclass of numpy arrays), what
        solvers and simulators read.

    Examples
    --------
    >>> import volsched
    >>> inst = volsched.generate("checkpoint", slices=4, seed=1)
    >>> inst.family, inst.params["slices"], inst.to_dict()["format"]
    ('checkpoint', 4, 'volsched-instance')
    """

    family: str
    model: Any

    @property
    def name(self) -> str:
        """The instance's name (its file's ``name`` field)."""
        return str(self.model.name)

    @property
    def params(self) -> dict[str, Any]:
        """The generator parameters it was made with (``{}`` for a hand-written file)."""
        return dict(self.to_dict().get("params") or {})

    def to_dict(self) -> dict[str, Any]:
        """The instance file's JSON object (``volsched generate FAMILY ... --json``)."""
        return dict(self.model.to_json())

    def write(self, path: str | Path) -> Path:
        """Write the instance file to ``path``; returns the path."""
        from volsched.instances.io import write_json

        write_json(path, self.to_dict())
        return Path(path)


@dataclass(frozen=True)
class InstanceSet:
    """The instances a preset makes at once (``volsched generate FAMILY --preset NAME --out FOLDER``).

    Examples
    --------
    >>> InstanceSet("checkpoint", ()).to_dict()
    {'family': 'checkpoint', 'instances': []}
    """

    family: str
    instances: tuple[Instance, ...]

    def __iter__(self) -> Iterator[Instance]:
        return iter(self.instances)

    def __len__(self) -> int:
        return len(self.instances)

    def to_dict(self) -> dict[str, Any]:
        """``{"family", "instances": [instance file objects]}``."""
        return {"family": self.family, "instances": [i.to_dict() for i in self.instances]}

    def write(self, folder: str | Path) -> list[Path]:
        """Write each instance to ``folder/<name>.json`` (the folder is created); returns the paths."""
        return [i.write(Path(folder) / f"{i.name}.json") for i in self.instances]


@dataclass(frozen=True)
class Solution:
    """An exact method's verified answer (DESIGN.md, Contracts: Solve result).

    Attributes
    ----------
    family, instance, method : str
    status : SolveStatus
        ``optimal`` only with a proof.
    objective : float or None
        The independent verifier's value of ``solution``.
    bound : float or None
        The best proven bound.
    runtime_s : float
    solution : dict
        The solution, in the format ``volsched verify`` reads.
    verified : bool
    info : dict
        What the method adds (nodes, the model that ran...).
    stopped : str or None
        ``"budget"`` or ``"wall clock"`` when the search did not finish.
    work : float or None
        What it spent, in its budget unit.

    Examples
    --------
    >>> import volsched
    >>> sol = volsched.solve(volsched.generate("checkpoint", slices=4, seed=1))
    >>> sol.status.value, sol.gap
    ('optimal', 0.0)
    """

    family: str
    instance: str
    method: str
    status: SolveStatus
    objective: float | None
    bound: float | None
    runtime_s: float
    solution: dict[str, Any] = field(default_factory=dict)
    verified: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    stopped: str | None = None
    work: float | None = None

    @property
    def gap(self) -> float | None:
        """The relative gap of objective and bound (:func:`volsched.solvers.result.relative_gap`)."""
        return relative_gap(self.objective, self.bound)

    @property
    def proven(self) -> bool:
        """Whether the method proved optimality."""
        return self.status is SolveStatus.OPTIMAL

    def to_dict(self) -> dict[str, Any]:
        """The ``volsched solve --json`` object (the same fields as :class:`SolveResult`'s)."""
        return _jsonable(SolveResult(**{f.name: getattr(self, f.name) for f in fields(self)}).to_dict())


@dataclass(frozen=True)
class Simulation:
    """One heuristic run on an instance, verified and measured.

    Attributes
    ----------
    family, instance, heuristic, problem : str
        ``problem``: the problem the heuristic is scored against.
    seed : int
        Seed of the policy's ``numpy.random.Generator``.
    status : str
        ``feasible``, or ``unknown`` for a run that failed (the coupled cap).
    objective : float or None
        The verifier's value of the run's solution.
    metrics : dict
        The problem's declared metrics of the run.
    solution : dict
        The run, in the format ``volsched verify`` reads.

    Examples
    --------
    >>> import volsched
    >>> run = volsched.simulate(volsched.generate("checkpoint", slices=4, seed=1), "daly")
    >>> run.problem, run.objective == run.metrics["expected_waste"]
    ('checkpoint', True)
    """

    family: str
    instance: str
    heuristic: str
    problem: str
    seed: int
    status: str
    objective: float | None
    metrics: dict[str, Any]
    solution: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The ``volsched simulate --json`` object: these fields, and the metrics and the solution's
        parts at the top level too."""
        out = {
            "family": self.family,
            "instance": self.instance,
            "heuristic": self.heuristic,
            "problem": self.problem,
            "seed": self.seed,
            "status": self.status,
            "objective": self.objective,
            "metrics": self.metrics,
            "solution": self.solution,
        }
        out.update(self.metrics)
        out.update({k: v for k, v in self.solution.items() if k != "problem"})
        return _jsonable(out)


#: The keys of a policy's entry in :func:`volsched.evaluate.evaluate`'s report that
#: :class:`PolicyScore` holds in its own fields.
_POLICY_FIELDS = ("problem", "value", "ratio", "ratio_lo", "ratio_hi", "metrics", "solution")


@dataclass(frozen=True)
class PolicyScore:
    """One heuristic's score in an :class:`Evaluation`.

    Attributes
    ----------
    name, problem : str
    value : float or None
        Its verified value.
    ratio : float or None
        Its ratio to the proven optimum (:func:`volsched.ratios.ratio`); ``None`` when unproven.
    ratio_lo, ratio_hi : float or None
        The interval that holds the ratio (both equal ``ratio`` when proven).
    metrics : dict
    solution : dict or None
    extra : dict
        The other fields of the run (its metrics at the top level, a family's diagnoses).

    Examples
    --------
    >>> PolicyScore("h", "p", 12.0, 1.2, 1.2, 1.2, {}, None).to_dict()["ratio"]
    1.2
    """

    name: str
    problem: str
    value: float | None
    ratio: float | None
    ratio_lo: float | None
    ratio_hi: float | None
    metrics: dict[str, Any]
    solution: dict[str, Any] | None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> PolicyScore:
        """From a policy's entry of :func:`volsched.evaluate.evaluate`'s report."""
        return cls(name, d["problem"], d["value"], d["ratio"], d["ratio_lo"], d["ratio_hi"],
                   d.get("metrics") or {}, d.get("solution"),
                   {k: v for k, v in d.items() if k not in _POLICY_FIELDS})  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The entry of ``volsched evaluate --json``'s ``policies``."""
        return _jsonable({**self.extra, "problem": self.problem, "value": self.value, "ratio": self.ratio,
                          "ratio_lo": self.ratio_lo, "ratio_hi": self.ratio_hi, "metrics": self.metrics,
                          "solution": self.solution})  # fmt: skip


@dataclass(frozen=True)
class Evaluation:
    """Heuristics scored against the optimum on the same instance and realization.

    Attributes
    ----------
    family, instance : str
    seed : int
        Seed of the policies' generators.
    problem, method : str
        The first problem involved and the exact method that solved it.
    optimum : float or None
        Its proven optimum (``None`` when unproven).
    bound : float or None
        Its proven bound (a lower bound for a minimisation).
    best_known : float or None
        The best verified value, of the exact method and the runs.
    optima : dict
        Every problem involved: its exact method's answer (``method``, ``status``,
        ``proven``, ``optimum``, ``bound``, ``best_known``, ``objective``, ``solution``).
    policies : dict
        Heuristic name -> :class:`PolicyScore`.
    skipped : dict
        Heuristics the instance cannot feed -> why.
    data : dict
        The report as :func:`volsched.evaluate.evaluate` returned it (``to_dict()``).

    Examples
    --------
    >>> import volsched
    >>> ev = volsched.evaluate(volsched.generate("checkpoint", slices=4, seed=1), ["daly", "none"])
    >>> ev.policies["daly"].ratio >= 1.0, sorted(ev.policies)
    (True, ['daly', 'none'])
    """

    family: str
    instance: str
    seed: int
    problem: str
    method: str
    optimum: float | None
    bound: float | None
    best_known: float | None
    optima: dict[str, Any]
    policies: dict[str, PolicyScore]
    skipped: dict[str, str]
    data: Mapping[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Evaluation:
        """From :func:`volsched.evaluate.evaluate`'s report (kept whole for :meth:`to_dict`)."""
        return cls(
            family=d["family"],
            instance=d["instance"],
            seed=d["seed"],
            problem=d["problem"],
            method=d["method"],
            optimum=d["optimum"],
            bound=d.get("lower_bound", d.get("upper_bound")),
            best_known=d["best_known"],
            optima=dict(d["optima"]),
            policies={name: PolicyScore.from_dict(name, p) for name, p in d["policies"].items()},
            skipped=dict(d["skipped"]),
            data=dict(d),
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``volsched evaluate --json`` object."""
        return _jsonable(json.loads(json.dumps(_jsonable(dict(self.data)))))


@dataclass(frozen=True)
class Verification:
    """A solution checked against an instance: the independent verifier's verdict.

    Attributes
    ----------
    instance : str
    feasible : bool
        Whether the file holds a feasible solution (``False``: an ``infeasible`` or
        ``unknown`` result whose witness holds).
    problem : str
    status : str or None
        The status the file claims (``None`` for a bare solution).
    objective : float or int or None
        The verifier's value (an ``int`` for an integer problem).
    checked, unchecked : tuple of str
        What was recomputed, and what could not be.
    extra : dict
        The run options' values it was checked at (slack: ``beta``).

    Examples
    --------
    >>> import volsched
    >>> inst = volsched.generate("checkpoint", slices=4, seed=1)
    >>> volsched.verify(inst, volsched.solve(inst)).feasible
    True
    """

    instance: str
    feasible: bool
    problem: str
    status: str | None
    objective: float | int | None
    checked: tuple[str, ...]
    unchecked: tuple[str, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``volsched verify --json`` object."""
        return _jsonable({"instance": self.instance, "feasible": self.feasible, "problem": self.problem,
                          "status": self.status, "objective": self.objective, **self.extra,
                          "checked": list(self.checked), "unchecked": list(self.unchecked)})  # fmt: skip


@dataclass(frozen=True)
class SweepSummary:
    """What a sweep did to its store.

    Attributes
    ----------
    store : str
    tasks, done, pending : int
        Tasks of the sweep(s), finished (now or before), not finished.
    new, skipped, failed : int
        Run now, found already stored, run now and failed (``error`` or ``timeout``).
    interrupted : bool
    elapsed_s : float
    warnings : tuple of str
        What the store warned (:class:`~volsched.experiments.store.SweepWarning`: another sweep
        is in the store; this one is recorded apart).

    Examples
    --------
    >>> SweepSummary("s.db", 1, 1, 0, 0, 1, 0, False, 0.1).to_dict()["warnings"]
    []
    """

    store: str
    tasks: int
    new: int
    skipped: int
    failed: int
    done: int
    pending: int
    interrupted: bool
    elapsed_s: float
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The ``volsched sweep --json`` object, with ``warnings``."""
        return {"store": self.store, "tasks": self.tasks, "skipped": self.skipped, "new": self.new,
                "failed": self.failed, "done": self.done, "pending": self.pending,
                "interrupted": self.interrupted, "elapsed_s": self.elapsed_s,
                "warnings": list(self.warnings)}  # fmt: skip


@dataclass(frozen=True)
class Report:
    """A results store's report: progress, per-method statistics, the papers' tables.

    Attributes
    ----------
    tasks, done, pending, errors, timeouts, defects : int
        Progress and failure counts; ``defects`` counts ratios below 1 (a bug).
    reference : dict
        ``{family: reference heuristic}`` of the relative metrics.
    references : dict
        ``{family: {problem: reference heuristic or None}}``.
    sweeps : tuple of dict
        The sweeps reported.
    rows : tuple of dict
        One statistics row per (family, method): exact methods, then heuristics
        (:func:`volsched.experiments.report.summarize`).
    papers : dict
        Each family's paper tables (``{family: JSON}``).
    markdown : str
        The text ``volsched report`` prints.

    Examples
    --------
    >>> import tempfile, pathlib, volsched
    >>> from volsched.experiments.store import Store
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "s.db"
    >>> Store(path).close()
    >>> volsched.report(path).done
    0
    """

    tasks: int
    done: int
    pending: int
    errors: int
    timeouts: int
    defects: int
    reference: dict[str, str | None]
    references: dict[str, dict[str, str | None]]
    sweeps: tuple[dict[str, Any], ...]
    rows: tuple[dict[str, Any], ...]
    papers: dict[str, Any]
    markdown: str = field(repr=False, default="")

    @classmethod
    def from_summary(cls, summary: Mapping[str, Any], papers: Mapping[str, Any], markdown: str) -> Report:
        """From :func:`volsched.experiments.report.summarize`'s dict."""
        return cls(
            **{k: summary[k] for k in ("tasks", "done", "pending", "errors", "timeouts", "defects")},
            reference=dict(summary["reference"]),
            references={f: dict(p) for f, p in summary["references"].items()},
            sweeps=tuple(summary["sweeps"]),
            rows=tuple(summary["rows"]),
            papers=dict(papers),
            markdown=markdown,
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``volsched report --json`` object (without ``written``)."""
        return {"tasks": self.tasks, "done": self.done, "pending": self.pending, "errors": self.errors,
                "timeouts": self.timeouts, "defects": self.defects, "reference": self.reference,
                "references": self.references, "sweeps": list(self.sweeps), "rows": list(self.rows),
                "papers": self.papers}  # fmt: skip


__all__ = ["Evaluation", "Instance", "InstanceSet", "PolicyScore", "Report", "Simulation", "Solution",
           "SweepSummary", "Verification"]  # fmt: skip
