"""Checkpoint family: one job of atomic slices on a volatile client.

Bouguerra, Kondo, Trystram, "On the Scheduling of Checkpoints in Desktop Grids"
(CCGrid 2011), Section III. A job has ``n`` slices of durations ``p_j`` and
checkpoint costs ``c_j`` (positive integers, in time quanta), a re-execution
ratio ``alpha`` in (0, 1] and a failure law for the time to failure ``T``
measured from the job's start. A schedule is a vector ``a`` in {0, 1}^n with
``a_n = 1`` (Section III-A: the last checkpoint acknowledges completion).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import MAX_FIELD_INT, is_int, is_number, require
from .io import envelope, unwrap
from .laws import (
    WASTE_RTOL,
    Empirical,
    Exponential,
    FailureLaw,
    HyperExponential,
    LogNormal,
    Weibull,
    law_from_dict,
)

FAMILY = "checkpoint"

#: One time quantum is one minute (Section IV-A-2).
QUANTUM_MINUTES = 1.0
MINUTES_PER_HOUR = 60.0

#: Client and workload distributions of Section IV-A, Tables I and II.
SPEED_MIPS_MEAN = 1771.0
SPEED_MIPS_SD = 669.5
#: The normal speed law puts mass near and below zero; speeds are drawn from it
#: truncated below at this fraction of the mean (the paper does not say how it
#: handled the lower tail).
SPEED_MIN_FRACTION = 0.1
BANDWIDTH_MBPS = (1.0, 2.0)
SLICES_PER_JOB = (1, 50)
SLICE_HOURS_ON_MEAN_CLIENT = (1.0, 5.0)
CHECKPOINT_MB = (10.0, 512.0)

#: Availability periods (cluster 3 of Javadi et al.): Weibull, hours.
AVAILABILITY_WEIBULL_SHAPE = 0.431
AVAILABILITY_WEIBULL_SCALE_H = 1.682
#: Unavailability: hyper-exponential, rates per hour. The paper's weights sum to
#: 1.001 (rounding); :func:`paper_unavailability_law` renormalises them.
UNAVAILABILITY_PROBS = (0.398, 0.305, 0.298)
UNAVAILABILITY_RATES_PER_H = (0.031, 11.566, 1.322)
#: Client lifetime (permanent departure): Weibull, days.
LIFETIME_WEIBULL_SHAPE = 0.58
LIFETIME_WEIBULL_SCALE_DAYS = 137.0


def paper_failure_law() -> Weibull:
    """The clients' time to failure (availability period), in minutes."""
    return Weibull(
        shape=AVAILABILITY_WEIBULL_SHAPE,
        scale=AVAILABILITY_WEIBULL_SCALE_H * MINUTES_PER_HOUR / QUANTUM_MINUTES,
    )


def paper_unavailability_law() -> HyperExponential:
    """The clients' unavailability periods, in minutes (weights renormalised)."""
    probs = np.asarray(UNAVAILABILITY_PROBS) / sum(UNAVAILABILITY_PROBS)
    rates = np.asarray(UNAVAILABILITY_RATES_PER_H) / MINUTES_PER_HOUR * QUANTUM_MINUTES
    return HyperExponential(probs=probs, rates=rates)


def paper_lifetime_law() -> Weibull:
    """The clients' lifetimes, in minutes."""
    return Weibull(
        shape=LIFETIME_WEIBULL_SHAPE,
        scale=LIFETIME_WEIBULL_SCALE_DAYS * 24 * MINUTES_PER_HOUR / QUANTUM_MINUTES,
    )


def draw_speeds(rng: np.random.Generator, size) -> np.ndarray:
    """Client speeds in MIPS: normal(1771, 669.5) truncated below (see ``SPEED_MIN_FRACTION``)."""
    size = int(np.prod(size))
    out = np.empty(0)
    low = SPEED_MIN_FRACTION * SPEED_MIPS_MEAN
    while len(out) < size:
        draw = rng.normal(SPEED_MIPS_MEAN, SPEED_MIPS_SD, 2 * size + 8)
        out = np.concatenate([out, draw[draw >= low]])
    return out[:size]


def slice_quanta(hours_on_mean_client: np.ndarray, speed_mips: float) -> np.ndarray:
    """Slice durations in quanta on a client of the given speed (at least one quantum)."""
    minutes = np.asarray(hours_on_mean_client) * MINUTES_PER_HOUR * SPEED_MIPS_MEAN / speed_mips
    return np.maximum(1, np.rint(minutes / QUANTUM_MINUTES)).astype(np.int64)


def checkpoint_quanta(size_mb: np.ndarray, bandwidth_mbps: float) -> np.ndarray:
    """Checkpoint upload times in quanta, rounded up (``c_j`` in [1, 9] for the paper's ranges)."""
    seconds = np.asarray(size_mb) / bandwidth_mbps
    return np.maximum(1, np.ceil(seconds / (60.0 * QUANTUM_MINUTES))).astype(np.int64)


