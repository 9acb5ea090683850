"""Failure laws: distributions of the time to failure, in time quanta.

Every law gives the survival function, the CDF and the *partial expectation*

.. math:: \\mathrm{PE}(a, b) = \\int_{(a, b]} t \\, dF(t),

the quantity the checkpoint model integrates (Bouguerra et al. 2011,
Expressions 1, 3 and 4): the expected waste of a checkpoint interval
``(a, b]`` with overhead ``K`` and lost work ``alpha (t - a)`` is
``(K - alpha a) (F(b) - F(a)) + alpha PE(a, b)``. Intervals are half-open on the
left, as the paper's ``tau_last < t_fault <= tau_next``.

Closed forms are written as *tail expectations* ``TE(t) = PE(t, inf)`` so that
``PE(a, b) = TE(a) - TE(b)`` stays accurate far in the tail. A law without a
closed form inherits :meth:`FailureLaw.tail_expectation`, which integrates the
survival function numerically (``TE(t) = t S(t) + int_t^inf S(u) du``); the
tests use that path as an oracle for every closed form.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np
from scipy import integrate, special

from .errors import InputError, require


def _finite(value: Any, name: str) -> float:
    require(
        isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value),
        name,
        f"must be a finite number, got {value!r}",
    )
    return float(value)


def _positive(value: Any, name: str) -> float:
    value = _finite(value, name)
    require(value > 0, name, f"must be positive, got {value!r}")
    return value


def _vector(values: Any, name: str) -> np.ndarray:
    require(isinstance(values, (list, tuple, np.ndarray)), name, "must be a list of numbers")
    for i, v in enumerate(values):
        _finite(v.item() if isinstance(v, np.generic) else v, f"{name}[{i}]")
    return np.asarray(values, dtype=float)


class FailureLaw(ABC):
    """A distribution of the time to failure ``T >= 0`` (time in quanta)."""

    kind: ClassVar[str]

    @abstractmethod
    def sf(self, t):
        """Survival function ``S(t) = P(T > t)``."""

    def cdf(self, t):
        """Distribution function ``F(t) = P(T <= t)``."""
        return 1.0 - self.sf(t)

    def tail_expectation(self, t):
        """``TE(t) = E[T; T > t]`` by numeric integration of the survival function."""

        def one(x: float) -> float:
            x = max(float(x), 0.0)
            integral, _ = integrate.quad(self.sf, x, np.inf, limit=200, epsabs=1e-12, epsrel=1e-12)
            return x * float(self.sf(x)) + integral

        return np.vectorize(one, otypes=[float])(t)

    def partial_expectation(self, a, b):
        """``PE(a, b) = E[T; a < T <= b]``; ``b`` may be ``inf``."""
        return self.tail_expectation(a) - self.tail_expectation(b)

    @property
    def mean(self) -> float:
        """Mean time to failure ``M = int_0^inf t f(t) dt``."""
        return float(self.tail_expectation(0.0))

    @abstractmethod
    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        """Draw failure times from ``rng``."""

    @abstractmethod
    def params(self) -> dict:
        """The law's parameters as JSON-ready values."""

    def to_dict(self) -> dict:
        return {"kind": self.kind, **self.params()}

    def describe(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params().items() if k != "samples")
        return f"{self.kind}({args})"


@dataclass(frozen=True, eq=False)
class Exponential(FailureLaw):
    """Exponential law, ``S(t) = exp(-rate t)``; ``TE(t) = (t + 1/rate) exp(-rate t)``."""

    rate: float
    kind: ClassVar[str] = "exponential"

    def __post_init__(self):
        object.__setattr__(self, "rate", _positive(self.rate, "rate"))

    def sf(self, t):
        return np.exp(-self.rate * np.maximum(t, 0.0))

    def tail_expectation(self, t):
        t = np.maximum(t, 0.0)
        return (t + 1.0 / self.rate) * np.exp(-self.rate * t)

    def sample(self, rng, size):
        return rng.exponential(1.0 / self.rate, size)

    def params(self):
        return {"rate": self.rate}


@dataclass(frozen=True, eq=False)
class Weibull(FailureLaw):
    """Weibull law, ``S(t) = exp(-(t/scale)^shape)``.

    ``TE(t) = scale Gamma(1 + 1/shape) Q(1 + 1/shape, (t/scale)^shape)`` with
    ``Q`` the regularized upper incomplete gamma function.
    """

    shape: float
    scale: float
    kind: ClassVar[str] = "weibull"

    def __post_init__(self):
        object.__setattr__(self, "shape", _positive(self.shape, "shape"))
        object.__setattr__(self, "scale", _positive(self.scale, "scale"))

    def sf(self, t):
        return np.exp(-((np.maximum(t, 0.0) / self.scale) ** self.shape))

    def tail_expectation(self, t):
        nu = 1.0 + 1.0 / self.shape
        z = (np.maximum(t, 0.0) / self.scale) ** self.shape
        return self.scale * special.gamma(nu) * special.gammaincc(nu, z)

    def sample(self, rng, size):
        return self.scale * rng.weibull(self.shape, size)

    def params(self):
        return {"shape": self.shape, "scale": self.scale}


