"""The types of the family interface (DESIGN.md, the family interface).

A :class:`Family` is what every family has: its instance reader, generators,
exact problems, heuristics and run options. What a family may add (presets,
paper tables and figures, exports, diagnostics) is one
:class:`Extras` object. The registry of families is :mod:`volsched.families`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from volsched.instances.errors import InputError, check_int, require
from volsched.solvers import Infeasible, Problem, SolveResult
from volsched.solvers import solve as solve_problem
from volsched.solvers.result import verified_value

from .plugins import checked_policy, entry_points_of, import_object, object_name

if TYPE_CHECKING:
    import argparse
    import os
    from collections.abc import Callable, Mapping

    from volsched.heuristics.base import Simulator


@dataclass(frozen=True)
class Option:
    """One generator parameter: a ``volsched generate`` option and a sweep-grid key.

    Attributes
    ----------
    name : str
        The grid key; the command-line option is ``--`` + ``name`` with ``_`` as ``-``.
    check : callable
        ``check(value, field) -> value`` normalises a value or raises
        ``InputError`` naming ``field`` (see :mod:`volsched.instances.checks`).
    default : any
        Used when the option is not given (``None``: required).
    help : str
    cli_type : callable
        How argparse reads the option's text (``int``, ``float``, ``str``).
    nargs : int, optional
        For options whose one value is a list (e.g. a ``[low, high]`` pair).
    flag : bool
        A boolean switch (``--transpose``) on the command line.
    choices : tuple, optional
        The values it takes, when they are a list (prescient's platforms): ``volsched list`` shows them.
    """

    name: str
    check: Callable[[Any, str], Any]
    default: Any = None
    help: str = ""
    cli_type: Callable[[str], Any] = str
    nargs: int | None = None
    flag: bool = False
    choices: tuple = ()

    @property
    def cli(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class GeneratorSpec:
    """A generator: its options and the function behind them.

    ``make(params) -> instance`` (or a list of instances when ``many``) takes
    every option's value by name, defaults filled in. A ``many`` generator
    writes a folder from the command line and has no place in a sweep grid,
    whose points are single instances.
    """

    name: str
    options: tuple[Option, ...]
    make: Callable[[dict], Any]
    help: str = ""
    many: bool = False

    def params(self, given: Mapping[str, Any], where: Callable[[str], str]) -> dict:
        """Validated parameters from ``given`` (unknown names are an error), defaults filled in."""
        known = {o.name: o for o in self.options}
        for name in given:
            require(
                name in known,
                where(name),
                f"not an option of generator {self.name!r} (its options: {', '.join(known) or 'none'})",
            )
        out = {}
        for o in self.options:
            if o.name in given:
                out[o.name] = o.check(given[o.name], where(o.name))
            else:
                require(o.default is not None, where(o.name), f"generator {self.name!r} needs it")
                out[o.name] = o.default
        return out

    def generate(self, params: dict) -> Any:
        """The instance(s), their ``params`` set to exactly the validated options (and ``preset``)."""
        made = self.make(params)
        stored = {"preset": self.name, **params}
        if isinstance(made, list):
            return made  # each instance of a folder names its own single-instance generator
        # A fresh, already validated instance: set the field instead of re-running the
        # constructor's checks, which take plain lists, not the model's numpy arrays.
        object.__setattr__(made, "params", stored)
        return made


@dataclass(frozen=True)
class Heuristic:
    """A policy, the simulator that runs it, and the problem it is scored against.

    The simulator's solution is verified by that problem's verifier, and its
    value is compared with that problem's optimum in that problem's sense.
    ``source`` is empty for a built-in heuristic; for one from outside volsched
    it says where it came from (``import path``, ``entry point``, ``object``):
    its policy then runs behind the family's protocol checks, and what goes
    wrong in it is the user's input (``InputError``), not volsched's bug.
    """

    name: str
    problem: str
    policy: Any
    simulator: Simulator
    description: str = ""
    source: str = ""


@dataclass(frozen=True)
class RunOption:
    """A family's own option of ``solve``, ``simulate`` or ``evaluate``.

    Exactly one of the last three attributes says what the option does.

    Attributes
    ----------
    option : Option
        Its name, check, help and type (``beta`` is ``--beta``).
    commands : tuple of str
        The subcommands that take it.
    instance : callable, optional
        ``instance(model, value) -> model``: the instance the command works on
        (slack: the rule's beta, which the instance also stores).
    problem : str, optional
        A flag that chooses this problem (slack: ``--plain``); it conflicts
        with a different ``--problem``.
    simulator_field : str, optional
        A field of the heuristics' simulator dataclasses, set with
        ``dataclasses.replace`` (slack: ``disturbance``).
    """

    option: Option
    commands: tuple[str, ...] = ("solve", "simulate", "evaluate")
    instance: Callable[[Any, Any], Any] | None = None
    problem: str | None = None
    simulator_field: str | None = None

    def __post_init__(self):
        if sum(x is not None for x in (self.instance, self.problem, self.simulator_field)) != 1:
            raise ValueError(
                f"run option {self.option.name}: give exactly one of instance, problem, simulator_field"
            )


@dataclass(frozen=True)
class Setup:
    """What a command runs on once the family's run options are applied."""

    instance: Any
    problem: str | None
    simulator_fields: dict[str, Any]
    family: str = ""

    def simulator(self, simulator: Simulator) -> Simulator:
        """``simulator`` with the options' fields set; a simulator without such a field is an error."""
        return with_fields(simulator, self.simulator_fields, self.family or type(simulator).__name__)


def check_fields(simulator: Simulator, names, owner: str) -> None:
    """Bad input naming the option (``--name``) unless ``simulator`` is a dataclass with each field."""
    for name in names:
        require(
            dataclasses.is_dataclass(simulator) and hasattr(simulator, name),
            "--" + name.replace("_", "-"),
            f"the {owner} simulator takes no {name}",
        )


def with_fields(simulator: Simulator, fields: Mapping[str, Any], owner: str) -> Simulator:
    """``simulator`` (a dataclass) with ``fields`` set (:func:`check_fields` first)."""
    check_fields(simulator, fields, owner)
    return dataclasses.replace(simulator, **fields) if fields else simulator


@dataclass(frozen=True)
class DemoPart:
    """A family's share of ``volsched demo``: JSON-ready results and the lines it prints."""

    results: dict
    lines: list[str]


@dataclass(frozen=True)
class Extras:
    """What a family may add beyond the core of :class:`Family`; each part is optional.

    Attributes
    ----------
    presets : dict
        Name -> list of sweep tables (:mod:`volsched.experiments.config`);
        each family registers ``<paper>`` and ``<paper>-smoke``.
    report : callable, optional
        ``report(rows, reference) -> {"json": ..., "markdown": ...} or None``:
        the family's paper tables from a store's rows (``volsched report``).
    plots : callable, optional
        ``plots(rows, folder, reference) -> [paths]``: its paper figures
        (``volsched report --plot``).
    exports : dict
        Format -> ``export(instance, folder) -> [paths]`` (``volsched export
        FORMAT INSTANCE --out FOLDER``). It validates everything before it
        writes, and raises ``InputError`` for what it cannot export.
    diagnose : callable, optional
        ``diagnose(instance, run_solution, optimal_solution) -> dict``: a
        heuristic run's fields that need the proven optimum's schedule
        (prescient: Section 3.4's slow-host laggers, against the slowest host
        the optimum uses). ``volsched evaluate`` adds them to each policy.
    """

    presets: dict[str, list[dict]] = field(default_factory=dict)
    report: Callable[..., dict | None] | None = None
    plots: Callable[..., list] | None = None
    exports: dict[str, Callable[..., list]] = field(default_factory=dict)
    diagnose: Callable[[Any, dict, dict], dict] | None = None


@dataclass(frozen=True)
class Family:
    """How the application layer drives one family.

    Attributes
    ----------
    name : str
        The ``family`` field of its instance files.
    load : callable
        Parsed instance JSON -> instance model (raises ``InputError``).
    generators : dict
        Name -> :class:`GeneratorSpec`; the first is a grid's default.
    problems : dict
        Name -> :class:`~volsched.solvers.Problem`; the first is the default.
    heuristics : dict
        Name -> :class:`Heuristic`.
    run_options : tuple of RunOption
        Its own options of ``solve`` / ``simulate`` / ``evaluate``.
    pick_generator : callable, optional
        ``pick_generator(option names given) -> generator name``: lets
        ``volsched generate`` choose among several generators by the options
        given when ``--preset`` is absent (prescient: ``--fta`` or
        ``--platform``); without it ``--preset`` is required.
    extras : Extras
        What a family may add: presets, paper tables and figures, exports,
        diagnostics.
    """

    name: str
    load: Callable[[dict], Any]
    generators: dict[str, GeneratorSpec]
    problems: dict[str, Problem]
    heuristics: dict[str, Heuristic] = field(default_factory=dict)
    run_options: tuple[RunOption, ...] = ()
    pick_generator: Callable[[set[str]], str | None] | None = None
    extras: Extras = field(default_factory=lambda: Extras())

    def __post_init__(self):
        for h in self.heuristics.values():
            if h.problem not in self.problems:
                raise ValueError(
                    f"{self.name}: heuristic {h.name} is scored against unknown problem {h.problem}"
                )

    # --- problems -----------------------------------------------------------
    def problem(self, name: str | None, field_name: str = "--problem") -> Problem:
        """The problem called ``name`` (``None``: the default one)."""
        return _pick(self.problems, name, field_name, f"{self.name} has problems")

    def solve(
        self,
        instance: Any,
        problem: str | None = None,
        method: str | None = None,
        time_limit: float | None = None,
        seed: int | None = None,
        budget: float | None = None,
    ) -> SolveResult:
        """Solve ``instance`` exactly (see :func:`volsched.solvers.problem.solve`)."""
        return solve_problem(self.name, self.problems, instance, problem, method, time_limit, seed, budget)

    def verify(self, instance: Any, solution: Any) -> tuple[Problem, float]:
        """The problem a solution names (default: the first) and its verified value.

        A solution the verifier rejects is the user's file here: ``InputError``.
        """
        require(isinstance(solution, dict), "solution", "must be a JSON object")
        problem = self.problem(solution.get("problem"), "solution.problem")
        try:
            return problem, verified_value(problem.verify(instance, solution))
        except Infeasible as exc:
            raise solution_error(exc) from None

    def setup(
        self, command: str, instance: Any, values: Mapping[str, Any], problem: str | None = None
    ) -> Setup:
        """Apply the run options given to ``command`` (name -> value; ``None``: not given).

        An option of another family, or of another command, is bad input naming it.
        """
        own = {o.option.name: o for o in self.run_options if command in o.commands}
        fields: dict[str, Any] = {}
        for name, value in values.items():
            if value is None:
                continue
            cli = "--" + name.replace("_", "-")
            require(name in own, cli, f"the {self.name} family's {command} takes no such option")
            run = own[name]
            value = run.option.check(value, cli)
            if run.instance is not None:
                instance = run.instance(instance, value)
            elif run.problem is not None:
                require(
                    problem in (None, run.problem),
                    cli,
                    f"chooses problem {run.problem!r}, but --problem {problem} was given",
                )
                problem = run.problem
            else:
                fields[run.simulator_field] = value
        return Setup(instance, problem, fields, self.name)

    # --- heuristics ---------------------------------------------------------
    def heuristic(
        self,
        name: Any,
        field_name: str = "--heuristic",
        base: str | os.PathLike | None = None,
    ) -> Heuristic:
        """The heuristic ``name`` names: a built-in one, an import path, an entry point, or an object.

        Parameters
        ----------
        name : str or object
            * a built-in heuristic's name, in any case (``daly``, ``DALY``, ``y-ie``);
            * ``module.path:ClassName`` or ``path/to/file.py:ClassName``: a policy
              class (instantiated without arguments) or object following the
              family's protocol (``volsched.heuristics.<family>.protocol``); a
              relative file path is read from ``base``, and a module not found on
              ``sys.path`` is looked for in ``base`` too;
            * a name an installed package registers in the entry-point group
              ``volsched.heuristics`` as ``<family>.<name> = "pkg.mod:ClassName"``;
            * a policy class or object itself (from Python).
        field_name : str
            The field an error names.
        base : path, optional
            Folder of relative paths (the sweep file's folder); default the working directory.

        Returns
        -------
        Heuristic
            Named by its built-in name, the import path as given, or the entry point's name. A
            heuristic from outside volsched is scored against its class attribute ``problem``,
            else :attr:`default_heuristic_problem`, and run by that problem's simulator.
        """
        if not isinstance(name, str):
            return self._external(name, object_name(name), "object", field_name)
        if name in self.heuristics:
            return self.heuristics[name]
        folded = {k.casefold(): k for k in self.heuristics}
        if name.casefold() in folded:
            return self.heuristics[folded[name.casefold()]]
        if ":" in name:
            return self._external(import_object(name, field_name, base), name, "import path", field_name)
        points = entry_points_of(self.name)
        if name.casefold() in points:
            point = points[name.casefold()]
            try:
                obj = point.load()
            except Exception as exc:
                raise InputError(
                    f"{field_name}: {name}: loading the entry point {point.value!r} raised "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            return self._external(obj, point.name.split(".", 1)[1], "entry point", field_name)
        built_in = sorted(self.heuristics) or f"none: {self.name} has no heuristics yet"
        extra = sorted(p.name.split(".", 1)[1] for p in points.values())
        raise InputError(
            f"{field_name}: choose from {built_in}"
            + (f", the installed {extra}" if extra else "")
            + f", or name a policy class by import path (module:Class or file.py:Class); "
            f"got {name!r}"
        )

    @property
    def default_heuristic_problem(self) -> str:
        """The problem a heuristic from outside volsched is scored against unless its class says:
        that of the family's first built-in heuristic (the paper's), else the family's first problem."""
        first = next(iter(self.heuristics.values()), None)
        return first.problem if first is not None else next(iter(self.problems))

    def _external(self, obj: Any, name: str, source: str, field_name: str) -> Heuristic:
        """A :class:`Heuristic` around a policy class or object from outside volsched."""
        what = getattr(obj, "__name__", type(obj).__name__)
        if isinstance(obj, type):
            try:
                policy = obj()
            except Exception as exc:
                raise InputError(
                    f"{field_name}: {name}: {what}() raised {type(exc).__name__}: {exc} (a "
                    "policy class is instantiated without arguments)"
                ) from exc
        else:
            policy = obj
        require(
            any(callable(getattr(policy, m, None)) for m in ("plan", "decide")),
            field_name,
            f"{name}: {what} has no method plan() or decide(); a policy follows the family's protocol "
            f"(volsched.heuristics.{self.name}.protocol)",
        )
        problem = getattr(policy, "problem", None)
        problem = self.default_heuristic_problem if problem is None else problem
        require(
            isinstance(problem, str) and problem in self.problems,
            field_name,
            f"{name}: its problem must be one of {list(self.problems)}, got {problem!r}",
        )
        simulators = [h.simulator for h in self.heuristics.values() if h.problem == problem]
        simulators = simulators or [h.simulator for h in self.heuristics.values()]
        require(bool(simulators), field_name, f"the {self.name} family has no simulator to run {name}")
        doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
        checked = checked_policy(self.name, policy, name)
        return Heuristic(name, problem, checked, simulators[0], doc[0] if doc else "", source)

    def simulate(
        self,
        instance: Any,
        name: str | Heuristic,
        seed: int,
        simulator: Simulator | None = None,
    ) -> dict:
        """Run heuristic ``name`` with ``numpy.random.default_rng(seed)``; verify and measure it.

        ``name`` is anything :meth:`heuristic` takes, or a :class:`Heuristic`. Returns
        the solution, the verifier's ``objective`` and the metrics the
        simulator reports (the problem's declared metrics). A run the simulator
        reports as ``failed`` (the coupled cap) has no objective and status
        ``unknown``; its solution is checked as a witness by the problem's
        partial verifier. A heuristic from outside volsched whose solution the
        verifier rejects is bad input (``InputError``); a built-in one's is a bug.
        """
        h = name if isinstance(name, Heuristic) else self.heuristic(name)
        name = h.name
        seed = check_int(seed, "--seed", 0)  # numpy.random.default_rng refuses a negative seed
        sim = simulator or h.simulator
        solution, metrics = sim.run(instance, h.policy, np.random.default_rng(seed))
        problem = self.problems[h.problem]
        failed = bool(metrics.get("failed"))
        try:
            if failed:
                problem.verify_partial(instance, solution)
                value = None
            else:
                value = verified_value(problem.verify(instance, solution))
        except Infeasible as exc:
            if h.source:
                raise InputError(
                    f"heuristic {name}: its solution is infeasible for the {h.problem} problem: {exc}"
                ) from None
            raise RuntimeError(
                f"{self.name}: heuristic {name} produced an infeasible solution: {exc}"
            ) from None
        declared = {m.name for m in problem.metrics}
        unknown = set(metrics) - declared
        if unknown:
            raise RuntimeError(f"{self.name}: heuristic {name} reports undeclared metrics {sorted(unknown)}")
        metrics = {**metrics, problem.objective_metric: value}  # the verifier's value, not the simulator's
        return {
            "heuristic": name,
            "problem": h.problem,
            "seed": seed,
            "status": "unknown" if failed else "feasible",
            "objective": value,
            "metrics": metrics,
            "solution": {"problem": h.problem, **solution},
        }

    # --- generators ---------------------------------------------------------
    def generator(self, name: str | None, field_name: str = "--preset") -> GeneratorSpec:
        """The generator called ``name`` (``None``: the default one)."""
        return _pick(self.generators, name, field_name, f"{self.name} has generators")

    def options(self) -> dict[str, Option]:
        """Every option of every generator, by name (a name shared by generators is one option)."""
        out: dict[str, Option] = {}
        for spec in self.generators.values():
            for o in spec.options:
                out.setdefault(o.name, o)
        return out

    def add_generate_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The ``volsched generate FAMILY`` options, built from the generator specs."""
        if len(self.generators) > 1:
            parser.add_argument(
                "--preset",
                choices=list(self.generators),
                required=self.pick_generator is None,
                # argparse %-formats help texts; a paper's "20 % free" must stay literal
                help="; ".join(f"{n}: {g.help}" for n, g in self.generators.items()).replace("%", "%%"),
            )
        for name, o in self.options().items():
            users = {g.name: opt for g in self.generators.values() for opt in g.options if opt.name == name}
            where = "" if len(users) == len(self.generators) else f" [{', '.join(users)}]"
            defaults = {str(opt.default) for opt in users.values() if opt.default is not None}
            default = (
                ""
                if not defaults
                else f" (default {defaults.pop()})"
                if len(defaults) == 1
                else " (default " + ", ".join(f"{g} {opt.default}" for g, opt in users.items()) + ")"
            )
            if o.flag:
                parser.add_argument(
                    o.cli,
                    dest=o.name,
                    action="store_const",
                    const=True,
                    default=None,
                    help=(o.help + where).replace("%", "%%"),
                )
            else:
                parser.add_argument(
                    o.cli,
                    dest=o.name,
                    type=o.cli_type,
                    nargs=o.nargs,
                    default=None,
                    help=(o.help + default + where).replace("%", "%%"),
                )

    def generate_args(self, args: argparse.Namespace) -> Any:
        """Instance(s) from parsed ``generate`` options; an option the generator does not use is an error."""
        given = {n: getattr(args, n) for n in self.options() if getattr(args, n, None) is not None}
        preset = getattr(args, "preset", None)
        if preset is None and self.pick_generator is not None:
            preset = self.pick_generator(set(given))
        spec = self.generator(preset)
        for name in given:
            require(
                any(o.name == name for o in spec.options),
                "--" + name.replace("_", "-"),
                f"generator {spec.name!r} does not use it (its options: "
                f"{', '.join(o.cli for o in spec.options) or 'none'})",
            )
        return spec.generate(spec.params(given, lambda n: "--" + n.replace("_", "-")))

    def generate_from(self, params: dict) -> Any:
        """The one instance of a sweep grid point (``preset`` plus options, ``seed`` included)."""
        given = dict(params)
        spec = self.generator(given.pop("preset", None), "preset")
        require(not spec.many, "preset", f"{spec.name!r} makes many instances; a grid point is one instance")
        if not any(o.name == "seed" for o in spec.options):
            given.pop("seed", None)
        return spec.generate(spec.params(given, lambda n: n))


#: The entry-point group in which installed packages register heuristics, each as
#: ``<family>.<name> = "package.module:ClassName"`` (e.g. ``checkpoint.every-other``).


def solution_error(exc: Exception) -> InputError:
    """A verifier's ``Infeasible`` as the user's error, naming its field inside ``solution``.

    Verifiers name a field either from the solution (``schedule.completions``) or with the
    prefix already (``solution.schedule: missing``); the prefix is not doubled.
    """
    text = str(exc)
    return InputError(text if text.startswith("solution.") else f"solution.{text}")


def _pick(table: dict, name: str | None, field_name: str, what: str):
    """``table[name]``, the first entry for ``None``, else ``InputError`` listing the names."""
    if name is None:
        return next(iter(table.values()))
    require(isinstance(name, str) and name in table, field_name, f"{what} {list(table)}, got {name!r}")
    return table[name]
