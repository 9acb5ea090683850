"""Slack family: independent jobs on identical machines with unavailability periods.

Canon, Essafi, Mounié, Trystram, "A Bi-Objective Scheduling Algorithm for
Desktop Grids with Uncertain Resource Availabilities" (RR-LIG-014, 2011),
Section 3.1, as read in ``readings/slack.md`` sections 1-2.

Model
-----
* ``m`` identical machines ``i = 0..m-1``. Machine ``i`` has ``K_i >= 0``
  intervals; interval ``k`` is an availability period of length ``a_i^k``
  followed by an unavailability ``[s_i^k, e_i^k)`` of length ``u_i^k``.
  Intervals are contiguous from time 0 (``e_i^0 = 0``, slack.md 1.2):
  ``s_i^k = e_i^{k-1} + a_i^k`` and ``e_i^k = s_i^k + u_i^k``. Files store the
  dates ``[s_i^k, e_i^k]``; ``a`` and ``u`` are derived. Indices ``k`` are
  0-based in code and in files (the paper counts from 1).
* A machine with no interval is **free** (it never becomes unavailable);
  ``lam`` (the paper's lambda) counts the free machines **among** the ``m``
  (slack.md 1.3).
* **After its last interval** (time ``>= e_i^{K_i}``) a machine is available
  forever, so that a free machine is exactly a machine with ``K_i = 0``. The
  paper is silent (slack.md 1.2, MISSING). This tail period is never closed by
  an unavailability, so under the last-period rule (``e_i^k <= C_max``,
  slack.md 2.2) it can never hold a job of the slack problem; it matters only
  for the plain problem and for disturbed execution, where work pending after
  the last interval runs undisturbed. Generators therefore extend every
  machine's intervals past a horizon no reasonable schedule reaches (see
  ``horizon`` in their parameters), as the issue requires ("interval lists
  extend past any makespan a schedule can reach").
* ``n >= 1`` jobs of integer processing times ``p_j >= 1``, non-preemptive
  (Section 3.1).
* ``beta`` in [0, 1] scales the slack rule ``d_i^k >= beta * max p`` (Section
  5.1); the last-period rule holds at every ``beta`` (slack.md 2.3). It is
  stored with the instance (default 1, the stable schedules of Proposition 1);
  :meth:`SlackInstance.with_beta` gives a copy at another ``beta``.

Time is integer (one unit: a second for the ``paper`` generator, whose
instances carry ``params["preset"] == "paper"``, an abstract unit for the
others) so that the 3-PARTITION
reduction and the verifier are exact. ``beta`` is a JSON number; the rules
read it as the decimal it is written as (:meth:`SlackInstance.beta_ratio`:
``0.1`` is exactly 1/10, not the binary double), so the slack rule is the
integer test ``d * den >= num * max p``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from ..errors import MAX_FIELD_INT, InputError, is_int, is_number, require
from ..io import envelope, unwrap

FAMILY = "slack"
#: Most intervals (all machines together) an instance may hold.
MAX_INTERVALS = 10**7
#: Most jobs and machines an instance may hold.
MAX_JOBS = 10**6
MAX_MACHINES = 10**5


def beta_ratio(beta: float) -> tuple[int, int]:
    """``beta`` as the fraction ``(num, den)`` of the decimal it is written as (``0.1`` -> ``(1, 10)``).

    ``repr`` of a float is the shortest decimal that reads back as the same
    double, i.e. what a JSON file or a command line wrote.
    """
    frac = Fraction(repr(float(beta)))
    return frac.numerator, frac.denominator


def check_beta(beta: Any, name: str = "beta") -> float:
    """``beta`` as a float if it is a finite number in [0, 1] (not a bool)."""
    require(is_number(beta) and 0 <= beta <= 1, name, f"must be a number in [0, 1], got {beta!r}")
    return float(beta)


def _machine(value: Any, i: int, name: str) -> np.ndarray:
    """One machine's ``[[s, e], ...]`` as an int64 array (K, 2), checked interval by interval."""
    field_i = f"{name}[{i}]"
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.ndim == 2 and value.shape[1] == 2:
        arr = value.astype(np.int64)
        s, e = arr[:, 0], arr[:, 1]
        prev = np.concatenate([[0], e[:-1]])
        if len(arr) == 0 or (
            s.min() >= 0 and e.max() <= MAX_FIELD_INT and (s >= prev).all() and (e > s).all()
        ):
            return arr  # a model's own arrays (with_beta, generators): valid without the loop below
        rows = value.tolist()
    else:
        require(
            isinstance(value, (list, tuple, np.ndarray)),
            field_i,
            "must be a list of [s, e] unavailability periods ([] for a free machine)",
        )
        rows = list(value)
    prev_e = 0
    for k, pair in enumerate(rows):
        fk = f"{field_i}[{k}]"
        require(
            isinstance(pair, (list, tuple, np.ndarray)) and len(pair) == 2,
            fk,
            f"must be a pair [s, e] (start and end of an unavailability), got {pair!r}",
        )
        for c, v in enumerate(pair):
            v = v.item() if isinstance(v, np.generic) else v
            if not is_int(v):
                what = "NaN" if isinstance(v, float) and math.isnan(v) else repr(v)
                raise InputError(f"{fk}[{c}]: must be an integer date (time units), got {what}")
            require(
                0 <= v <= MAX_FIELD_INT, f"{fk}[{c}]", f"must be a date in [0, {MAX_FIELD_INT}], got {v!r}"
            )
        s, e = int(pair[0]), int(pair[1])
        require(
            s >= prev_e,
            f"{fk}[0]",
            f"s = {s} is before the end {prev_e} of the previous unavailability: intervals must be "
            f"sorted and must not overlap (availability a = s - e_prev = {s - prev_e} < 0)",
        )
        require(
            e > s,
            f"{fk}[1]",
            f"e = {e} must be after s = {s}: the unavailability has duration u = e - s = {e - s} <= 0",
        )
        prev_e = e
    return np.asarray(rows, dtype=np.int64).reshape(len(rows), 2)


