"""Problems, method outcomes and the one place that turns an outcome into a result.

Every family's exact side is a table ``{problem name: Problem}``. A
:class:`Problem` names its sense, its exact methods (``{name: function}``, the
first is the default), its independent verifier and its metrics. Every method
returns one :class:`MethodOutcome`; :func:`solve` checks the request, runs the
method and hands the outcome to :func:`finish`, which times it, verifies the
solution and sets the status. ``optimal`` is set nowhere else, only with a
proof, and only after the verifier has recomputed the objective.

The objective a result reports is always the verifier's value. Where a
method's own figure differs (a time-limited model may leave a variable at a
value its solution does not reach), the method's claim is wrong, not the
user's run: the verified value is reported with status ``feasible`` and the
method's figure is kept in ``info.claimed_objective``.
"""

from __future__ import annotations

import importlib
import math
import numbers
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from volsched.instances.errors import InputError, check_int, is_number, require

from .deadline import HardStop, hard_limit, hard_seconds
from .jit import compiling
from .result import Infeasible, SolveResult, SolveStatus, VerificationError

#: Relative tolerance under which a claim about a float objective (checkpoint, prescient) and the
#: verifier's value agree; integer objectives are compared exactly (:func:`agrees`). Why 1e-9: the
#: checkpoint verifier's quadrature and the models' closed forms sum the same waste by different
#: routes and differ by rounding, measured within 2e-11 relative on 20,000 intervals
#: (solvers/checkpoint/verify.py); the prescient methods and verifier replay the same float
#: instants and agreed exactly on 36 greedy runs (4 platforms, 60 hosts, 20 to 100 tasks). 1e-9
#: leaves a margin of 50 over the first, and is far below any difference between two schedules.
CLAIM_RTOL = 1e-9
#: Absolute floor of that comparison: two objectives this close to zero agree (a result that
#: rounds to 0.0 in one computation and to a subnormal in another). It is far below any value
#: compared, so that a small objective (a checkpoint waste of 1e-13) is compared relatively,
#: as a value; an absolute tolerance of 1e-12 made every waste below it agree with any other.
CLAIM_ATOL = 1e-300
SENSES = ("min", "max")


@dataclass(frozen=True)
class Metric:
    """A named value a problem reports for a solution.

    ``sense`` is ``"min"`` or ``"max"`` for a metric that ranks solutions,
    ``None`` for an informative one (a standard error, a count).
    """

    name: str
    sense: str | None
    description: str = ""


@dataclass
class MethodOutcome:
    """What an exact method found.

    Attributes
    ----------
    solution : dict or None
        The JSON-able solution (``None`` when none was found). It may also be
        a partial witness when ``objective`` is ``None`` (see
        :attr:`Problem.verify_partial`).
    objective : float or None
        The method's own value of ``solution``; :func:`finish` replaces it by
        the verifier's.
    bound : float or None
        A proven bound on the optimum (lower for ``min``, upper for ``max``),
        or ``None``.
    proven : bool
        With a solution: the method proved it optimal. Without one: it proved
        that no solution exists.
    info : dict
        Anything else worth reporting (nodes, which model ran, why it stopped).
    stopped : str or None
        Why the search ended before it finished: ``"budget"`` (its work budget ran out: the
        same outcome on every machine) or ``"wall clock"`` (the time limit, a safety net, cut
        it: the outcome depends on the machine). ``None``: the search finished.
    work : float or None
        The work the method spent, in its budget unit (:data:`BUDGET_UNITS`).
    """

    solution: dict | None
    objective: float | None
    bound: float | None
    proven: bool
    info: dict = field(default_factory=dict)
    stopped: str | None = None
    work: float | None = None


@dataclass
class Effort:
    """What a search spent (in its budget unit) and why it ended unfinished, if it did.

    A back end fills it as it runs (``effort`` arguments); the method's adapter copies it into
    its :class:`MethodOutcome`. Several searches of one method add up.
    """

    work: float = 0.0
    stopped: str | None = None

    def add(self, work: float, stopped: str | None = None) -> None:
        self.work += work
        self.stopped = self.stopped or stopped

    def left(self, budget: float | None) -> float | None:
        """What is left of ``budget`` (``None``: unlimited)."""
        return None if budget is None else budget - self.work


