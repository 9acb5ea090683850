"""volsched from Python: the verbs of the ``volsched`` command, each returning a result object.

``import volsched`` gives these functions and the result classes of
:mod:`volsched.results` (loaded on first use, so that ``import volsched``
stays light). Each verb takes what its command takes, by the same names, and
returns a frozen dataclass whose ``to_dict()`` is the JSON object the command
prints with ``--json``. Bad input raises
:class:`volsched.instances.errors.InputError` naming the field, as the command
reports it.

Examples
--------
>>> import volsched
>>> inst = volsched.generate("checkpoint", slices=4, seed=1)
>>> volsched.solve(inst).status.value
'optimal'
>>> ev = volsched.evaluate(inst, ["daly"])
>>> round(ev.policies["daly"].ratio, 3)
1.0
"""

from __future__ import annotations

import os
import sqlite3
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from volsched.instances.errors import InputError, check_int, require
from volsched.instances.io import read_json

from .families import FAMILIES, Family, check_fields, family_of, with_fields
from .results import (
    Evaluation,
    Instance,
    InstanceSet,
    Report,
    Simulation,
    Solution,
    SweepSummary,
    Verification,
)

if TYPE_CHECKING:
    import pandas as pd

#: What the verbs accept as an instance: an :class:`Instance`, an instance file's path, or its
#: parsed JSON object.
InstanceLike: TypeAlias = "Instance | str | os.PathLike[str] | Mapping[str, Any]"
#: What :func:`report` and :func:`read_runs` accept: one store's path, or several.
StorePaths: TypeAlias = "str | os.PathLike[str] | Sequence[str | os.PathLike[str]]"
#: Most Monte-Carlo samples :func:`simulate` draws (as ``volsched simulate --samples``).
MAX_SAMPLES = 10_000_000


def _family(name: str) -> Family:
    require(
        isinstance(name, str) and name in FAMILIES,
        "family",
        f"must be one of {sorted(FAMILIES)}, got {name!r}",
    )
    return FAMILIES[name]


def _instance(obj: InstanceLike) -> tuple[Family, Instance]:
    """The family and the instance of what a verb was given."""
    if isinstance(obj, Instance):
        return _family(obj.family), obj
    if isinstance(obj, str | os.PathLike):
        inst = read(obj)
        return _family(inst.family), inst
    if isinstance(obj, Mapping):
        family = family_of(dict(obj))
        return family, Instance(family.name, family.load(dict(obj)))
    raise TypeError(f"instance: expected an Instance, a path or an instance object, got {type(obj).__name__}")


def _setup(
    command: str, family: Family, inst: Instance, options: Mapping[str, Any], problem: str | None = None
) -> Any:
    """The family's run options of ``command`` applied (:meth:`volsched.families.Family.setup`)."""
    return family.setup(command, inst.model, dict(options), problem)


def _with_cap(family: Family, simulator: Any, cap: int | None) -> Any:
    return simulator if cap is None else with_fields(simulator, {"cap": cap}, family.name)


def generate(family: str, preset: str | None = None, **options: Any) -> Instance | InstanceSet:
    """Generate a seeded instance (``volsched generate FAMILY``).

    Parameters
    ----------
    family : str
        ``checkpoint``, ``coupled``, ``prescient`` or ``slack``.
    preset : str, optional
        The generator (``volsched generate FAMILY --help`` lists them; default: the
        family's first, or the one its options choose).
    **options
        The generator's options by their sweep-grid names (``--n-com`` is ``n_com``),
        ``seed`` included; the others take their defaults.

    Returns
    -------
    Instance or InstanceSet
        An :class:`InstanceSet` for a preset that makes many instances (a paper's
        whole set), else one :class:`Instance`.

    Raises
    ------
    InputError
        An unknown family, preset or option, or a value its check refuses.

    Examples
    --------
    >>> import volsched
    >>> inst = volsched.generate("slack", jobs=5, machines=2, seed=3)
    >>> inst.family, inst.params["jobs"]
    ('slack', 5)
    """
    fam = _family(family)
    given = {k: v for k, v in options.items() if v is not None}
    if preset is None and fam.pick_generator is not None:
        preset = fam.pick_generator(set(given))
    spec = fam.generator(preset, "preset")
    made = spec.generate(spec.params(given, lambda name: name))
    if isinstance(made, list):
        return InstanceSet(fam.name, tuple(Instance(fam.name, m) for m in made))
    return Instance(fam.name, made)


