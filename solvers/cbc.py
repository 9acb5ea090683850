"""How every MILP of volsched is run: PuLP's bundled CBC, and whether its search finished.

PuLP's status is not a verdict on the search. It maps CBC's solution file, whose header
``Integer infeasible`` CBC also writes when its time limit stops the pre-processing (the
cut generators then "find" the model infeasible), and whose header ``Stopped on time -
objective value`` PuLP reads as ``Optimal``. So :func:`run_cbc` reads CBC's own log:

* ``Result - Optimal solution found`` and ``Result - Problem proven infeasible`` (or
  ``Linear relaxation infeasible``) end a finished branch and bound: a proof;
* ``Result - Stopped on node limit`` is a stop on the work budget, ``Result - Stopped on
  time limit`` (or any other ``Stopped``) a stop on the wall clock: no proof;
* without a ``Result`` line, CBC gave up before its branch and bound (``Pre-processing says
  infeasible or unbounded``, ``Problem is infeasible``). That is a proof of infeasibility only
  if CBC's time limit cannot have cut it, that is its whole run took less wall-clock time than
  the limit, and if every variable is bounded (then "or unbounded" is excluded). Otherwise
  the run counts as stopped by the wall clock.

A verdict is also cross-checked against PuLP's reading of the solution file; when they
disagree the run counts as stopped. CBC runs its serial search (no ``threads`` option) in
elapsed-time mode, so a node limit (``max_nodes``) stops the same search on every machine.
``threads=1`` would not be the same: the bundled CBC 2.10.3 then starts its threaded search
with one worker, whose start-up is sometimes missed, and the run waits a fixed 10 s before
it goes on ("Thread 0 used 0 times, waiting to start 10.0" in its log; 4 of 80 runs of a
10-item knapsack measured, 0 of 200 without the option).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from dataclasses import dataclass

import pulp

from .deadline import HardStop, kill_children
from .problem import STOPPED_BUDGET, STOPPED_CLOCK, Effort

#: Verdicts of a finished search.
OPTIMAL, INFEASIBLE = "optimal", "infeasible"
#: The verdict of a search that ended before it finished.
STOPPED = "stopped"

#: The shortest time limit CBC is run with (seconds); less left after building the model: no run.
MIN_SECONDS = 1e-3
#: CBC prints its wall clock with two decimals: a reading this close to the limit may have hit it.
CLOCK_RESOLUTION_S = 0.01

_RESULT = re.compile(r"^Result - (.*?)\s*$", re.MULTILINE)
_NODES = re.compile(r"^Enumerated nodes:\s*(\d+)", re.MULTILINE)
_WALL = re.compile(r"\(Wallclock seconds\):\s*([0-9.eE+-]+)")
_EARLY_INFEASIBLE = ("Pre-processing says infeasible", "Problem is infeasible")


@dataclass(frozen=True)
class CbcRun:
    """What one CBC run established.

    Attributes
    ----------
    verdict : str
        :data:`OPTIMAL` (the variables hold a proven optimum), :data:`INFEASIBLE` (proven: no
        solution) or :data:`STOPPED` (nothing proven).
    solution : bool
        The variables hold an integer-feasible solution (optimal or not).
    stopped : str or None
        Why an unfinished search ended: ``"budget"`` (the node limit) or ``"wall clock"``.
    result : str
        CBC's own account (its ``Result`` line, or its pre-processing message), for ``info``.
    nodes : int
        Branch-and-bound nodes CBC enumerated (0 when it stopped before its branch and bound).
    """

    verdict: str
    solution: bool
    stopped: str | None
    result: str
    nodes: int

    @property
    def finished(self) -> bool:
        return self.verdict != STOPPED


def run_cbc(
    prob: pulp.LpProblem,
    time_limit: float | None = None,
    max_nodes: int | None = None,
    effort: Effort | None = None,
    started: float | None = None,
) -> CbcRun:
    """Solve ``prob`` with CBC under a wall-clock ``time_limit`` and a node budget ``max_nodes``.

    With ``started`` (a ``time.perf_counter()`` reading), the time spent since then building
    the model counts against ``time_limit``: CBC gets what is left, and does not run when
    nothing is. ``effort`` receives the nodes enumerated and the stop cause. A
    :class:`HardStop` raised while CBC runs kills the CBC process (it reads and presolves a
    large model without looking at its limit) and propagates.
    """
    if time_limit is not None and started is not None:
        time_limit -= time.perf_counter() - started
        if time_limit < MIN_SECONDS:
            run = CbcRun(STOPPED, False, STOPPED_CLOCK, "the time limit passed while building the model", 0)
            if effort is not None:
                effort.add(0, run.stopped)
            return run
    handle, log_path = tempfile.mkstemp(prefix="volsched-cbc-", suffix=".log")
    os.close(handle)
    solver = pulp.PULP_CBC_CMD(
        msg=False, timeLimit=time_limit, maxNodes=max_nodes, timeMode="elapsed", logPath=log_path
    )
    try:
        try:
            prob.solve(solver)
        except HardStop:
            kill_children("cbc")
            raise
        with open(log_path, errors="replace") as fh:
            log = fh.read()
    finally:
        os.remove(log_path)
    run = read_log(log, prob, time_limit, max_nodes)
    if effort is not None:
        effort.add(run.nodes, run.stopped)
    return run


def read_log(log: str, prob: pulp.LpProblem, time_limit: float | None, max_nodes: int | None) -> CbcRun:
    """The :class:`CbcRun` of a CBC ``log`` whose solution PuLP loaded into ``prob``."""
    solution = prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
    found = _NODES.search(log)
    nodes = int(found.group(1)) if found else 0
    results = _RESULT.findall(log)
    if results:
        result = results[-1]
        if result.startswith("Optimal solution found") and prob.sol_status == pulp.LpSolutionOptimal:
            return CbcRun(OPTIMAL, True, None, result, nodes)
        if (
            result in ("Problem proven infeasible", "Linear relaxation infeasible")
            and prob.status == pulp.LpStatusInfeasible
        ):
            return CbcRun(INFEASIBLE, False, None, result, nodes)
        cause = (
            STOPPED_BUDGET if result == "Stopped on node limit" and max_nodes is not None else STOPPED_CLOCK
        )
        return CbcRun(STOPPED, solution, cause, result, nodes)
    early = next((line.strip() for line in log.splitlines() if line.startswith(_EARLY_INFEASIBLE)), None)
    if (
        early is not None
        and prob.status == pulp.LpStatusInfeasible
        and _bounded(prob)
        and _within(log, time_limit)
    ):
        return CbcRun(INFEASIBLE, False, None, early, nodes)
    return CbcRun(STOPPED, solution, STOPPED_CLOCK, early or "no result reported", nodes)


def _within(log: str, time_limit: float | None) -> bool:
    """CBC's whole run ended before ``time_limit``: its time limit cannot have cut anything."""
    if time_limit is None:
        return True
    walls = _WALL.findall(log)
    return bool(walls) and float(walls[-1]) + CLOCK_RESOLUTION_S < time_limit


def _bounded(prob: pulp.LpProblem) -> bool:
    return all(v.lowBound is not None and v.upBound is not None for v in prob.variables())


__all__ = ["INFEASIBLE", "OPTIMAL", "STOPPED", "CbcRun", "read_log", "run_cbc"]
