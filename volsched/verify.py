"""``volsched verify``: check a solution, or a whole solve result, against an instance.

Every claim a result file makes is recomputed or rejected by name:
the family and instance it names, its status, objective, bound, ``gap`` and
``verified`` flag, and each field the problem derives from a solution (its
``describe``: a checkpoint count, a decision, a makespan...). A result of
every status that ``solve`` writes is accepted when it holds: an
``infeasible`` or ``unknown`` result carries no solution to replay, only a
witness, which is checked where the problem has a partial verifier; the
report says what could and could not be checked.

Claims are compared as :func:`volsched.solvers.problem.finish` compares a
method's (:func:`~volsched.solvers.problem.agrees`,
:func:`~volsched.solvers.problem.bound_defect`): exactly, in Python integers,
where the verifier's value is an integer (slack, coupled: a claim that is not
an integer is wrong), to ``CLAIM_RTOL`` relative where it is a float
(checkpoint, prescient).

A family's run options of ``verify`` that set an instance parameter (slack:
``--beta``, :meth:`SlackInstance.with_beta`) choose what the file is checked
at: the instance's value unless the option gives another. The option's name
is the instance's attribute; a solution stating another value is rejected
naming it, and the report gives the value checked.
"""

from __future__ import annotations

from typing import Any

from volsched.instances.errors import InputError, is_number, require
from volsched.solvers import Infeasible, SolveStatus
from volsched.solvers.problem import agrees, bound_defect, is_integral
from volsched.solvers.result import relative_gap, verified_value

from .families import Family, solution_error

STATUSES = tuple(s.value for s in SolveStatus)


def _same(claim: Any, truth: Any) -> bool:
    """A file's ``claim`` equals ``truth`` (recomputed, or the solution's own part): numbers as
    ``solve`` compares a method's claim (:func:`agrees`: exactly against an integer, relatively
    against a float, so that a waste of 1e-13 is not "equal" to 2e-13), a JSON boolean only to a
    boolean (``true`` is not 1).
    """
    if isinstance(claim, bool) or isinstance(truth, bool):
        return type(claim) is type(truth) and claim == truth
    if is_number(claim) and is_number(truth):
        return agrees(claim, truth)
    if isinstance(claim, dict) and isinstance(truth, dict):
        return claim.keys() == truth.keys() and all(_same(claim[k], truth[k]) for k in claim)
    if isinstance(claim, (list, tuple)) and isinstance(truth, (list, tuple)):
        return len(claim) == len(truth) and all(_same(x, y) for x, y in zip(claim, truth, strict=True))
    return claim == truth


def _check_gap(obj: dict, value: float | None, bound: float | None, checked: list) -> None:
    """A result's ``gap``: :func:`relative_gap` of the verified objective and the bound (null without one)."""
    if "gap" not in obj:
        return
    gap, expected = obj["gap"], relative_gap(value, bound)
    ok = gap is None if expected is None else is_number(gap) and _same(gap, expected)
    require(ok, "gap", f"claims {gap!r}, the objective {value!r} and bound {bound!r} give {expected!r}")
    checked.append("gap")


def _number_or_none(obj: dict, key: str) -> float | None:
    value = obj.get(key)
    require(value is None or is_number(value), key, f"must be a finite number or null, got {value!r}")
    return value


def _checked_at(family: Family, instance: Any, solution: dict, where: str, checked: list) -> dict:
    """``{name: value}`` of the instance parameters ``verify``'s run options set (slack: ``beta``), as
    ``instance`` holds them; a solution stating another value is bad input naming it."""
    at = {}
    for run in family.run_options:
        if "verify" not in run.commands or run.instance is None:
            continue
        name = run.option.name
        at[name] = value = getattr(instance, name)
        if name in solution:
            stated = run.option.check(solution[name], where + name)
            require(
                stated == value,
                where + name,
                f"the result states {solution[name]!r}, it is checked at {value!r} (the instance's, "
                f"unless verify --{name.replace('_', '-')} gives another)",
            )
            checked.append(name)
    return at