def read(path: str | os.PathLike[str]) -> Instance:
    """Read and validate an instance file (what every command reads first).

    Parameters
    ----------
    path : str or PathLike
        A ``volsched-instance`` JSON file.

    Returns
    -------
    Instance

    Raises
    ------
    InputError
        The file is missing, of another kind (a store, a result...), or invalid; the message
        names the file and the field.

    Examples
    --------
    >>> import tempfile, pathlib, volsched
    >>> inst = volsched.generate("checkpoint", slices=4, seed=1)
    >>> path = inst.write(pathlib.Path(tempfile.mkdtemp()) / "i.json")
    >>> volsched.read(path).to_dict() == inst.to_dict()
    True
    """
    obj = read_json(path)
    try:
        family = family_of(obj)
        return Instance(family.name, family.load(obj))
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


def solve(
    instance: InstanceLike,
    *,
    problem: str | None = None,
    method: str | None = None,
    budget: float | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    **options: Any,
) -> Solution:
    """Solve an instance exactly, the solution re-checked by the independent verifier (``volsched solve``).

    Parameters
    ----------
    instance : Instance, path or instance object
    problem : str, optional
        The exact problem (default: the family's first).
    method : str, optional
        The exact method (default: the problem's first, its fastest).
    budget : float, optional
        Deterministic work budget, in the method's unit: the same result on every machine.
    time_limit : float, optional
        Wall-clock safety net in seconds; a result it cuts says ``stopped="wall clock"``.
    seed : int
        Seed of a method's randomised search.
    **options
        The family's run options of ``solve`` (slack: ``beta``, ``plain``).

    Returns
    -------
    Solution

    Examples
    --------
    >>> import volsched
    >>> sol = volsched.solve(volsched.generate("slack", jobs=5, machines=2, seed=3))
    >>> sol.proven, sol.objective == sol.bound
    (True, True)
    """
    family, inst = _instance(instance)
    setup = _setup("solve", family, inst, options, problem)
    r = family.solve(
        setup.instance, problem=setup.problem, method=method, time_limit=time_limit, seed=seed, budget=budget
    )
    return Solution(
        r.family,
        r.instance,
        r.method,
        r.status,
        r.objective,
        r.bound,
        r.runtime_s,
        r.solution,
        r.verified,
        r.info,
        r.stopped,
        r.work,
    )


def simulate(
    instance: InstanceLike,
    heuristic: str,
    *,
    seed: int = 0,
    samples: int | None = None,
    cap: int | None = None,
    **options: Any,
) -> Simulation:
    """Run one heuristic on an instance, its run verified (``volsched simulate``).

    Parameters
    ----------
    instance : Instance, path or instance object
    heuristic : str
        One of the family's heuristics.
    seed : int
        Seed of the policy's ``numpy.random.Generator``.
    samples : int, optional
        Monte-Carlo samples, for simulators that sample (checkpoint).
    cap : int, optional
        Slots before a coupled run fails (default: the paper's 10^6).
    **options
        The family's run options of ``simulate`` (slack: ``beta``, ``disturbance``).

    Returns
    -------
    Simulation

    Examples
    --------
    >>> import volsched
    >>> run = volsched.simulate(volsched.generate("slack", jobs=5, machines=2, seed=3), "gaps")
    >>> run.status, run.problem
    ('feasible', 'slack')
    """
    family, inst = _instance(instance)
    setup = _setup("simulate", family, inst, options)
    simulator = setup.simulator(family.heuristic(heuristic).simulator)
    if samples is not None:
        check_fields(simulator, ["samples"], family.name)
        simulator = with_fields(
            simulator, {"samples": check_int(samples, "--samples", 2, MAX_SAMPLES)}, family.name
        )
    simulator = _with_cap(family, simulator, cap)
    out = family.simulate(setup.instance, heuristic, seed=seed, simulator=simulator)
    return Simulation(
        family.name,
        setup.instance.name,
        out["heuristic"],
        out["problem"],
        out["seed"],
        out["status"],
        out["objective"],
        dict(out["metrics"]),
        dict(out["solution"]),
    )