class Allowance:
    """A search's stopping rule: a work budget (deterministic) and a deadline (the safety net).

    ``charge(work)`` books work into :attr:`effort` and says whether the search must stop:
    once the budget is spent (``effort.stopped = "budget"``) or the deadline, a
    ``time.perf_counter()`` value, has passed (``"wall clock"``).
    """

    def __init__(
        self, budget: float | None = None, deadline: float | None = None, effort: Effort | None = None
    ):
        self.budget, self.deadline = budget, deadline
        self.effort = Effort() if effort is None else effort

    @classmethod
    def of(cls, limit: Allowance | float | None) -> Allowance:
        """An allowance from a deadline (``time.perf_counter()`` value), or the allowance itself."""
        return limit if isinstance(limit, Allowance) else cls(deadline=limit)

    def charge(self, work: float = 0.0) -> bool:
        self.effort.work += work
        if self.budget is not None and self.effort.work >= self.budget:
            self.effort.stopped = self.effort.stopped or STOPPED_BUDGET
        elif self.deadline is not None and time.perf_counter() > self.deadline:
            self.effort.stopped = self.effort.stopped or STOPPED_CLOCK
        return self.effort.stopped is not None

    def charge_each(self, count: int) -> bool:
        """``count`` calls of ``charge(1)``, up to the first that stops: the same work booked.

        For a step whose outcome is already known (a cache): it costs what computing it would.
        """
        if self.budget is not None:
            count = min(count, max(math.ceil(self.budget - self.effort.work), 1))
        return self.charge(count)


#: ``method(instance, time_limit, seed) -> MethodOutcome``; a method with a work unit
#: (``Problem.budgets``) also takes ``budget``, its deterministic allowance in that unit
#: (``None``: no limit).
Method = Callable[..., MethodOutcome]

#: The stop causes a result reports (:attr:`MethodOutcome.stopped`).
STOPPED_BUDGET = "budget"
STOPPED_CLOCK = "wall clock"

#: The work units of the budgeted methods, by kind (``Problem.budgets`` names one per method).
BUDGET_UNITS = {
    "cpsat": "CP-SAT deterministic time units (one search worker: the same search on every machine)",
    "nodes": "branch-and-bound nodes",
    "cbc-nodes": "CBC branch-and-bound nodes",
    "greedy-calls": "compiled greedy calls (each runs at most 2,000 steps of a greedy pass), "
    "then states of the holder search and of the holder bound, and windows that follow the "
    "holder bound's path (coupled full)",
    "states": "slot-level states of the exact search over iteration completions (coupled full)",
}


