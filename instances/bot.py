"""Bag-of-tasks workload on a volunteer platform (Bouguerra et al. 2011, Section IV-A).

A bag of ``J`` independent jobs runs on ``M`` volatile clients served by one
failure-free server that stores the checkpoints and accepts at most
``max_connections`` simultaneous transfers. Job ``k`` is a chain of slices; a
slice's work is given in *hours on a client of mean speed* (1771 MIPS) and its
checkpoint as a size in megabits, so that the same job takes different numbers
of quanta on different clients (:meth:`BotInstance.job_instance`). Every client
alternates availability and unavailability periods and leaves for good at the
end of its lifetime; the three laws are part of the instance, their
realisation is drawn by the simulator
(:func:`volsched.heuristics.checkpoint.bot.simulate_bot`) from its seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .checkpoint import (
    BANDWIDTH_MBPS,
    CHECKPOINT_MB,
    SLICE_HOURS_ON_MEAN_CLIENT,
    SLICES_PER_JOB,
    SPEED_MIPS_MEAN,
    CheckpointInstance,
    checkpoint_quanta,
    draw_speeds,
    paper_failure_law,
    paper_lifetime_law,
    paper_unavailability_law,
    slice_quanta,
)
from .errors import InputError, is_int, is_number, require
from .io import envelope, unwrap
from .laws import FailureLaw, law_from_dict

FAMILY = "checkpoint-bot"

#: Simultaneous connections the server accepts (Section IV-A-1).
MAX_CONNECTIONS = 100
#: The nominal client: mean speed (Table I) and mean bandwidth of U[1, 2] Mb/s.
NOMINAL_SPEED_MIPS = SPEED_MIPS_MEAN
NOMINAL_BANDWIDTH_MBPS = sum(BANDWIDTH_MBPS) / 2.0

_DATA_KEYS = (
    "speeds",
    "bandwidths",
    "slice_hours",
    "job_offsets",
    "checkpoint_mb",
    "availability",
    "unavailability",
    "lifetime",
    "max_connections",
    "alpha",
)
_LAW_FIELDS = ("availability", "unavailability", "lifetime")


def _first_non_number(values: Any) -> int:
    for i, v in enumerate(values):
        v = v.item() if isinstance(v, np.generic) else v
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return i
    return -1


def _positive_vector(values: Any, name: str) -> np.ndarray:
    """A 1-D float array of finite positive numbers; errors name ``name[i]``."""
    require(isinstance(values, (list, tuple, np.ndarray)), name, "must be a list of numbers")
    arr = np.asarray(values)
    if arr.dtype.kind not in "iuf":
        bad = _first_non_number(list(values)) if arr.ndim == 1 else -1
        where = f"{name}[{bad}]" if bad >= 0 else name
        raise InputError(f"{where}: must be a positive number")
    require(arr.ndim == 1, name, f"must be a flat list, got shape {arr.shape}")
    arr = arr.astype(float)
    bad = np.flatnonzero(~(np.isfinite(arr) & (arr > 0)))
    if bad.size:
        raise InputError(f"{name}[{bad[0]}]: must be positive and finite, got {arr[bad[0]]!r}")
    return arr


def _offsets(values: Any, n_slices: int) -> np.ndarray:
    name = "job_offsets"
    require(isinstance(values, (list, tuple, np.ndarray)), name, "must be a list of integers")
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu":
        bad = next((i for i, v in enumerate(list(values)) if not is_int(v)), -1)
        where = f"{name}[{bad}]" if bad >= 0 else name
        raise InputError(f"{where}: must be an integer")
    require(arr.ndim == 1, name, f"must be a flat list, got shape {arr.shape}")
    require(len(arr) >= 2, name, "needs at least two entries (one job)")
    arr = arr.astype(np.int64)
    require(arr[0] == 0, f"{name}[0]", f"must be 0, got {arr[0]}")
    bad = np.flatnonzero(np.diff(arr) < 1)
    if bad.size:
        i = int(bad[0]) + 1
        raise InputError(
            f"{name}[{i}]: must exceed {name}[{i - 1}] = {arr[i - 1]} (every job has a slice), got {arr[i]}"
        )
    require(
        arr[-1] == n_slices,
        f"{name}[{len(arr) - 1}]",
        f"must equal the number of slices ({n_slices}), got {arr[-1]}",
    )
    return arr


@dataclass(frozen=True, eq=False)
class BotInstance:
    """A bag of tasks and the platform it runs on (Section IV-A, Tables I and II).

    Parameters
    ----------
    speeds : array of float, shape (M,)
        Client speeds in MIPS.
    bandwidths : array of float, shape (M,)
        Client network bandwidths in Mb/s (a transfer of ``s`` Mb takes ``s / bw`` s).
    slice_hours : array of float, shape (S,)
        Work of every slice, jobs one after another, as hours on a client of
        mean speed (1771 MIPS).
    job_offsets : array of int, shape (J + 1,)
        Job ``k`` owns slices ``job_offsets[k]:job_offsets[k + 1]``; strictly
        increasing from 0 to ``S``.
    checkpoint_mb : array of float, shape (S,)
        Size in Mb of the checkpoint taken after each slice (the last slice's
        is the job's result).
    availability, unavailability, lifetime : FailureLaw
        Laws, in minutes, of the availability periods (the time to failure of a
        running job), of the unavailability periods and of the client lifetime.
    max_connections : int
        Simultaneous transfers the server accepts; further requests queue.
    alpha : float
        Re-execution ratio of the checkpoint model, ``0 < alpha <= 1``; used by
        :meth:`job_instance` only (Section IV-A-2 takes ``alpha = 1``).
    """

    speeds: np.ndarray
    bandwidths: np.ndarray
    slice_hours: np.ndarray
    job_offsets: np.ndarray
    checkpoint_mb: np.ndarray
    availability: FailureLaw
    unavailability: FailureLaw
    lifetime: FailureLaw
    max_connections: int = MAX_CONNECTIONS
    alpha: float = 1.0
    name: str = FAMILY
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        speeds = _positive_vector(self.speeds, "speeds")
        require(len(speeds) >= 1, "speeds", "needs at least one client")
        bandwidths = _positive_vector(self.bandwidths, "bandwidths")
        require(
            len(bandwidths) == len(speeds),
            "bandwidths",
            f"has {len(bandwidths)} entries, speeds has {len(speeds)} (one per client)",
        )
        hours = _positive_vector(self.slice_hours, "slice_hours")
        require(len(hours) >= 1, "slice_hours", "needs at least one slice")
        sizes = _positive_vector(self.checkpoint_mb, "checkpoint_mb")
        require(
            len(sizes) == len(hours),
            "checkpoint_mb",
            f"has {len(sizes)} entries, slice_hours has {len(hours)} (one per slice)",
        )
        offsets = _offsets(self.job_offsets, len(hours))
        for name in _LAW_FIELDS:
            require(isinstance(getattr(self, name), FailureLaw), name, "must be a FailureLaw")
        conn = self.max_connections
        require(is_int(conn) and conn >= 1, "max_connections", f"must be a positive integer, got {conn!r}")
        alpha = self.alpha
        require(is_number(alpha) and 0 < alpha <= 1, "alpha", f"must be in (0, 1], got {alpha!r}")
        require(isinstance(self.name, str), "name", "must be a string")
        require(isinstance(self.params, dict), "params", "must be an object")
        for key, value in (
            ("speeds", speeds),
            ("bandwidths", bandwidths),
            ("slice_hours", hours),
            ("checkpoint_mb", sizes),
            ("job_offsets", offsets),
        ):
            value.setflags(write=False)
            object.__setattr__(self, key, value)
        object.__setattr__(self, "max_connections", int(conn))
        object.__setattr__(self, "alpha", float(alpha))

    @property
    def n_clients(self) -> int:
        """``M``, the number of clients."""
        return len(self.speeds)

    @property
    def n_jobs(self) -> int:
        """``J``, the number of jobs."""
        return len(self.job_offsets) - 1

    @property
    def n_slices(self) -> np.ndarray:
        """Slices per job, shape (J,)."""
        return np.diff(self.job_offsets)

    def _job(self, k: Any) -> slice:
        require(
            is_int(k) and 0 <= k < self.n_jobs, "k", f"must be a job index in [0, {self.n_jobs}), got {k!r}"
        )
        return slice(int(self.job_offsets[k]), int(self.job_offsets[k + 1]))

    def job_slice_hours(self, k: int) -> np.ndarray:
        """Slice work of job ``k`` in hours on a mean-speed client."""
        return self.slice_hours[self._job(k)]

    def job_checkpoint_mb(self, k: int) -> np.ndarray:
        """Checkpoint sizes of job ``k`` in Mb."""
        return self.checkpoint_mb[self._job(k)]

    def job_instance(
        self, k: int, speed: float | None = None, bandwidth: float | None = None
    ) -> CheckpointInstance:
        """Job ``k`` as a single-client checkpoint instance (Section III) in quanta.

        Slices and checkpoints are converted with
        :func:`~volsched.instances.checkpoint.slice_quanta` and
        :func:`~volsched.instances.checkpoint.checkpoint_quanta` for a client of
        the given speed (MIPS) and bandwidth (Mb/s), by default the nominal
        client (1771 MIPS, 1.5 Mb/s); the failure law is the availability law.
        """
        part = self._job(k)
        speed = NOMINAL_SPEED_MIPS if speed is None else speed
        bandwidth = NOMINAL_BANDWIDTH_MBPS if bandwidth is None else bandwidth
        for name, value in (("speed", speed), ("bandwidth", bandwidth)):
            require(is_number(value) and value > 0, name, f"must be a positive number, got {value!r}")
        return CheckpointInstance(
            p=slice_quanta(self.slice_hours[part], float(speed)),
            c=checkpoint_quanta(self.checkpoint_mb[part], float(bandwidth)),
            alpha=self.alpha,
            law=self.availability,
            name=f"{self.name}-job{k}",
            params={"job": int(k), "speed_mips": float(speed), "bandwidth_mbps": float(bandwidth)},
        )

    def to_json(self) -> dict:
        data = {
            "speeds": self.speeds.tolist(),
            "bandwidths": self.bandwidths.tolist(),
            "slice_hours": self.slice_hours.tolist(),
            "job_offsets": self.job_offsets.tolist(),
            "checkpoint_mb": self.checkpoint_mb.tolist(),
            "availability": self.availability.to_dict(),
            "unavailability": self.unavailability.to_dict(),
            "lifetime": self.lifetime.to_dict(),
            "max_connections": self.max_connections,
            "alpha": self.alpha,
        }
        return envelope(FAMILY, self.name, self.params, data)

    @classmethod
    def from_json(cls, obj: Any) -> BotInstance:
        data = unwrap(obj, FAMILY, _DATA_KEYS)
        laws = {name: law_from_dict(data[name], name) for name in _LAW_FIELDS}
        return cls(
            speeds=data["speeds"],
            bandwidths=data["bandwidths"],
            slice_hours=data["slice_hours"],
            job_offsets=data["job_offsets"],
            checkpoint_mb=data["checkpoint_mb"],
            max_connections=data["max_connections"],
            alpha=data["alpha"],
            name=obj.get("name", FAMILY),
            params=obj.get("params", {}),
            **laws,
        )


def generate_bot(clients: int, jobs: int, seed: int, alpha: float = 1.0) -> BotInstance:
    """A bag of tasks and a platform drawn from Tables I and II (Section IV-A-1).

    With ``rng = np.random.default_rng(seed)``, in this order: client speeds
    (normal(1771, 669.5) truncated below, :func:`draw_speeds`), bandwidths
    U[1, 2] Mb/s, slices per job U{1, ..., 50}, slice work U[1, 5] hours on a
    mean-speed client, checkpoint sizes U[10, 512] Mb. The laws are the paper's
    availability Weibull (shape 0.431, scale 1.682 h), unavailability
    hyper-exponential and lifetime Weibull (shape 0.58, scale 137 days), in
    minutes.

    Table II gives a slice's work as U[36^9, 36^10] instructions and the text
    says this is 1 to 5 hours on a mean client. The two disagree: at 1771 MIPS
    (1.771e9 instructions per second), 36^9 instructions take about 15.9 hours
    and 36^10 about 573 hours, a ratio of 36, not 5. The hours, which the text
    also uses for whole jobs ("[1, 250] hours"), are taken.
    """
    for name, value in (("clients", clients), ("jobs", jobs)):
        require(is_int(value) and value >= 1, name, f"must be a positive integer, got {value!r}")
    require(is_int(seed) and seed >= 0, "seed", f"must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    speeds = draw_speeds(rng, clients)
    bandwidths = rng.uniform(*BANDWIDTH_MBPS, clients)
    counts = rng.integers(SLICES_PER_JOB[0], SLICES_PER_JOB[1] + 1, jobs)
    total = int(counts.sum())
    hours = rng.uniform(*SLICE_HOURS_ON_MEAN_CLIENT, total)
    sizes = rng.uniform(*CHECKPOINT_MB, total)
    return BotInstance(
        speeds=speeds,
        bandwidths=bandwidths,
        slice_hours=hours,
        job_offsets=np.concatenate([[0], np.cumsum(counts)]),
        checkpoint_mb=sizes,
        availability=paper_failure_law(),
        unavailability=paper_unavailability_law(),
        lifetime=paper_lifetime_law(),
        max_connections=MAX_CONNECTIONS,
        alpha=alpha,
        name=f"bot-m{clients}-j{jobs}-s{seed}",
        params={"generator": "paper", "clients": clients, "jobs": jobs, "seed": seed, "alpha": alpha},
    )