def evaluate(
    instance: InstanceLike,
    heuristics: str | Sequence[str] | None = None,
    *,
    method: str | None = None,
    budget: float | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    cap: int | None = None,
    **options: Any,
) -> Evaluation:
    """Score heuristics against the optimum on the same instance and realization (``volsched evaluate``).

    Each problem the heuristics are scored against is solved once; each
    heuristic's ratio is its verified value over the proven optimum, or the
    interval ``[ratio_lo, ratio_hi]`` when the optimum is not proven
    (:mod:`volsched.ratios`).

    Parameters
    ----------
    instance : Instance, path or instance object
    heuristics : str or sequence of str, optional
        Default: every heuristic the instance can feed (the others are in ``skipped``).
    method, budget, time_limit
        The exact method of each problem involved, as :func:`solve`'s.
    seed : int
        Seed of the policies' generators.
    cap : int, optional
        Slots before a coupled run fails.
    **options
        The family's run options of ``evaluate``.

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> import volsched
    >>> ev = volsched.evaluate(volsched.generate("slack", jobs=5, machines=2, seed=3), "gaps")
    >>> ev.policies["gaps"].ratio >= 1.0
    True
    """
    from .evaluate import evaluate as run_evaluate

    family, inst = _instance(instance)
    setup = _setup("evaluate", family, inst, options)
    names = [heuristics] if isinstance(heuristics, str) else None if heuristics is None else list(heuristics)
    chosen = None if names is None else [family.heuristic(n) for n in names]
    simulators = {
        h.name: _with_cap(family, setup.simulator(h.simulator), cap)
        for h in (chosen or family.heuristics.values())
    }
    report = run_evaluate(
        family,
        setup.instance,
        chosen,
        method=method,
        time_limit=time_limit,
        seed=seed,
        simulators=simulators,
        budget=budget,
    )
    return Evaluation.from_dict(report)


def verify(
    instance: InstanceLike,
    solution: Solution | Simulation | Mapping[str, Any] | str | os.PathLike[str],
    **options: Any,
) -> Verification:
    """Check a solution, or a whole solve or simulate result, against an instance (``volsched verify``).

    Every claim is recomputed by the problem's independent verifier: the
    solution's feasibility and value, and the result's status, objective, bound
    and gap.

    Parameters
    ----------
    instance : Instance, path or instance object
    solution : Solution, Simulation, dict or path
        A result of :func:`solve` or :func:`simulate`, its ``to_dict()``, a bare solution
        object, or a file holding one.
    **options
        The family's run options of ``verify`` (slack: ``beta``).

    Returns
    -------
    Verification

    Raises
    ------
    InputError
        A claim that does not hold, naming its field.

    Examples
    --------
    >>> import volsched
    >>> inst = volsched.generate("slack", jobs=5, machines=2, seed=3)
    >>> run = volsched.simulate(inst, "gaps")
    >>> volsched.verify(inst, run).objective == run.objective
    True
    """
    from .verify import verify_result

    family, inst = _instance(instance)
    model = _setup("verify", family, inst, options).instance
    where = None
    if isinstance(solution, Solution | Simulation):
        obj: Any = solution.to_dict()
    elif isinstance(solution, Mapping):
        obj = dict(solution)
    else:
        where, obj = solution, read_json(solution)
    try:
        report = verify_result(family, model, obj)
    except InputError as exc:
        raise InputError(f"{where}: {exc}" if where is not None else str(exc)) from None
    fixed = ("problem", "status", "objective", "checked", "unchecked")
    return Verification(
        model.name,
        report["objective"] is not None,
        report["problem"],
        report["status"],
        report["objective"],
        tuple(report["checked"]),
        tuple(report["unchecked"]),
        {k: v for k, v in report.items() if k not in fixed},
    )


def sweep(
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    store: str | os.PathLike[str] = "volsched.db",
    *,
    preset: str | None = None,
    workers: int = -1,
    dask_scheduler: str | None = None,
    quiet: bool = True,
) -> SweepSummary:
    """Run a resumable sweep into a results store (``volsched sweep``).

    Tasks already in the store are skipped; a sweep stopped at any point
    resumes where it stopped. A sweep of another name or configuration into a
    store that holds one is recorded apart, and the store's warning is in
    :attr:`SweepSummary.warnings` (and re-issued as a
    :class:`~volsched.experiments.store.SweepWarning`).

    Parameters
    ----------
    config : path or dict, optional
        A TOML sweep file, or its parsed table (one sweep, or ``{"sweep": [tables]}``).
    store : path
        The SQLite store (created if missing).
    preset : str, optional
        A named sweep instead of ``config`` (e.g. ``checkpoint-smoke``).
    workers : int
        Local worker processes (-1: all cores).
    dask_scheduler : str, optional
        A Dask scheduler's address, e.g. ``tcp://host:8786``.
    quiet : bool
        No progress bar.

    Returns
    -------
    SweepSummary

    Examples
    --------
    >>> import tempfile, pathlib, volsched
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> config = {"name": "tiny", "family": "checkpoint", "heuristics": ["daly"], "grid": {"slices": [4]}}
    >>> volsched.sweep(config, folder / "s.db", workers=1).done
    2
    """
    from .experiments.config import parse_config, read_config
    from .experiments.presets import preset as named
    from .experiments.runner import run_sweep
    from .experiments.store import SweepWarning

    require((config is None) != (preset is None), "sweep", "give either a config or a preset")
    if preset is not None:
        sweeps = parse_config({"sweep": named(preset)}, f"preset {preset}")
    elif isinstance(config, Mapping):
        sweeps = parse_config(dict(config), "config")
    else:
        assert config is not None
        sweeps = read_config(Path(config))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SweepWarning)
        try:
            summary = run_sweep(
                sweeps, Path(store), workers=workers, dask_scheduler=dask_scheduler, quiet=quiet
            )
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise InputError(f"{store}: not a readable volsched store ({exc})") from None
    for w in caught:  # re-issued: recording them must not hide them
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    notes = tuple(str(w.message) for w in caught if issubclass(w.category, SweepWarning))
    fields = ("store", "tasks", "new", "skipped", "failed", "done", "pending", "interrupted", "elapsed_s")
    return SweepSummary(**{k: summary[k] for k in fields}, warnings=notes)


