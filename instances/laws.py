"""Failure laws: distributions of the time to failure, in time quanta.

Every law gives the survival function ``S``, the CDF ``F`` and the *partial
expectation*

.. math:: \\mathrm{PE}(a, b) = \\int_{(a, b]} t \\, dF(t),

the quantity the checkpoint model integrates (Bouguerra et al. 2011,
Expressions 1, 3 and 4): the expected waste of a checkpoint interval
``(a, b]`` with overhead ``K`` and lost work ``alpha (t - a)`` is
``(K - alpha a) P(a < T <= b) + alpha PE(a, b)``. Intervals are half-open on
the left, as the paper's ``tau_last < t_fault <= tau_next``.

Each law gives two one-sided forms, the *head* ``H(t) = E[T; T <= t]`` and the
*tail* ``TE(t) = E[T; T > t]`` (``H + TE`` is the mean), written so that each
is accurate where it is small (regularized incomplete gamma functions and
``ndtr`` from ``scipy.special``). :meth:`FailureLaw.partial_expectation`
differences the head early in the law and the tail late in it, so that a job
much shorter than the mean time to failure, or far in the tail, loses no
digits to cancellation. A law without a closed form inherits numeric
integration of the survival function (``H(t) = int_0^t (S(u) - S(t)) du``,
``TE(t) = t S(t) + int_t^inf S(u) du``); the tests use that path as an oracle
for every closed form.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np
from scipy import integrate, special

from .errors import InputError, is_number, require

_QUAD = {"limit": 200, "epsabs": 1e-13, "epsrel": 1e-12}


def _finite(value: Any, name: str) -> float:
    require(
        is_number(value),
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

    def head_expectation(self, t):
        """``H(t) = E[T; T <= t]`` by numeric integration of the survival function."""

        def one(x: float) -> float:
            x = max(float(x), 0.0)
            if math.isinf(x):
                return self.mean
            s_x = float(self.sf(x))
            return integrate.quad(lambda u: float(self.sf(u)) - s_x, 0.0, x, **_QUAD)[0]

        return np.vectorize(one, otypes=[float])(t)

    def tail_expectation(self, t):
        """``TE(t) = E[T; T > t]`` by numeric integration of the survival function."""

        def one(x: float) -> float:
            x = max(float(x), 0.0)
            if math.isinf(x):
                return 0.0
            return x * float(self.sf(x)) + integrate.quad(self.sf, x, np.inf, **_QUAD)[0]

        return np.vectorize(one, otypes=[float])(t)

    def interval_probability(self, a, b):
        """``P(a < T <= b)``, from the CDF early in the law and the survival function late."""
        fb = self.cdf(b)
        return np.where(fb <= 0.5, fb - self.cdf(a), self.sf(a) - self.sf(b))

    def partial_expectation(self, a, b):
        """``PE(a, b) = E[T; a < T <= b]`` for ``a <= b``; ``b`` may be ``inf``.

        ``H(b) - H(a)`` while ``F(b) <= 1/2``, ``TE(a) - TE(b)`` once
        ``F(a) >= 1/2``, and ``mean - H(a) - TE(b)`` across the median: each
        difference is of terms no larger than the result's scale.
        """
        a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
        head = self.cdf(b) <= 0.5
        tail = self.cdf(a) >= 0.5
        h_a, te_b = self.head_expectation(a), self.tail_expectation(b)
        out = np.where(head, self.head_expectation(b) - h_a,
                       np.where(tail, self.tail_expectation(a) - te_b, self.mean - h_a - te_b))
        return out if out.ndim else float(out)

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
    """Exponential law, ``S(t) = exp(-rate t)``.

    ``H(t) = P(2, rate t) / rate`` and ``TE(t) = Q(2, rate t) / rate`` with
    ``P``, ``Q`` the regularized lower and upper incomplete gamma functions
    (``TE(t) = (t + 1/rate) exp(-rate t)``).
    """

    rate: float
    kind: ClassVar[str] = "exponential"

    def __post_init__(self):
        object.__setattr__(self, "rate", _positive(self.rate, "rate"))

    def sf(self, t):
        return np.exp(-self.rate * np.maximum(t, 0.0))

    def cdf(self, t):
        return -np.expm1(-self.rate * np.maximum(t, 0.0))

    def head_expectation(self, t):
        return special.gammainc(2.0, self.rate * np.maximum(t, 0.0)) / self.rate

    def tail_expectation(self, t):
        return special.gammaincc(2.0, self.rate * np.maximum(t, 0.0)) / self.rate

    @property
    def mean(self) -> float:
        return 1.0 / self.rate

    def sample(self, rng, size):
        return rng.exponential(1.0 / self.rate, size)

    def params(self):
        return {"rate": self.rate}


@dataclass(frozen=True, eq=False)
class Weibull(FailureLaw):
    """Weibull law, ``S(t) = exp(-(t/scale)^shape)``.

    With ``nu = 1 + 1/shape`` and ``z = (t/scale)^shape``:
    ``H(t) = scale Gamma(nu) P(nu, z)`` and ``TE(t) = scale Gamma(nu) Q(nu, z)``.
    """

    shape: float
    scale: float
    kind: ClassVar[str] = "weibull"

    def __post_init__(self):
        object.__setattr__(self, "shape", _positive(self.shape, "shape"))
        object.__setattr__(self, "scale", _positive(self.scale, "scale"))

    def _z(self, t):
        return (np.maximum(t, 0.0) / self.scale) ** self.shape

    def sf(self, t):
        return np.exp(-self._z(t))

    def cdf(self, t):
        return -np.expm1(-self._z(t))

    def head_expectation(self, t):
        nu = 1.0 + 1.0 / self.shape
        return self.scale * special.gamma(nu) * special.gammainc(nu, self._z(t))

    def tail_expectation(self, t):
        nu = 1.0 + 1.0 / self.shape
        return self.scale * special.gamma(nu) * special.gammaincc(nu, self._z(t))

    @property
    def mean(self) -> float:
        return self.scale * math.gamma(1.0 + 1.0 / self.shape)

    def sample(self, rng, size):
        return self.scale * rng.weibull(self.shape, size)

    def params(self):
        return {"shape": self.shape, "scale": self.scale}


@dataclass(frozen=True, eq=False)
class HyperExponential(FailureLaw):
    """Mixture of exponentials: phase ``i`` with probability ``probs[i]`` and rate ``rates[i]``.

    ``S(t) = sum_i p_i exp(-r_i t)``; ``H`` and ``TE`` are the mixtures of the
    exponential phases' (see :class:`Exponential`).
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

    def _rt(self, t):
        return np.maximum(np.asarray(t, dtype=float), 0.0)[..., None] * self.rates

    def sf(self, t):
        return np.exp(-self._rt(t)) @ self.probs

    def cdf(self, t):
        return -np.expm1(-self._rt(t)) @ self.probs

    def head_expectation(self, t):
        return special.gammainc(2.0, self._rt(t)) @ (self.probs / self.rates)

    def tail_expectation(self, t):
        return special.gammaincc(2.0, self._rt(t)) @ (self.probs / self.rates)

    @property
    def mean(self) -> float:
        return float(self.probs @ (1.0 / self.rates))

    def sample(self, rng, size):
        phase = rng.choice(len(self.probs), size=size, p=self.probs)
        return rng.exponential(1.0, size) / self.rates[phase]

    def params(self):
        return {"probs": self.probs.tolist(), "rates": self.rates.tolist()}


