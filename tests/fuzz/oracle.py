"""An oracle for ``volsched verify``: what an accepted result file must satisfy, checked here afresh.

Written for the fuzz suite, apart from the project's verifiers (so that it shares none of their bugs):

* ``checkpoint``: the vector is ``n`` integers (not booleans) in {0, 1} ending in 1; its expected
  waste is recomputed from the law's CDF alone, interval by interval, as
  ``sigma (F(b) - F(a)) + alpha ((b - a) F(b) - int_a^b F)`` (Expression 3 integrated by parts),
  with ``scipy.integrate.quad`` or, for an empirical law, the exact step-function integral;
* ``coupled`` ``offline-coupled`` and ``offline-coupled-inf``: distinct processor indices in range,
  the common UP slots (or the completion slot) counted here;
* ``coupled`` ``iterations`` and ``full``: the schedule's shape checked here (starts, allocations,
  transfer strings), then its claimed completions compared with
  :func:`volsched.solvers.coupled.replay.replay`, the project's independent replay.

Every claim the file makes must then match: objective, bound side, ``optimal`` only with a bound
equal to the objective, the family and instance it names, ``gap``, and the derived fields. A
problem without a checker here is not judged (the campaign counts it as unchecked).

Comparisons are the oracle's own, not the verifier's: the integer families (:data:`INTEGER`, whose
values are counted here in Python ints) compare every claim exactly (:func:`exact`; a claim that
is not an integer is wrong); checkpoint and prescient, computed in floats, to :data:`RTOL`.
A slack result is checked at the instance's ``beta``, or at the ``--beta`` the command gave; it
must state no other, and the report must say which one it used.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from volsched.families import FAMILIES


class Invalid(Exception):
    """The oracle rejects the solution."""


def _int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def exact(claim: Any, value: int) -> bool:
    """An integer problem's claim: a finite JSON number equal to ``value`` as a number, compared exactly
    (Python compares an int and a float by their values: ``1500000000.0 != 1500000001``)."""
    return _num(claim) and claim == value


def same(a: Any, b: Any) -> bool:
    """Equal claims (``a`` the file's, ``b`` the oracle's); a JSON boolean is never a number. Against
    an oracle's integer, exactly (:func:`exact`); floats agree to 1e-9 relative."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return type(a) is type(b) and a == b
    if _int(b):
        return exact(a, b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
        except OverflowError:
            return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


# --- checkpoint -------------------------------------------------------------------------------------


def _cdf_integral(law, a: float, b: float) -> float:
    samples = getattr(law, "samples", None)
    if samples is not None:  # an empirical law: F is a step function of its sample
        s = np.asarray(samples, dtype=float)
        return float(np.maximum(0.0, b - np.maximum(a, s)).sum() / len(s))
    from scipy.integrate import quad

    value, _ = quad(lambda t: float(law.cdf(t)), a, b, limit=400, epsabs=1e-13, epsrel=1e-11)
    return value


def checkpoint_waste(inst, a: list[int]) -> float:
    """Expected waste of vector ``a`` (Expression 1), from the law's CDF only."""
    law, alpha = inst.law, float(inst.alpha)
    cdf = lambda t: float(law.cdf(t))  # noqa: E731
    tau, sigma, start, total = 0, 0, 0.0, 0.0
    for j, bit in enumerate(a):
        tau += int(inst.p[j])
        if bit:
            sigma += int(inst.c[j])
            end = float(tau + sigma)
            total += sigma * (cdf(end) - cdf(start)) + alpha * (
                (end - start) * cdf(end) - _cdf_integral(law, start, end)
            )
            start = end
    return total


def check_checkpoint(inst, sol: dict) -> tuple[float, dict]:
    a = sol.get("a")
    if not isinstance(a, list) or len(a) != inst.n:
        raise Invalid(f"a: not a list of {inst.n} entries")
    if not all(_int(v) and v in (0, 1) for v in a):
        raise Invalid("a: entries must be the integers 0 or 1")
    if a[-1] != 1:
        raise Invalid("a: the last slice is not checkpointed")
    return checkpoint_waste(inst, a), {"checkpoints": sum(a)}


# --- coupled ----------------------------------------------------------------------------------------------


def _processors(inst, sol: dict) -> list[int]:
    procs = sol.get("processors")
    if not isinstance(procs, list) or not all(_int(q) and 0 <= q < inst.p for q in procs):
        raise Invalid("processors: not a list of processor indices")
    if len(set(procs)) != len(procs):
        raise Invalid("processors: repeated")
    return procs


def _all_up(inst, procs: list[int], t: int) -> bool:
    return all(inst.availability[q, t] == 0 for q in procs)


def check_offline(inst, sol: dict, bound: Any) -> tuple[float, dict]:
    procs = _processors(inst, sol)
    if len(procs) != inst.m:
        raise Invalid(f"processors: {len(procs)} of m = {inst.m}")
    value = sum(_all_up(inst, procs, t) for t in range(inst.horizon))
    derived = {}
    w = [int(x) for x in inst.w]
    if min(w) == max(w):
        numeric = isinstance(bound, (int, float)) and not isinstance(bound, bool)
        fits = True if value >= w[0] else (False if numeric and bound < w[0] else None)
        derived["decision"] = {"w": w[0], "iteration_fits": fits}
    return value, derived


def check_offline_inf(inst, sol: dict) -> tuple[float, dict]:
    procs = _processors(inst, sol)
    k = len(procs)
    if not 1 <= k <= inst.m:
        raise Invalid(f"processors: {k} processors for m = {inst.m}")
    w = [int(x) for x in inst.w]
    if min(w) != max(w):
        raise Invalid("w: not identical")
    per = -(-inst.m // k)
    shared = 0
    for t in range(inst.horizon):
        shared += _all_up(inst, procs, t)
        if shared == per * w[0]:
            return t + 1, {
                "k": k,
                "tasks_per_processor": per,
                "workload": per * w[0],
                "completion_slots": t + 1,
            }
    raise Invalid("processors: never complete")


def _shape(inst, schedule: Any, communication: bool) -> None:
    """The schedule's shape, checked here before the replay is asked."""
    if not isinstance(schedule, dict):
        raise Invalid("schedule: not an object")
    confs = schedule.get("configurations")
    if not isinstance(confs, list):
        raise Invalid("configurations: not a list")
    # An instance that continues its realization (chains and a continuation seed) is read beyond its
    # stored slots, as far as the schedule goes (an on-line run's schedule does).
    horizon = inst.max_realization()
    previous = -1
    for conf in confs:
        if not isinstance(conf, dict) or set(conf) != {"start", "allocation"}:
            raise Invalid("configurations: an entry is not {start, allocation}")
        start, alloc = conf["start"], conf["allocation"]
        if not (_int(start) and previous < start < horizon):
            raise Invalid("configurations: bad start")
        previous = start
        if not (isinstance(alloc, list) and len(alloc) == inst.p and all(_int(x) and x >= 0 for x in alloc)):
            raise Invalid("configurations: bad allocation")
        if any(x > inst.mu[q] for q, x in enumerate(alloc)) or sum(alloc) not in (0, inst.m):
            raise Invalid("configurations: allocation over mu or not summing to 0 or m")
    comm = schedule.get("communication")
    if comm is not None and comm != []:
        ok = (
            isinstance(comm, list)
            and len(comm) == inst.p
            and all(isinstance(s, str) and len(s) <= horizon and set(s) <= set(".PD") for s in comm)
        )
        if not ok:
            raise Invalid("communication: not one string over '.PD' per processor")
        if not communication and any(set(s) - {"."} for s in comm):
            raise Invalid("communication: a transfer in the communication-free problem")
    claimed = schedule.get("completions")
    if not (isinstance(claimed, list) and all(_int(c) for c in claimed)):
        raise Invalid("completions: not a list of integers")


def _replayed(inst, schedule: dict, communication: bool) -> list[int]:
    from volsched.solvers import Infeasible
    from volsched.solvers.coupled.replay import replay

    _shape(inst, schedule, communication)
    try:
        done = replay(inst, schedule, communication=communication)
    except Infeasible as exc:
        raise Invalid(f"replay: {exc}") from None
    if schedule["completions"] != done:
        raise Invalid(f"completions: claimed {schedule['completions']}, replay {done}")
    return done


def check_schedule(inst, sol: dict, communication: bool) -> tuple[float, dict]:
    done = _replayed(inst, sol.get("schedule"), communication)
    if len(done) < inst.K:
        raise Invalid(f"completions: {len(done)} of K = {inst.K}")
    return done[-1] + 1, {"makespan": done[-1] + 1, "completed_iterations": len(done)}


def partial_schedule(inst, sol: dict, communication: bool) -> dict:
    """The derived fields of an ``infeasible``/``unknown`` witness (raises :class:`Invalid`)."""
    if "schedule" not in sol:
        return {"makespan": None}
    done = _replayed(inst, sol["schedule"], communication)
    if len(done) >= inst.K:
        raise Invalid("a witness that completes every iteration is a solution")
    return {"makespan": None, "completed_iterations": len(done)}


def check_slack(inst, sol: dict, problem: str, beta: Fraction) -> tuple[float, dict]:
    """Slack and plain schedules (slack.md 2): each job whole in one availability period of its
    machine (the time after the last unavailability counts as one, never closed), no overlap; for
    ``slack`` also compact periods, non-increasing ``p`` inside an interval, ``d >= beta max p`` and
    ``e <= C_max`` for every used interval, nothing after a non-free machine's last unavailability;
    all at ``beta``, the one the verify was asked for (:func:`checked_beta`)."""

    sched = sol.get("schedule")
    if not isinstance(sched, list) or len(sched) != inst.n:
        raise Invalid("schedule: not one [machine, start] per job")
    p = [int(x) for x in inst.p]
    used: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for j, entry in enumerate(sched):
        if not (isinstance(entry, list) and len(entry) == 2 and all(_int(x) for x in entry)):
            raise Invalid(f"schedule[{j}]: not two integers")
        i, t = entry
        if not (0 <= i < inst.m and t >= 0):
            raise Invalid(f"schedule[{j}]: machine or start out of range")
        rows = [(int(s), int(e)) for s, e in inst.machines[i].tolist()]
        begin, where = 0, None
        for k, (s, e) in enumerate([*rows, (None, None)]):
            if s is None or t < s:
                if t < begin or (s is not None and t + p[j] > s):
                    raise Invalid(f"schedule[{j}]: not inside one availability period")
                where = k
                break
            begin = e
        used.setdefault((i, where), []).append((t, j))
    cmax = max(t + p[j] for j, (_, t) in enumerate(sched))
    for (i, k), jobs in used.items():
        jobs.sort()
        rows = inst.machines[i].tolist()
        begin = 0 if k == 0 else rows[k - 1][1]
        for (t0, j0), (t1, _) in itertools.pairwise(jobs):
            if t0 + p[j0] > t1 or (problem == "slack" and t0 + p[j0] != t1):
                raise Invalid(f"machine {i}: overlap or idle time in period {k}")
        if problem != "slack":
            continue
        if jobs[0][0] != begin:
            raise Invalid(f"machine {i} period {k}: does not start at {begin}")
        if k == len(rows):
            if rows:
                raise Invalid(f"machine {i}: a job after the last unavailability")
            continue
        sizes = [p[j] for _, j in jobs]
        if sizes != sorted(sizes, reverse=True):
            raise Invalid(f"machine {i} interval {k}: not in non-increasing p")
        s, e = rows[k]
        if s - begin - sum(sizes) < beta * max(sizes) or e > cmax:
            raise Invalid(f"machine {i} interval {k}: slack or last-period rule")
    return cmax, {}


def _prescient_intervals(inst, h: int) -> list[list[tuple[float, float, float]]]:
    """Host ``h``'s effective availability intervals as pieces (t0, t1, reference seconds per second).

    Written again from the instance's raw fields (Section 2.1, 3.1): the rate is ``clock / 1500 *
    share``; without suspension a zero share ends an interval like a host-down.
    """
    lo, hi = int(inst.up_ptr[h]), int(inst.up_ptr[h + 1])
    clo, chi = int(inst.cpu_ptr[h]), int(inst.cpu_ptr[h + 1])
    changes = [
        (float(k) * inst.period, float(v))
        for k, v in zip(inst.cpu_index[clo:chi].tolist(), inst.cpu_share[clo:chi].tolist(), strict=True)
    ]
    speed = float(inst.clock_mhz[h]) / 1500.0
    out = []
    for s, e in zip(inst.up_start[lo:hi].tolist(), inst.up_end[lo:hi].tolist(), strict=True):
        cuts = sorted({s, e} | {t for t, _ in changes if s < t < e})
        current: list[tuple[float, float, float]] = []
        for a, b in itertools.pairwise(cuts):
            share = [v for t, v in changes if t <= a][-1]
            if not inst.suspension and share == 0:
                if current:
                    out.append(current)
                current = []
                continue
            current.append((a, b, speed * share))
        if current:
            out.append(current)
    return out


def check_prescient(inst, sol: dict) -> tuple[float, dict]:
    """The makespan of a prescient schedule (attempts), checked without the family's verifier."""
    attempts = sol.get("attempts")
    if not isinstance(attempts, list):
        raise Invalid("attempts: not a list")
    tol = 1e-5
    pieces = {}
    first_done: dict[int, float] = {}
    by_host: dict[int, list] = {}
    for i, a in enumerate(attempts):
        if not isinstance(a, dict) or a.get("outcome") not in ("completed", "failed", "cancelled"):
            raise Invalid(f"attempt {i}: not an attempt")
        task, host, start, end = a.get("task"), a.get("host"), a.get("start"), a.get("end")
        if not (
            isinstance(task, int)
            and 0 <= task < inst.n_tasks
            and isinstance(host, int)
            and 0 <= host < inst.n_hosts
            and _num(start)
            and _num(end)
            and end >= start
            and start >= inst.start - tol
        ):
            raise Invalid(f"attempt {i}: bad task, host or times")
        if host not in pieces:
            pieces[host] = _prescient_intervals(inst, host)
        iv = next((p for p in pieces[host] if p[0][0] <= start < p[-1][1]), None)
        if iv is None:
            raise Invalid(f"attempt {i}: host {host} is down at {start}")
        left = float(inst.task_minutes[task]) * 60.0
        done = math.inf
        for t0, t1, rate in iv:
            t0 = max(t0, start)
            if t1 <= t0:
                continue
            if rate > 0 and rate * (t1 - t0) >= left:
                done = t0 + left / rate
                break
            left -= rate * (t1 - t0)
        down = iv[-1][1]
        outcome = a["outcome"]
        if outcome == "completed" and not (done < math.inf and abs(done - end) <= tol):
            raise Invalid(f"attempt {i}: completes at {done}, not {end}")
        if outcome == "failed" and not (done == math.inf and abs(down - end) <= tol):
            raise Invalid(f"attempt {i}: does not fail at {end}")
        if outcome == "cancelled" and end > min(done, down) + tol:
            raise Invalid(f"attempt {i}: cancelled after its end")
        if outcome == "completed":
            first_done[task] = min(first_done.get(task, math.inf), end)
        by_host.setdefault(host, []).append((start, end))
    for host, spans in by_host.items():
        spans.sort()
        for (_, e0), (s1, _) in itertools.pairwise(spans):
            if s1 < e0 - tol:
                raise Invalid(f"host {host}: attempts overlap")
    if len(first_done) != inst.n_tasks:
        raise Invalid("a task never completes")
    for i, a in enumerate(attempts):
        if a["start"] > first_done[a["task"]] + tol:
            raise Invalid(f"attempt {i}: starts after its task completed")
    value = max(first_done.values()) - inst.start
    return value, {"makespan": value}


def checked_beta(inst, sol: dict, beta: float | None) -> Fraction:
    """The ``beta`` a slack solution is checked at: ``beta`` (``verify --beta``) or the instance's, as
    the decimal it is written as; a solution stating another is wrong (:class:`Invalid`)."""
    at = Fraction(repr(float(inst.beta if beta is None else beta)))
    if "beta" in sol:
        stated = sol["beta"]
        if not (_num(stated) and Fraction(repr(float(stated))) == at):
            raise Invalid(f"beta: the solution states {stated!r}, the check is at {float(at)!r}")
    return at


def full_solution(
    family: str, problem: str, inst, sol: dict, bound: Any, beta: float | None = None
) -> tuple[float, dict] | None:
    """``(value, derived fields)`` of a solution; ``None`` when no checker exists for the problem.

    ``beta``: the slack family's ``verify --beta`` (``None``: the instance's)."""
    if family == "checkpoint" and problem == "checkpoint":
        return check_checkpoint(inst, sol)
    if family == "coupled":
        if problem == "offline-coupled":
            return check_offline(inst, sol, bound)
        if problem == "offline-coupled-inf":
            return check_offline_inf(inst, sol)
        if problem in ("iterations", "full"):
            return check_schedule(inst, sol, problem == "full")
    if family == "slack" and problem in ("slack", "plain"):
        return check_slack(inst, sol, problem, checked_beta(inst, sol, beta))
    if family == "prescient" and problem == "makespan":
        return check_prescient(inst, sol)
    return None


def relative_gap(objective, bound):
    if objective is None or bound is None:
        return None
    scale = max(abs(objective), abs(bound))
    return 0.0 if scale == 0 else abs(objective - bound) / scale


#: The oracle's own tolerance of each float family: its checkpoint waste comes from
#: ``scipy.integrate.quad`` (to 1e-11 relative), not the verifier's quadrature.
RTOL = {"checkpoint": 1e-6, "prescient": 1e-9}
#: The families whose values the oracle counts in Python integers: their claims are compared exactly.
INTEGER = frozenset({"coupled", "slack"})


def judge(instance_obj: Any, result: Any, report: dict, beta: float | None = None) -> list[str]:
    """Defects of an accepted ``verify``: every claim of ``result`` that the oracle refutes.

    ``beta`` is the ``--beta`` of the ``verify`` command (slack; ``None``: not given)."""
    family = FAMILIES[instance_obj["family"]]
    inst = family.load(instance_obj)
    is_result = "solution" in result
    sol = result["solution"] if is_result else result
    problem = sol.get("problem") or next(iter(family.problems))
    if report.get("problem") != problem:
        return [f"false accept: report names problem {report.get('problem')!r}, the file {problem!r}"]
    status = result.get("status") if is_result else None
    claimed = result.get("objective")
    bound = result.get("bound") if is_result else None
    out: list[str] = []
    if family.name == "slack":
        at = float(inst.beta if beta is None else beta)
        if not (_num(report.get("beta")) and Fraction(repr(float(report["beta"]))) == Fraction(repr(at))):
            out.append(f"false accept: the report says beta {report.get('beta')!r}, the check is at {at!r}")
    if is_result:
        for key, expected in (("family", family.name), ("instance", inst.name)):
            if key in result and result[key] != expected:
                out.append(f"false accept: {key} {result[key]!r} is not {expected!r}")
    if status in ("infeasible", "unknown"):
        if claimed is not None or report.get("objective") is not None:
            out.append(f"false accept: an {status} result with objective {claimed!r}")
        try:
            whole = full_solution(family.name, problem, inst, sol, bound, beta)
        except Invalid:
            whole = None
        if whole is not None:
            out.append(f"false accept: {status}, yet the solution is valid with value {whole[0]!r}")
        out += _gap(result, None, bound)
        if family.name == "coupled" and problem in ("iterations", "full") and set(sol) - {"problem"}:
            try:
                derived = partial_schedule(inst, sol, problem == "full")
            except Invalid as exc:
                return [*out, f"false accept: {status} witness: {exc}"]
            out += _derived(sol, derived)
            if is_result:
                out += _run_claims(result, None, derived)
        return out
    try:
        checked = full_solution(family.name, problem, inst, sol, bound, beta)
    except Invalid as exc:
        return [*out, f"false accept: {exc}"]
    if checked is None:
        return out
    value, derived = checked
    integer = family.name in INTEGER
    if integer and not _int(value):
        return [*out, f"oracle error: the {family.name} value {value!r} is not a Python int"]
    rtol = RTOL.get(family.name, 1e-9)

    def equal(a, b) -> bool:
        return exact(a, b) if integer else _close(a, b, rtol)

    if not equal(report.get("objective"), value):
        out.append(f"false accept: report objective {report.get('objective')!r}, oracle {value!r}")
    if claimed is not None and not equal(claimed, value):
        out.append(f"false accept: claimed objective {claimed!r}, oracle {value!r}")
    if _num(bound):
        sense = family.problems[problem].sense
        beaten = bound > value if sense == "min" else bound < value
        if integer and bound != int(bound):
            out.append(f"false accept: bound {bound!r} is not an integer ({family.name} values are)")
        elif beaten and not equal(bound, value):
            out.append(f"false accept: bound {bound!r} beaten by the solution's {value!r} ({sense})")
    if status == "optimal" and not (_num(bound) and equal(bound, value)):
        out.append(f"false accept: optimal with bound {bound!r} and value {value!r}")
    if is_result:
        out += _gap(result, value, bound)
        out += _run_claims(result, value, derived, equal)
    out += _derived(sol, derived)
    return out


def _run_claims(result: dict, value, derived: dict, equal=None) -> list[str]:
    """A ``simulate --out`` run: its metrics (top level and ``metrics``) and the solution's parts
    repeated at the top level must say what the solution does."""
    if "heuristic" not in result:
        return []
    out = []
    for key, part in result["solution"].items():
        if key != "problem" and key in result and result[key] != part:
            out.append(f"false accept: top-level {key} differs from the solution's")
    metrics = result.get("metrics", {})
    claims = [
        *(("metrics." + k, k, v) for k, v in metrics.items()),
        *((k, k, result[k]) for k in ("makespan", "failed", "iterations") if k in result),
    ]
    iterations = derived.get("completed_iterations")
    for field, name, claim in claims:
        if name == "makespan" and not (claim is None if value is None else equal(claim, value)):
            out.append(f"false accept: {field} {claim!r}, the run's makespan is {value!r}")
        if name == "failed" and claim is not (value is None):
            out.append(f"false accept: {field} {claim!r} for a run with makespan {value!r}")
        if (
            name == "iterations"
            and iterations is not None
            and not (isinstance(claim, int) and not isinstance(claim, bool) and claim == iterations)
        ):
            out.append(f"false accept: {field} {claim!r}, the replay completes {iterations}")
    return out


def _gap(result: dict, value, bound) -> list[str]:
    """``gap`` is ``relative_gap(objective, bound)`` of the verified objective, ``null`` without one."""
    if "gap" not in result:
        return []
    expected = relative_gap(value, bound) if _num(value) and _num(bound) else None
    gap = result["gap"]
    if (gap is None and expected is None) or _close(gap, expected, 1e-6):
        return []
    return [f"false accept: gap {gap!r}, objective {value!r} and bound {bound!r} give {expected!r}"]


def _derived(sol: dict, derived: dict) -> list[str]:
    return [
        f"false accept: {key} claims {sol[key]!r}, the oracle derives {value!r}"
        for key, value in derived.items()
        if key in sol and not same(sol[key], value)
    ]


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _close(a, b, rtol) -> bool:
    return _num(a) and _num(b) and math.isclose(float(a), float(b), rel_tol=rtol, abs_tol=1e-9)


def beta_of_argv(argv) -> float | None:
    """The ``--beta`` a ``volsched verify`` command line gives (argparse keeps the last), if a number."""
    value = None
    args = [str(a) for a in argv]
    for i, a in enumerate(args):
        if a == "--beta" and i + 1 < len(args):
            value = args[i + 1]
        elif a.startswith("--beta="):
            value = a.split("=", 1)[1]
    try:
        return None if value is None else float(value)
    except ValueError:
        return None


def check_accepted(
    instance_path: Path | str, result_path: Path | str, report: dict, beta: float | None = None
) -> list[str]:
    """:func:`judge` on the files an accepted ``volsched verify --json`` read (``beta``: its ``--beta``)."""
    try:
        instance_obj = json.loads(Path(instance_path).read_text())
        result = json.loads(Path(result_path).read_text())
    except (OSError, ValueError, RecursionError) as exc:
        return [f"false accept: the oracle cannot read the files ({exc})"]
    if not isinstance(result, dict) or not isinstance(result.get("solution", result), dict):
        return ["false accept: the result is not an object with a solution object"]
    try:
        return judge(instance_obj, result, report, beta)
    except Exception as exc:
        return [f"oracle error on an accepted file: {type(exc).__name__}: {exc}"]