#: The smallest accepted probability that the job fails before it ends (see
#: :class:`CheckpointInstance`).
MIN_FAILURE_PROBABILITY = 1e-250


def _int_vector(values: Any, name: str) -> np.ndarray:
    require(isinstance(values, (list, tuple, np.ndarray)), name, "must be a list of integers")
    # A valid integer array needs no per-entry loop (the hunt builds thousands a second); any bad
    # entry falls through to the loop, which names it.
    fast = isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind == "i"
    if fast and (values.size == 0 or (values.min() > 0 and values.max() <= MAX_FIELD_INT)):
        return values.astype(np.int64)
    values = list(values)
    for i, v in enumerate(values):
        v = v.item() if isinstance(v, np.generic) else v
        require(is_int(v), f"{name}[{i}]", f"must be a positive integer (time quanta), got {v!r}")
        require(v > 0, f"{name}[{i}]", f"must be a positive integer (time quanta), got {v!r}")
        require(v <= MAX_FIELD_INT, f"{name}[{i}]", f"must be at most {MAX_FIELD_INT} quanta, got {v!r}")
    return np.asarray(values, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class CheckpointInstance:
    """A job of ``n`` slices under a failure law (Section III-A, III-B).

    Parameters
    ----------
    p : array of int, shape (n,)
        Slice durations ``p_j`` in quanta; ``tau_l = sum_{j <= l} p_j``.
    c : array of int, shape (n,)
        Checkpoint costs ``c_j`` in quanta.
    alpha : float
        Re-execution ratio, ``0 < alpha <= 1``.
    law : FailureLaw
        Law of the time to failure, measured from the job's start. It must fail
        before ``tau_n + c_n`` with probability at least
        :data:`MIN_FAILURE_PROBABILITY`, a lower bound on every schedule's
        waste; then :meth:`expected_waste` is accurate to
        :data:`~volsched.instances.laws.WASTE_RTOL` relative.
    """

    p: np.ndarray
    c: np.ndarray
    alpha: float
    law: FailureLaw
    name: str = "checkpoint"
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        p = _int_vector(self.p, "p")
        c = _int_vector(self.c, "c")
        require(len(p) >= 1, "p", "n = 0: a job needs at least one slice")
        require(len(c) == len(p), "c", f"has {len(c)} entries, p has {len(p)} (one per slice)")
        alpha = self.alpha
        require(is_number(alpha) and 0 < alpha <= 1, "alpha", f"must be in (0, 1], got {alpha!r}")
        require(isinstance(self.law, FailureLaw), "law", "must be a FailureLaw")
        # Every schedule's waste is at least F(tau_n + c_n): below the threshold
        # it would be lost in the doubles' underflow, not computed. (An empirical
        # law's probabilities are exact multiples of 1/N, 0 included.)
        finish = float(p.sum() + c[-1])
        failing = float(self.law.cdf(finish))
        require(
            failing >= MIN_FAILURE_PROBABILITY or isinstance(self.law, Empirical),
            "law",
            f"{self.law.describe()} fails before the job ends (t = {finish:g}) with probability "
            f"{failing:.3g} < {MIN_FAILURE_PROBABILITY:g}: a waste that small underflows double "
            f"precision, it cannot be computed to {WASTE_RTOL:g} relative",
        )
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "c", c)
        object.__setattr__(self, "alpha", float(alpha))

    @property
    def n(self) -> int:
        return len(self.p)

    @property
    def tau(self) -> np.ndarray:
        """``tau[l] = sum_{j <= l} p_j`` for ``l = 0..n`` (``tau[0] = 0``)."""
        return np.concatenate([[0], np.cumsum(self.p)])

    def check_schedule(self, a: Any) -> np.ndarray:
        """Validate a checkpoint vector and return it as a bool array."""
        require(isinstance(a, (list, tuple, np.ndarray)), "a", "must be a list of 0/1")
        fast = isinstance(a, np.ndarray) and a.shape == (self.n,) and a.dtype.kind in "biu" and a[-1] == 1
        if fast and (a.dtype.kind == "b" or ((a == 0) | (a == 1)).all()):
            return a.astype(bool)
        a = list(a)
        require(len(a) == self.n, "a", f"has {len(a)} entries, the job has {self.n} slices")
        for j, v in enumerate(a):
            v = v.item() if isinstance(v, np.generic) else v
            require(v in (0, 1) and not isinstance(v, float), f"a[{j}]", f"must be 0 or 1, got {v!r}")
        require(a[-1] == 1, f"a[{self.n - 1}]", "the last slice must be checkpointed (a_n = 1)")
        return np.asarray(a, dtype=bool)

    def expected_waste(self, a: Any) -> float:
        """Expected wasted time of schedule ``a`` (Section III-B, Expression 1).

        Summed over the checkpoint intervals: with the previous checkpoint after
        slice ``j`` (``j = 0``: the start) and accumulated overhead ``sigma``,
        the next after slice ``i`` contributes Expression 3,

        .. math:: \\int_{\\tau_j+\\sigma}^{\\tau_i+\\sigma+c_i}
                  [\\sigma + c_i + \\alpha (t - \\tau_j - \\sigma)] f(t) dt.

        The first interval is Expression 3 with ``(j, sigma) = (0, 0)``.
        Expression 4 as printed subtracts ``tau_j + c_j`` inside the lost work,
        which makes it negative over most of the interval; the lost work is the
        time since the start, ``alpha t``, as Expression 1 defines it.
        """
        a = self.check_schedule(a)
        closing = np.flatnonzero(a) + 1
        sigma = np.cumsum(self.c[closing - 1])
        end = (self.tau[closing] + sigma).astype(float)
        start = np.concatenate([[0.0], end[:-1]])
        prob = self.law.interval_probability(start, end)
        mass = self.law.partial_expectation(start, end)
        return math.fsum((sigma - self.alpha * start) * prob + self.alpha * mass)

    def to_json(self) -> dict:
        data = {
            "p": self.p.tolist(),
            "c": self.c.tolist(),
            "alpha": self.alpha,
            "law": self.law.to_dict(),
        }
        return envelope(FAMILY, self.name, self.params, data)

    @classmethod
    def from_json(cls, obj: Any) -> CheckpointInstance:
        data = unwrap(obj, FAMILY, ("p", "c", "alpha", "law"))
        return cls(
            p=data["p"],
            c=data["c"],
            alpha=data["alpha"],
            law=law_from_dict(data["law"], "law"),
            name=obj.get("name", FAMILY),
            params=obj.get("params", {}),
        )