@dataclass(frozen=True)
class Problem:
    """An exact problem of a family.

    Attributes
    ----------
    name : str
        As given to ``solve --problem`` and stored in each solution's ``problem``.
    sense : str
        ``"min"`` or ``"max"``.
    methods : mapping
        Method name -> :data:`Method`; the first is the default.
    verify : callable
        ``verify(instance, solution) -> value``: the independent verifier.
        Raises :class:`~volsched.solvers.result.Infeasible` naming the field.
    metrics : tuple of Metric
        What a solution of this problem is measured by; the first is the
        objective (its sense is the problem's). Heuristics of the problem
        report all of them.
    check : callable, optional
        ``check(instance)`` raises ``InputError`` when the problem cannot take
        the instance (e.g. ``m > p``); run before any method.
    describe : callable, optional
        ``describe(instance, solution, value, bound) -> dict``: fields derived
        from a verified solution, its value and the proven bound, recomputed
        here rather than trusted from the method.
    verify_partial : callable, optional
        ``verify_partial(instance, solution) -> dict`` checks the witness an
        ``infeasible`` or ``unknown`` outcome carries (raises ``Infeasible``)
        and returns the fields derived from it.
    choose : callable, optional
        ``choose(instance) -> method name``: the default method for this
        instance when the user names none (e.g. a model only small instances
        take); the first method otherwise.
    budgets : mapping, optional
        Method name -> its work unit (a key of :data:`BUDGET_UNITS`). A method
        not named here always runs to completion (an exact algorithm of
        bounded work: a DP, an enumeration, a chain) and ignores a budget.
    warm : callable, optional
        ``warm(method)`` compiles the numba kernels that ``method`` calls, on
        a tiny instance: :func:`solve` runs it once per process before the
        method's clock starts.
    """

    name: str
    sense: str
    methods: Mapping[str, Method]
    verify: Callable[[Any, dict], float]
    metrics: tuple[Metric, ...]
    check: Callable[[Any], None] | None = None
    describe: Callable[[Any, dict, float, float | None], dict] | None = None
    verify_partial: Callable[[Any, dict], dict] | None = None
    choose: Callable[[Any], str] | None = None
    budgets: Mapping[str, str] = field(default_factory=dict)
    warm: Callable[[str], None] | None = None

    def __post_init__(self):
        if self.sense not in SENSES:
            raise ValueError(f"problem {self.name}: sense must be one of {SENSES}")
        if not self.methods:
            raise ValueError(f"problem {self.name}: needs at least one method")
        if not self.metrics or self.metrics[0].sense != self.sense:
            raise ValueError(f"problem {self.name}: the first metric is the objective, of sense {self.sense}")
        for method, unit in self.budgets.items():
            if method not in self.methods or unit not in BUDGET_UNITS:
                raise ValueError(f"problem {self.name}: budget of {method!r} in unknown unit {unit!r}")

    @property
    def default_method(self) -> str:
        return next(iter(self.methods))

    def method_for(self, instance: Any) -> str:
        """The method ``solve`` runs on ``instance`` when none is named."""
        return self.default_method if self.choose is None else self.choose(instance)

    @property
    def objective_metric(self) -> str:
        return self.metrics[0].name

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)


def backend(module: str, attr: str, requirement: str) -> Any:
    """``module.attr``, imported on first use: a missing back end is bad input with an install hint.

    Keeps ``import volsched`` free of the heavy optional back ends (OR-Tools,
    PuLP), in PyJobShop's pattern for CP Optimizer.
    """
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError as exc:
        raise InputError(
            f"--method: this method needs {requirement}, which cannot be imported ({exc}); "
            f"install it with: pip install {requirement}"
        ) from None


def is_integral(value: Any) -> bool:
    """A verifier's value of an integer problem: a Python or NumPy integer, not a bool.

    The slack and coupled verifiers compute in Python integers and return an
    ``int``; the checkpoint and prescient ones return a ``float``. That type
    is how a problem is known to be integer: claims about it are then
    compared exactly (:func:`agrees`, :func:`bound_defect`).
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _exact_int(x: Any) -> int | None:
    """``x`` as a Python int if it is an integral number (an integer, or a finite float with no
    fractional part), else ``None`` (a bool, a fraction, anything else)."""
    if isinstance(x, bool):
        return None
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real) and math.isfinite(x) and float(x).is_integer():
        return int(x)
    return None


def is_proof(proven: bool, value: Any, bound: Any) -> bool:
    """Whether an outcome proves ``value`` optimal: its ``bound`` meets ``value``, or, without a
    bound, its method's search finished (``proven``). A stopped search proves nothing."""
    return agrees(bound, value) if bound is not None else proven


def agrees(claim: Any, value: Any) -> bool:
    """A ``claim`` (an objective, a bound) equals the verifier's ``value``.

    Integer problems (:func:`is_integral` ``value``): exactly, in Python
    integers; a claim that is not an integral number is wrong. Float
    problems: to :data:`CLAIM_RTOL` relative (:data:`CLAIM_ATOL` absolute
    near zero), the rounding of two summations of the same value.
    """
    if is_integral(value):
        return _exact_int(claim) == int(value)
    try:
        return math.isclose(float(claim), float(value), rel_tol=CLAIM_RTOL, abs_tol=CLAIM_ATOL)
    except (OverflowError, TypeError, ValueError):
        return False