def report(
    store: StorePaths,
    *,
    sweep: str | None = None,
    reference: str | None = None,
    metric: str | None = None,
    columns: str | Sequence[str] | None = None,
) -> Report:
    """Tables of one results store, or of several combined (``volsched report``).

    Parameters
    ----------
    store : path or sequence of paths
        Several stores (from several machines) are combined after checking that the
        tasks they share have the same rows.
    sweep : str, optional
        Only this sweep (a label of :attr:`Report.sweeps`).
    reference : str, optional
        Reference heuristic of %diff for its problem (default: each paper's: IE, FCFS,
        daly, gaps).
    metric : str, optional
        A declared metric of the problems (default: each one's objective).
    columns : str or sequence of str, optional
        The text table's columns (``"all"``, or names; default: those that fit 120 characters).

    Returns
    -------
    Report

    Examples
    --------
    >>> import tempfile, pathlib, volsched
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> config = {"name": "tiny", "family": "checkpoint", "heuristics": ["daly"], "grid": {"slices": [4]}}
    >>> _ = volsched.sweep(config, folder / "s.db", workers=1)
    >>> volsched.report(folder / "s.db").reference
    {'checkpoint': 'daly'}
    """
    from .experiments.report import build_report, table_columns
    from .experiments.store import Store

    paths = _paths(store)
    chosen = table_columns(columns)
    try:
        with Store.open(paths, sweep=sweep) as opened:
            built = build_report(opened, reference=reference, metric=metric, columns=chosen)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise InputError(f"{', '.join(map(str, paths))}: not a readable volsched store ({exc})") from None
    return Report.from_summary(built["summary"], built["papers"], built["markdown"])


def _paths(store: StorePaths) -> list[Path]:
    return [Path(store)] if isinstance(store, str | os.PathLike) else [Path(p) for p in store]


def read_runs(store: StorePaths, *, sweep: str | None = None) -> pd.DataFrame:
    """A store's runs as a pandas DataFrame: one row per finished run (``report --runs FILE``).

    Columns: the run (``family``, ``instance``, ``kind``, ``method`` – an exact method
    or a heuristic –, ``problem``, ``status``), its ``value``, an exact method's
    ``bound``, ``proven`` (an exact run: it proved optimality; a heuristic run: the
    optimum its ratio is to is proven), ``ratio`` (to the proven optimum) or the
    interval ``ratio_lo``, ``ratio_hi`` that holds it, then ``p_<name>`` the instance's
    generator parameters, ``method_<name>`` the task's method parameters and
    ``metric_<name>`` the run's metrics (:data:`volsched.experiments.runs.RUN_COLUMNS`).

    Parameters
    ----------
    store : path or sequence of paths
        One store, or several combined (as :func:`report`).
    sweep : str, optional
        Only this sweep.

    Examples
    --------
    >>> import tempfile, pathlib, volsched
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> config = {"name": "tiny", "family": "checkpoint", "heuristics": ["daly"], "grid": {"slices": [4]}}
    >>> _ = volsched.sweep(config, folder / "s.db", workers=1)
    >>> runs = volsched.read_runs(folder / "s.db")
    >>> sorted(runs["method"]), list(runs["p_slices"])
    (['daly', 'dp'], [4, 4])
    """
    from .experiments.runs import runs_frame
    from .experiments.store import Store

    try:
        with Store.open(_paths(store), sweep=sweep) as opened:
            return runs_frame(opened)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise InputError(f"{store}: not a readable volsched store ({exc})") from None


__all__ = [
    "MAX_SAMPLES",
    "InstanceLike",
    "StorePaths",
    "evaluate",
    "generate",
    "read",
    "read_runs",
    "report",
    "simulate",
    "solve",
    "sweep",
    "verify",
]