def _same_mean_laws(mean: float) -> dict:
    return {
        "exponential": lambda rng: Exponential(rate=1.0 / mean),
        "lognormal": lambda rng: LogNormal(mu=math.log(mean) - LOGNORMAL_SIGMA**2 / 2, sigma=LOGNORMAL_SIGMA),
        "hyperexponential": lambda rng: HyperExponential(
            probs=[0.9, 0.1], rates=[1.0 / (0.2 * mean), 1.0 / (8.2 * mean)]
        ),
        "empirical": lambda rng: Empirical(samples=paper_failure_law().sample(rng, EMPIRICAL_SAMPLES)),
    }


#: Failure laws :func:`generate` offers. ``weibull`` is the paper's; the others
#: share its mean time to failure, so that only the law's shape changes.
#: The exact methods are quadratic in the slices; a larger job is refused, not run out of memory.
MAX_SLICES = 100_000
LAW_CHOICES = ("weibull", "exponential", "lognormal", "hyperexponential", "empirical")
LOGNORMAL_SIGMA = 1.5
EMPIRICAL_SAMPLES = 1000


def generate(
    n_slices: int,
    seed: int,
    alpha: float = 1.0,
    law: str = "weibull",
    slice_hours: tuple[float, float] = SLICE_HOURS_ON_MEAN_CLIENT,
) -> CheckpointInstance:
    """A job drawn from the paper's distributions (Tables I and II) for one client.

    The client gets a speed and a bandwidth; the job gets ``n_slices`` slices of
    ``slice_hours`` (1-5 h) on a mean-speed client and checkpoints of 10-512 Mb.
    Durations are converted to the client's own quanta. The failure law is the
    paper's availability Weibull (shape 0.431, scale 1.682 h), or another law of
    :data:`LAW_CHOICES` with the same mean (the empirical one is a sample of
    1,000 draws from the Weibull).
    """
    require(is_int(n_slices) and n_slices >= 1, "slices", f"must be a positive integer, got {n_slices!r}")
    require(n_slices <= MAX_SLICES, "slices", f"must be at most {MAX_SLICES}, got {n_slices!r}")
    require(is_int(seed) and seed >= 0, "seed", f"must be a non-negative integer, got {seed!r}")
    require(law in LAW_CHOICES, "law", f"must be one of {list(LAW_CHOICES)}, got {law!r}")
    lo, hi = slice_hours
    require(
        math.isfinite(lo) and math.isfinite(hi) and 0 < lo <= hi,
        "slice_hours",
        f"must satisfy 0 < low <= high, got {slice_hours!r}",
    )
    rng = np.random.default_rng(seed)
    speed = float(draw_speeds(rng, 1)[0])
    bandwidth = float(rng.uniform(*BANDWIDTH_MBPS))
    hours = rng.uniform(lo, hi, n_slices)
    sizes = rng.uniform(*CHECKPOINT_MB, n_slices)
    weibull = paper_failure_law()
    failure = weibull if law == "weibull" else _same_mean_laws(weibull.mean)[law](rng)
    return CheckpointInstance(
        p=slice_quanta(hours, speed),
        c=checkpoint_quanta(sizes, bandwidth),
        alpha=alpha,
        law=failure,
        name=f"checkpoint-{law}-n{n_slices}-s{seed}",
        params={
            "preset": "paper",
            "slices": n_slices,
            "seed": seed,
            "alpha": alpha,
            "law": law,
            "slice_hours": [lo, hi],
            "speed_mips": speed,
            "bandwidth_mbps": bandwidth,
        },
    )