@dataclass(frozen=True, eq=False)
class LogNormal(FailureLaw):
    """Log-normal law: ``ln T ~ N(mu, sigma^2)``.

    ``S(t) = Phi((mu - ln t)/sigma)``, ``H(t) = M Phi((ln t - mu - sigma^2)/sigma)`` and
    ``TE(t) = M Phi((mu + sigma^2 - ln t)/sigma)`` with ``M = exp(mu + sigma^2/2)``.
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

    def cdf(self, t):
        return special.ndtr((self._log(t) - self.mu) / self.sigma)

    def head_expectation(self, t):
        return self.mean * special.ndtr((self._log(t) - self.mu - self.sigma**2) / self.sigma)

    def tail_expectation(self, t):
        return self.mean * special.ndtr((self.mu + self.sigma**2 - self._log(t)) / self.sigma)

    @property
    def mean(self) -> float:
        return math.exp(self.mu + self.sigma**2 / 2)

    def sample(self, rng, size):
        return rng.lognormal(self.mu, self.sigma, size)

    def params(self):
        return {"mu": self.mu, "sigma": self.sigma}


@dataclass(frozen=True, eq=False)
class Empirical(FailureLaw):
    """The empirical law of a sample of failure times (each observation has mass 1/N).

    ``S(t) = #{x_k > t} / N``, ``H(t) = sum_{x_k <= t} x_k / N`` and
    ``TE(t) = sum_{x_k > t} x_k / N``.
    """

    samples: np.ndarray
    _prefix: np.ndarray = field(init=False, repr=False)
    _suffix: np.ndarray = field(init=False, repr=False)
    kind: ClassVar[str] = "empirical"

    def __post_init__(self):
        x = _vector(self.samples, "samples")
        require(len(x) >= 2, "samples", f"needs at least 2 observations, got {len(x)}")
        for i, v in enumerate(x.tolist()):
            require(v > 0, f"samples[{i}]", f"must be positive, got {v!r}")
        x = np.sort(x)
        object.__setattr__(self, "samples", x)
        object.__setattr__(self, "_prefix", np.concatenate([[0.0], np.cumsum(x)]))
        object.__setattr__(self, "_suffix", np.concatenate([np.cumsum(x[::-1])[::-1], [0.0]]))

    def sf(self, t):
        n = len(self.samples)
        return (n - np.searchsorted(self.samples, t, side="right")) / n

    def cdf(self, t):
        return np.searchsorted(self.samples, t, side="right") / len(self.samples)

    def head_expectation(self, t):
        return self._prefix[np.searchsorted(self.samples, t, side="right")] / len(self.samples)

    def tail_expectation(self, t):
        return self._suffix[np.searchsorted(self.samples, t, side="right")] / len(self.samples)

    @property
    def mean(self) -> float:
        return float(self._prefix[-1] / len(self.samples))

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
    require(isinstance(kind, str) and kind in LAWS, f"{field_name}.kind",
            f"must be one of {sorted(LAWS)}, got {kind!r}")
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