def verify_result(family: Family, instance: Any, obj: Any) -> dict:
    """Check ``obj`` (a solve result, or a bare solution object) against ``instance``.

    Returns ``{"problem", "status", "objective", <run option>: value, ..., "checked": [...],
    "unchecked": [...]}``; ``objective`` is the verifier's value (an ``int`` for an integer
    problem), each run option's value the one checked at (slack: ``beta``).

    Raises
    ------
    InputError
        A claim that does not hold, naming its field.
    """
    require(isinstance(obj, dict), "result", "must be a JSON object")
    is_result = "solution" in obj
    solution = obj["solution"] if is_result else obj
    require(isinstance(solution, dict), "solution", "must be a JSON object")
    problem = family.problem(solution.get("problem"), "solution.problem")
    checked, unchecked = [], []
    if is_result:
        for key, expected in (("family", family.name), ("instance", instance.name)):
            if key in obj:
                require(obj[key] == expected, key, f"names {obj[key]!r}, the instance is {expected!r}")
                checked.append(key)
        if "verified" in obj:
            require(
                isinstance(obj["verified"], bool),
                "verified",
                f"must be true or false, got {obj['verified']!r}",
            )
        status = obj.get("status")
        require(
            status is None or status in STATUSES, "status", f"must be one of {list(STATUSES)}, got {status!r}"
        )
    else:
        status = None
    claimed = _number_or_none(obj, "objective") if is_result or "objective" in obj else None
    bound = _number_or_none(obj, "bound") if is_result else None
    at = _checked_at(family, instance, solution, "solution." if is_result else "", checked)

    if status in ("infeasible", "unknown"):
        require(claimed is None, "objective", f"an {status} result has no objective, got {claimed!r}")
        try:
            value = problem.verify(instance, solution)
        except Infeasible:
            pass
        else:
            raise InputError(
                f"status: claims {status}, but the solution is feasible "
                f"({problem.objective_metric} {value!r})"
            )
        if problem.verify_partial is not None and solution.keys() - {"problem"}:
            try:
                derived = problem.verify_partial(instance, solution)
            except Infeasible as exc:
                raise solution_error(exc) from None
            _compare_derived(solution, derived)
            checked.append("witness")
            if is_result:
                _check_run(obj, problem, None, derived, checked, unchecked)
        if is_result:
            _check_gap(obj, None, bound, checked)
        unchecked.append("that no solution exists" if status == "infeasible" else "why none was found")
        return {
            "problem": problem.name,
            "status": status,
            "objective": None,
            **at,
            "checked": checked,
            "unchecked": unchecked,
        }

    try:
        raw = problem.verify(instance, solution)
        value = verified_value(raw)  # beyond any float (a start of 10^400): the file's fault
    except Infeasible as exc:
        raise solution_error(exc) from None
    if is_integral(raw):
        value = int(raw)  # an integer problem's claims are compared with it exactly
    checked.append("solution")
    if claimed is not None:
        require(_same(claimed, value), "objective", f"claimed {claimed!r} but the solution's is {value!r}")
        checked.append("objective")
    if status == "infeasible":
        raise InputError("status: claims infeasible, but the solution is feasible")
    if bound is not None:
        defect = bound_defect(value, bound, problem.sense)
        require(defect is None, "bound", f"{bound!r} {defect}")
        checked.append("bound side")
    if status == "optimal":
        require(
            bound is not None and _same(bound, value),
            "status",
            f"optimal needs a bound equal to the objective {value!r}, got {bound!r}",
        )
        unchecked.append("the proof of the bound (re-solve to confirm it)")
    if is_result:
        _check_gap(obj, value, bound, checked)
    derived = {}
    if problem.describe is not None:
        derived = problem.describe(instance, solution, value, bound)
        _compare_derived(solution, derived)
        checked.append("derived fields")
    if is_result:
        _check_run(obj, problem, value, derived, checked, unchecked)
    return {
        "problem": problem.name,
        "status": status,
        "objective": value,
        **at,
        "checked": checked,
        "unchecked": unchecked,
    }


def _check_run(
    obj: dict, problem, value: float | None, derived: dict, checked: list, unchecked: list
) -> None:
    """The claims a ``simulate`` output adds: its metrics (in ``metrics`` and at the top level) and
    the solution's parts repeated at the top level.

    The objective metric must be the verified value, ``failed`` must say whether
    there is none, a field the problem derives must match it; a metric nobody
    can recompute from the solution (a count of decisions) is reported unchecked.
    """
    solution = obj["solution"]
    for key, part in solution.items():
        if key != "problem" and key in obj:
            require(_same(obj[key], part), key, "differs from solution." + key)
    metrics = obj.get("metrics", {})
    require(isinstance(metrics, dict), "metrics", f"must be an object, got {metrics!r}")
    declared = {m.name for m in problem.metrics}
    claims = [(f"metrics.{k}", k, v) for k, v in metrics.items()]
    claims += [(k, k, obj[k]) for k in declared if k in obj]
    for field, name, claim in claims:
        require(name in declared, field, f"is not a metric of problem {problem.name}")
        if name == problem.objective_metric:
            ok = claim is None if value is None else is_number(claim) and _same(claim, value)
            require(ok, field, f"claims {claim!r}, the solution's is {value!r}")
        elif name == "failed":
            require(
                isinstance(claim, bool) and claim == (value is None),
                field,
                f"claims {claim!r}, the run {'failed' if value is None else 'completed'}",
            )
        elif name in derived:
            require(
                _same(claim, derived[name]), field, f"claims {claim!r}, the solution gives {derived[name]!r}"
            )
        else:
            unchecked.append(field)
            continue
        checked.append(field)


def _compare_derived(solution: dict, derived: dict) -> None:
    """Each field the problem derives must match the file's claim where the file makes one."""
    for key, expected in derived.items():
        if key in solution:
            require(
                _same(solution[key], expected),
                f"solution.{key}",
                f"claims {solution[key]!r}, the solution gives {expected!r}",
            )