def _jobs(values: Any, name: str) -> np.ndarray:
    require(
        isinstance(values, (list, tuple, np.ndarray)),
        name,
        "must be a list of processing times (positive integers)",
    )
    values = list(values)
    require(1 <= len(values) <= MAX_JOBS, name, f"must hold 1 to {MAX_JOBS} jobs, got {len(values)}")
    for j, v in enumerate(values):
        v = v.item() if isinstance(v, np.generic) else v
        if not (is_int(v) and 1 <= v <= MAX_FIELD_INT):
            what = "NaN" if isinstance(v, float) and math.isnan(v) else repr(v)
            raise InputError(
                f"{name}[{j}]: must be a positive integer processing time "
                f"(at most {MAX_FIELD_INT}), got {what}"
            )
    return np.asarray(values, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class SlackInstance:
    """Machines with intervals, jobs and ``beta`` (Section 3.1; module docstring for the conventions).

    Parameters
    ----------
    machines : sequence of (K_i, 2) int arrays
        ``machines[i][k] = (s_i^k, e_i^k)``, the dates of unavailability ``k``
        of machine ``i``, sorted, non-overlapping, each of positive length;
        ``[]`` for a free machine. ``a_i^k = s_i^k - e_i^{k-1}`` (``e_i^{-1} = 0``)
        may be 0.
    p : int array, shape (n,)
        Processing times ``p_j >= 1``.
    beta : float
        Share of the slack rule, in [0, 1] (Section 5.1).
    target : int, optional
        The makespan threshold of a decision instance: the 3-PARTITION
        reduction's instances (:mod:`.generators`) are YES iff the slack
        optimum at ``beta = 1`` is at most ``target``. ``None`` otherwise.
    """

    machines: tuple
    p: np.ndarray
    beta: float = 1.0
    name: str = FAMILY
    params: dict = field(default_factory=dict)
    target: int | None = None

    def __post_init__(self):
        require(
            isinstance(self.machines, (list, tuple)),
            "machines",
            "must be a list with one list of [s, e] unavailability periods per machine",
        )
        require(
            1 <= len(self.machines) <= MAX_MACHINES,
            "machines",
            f"must hold 1 to {MAX_MACHINES} machines, got {len(self.machines)}",
        )
        machines = tuple(_machine(v, i, "machines") for i, v in enumerate(self.machines))
        total = sum(len(v) for v in machines)
        require(total <= MAX_INTERVALS, "machines", f"{total:,} intervals; at most {MAX_INTERVALS:,}")
        object.__setattr__(self, "machines", machines)
        object.__setattr__(self, "p", _jobs(self.p, "p"))
        object.__setattr__(self, "beta", check_beta(self.beta))
        if self.target is not None:
            target = self.target.item() if isinstance(self.target, np.generic) else self.target
            require(
                is_int(target) and 1 <= target <= MAX_FIELD_INT,
                "target",
                f"must be a positive integer (at most {MAX_FIELD_INT}) or absent, got {target!r}",
            )
            object.__setattr__(self, "target", int(target))
        require(isinstance(self.name, str), "name", "must be a string")
        require(isinstance(self.params, dict), "params", "must be an object")

    # --- sizes -----------------------------------------------------------------------------------
    @property
    def m(self) -> int:
        """Number of machines, free ones included."""
        return len(self.machines)

    @property
    def n(self) -> int:
        """Number of jobs."""
        return len(self.p)

    @cached_property
    def free(self) -> tuple[int, ...]:
        """Indices of the free machines (no interval)."""
        return tuple(i for i, v in enumerate(self.machines) if len(v) == 0)

    @property
    def lam(self) -> int:
        """lambda: the number of free machines, counted among the ``m``."""
        return len(self.free)

    @property
    def n_intervals(self) -> int:
        return int(sum(len(v) for v in self.machines))

    # --- per-machine dates (k is 0-based) ----------------------------------------------------------
    def s(self, i: int) -> np.ndarray:
        """``s_i^k``: starts of machine ``i``'s unavailabilities."""
        return self.machines[i][:, 0]

    def e(self, i: int) -> np.ndarray:
        """``e_i^k``: ends of machine ``i``'s unavailabilities (the end date of interval ``k``)."""
        return self.machines[i][:, 1]

    def u(self, i: int) -> np.ndarray:
        """``u_i^k = e_i^k - s_i^k``."""
        return self.e(i) - self.s(i)

    def a(self, i: int) -> np.ndarray:
        """``a_i^k = s_i^k - e_i^{k-1}`` with ``e_i^{-1} = 0``."""
        e = self.e(i)
        return self.s(i) - np.concatenate([[0], e[:-1]]).astype(np.int64)

    @cached_property
    def table(self) -> dict[str, np.ndarray]:
        """Every interval of every machine, flat.

        Keys ``machine``, ``k``, ``start`` (``e_i^{k-1}``), ``a``, ``s``, ``e``, ``u``; ordered by
        machine then ``k``; the arrays are read-only.
        """
        counts = np.array([len(v) for v in self.machines], dtype=np.int64)
        machine = np.repeat(np.arange(self.m, dtype=np.int64), counts)
        k = (
            np.concatenate([np.arange(c, dtype=np.int64) for c in counts])
            if len(machine)
            else np.zeros(0, np.int64)
        )
        both = np.concatenate(self.machines) if len(machine) else np.zeros((0, 2), np.int64)
        s, e = both[:, 0].copy(), both[:, 1].copy()
        start = np.zeros_like(e)
        if len(e) > 1:
            start[1:] = e[:-1]
            start[k == 0] = 0
        out = {"machine": machine, "k": k, "start": start, "a": s - start, "s": s, "e": e, "u": e - s}
        for arr in out.values():
            arr.flags.writeable = False
        return out

    @property
    def p_max(self) -> int:
        return int(self.p.max())

    @property
    def a_min(self) -> int | None:
        """``min_{i,k} a_i^k`` over the non-free machines (``None`` if every machine is free)."""
        a = self.table["a"]
        return int(a.min()) if len(a) else None

    @property
    def u_max(self) -> int | None:
        u = self.table["u"]
        return int(u.max()) if len(u) else None

    @property
    def gamma(self) -> float | None:
        """Definition 3: ``gamma = u_max / a_min`` (``inf`` if ``a_min = 0``, ``None`` without intervals)."""
        if self.a_min is None:
            return None
        return math.inf if self.a_min == 0 else self.u_max / self.a_min

    @property
    def theorem2_assumption(self) -> bool:
        """Theorem 2's ``2 p_max <= a_min`` (vacuously true without intervals)."""
        return self.a_min is None or 2 * self.p_max <= self.a_min

    @property
    def horizon(self) -> int:
        """The last unavailability end over all machines (0 if every machine is free)."""
        e = self.table["e"]
        return int(e.max()) if len(e) else 0

    # --- beta ----------------------------------------------------------------------------------------
    @property
    def beta_ratio(self) -> tuple[int, int]:
        """``beta`` as ``(num, den)``, the decimal it is written as (see :func:`beta_ratio`)."""
        return beta_ratio(self.beta)

    def with_beta(self, beta: float) -> SlackInstance:
        """A copy of this instance at another ``beta`` (``volsched solve/simulate --beta``)."""
        return replace(self, beta=check_beta(beta, "--beta"))

    # --- files ------------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        data = {
            "machines": [v.tolist() for v in self.machines],
            "p": self.p.tolist(),
            "beta": self.beta,
        }
        if self.target is not None:
            data["target"] = self.target
        return envelope(FAMILY, self.name, self.params, data)

    @classmethod
    def from_json(cls, obj: Any) -> SlackInstance:
        data = unwrap(obj, FAMILY, ("machines", "p"), optional=("beta", "target"))
        return cls(
            machines=data["machines"],
            p=data["p"],
            beta=data.get("beta", 1.0),
            target=data.get("target"),
            name=obj.get("name", FAMILY),
            params=obj.get("params", {}),
        )