@dataclass(frozen=True, eq=False)
class HyperExponential(FailureLaw):
    """Mixture of exponentials: phase ``i`` with probability ``probs[i]`` and rate ``rates[i]``.

    ``S(t) = sum_i p_i exp(-r_i t)``, ``TE(t) = sum_i p_i (t + 1/r_i) exp(-r_i t)``.
    """

    probs: np.ndarray
    rates: np.ndarray
    kind: ClassVar[str] = "hyperexponential"

    def __post_init__(self):
        probs = _vector(self.probs, "probs")
        rates = _vector(self.rates, "rates")
        require(len(probs) >= 1, "probs", "needs at least one phase")
        require(len(rates) == len(probs), "rates", f"has {len(rates)} entries, probs has {len(probs)}")
        for i, p in enumerate(probs.tolist()):
            require(0.0 <= p <= 1.0, f"probs[{i}]", f"must be in [0, 1], got {p!r}")
        for i, r in enumerate(rates.tolist()):
            require(r > 0.0, f"rates[{i}]", f"must be positive, got {r!r}")
        total = float(probs.sum())
        require(abs(total - 1.0) <= 1e-9, "probs", f"must sum to 1, got {total!r}")
        object.__setattr__(self, "probs", probs)
        object.__setattr__(self, "rates", rates)

    def _phases(self, t):
        t = np.maximum(np.asarray(t, dtype=float), 0.0)[..., None]
        return t, np.exp(-self.rates * t)

    def sf(self, t):
        _, e = self._phases(t)
        return e @ self.probs

    def tail_expectation(self, t):
        t, e = self._phases(t)
        return ((t + 1.0 / self.rates) * e) @ self.probs

    def sample(self, rng, size):
        phase = rng.choice(len(self.probs), size=size, p=self.probs)
        return rng.exponential(1.0, size) / self.rates[phase]

    def params(self):
        return {"probs": self.probs.tolist(), "rates": self.rates.tolist()}


@dataclass(frozen=True, eq=False)
class LogNormal(FailureLaw):
    """Log-normal law: ``ln T ~ N(mu, sigma^2)``.

    ``S(t) = Phi((mu - ln t)/sigma)``,
    ``TE(t) = exp(mu + sigma^2/2) Phi((mu + sigma^2 - ln t)/sigma)``.
    """

    mu: float
    sigma: float
    kind: ClassVar[str] = "lognormal"

    def __post_init__(self):
        object.__setattr__(self, "mu", _finite(self.mu, "mu"))
        object.__setattr__(self, "sigma", _positive(self.sigma, "sigma"))

    def _log(self, t):
        with np.errstate(divide="ignore"):
            return np.log(np.maximum(t, 0.0))

    def sf(self, t):
        return special.ndtr((self.mu - self._log(t)) / self.sigma)

    def tail_expectation(self, t):
        s2 = self.sigma**2
        return math.exp(self.mu + s2 / 2) * special.ndtr((self.mu + s2 - self._log(t)) / self.sigma)

    def sample(self, rng, size):
        return rng.lognormal(self.mu, self.sigma, size)

    def params(self):
        return {"mu": self.mu, "sigma": self.sigma}


@dataclass(frozen=True, eq=False)
class Empirical(FailureLaw):
    """The empirical law of a sample of failure times (each observation has mass 1/N).

    ``S(t) = #{x_k > t} / N`` and ``TE(t) = sum_{x_k > t} x_k / N``.
    """

    samples: np.ndarray
    _suffix: np.ndarray = field(init=False, repr=False)
    kind: ClassVar[str] = "empirical"

    def __post_init__(self):
        x = _vector(self.samples, "samples")
        require(len(x) >= 2, "samples", f"needs at least 2 observations, got {len(x)}")
        for i, v in enumerate(x.tolist()):
            require(v > 0, f"samples[{i}]", f"must be positive, got {v!r}")
        x = np.sort(x)
        object.__setattr__(self, "samples", x)
        suffix = np.concatenate([np.cumsum(x[::-1])[::-1], [0.0]])
        object.__setattr__(self, "_suffix", suffix)

    def sf(self, t):
        n = len(self.samples)
        return (n - np.searchsorted(self.samples, t, side="right")) / n

    def tail_expectation(self, t):
        return self._suffix[np.searchsorted(self.samples, t, side="right")] / len(self.samples)

    def sample(self, rng, size):
        return rng.choice(self.samples, size=size)

    def params(self):
        return {"samples": self.samples.tolist()}


LAWS: dict[str, type[FailureLaw]] = {
    cls.kind: cls for cls in (Exponential, Weibull, HyperExponential, LogNormal, Empirical)
}


def law_from_dict(obj: Any, field_name: str = "law") -> FailureLaw:
    """Build a law from ``{"kind": ..., **params}``; errors name ``<field_name>.<param>``."""
    require(isinstance(obj, dict), field_name, "must be an object with a 'kind'")
    kind = obj.get("kind")
    require(kind in LAWS, f"{field_name}.kind", f"must be one of {sorted(LAWS)}, got {kind!r}")
    cls = LAWS[kind]
    expected = {f.name for f in fields(cls) if f.init}
    given = set(obj) - {"kind"}
    for name in sorted(expected - given):
        raise InputError(f"{field_name}.{name}: missing")
    for name in sorted(given - expected):
        raise InputError(f"{field_name}.{name}: unknown parameter for a {kind} law")
    try:
        return cls(**{k: obj[k] for k in expected})
    except InputError as exc:
        raise InputError(f"{field_name}.{exc}") from None