def bound_defect(value: Any, bound: Any, sense: str) -> str | None:
    """Why ``bound``, a proven bound on the optimum, cannot hold beside a feasible ``value`` (a phrase
    following "bound <bound>"); ``None`` if it can.

    A lower bound (``min``) above a feasible value, or an upper bound
    (``max``) below one, is beaten. Integer problems: compared exactly, and
    a bound that is not an integer is a wrong claim; float problems: a bound
    that :func:`agrees` with the value is not beaten.
    """
    integer = is_integral(value)
    if integer:
        value = int(value)  # Python compares an int and a float exactly
    beaten = bound > value if sense == "min" else bound < value
    if beaten and (integer or not agrees(bound, value)):
        side, kind = ("above", "a lower") if sense == "min" else ("below", "an upper")
        return f"is {side} the verified value {value!r} of the solution ({kind} bound of a {sense} problem)"
    if integer and _exact_int(bound) is None:
        return f"is not an integer (an integer problem: the verified value is {value!r})"
    return None


def _positive(value: Any, field_name: str, what: str) -> float | None:
    """``None`` or a positive, finite number; anything else is bad input naming ``what`` it must be."""
    if value is None:
        return None
    require(is_number(value) and value > 0, field_name, f"must be a positive, finite {what}, got {value!r}")
    return float(value)


def check_time_limit(time_limit: Any, field_name: str = "--time-limit") -> float | None:
    """``None`` or a positive, finite number of seconds; anything else is bad input."""
    return _positive(time_limit, field_name, "number of seconds")


def check_budget(budget: Any, field_name: str = "--budget") -> float | None:
    """``None`` or a positive, finite work allowance; anything else is bad input."""
    return _positive(budget, field_name, "amount of work")


_WARMED: set[tuple[str, str, str]] = set()


def warm_up(family: str, problem: Problem, method: str) -> None:
    """Compile ``method``'s kernels once per process, outside every clock (:mod:`.jit`)."""
    key = (family, problem.name, method)
    if problem.warm is None or key in _WARMED:
        return
    with compiling(f"{family} {problem.name} {method}"):
        problem.warm(method)
    _WARMED.add(key)


