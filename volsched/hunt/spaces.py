"""Search spaces of the hunt: each family's raw instance data within stated size and value bounds.

A :class:`Space` describes the instances a hunt may visit as a few named numeric arrays (a
*candidate*: ``{name: ndarray}``), each with its bounds (:class:`Field`). From those it draws
random candidates, mutates them and encodes them as a vector in ``[0, 1]^d`` for a plain
black-box optimiser; :meth:`Space.build` turns a candidate into the family's instance model,
whose own validation then applies. A family adds its own operators (:meth:`Space.extra_moves`)
where a generic one would waste candidates: moving work between two jobs keeps the total, a
segment of an availability string changes state as a block.

Every draw comes from the ``numpy.random.Generator`` passed in: the same seed, the same hunt.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from volsched.instances.errors import InputError, require

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

Candidate = dict[str, np.ndarray]


@dataclass(frozen=True)
class Bound:
    """A size or value bound of a space: ``--bound NAME=VALUE`` on the command line.

    Attributes
    ----------
    name : str
    default : int or float
    low, high : int or float
        The values the option accepts.
    help : str
    """

    name: str
    default: int | float
    low: int | float
    high: int | float
    help: str = ""

    def check(self, value: Any) -> int | float:
        where = f"--bound {self.name}"
        if isinstance(self.default, int):
            try:
                v = int(value) if not isinstance(value, float) or value.is_integer() else None
            except (TypeError, ValueError):
                v = None
            require(v is not None, where, f"must be an integer, got {value!r}")
        else:
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise InputError(f"{where}: must be a number, got {value!r}") from None
            require(math.isfinite(v), where, f"must be finite, got {value!r}")
        require(self.low <= v <= self.high, where, f"must be in [{self.low}, {self.high}], got {v!r}")
        return v


@dataclass(frozen=True)
class Field:
    """One array of a candidate: its shape and value range (inclusive).

    ``integer``: values are integers; ``log``: perturbed and encoded on a log scale (a scale
    parameter spanning decades).
    """

    name: str
    shape: tuple[int, ...]
    low: float
    high: float
    integer: bool = True
    log: bool = False

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def draw(self, rng: np.random.Generator, size: int | tuple = ()) -> np.ndarray:
        if self.integer:
            return rng.integers(int(self.low), int(self.high) + 1, size=size)
        if self.log:
            return np.exp(rng.uniform(math.log(self.low), math.log(self.high), size=size))
        return rng.uniform(self.low, self.high, size=size)

    def clip(self, x: np.ndarray) -> np.ndarray:
        x = np.clip(x, self.low, self.high)
        return np.rint(x).astype(np.int64) if self.integer else x.astype(float)

    def encode(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float).ravel()
        if self.high == self.low:
            return np.zeros_like(x)
        if self.log:
            return (np.log(x) - math.log(self.low)) / (math.log(self.high) - math.log(self.low))
        return (x - self.low) / (self.high - self.low)

    def decode(self, y: np.ndarray) -> np.ndarray:
        y = np.clip(np.asarray(y, dtype=float), 0.0, 1.0).reshape(self.shape)
        if self.log:
            x = np.exp(math.log(self.low) + y * (math.log(self.high) - math.log(self.low)))
        else:
            x = self.low + y * (self.high - self.low)
        return self.clip(x)


@dataclass
class Space:
    """A family's search space under given bounds.

    Subclasses set :attr:`family`, :data:`BOUNDS` and implement :meth:`fields` and
    :meth:`build`; :meth:`extra_moves` adds family operators.
    """

    bounds: dict[str, Any]
    heuristic: str = ""
    family: ClassVar[str] = ""
    BOUNDS: ClassVar[tuple[Bound, ...]] = ()

    @classmethod
    def from_bounds(cls, given: Mapping[str, Any], heuristic: str = "") -> Space:
        """The space with ``given`` bounds (unknown names are bad input), defaults filled in."""
        known = {b.name: b for b in cls.BOUNDS}
        for name in given:
            require(name in known, "--bound", f"{cls.family} takes bounds {', '.join(known)}; got {name!r}")
        values = {b.name: b.check(given[b.name]) if b.name in given else b.default for b in cls.BOUNDS}
        space = cls(values, heuristic)
        space.validate()
        return space

    def validate(self) -> None:
        """Cross-bound checks (``low <= high``...), bad input naming the bound."""

    def fields(self) -> tuple[Field, ...]:
        raise NotImplementedError

    def build(self, cand: Candidate, name: str) -> Any:
        raise NotImplementedError

    def optimum_bound(self, instance: Any, problem: str) -> float | None:
        """A cheap proven lower bound on a minimisation's optimum (``None``: none), for screening."""
        return None

    def describe(self) -> dict:
        """The bounds a reported worst case was found within."""
        return dict(self.bounds)

    # --- generic operators -------------------------------------------------------------------
    def random(self, rng: np.random.Generator) -> Candidate:
        return {f.name: f.draw(rng, f.shape) for f in self.fields()}

    def mutate(self, cand: Candidate, rng: np.random.Generator) -> Candidate:
        """A copy of ``cand`` with 1 + Geometric(1/2) - 1 random moves (one most often)."""
        out = {k: v.copy() for k, v in cand.items()}
        moves = self.moves()
        for _ in range(int(rng.geometric(0.5))):
            moves[int(rng.integers(len(moves)))](out, rng)
        return out

    def moves(self) -> list[Callable[[Candidate, np.random.Generator], None]]:
        return [self._resample, self._step, self._step, self._swap, *self.extra_moves()]

    def extra_moves(self) -> list[Callable[[Candidate, np.random.Generator], None]]:
        return []

    @functools.cached_property
    def _mutable(self) -> tuple[list[Field], np.ndarray]:
        """The fields a move may change, and their shares of the entries (drawn from in :meth:`_pick`)."""
        fs = [f for f in self.fields() if f.size > 0 and f.high > f.low]
        weights = np.array([f.size for f in fs], dtype=float)
        return fs, weights / weights.sum()

    def _pick(self, rng: np.random.Generator) -> Field:
        fs, p = self._mutable
        return fs[int(rng.choice(len(fs), p=p))]

    def _resample(self, cand: Candidate, rng: np.random.Generator) -> None:
        f = self._pick(rng)
        flat = cand[f.name].reshape(-1)
        flat[int(rng.integers(f.size))] = f.draw(rng)

    def _step(self, cand: Candidate, rng: np.random.Generator) -> None:
        """One entry moved by a small step: +-1..span/8 (integers), x exp(N(0, 0.3)) (log), +-N(0, span/8)."""
        f = self._pick(rng)
        flat = cand[f.name].reshape(-1)
        i = int(rng.integers(f.size))
        span = f.high - f.low
        if f.integer:
            step = int(rng.integers(1, max(1, int(span // 8)) + 1)) * (1 if rng.random() < 0.5 else -1)
            flat[i] = f.clip(np.array(flat[i] + step))
        elif f.log:
            flat[i] = f.clip(np.array(flat[i] * math.exp(rng.normal(0.0, 0.3))))
        else:
            flat[i] = f.clip(np.array(flat[i] + rng.normal(0.0, span / 8)))

    def _swap(self, cand: Candidate, rng: np.random.Generator) -> None:
        f = self._pick(rng)
        if f.size < 2:
            return
        flat = cand[f.name].reshape(-1)
        i, j = rng.choice(f.size, 2, replace=False)
        flat[i], flat[j] = flat[j], flat[i]

    # --- vector form, for a plain black-box optimiser -------------------------------------------
    def dimension(self) -> int:
        return sum(f.size for f in self.fields())

    def encode(self, cand: Candidate) -> np.ndarray:
        return np.concatenate([f.encode(cand[f.name]) for f in self.fields()])

    def decode(self, y: np.ndarray) -> Candidate:
        out, at = {}, 0
        for f in self.fields():
            out[f.name] = f.decode(y[at : at + f.size])
            at += f.size
        return out


def key_of(cand: Candidate) -> bytes:
    """A candidate's identity (its arrays' bytes in name order), for the hunt's cache."""
    return b"|".join(name.encode() + np.ascontiguousarray(cand[name]).tobytes() for name in sorted(cand))