def finish(
    family: str,
    problem: Problem,
    method: str,
    instance: Any,
    run: Callable[[], MethodOutcome],
    hard: float | None = None,
) -> SolveResult:
    """Run ``run()`` (the method), verify its solution and build the one :class:`SolveResult`.

    Status rules:

    * no solution: ``infeasible`` if the method proved none exists, else ``unknown``;
    * a solution: ``optimal`` iff a proven bound meets the verified value
      (a method that proves its solution optimal gives its value as the
      bound); otherwise ``feasible``. A method whose own objective differs
      from the verified value has its proof discarded: it is ``optimal`` only
      if its bound still meets the verified value.

    With ``hard`` (seconds), a method still running then is interrupted
    (:mod:`.deadline`) and the outcome is ``unknown``, with ``info.stopped``
    and ``stopped`` ``"wall clock"``.

    Raises
    ------
    VerificationError
        The verifier rejects the solution, or the method's bound is beaten by
        its own verified solution: a solver bug (exit 1), never bad input.
    """
    begin = time.perf_counter()
    try:
        with hard_limit(hard):
            outcome = run()
    except HardStop:
        outcome = MethodOutcome(
            None,
            None,
            None,
            False,
            {"stopped": f"hard time limit: still running after {hard:.3g} s"},
            stopped=STOPPED_CLOCK,
        )
    runtime = time.perf_counter() - begin
    if not isinstance(outcome, MethodOutcome):
        raise VerificationError(
            f"{family} {problem.name}: method {method} returned {type(outcome).__name__}, not a MethodOutcome"
        )
    info = dict(outcome.info)
    stopped, work = outcome.stopped, outcome.work
    solution = {**(outcome.solution or {}), "problem": problem.name}
    bound = None if outcome.bound is None else float(outcome.bound)
    if outcome.objective is None:
        if outcome.solution is not None and problem.verify_partial is not None:
            try:
                solution.update(problem.verify_partial(instance, outcome.solution))
            except Infeasible as exc:
                raise VerificationError(
                    f"{family} {problem.name}: {method} returned a witness the verifier rejects: {exc}"
                ) from None
        status = SolveStatus.INFEASIBLE if outcome.proven else SolveStatus.UNKNOWN
        return SolveResult(
            family=family,
            instance=instance.name,
            method=method,
            status=status,
            objective=None,
            bound=bound,
            runtime_s=runtime,
            solution=solution,
            verified=False,
            info=info,
            stopped=None if outcome.proven else stopped,
            work=work,
        )
    try:
        value = problem.verify(instance, outcome.solution)
    except Infeasible as exc:
        raise VerificationError(
            f"{family} {problem.name}: {method} returned a solution the verifier rejects: {exc}"
        ) from None
    proven = outcome.proven
    if not agrees(outcome.objective, value):
        info["claimed_objective"] = outcome.objective
        proven = False
    defect = None if bound is None else bound_defect(value, bound, problem.sense)
    if defect is not None:
        raise VerificationError(
            f"{family} {problem.name}: {method} claims the bound {bound!r}, which {defect}"
        )
    optimal = is_proof(proven, value, bound)
    if optimal:
        bound = float(value)  # equal up to the method's rounding: the proof is of this value
    if problem.describe is not None:
        solution.update(problem.describe(instance, outcome.solution, value, bound))
    return SolveResult(
        family=family,
        instance=instance.name,
        method=method,
        status=SolveStatus.OPTIMAL if optimal else SolveStatus.FEASIBLE,
        objective=float(value),
        bound=bound,
        runtime_s=runtime,
        solution=solution,
        verified=True,
        info=info,
        stopped=None if optimal else stopped,
        work=work,
    )


def solve(
    family: str,
    problems: Mapping[str, Problem],
    instance: Any,
    problem: str | None = None,
    method: str | None = None,
    time_limit: float | None = None,
    seed: int | None = None,
    budget: float | None = None,
) -> SolveResult:
    """Solve ``instance`` for one of ``problems`` by one of its methods (defaults: the first ones).

    ``budget`` is the deterministic work allowance, in the method's unit
    (``Problem.budgets``; a method without a unit runs to completion): the
    same instance, budget and seed give the same result on any machine.
    ``time_limit`` (seconds) is the wall-clock safety net; a result it cut
    says so (``stopped == "wall clock"``). The method's kernels are compiled
    before its clock starts.

    Raises
    ------
    InputError
        An unknown problem or method, a bad time limit, budget or seed, or an
        instance the problem cannot take.
    """
    name = next(iter(problems)) if problem is None else problem
    require(name in problems, "--problem", f"must be one of {list(problems)}, got {name!r}")
    chosen = problems[name]
    method = chosen.method_for(instance) if method is None else method
    require(
        method in chosen.methods, "--method", f"{name} has methods {list(chosen.methods)}, got {method!r}"
    )
    time_limit = check_time_limit(time_limit)
    budget = check_budget(budget) if method in chosen.budgets else None
    seed = 0 if seed is None else seed
    check_int(seed, "--seed", 0, 2**31 - 1)
    if chosen.check is not None:
        chosen.check(instance)
    fn = chosen.methods[method]
    warm_up(family, chosen, method)
    hard = None if time_limit is None else hard_seconds(time_limit)
    if method in chosen.budgets:
        return finish(family, chosen, method, instance, lambda: fn(instance, time_limit, seed, budget), hard)
    return finish(family, chosen, method, instance, lambda: fn(instance, time_limit, seed), hard)
