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
*tail* ``TE(t) = E[T; T > t]`` (``H + TE`` is the mean), each computed to full
relative accuracy wherever it is a normal double, without overflow however
heavy the tail: the Weibull and exponential head is ``t z e^{-z} M(1, nu + 1,
z) / nu`` (Kummer's function, ``scipy.special.hyp1f1``) up to the mode, the
tail ``scale Gamma(nu) Q(nu, z)``, in log space once the mean overflows; the
log-normal head and tail are ``t/2 exp(-u^2/2) erfcx(|x|/sqrt 2)`` on their
small side, in which the mean ``exp(mu + sigma^2/2)`` cancels algebraically.
:meth:`FailureLaw.partial_expectation` differences whichever of
``H(b) - H(a)`` and ``TE(a) - TE(b)`` has the smaller terms, and
:meth:`FailureLaw.interval_probability` whichever of ``F(b) - F(a)`` and
``S(a) - S(b)``: the rounding error is a few ulps of ``min(H(b), TE(a))``
(resp. ``min(F(b), S(a))``), never of the mean. (A heavy tail puts the
median of ``F`` far below the point where ``H = TE``: the split at the median
this replaces differenced ``TE ~ 6e50`` for a log-normal law with
``sigma = 15``.)

A law without a closed form inherits numeric integration of the survival
function (``H(t) = int_0^t (S(u) - S(t)) du``, ``TE(t) = t S(t) + int_t^inf
S(u) du``); the tests use that path as an oracle for every closed form.

Accepted parameters: finite; rates at least the smallest normal double (the
mean ``1/rate`` is a double); Weibull shapes in :data:`WEIBULL_SHAPE_RANGE`,
any scale; log-normal ``sigma`` up to :data:`LOGNORMAL_SIGMA_MAX`, any ``mu``;
empirical samples with a finite sum. Over these ranges, on every job that
fails with probability at least
:data:`~volsched.instances.checkpoint.MIN_FAILURE_PROBABILITY`, the
checkpoint model's expected waste is within :data:`WASTE_RTOL` (relative) of
50-digit quadrature; the tests check it over the whole range. Outside them
nothing is known to fail, but nothing is tested either, and the readers
refuse the law rather than promise an accuracy.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np
from scipy import special

from .errors import InputError, is_number, require

_QUAD = {"limit": 200, "epsabs": 1e-13, "epsrel": 1e-12}
#: Relative accuracy of the checkpoint model's expected waste over the accepted
#: ranges below (worst measured: 2e-11; ``benchmarks/RESULTS.md``).
WASTE_RTOL = 1e-10
#: Weibull shapes accepted: the range the tests cover (property test, mpmath, Monte Carlo).
WEIBULL_SHAPE_RANGE = (0.001, 1000.0)
#: The largest log-normal ``sigma`` accepted (idem).
LOGNORMAL_SIGMA_MAX = 1000.0
_RANGE_REASON = f"the range over which the expected waste is tested to {WASTE_RTOL:g} relative"
#: The smallest rate whose mean ``1/rate`` is a double (the smallest normal double, ~2.2e-308).
_TINY_RATE = float(np.finfo(float).tiny)


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


def _rate(value: Any, name: str) -> float:
    value = _positive(value, name)
    require(
        value >= _TINY_RATE,
        name,
        f"must be at least {_TINY_RATE!r} (its mean 1/rate must be a double), got {value!r}",
    )
    return value


def _exp(x: float) -> float:
    """``e^x``, ``inf`` beyond the largest double (``math.exp`` raises)."""
    return math.exp(x) if x < 709.78 else math.inf


def _vector(values: Any, name: str) -> np.ndarray:
    require(isinstance(values, (list, tuple, np.ndarray)), name, "must be a list of numbers")
    for i, v in enumerate(values):
        _finite(v.item() if isinstance(v, np.generic) else v, f"{name}[{i}]")
    return np.asarray(values, dtype=float)


def _gamma_head_tail(t, z, nu: float, scale, mean):
    """``H = scale gamma(nu, z)`` and ``TE = scale Gamma(nu, z)`` for ``T = scale Z^(1/k)``, ``Z ~ Exp(1)``.

    ``z = (t / scale)^k``, ``nu = 1 + 1/k`` and ``mean = scale Gamma(nu)``, so
    ``scale z^nu = t z``. Up to the mode (``z <= nu``) the head is
    ``t z e^{-z} M(1, nu + 1, z) / nu``, exact to a few ulps down to the
    smallest ``t z`` (``mean P(nu, z)`` underflows long before); beyond it the
    head is at least ``mean / 2`` and is ``mean - TE``. The tail is
    ``mean Q(nu, z)``, in log space when the mean overflows (``Gamma(nu)``
    alone does for ``k < 0.006``; a tail too large for a double is ``inf``).
    """
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        near = t * z * np.exp(-z) * special.hyp1f1(1.0, nu + 1.0, np.minimum(z, nu)) / nu
        if np.isfinite(mean).all():
            tail = mean * special.gammaincc(nu, z)
        else:
            tail = np.exp(np.log(scale) + special.gammaln(nu) + np.log(special.gammaincc(nu, z)))
        return np.where(z <= nu, near, mean - tail), tail


def _quad(func, a: float, b: float) -> float:
    """``scipy.integrate.quad``'s value of ``func`` on ``[a, b]`` at :data:`_QUAD`'s tolerances."""
    # Imported here: scipy.integrate takes about 0.3 s to import, and only the laws without a closed
    # form of their expectations integrate (a checkpoint ``solve`` on a Weibull job never does).
    from scipy import integrate

    return integrate.quad(func, a, b, **_QUAD)[0]


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
            return _quad(lambda u: float(self.sf(u)) - s_x, 0.0, x)

        return np.vectorize(one, otypes=[float])(t)

    def tail_expectation(self, t):
        """``TE(t) = E[T; T > t]`` by numeric integration of the survival function."""

        def one(x: float) -> float:
            x = max(float(x), 0.0)
            if math.isinf(x):
                return 0.0
            return x * float(self.sf(x)) + _quad(self.sf, x, np.inf)

        return np.vectorize(one, otypes=[float])(t)

    def interval_probability(self, a, b):
        """``P(a < T <= b)``: ``F(b) - F(a)`` while ``F(b) <= S(a)``, else ``S(a) - S(b)``."""
        fb, sa = self.cdf(b), self.sf(a)
        return np.where(fb <= sa, fb - self.cdf(a), sa - self.sf(b))

    def partial_expectation(self, a, b):
        """``PE(a, b) = E[T; a < T <= b]`` for ``a <= b``; ``b`` may be ``inf``.

        ``H(b) - H(a)`` while ``H(b) <= TE(a)``, else ``TE(a) - TE(b)``: the
        rounding error is a few ulps of ``min(H(b), TE(a))``. (``H(b) <= b`` is
        always finite; the tail, which may be ``inf`` for a heavy law, is
        differenced only when it is the smaller.)
        """
        a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
        # Both ends in one evaluation of the law: the hunt computes thousands of wastes a second.
        head, tail = self._head_tail(np.concatenate([a.ravel(), b.ravel()]))
        k = a.size
        h_a, te_a = head[:k].reshape(a.shape), tail[:k].reshape(a.shape)
        h_b, te_b = head[k:].reshape(a.shape), tail[k:].reshape(a.shape)
        with np.errstate(invalid="ignore"):
            out = np.where(h_b <= te_a, h_b - h_a, te_a - te_b)
        return out if out.ndim else float(out)

    def _head_tail(self, t):
        """``(H(t), TE(t))``; laws that compute both at once override it."""
        return self.head_expectation(t), self.tail_expectation(t)

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
    """Exponential law, ``S(t) = exp(-rate t)``: the Weibull law of shape 1 and scale ``1/rate``.

    ``H(t) = P(2, rate t) / rate`` and ``TE(t) = Q(2, rate t) / rate = (t + 1/rate) exp(-rate t)``
    with ``P``, ``Q`` the regularized lower and upper incomplete gamma
    functions, computed as :func:`_gamma_head_tail` says.
    """

    rate: float
    kind: ClassVar[str] = "exponential"

    def __post_init__(self):
        object.__setattr__(self, "rate", _rate(self.rate, "rate"))

    def _z(self, t):
        with np.errstate(over="ignore"):  # rate t beyond the doubles: S = 0
            return self.rate * np.maximum(t, 0.0)

    def sf(self, t):
        return np.exp(-self._z(t))

    def cdf(self, t):
        return -np.expm1(-self._z(t))

    def _head_tail(self, t):
        return _gamma_head_tail(np.maximum(t, 0.0), self._z(t), 2.0, 1.0 / self.rate, 1.0 / self.rate)

    def head_expectation(self, t):
        return self._head_tail(t)[0]

    def tail_expectation(self, t):
        return self._head_tail(t)[1]

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
    ``H(t) = scale Gamma(nu) P(nu, z)`` and ``TE(t) = scale Gamma(nu) Q(nu, z)``,
    computed as :func:`_gamma_head_tail` says. ``shape`` must lie in
    :data:`WEIBULL_SHAPE_RANGE`.
    """

    shape: float
    scale: float
    kind: ClassVar[str] = "weibull"

    def __post_init__(self):
        shape = _positive(self.shape, "shape")
        low, high = WEIBULL_SHAPE_RANGE
        require(low <= shape <= high, "shape", f"must be in [{low}, {high}], got {shape!r}: {_RANGE_REASON}")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "scale", _positive(self.scale, "scale"))

    def _z(self, t):
        with np.errstate(over="ignore", under="ignore"):
            return (np.maximum(t, 0.0) / self.scale) ** self.shape

    def sf(self, t):
        return np.exp(-self._z(t))

    def cdf(self, t):
        return -np.expm1(-self._z(t))

    def _head_tail(self, t):
        t = np.maximum(t, 0.0)
        return _gamma_head_tail(t, self._z(t), 1.0 + 1.0 / self.shape, self.scale, self.mean)

    def head_expectation(self, t):
        return self._head_tail(t)[0]

    def tail_expectation(self, t):
        return self._head_tail(t)[1]

    @property
    def mean(self) -> float:
        nu = 1.0 + 1.0 / self.shape
        return self.scale * math.gamma(nu) if nu < 171 else _exp(math.log(self.scale) + math.lgamma(nu))

    def sample(self, rng, size):
        with np.errstate(over="ignore"):  # a failure time beyond the doubles never falls in a job
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
            _rate(r, f"rates[{i}]")
        total = float(probs.sum())
        require(abs(total - 1.0) <= 1e-9, "probs", f"must sum to 1, got {total!r}")
        object.__setattr__(self, "probs", probs)
        object.__setattr__(self, "rates", rates)

    def _rt(self, t):
        with np.errstate(over="ignore"):
            return np.maximum(np.asarray(t, dtype=float), 0.0)[..., None] * self.rates

    def sf(self, t):
        return np.exp(-self._rt(t)) @ self.probs

    def cdf(self, t):
        return -np.expm1(-self._rt(t)) @ self.probs

    def _head_tail(self, t):
        t = np.maximum(np.asarray(t, dtype=float), 0.0)[..., None]
        head, tail = _gamma_head_tail(t, self._rt(t[..., 0]), 2.0, 1.0 / self.rates, 1.0 / self.rates)
        return head @ self.probs, tail @ self.probs

    def head_expectation(self, t):
        return self._head_tail(t)[0]

    def tail_expectation(self, t):
        return self._head_tail(t)[1]

    @property
    def mean(self) -> float:
        return float(self.tail_expectation(0.0))

    def sample(self, rng, size):
        phase = rng.choice(len(self.probs), size=size, p=self.probs)
        with np.errstate(over="ignore"):
            return rng.exponential(1.0, size) / self.rates[phase]

    def params(self):
        return {"probs": self.probs.tolist(), "rates": self.rates.tolist()}


@dataclass(frozen=True, eq=False)
class LogNormal(FailureLaw):
    """Log-normal law: ``ln T ~ N(mu, sigma^2)``.

    ``S(t) = Phi(-u)`` with ``u = (ln t - mu)/sigma``; with ``x = u - sigma`` and
    the mean ``M = exp(mu + sigma^2/2)``, ``H(t) = M Phi(x)`` and ``TE(t) = M Phi(-x)``.
    Since ``M exp(-x^2/2) = t exp(-u^2/2)``, ``M Phi(-|x|) = t/2 exp(-u^2/2)
    erfcx(|x|/sqrt 2)``: the side below ``x = 0`` (``t = exp(mu + sigma^2)``,
    where ``H = TE``) is computed that way, without ``M`` (``e^{117}`` at
    ``sigma = 15``, beyond the largest double at ``sigma = 38``), and the other
    as ``M - `` that side, or ``exp(mu + sigma^2/2 + log_ndtr(-x))``.
    ``sigma`` is at most :data:`LOGNORMAL_SIGMA_MAX`.
    """

    mu: float
    sigma: float
    kind: ClassVar[str] = "lognormal"

    def __post_init__(self):
        object.__setattr__(self, "mu", _finite(self.mu, "mu"))
        sigma = _positive(self.sigma, "sigma")
        require(
            sigma <= LOGNORMAL_SIGMA_MAX,
            "sigma",
            f"must be at most {LOGNORMAL_SIGMA_MAX}, got {sigma!r}: {_RANGE_REASON}",
        )
        object.__setattr__(self, "sigma", sigma)

    def _log(self, t):
        with np.errstate(divide="ignore"):
            return np.log(np.maximum(t, 0.0))

    def sf(self, t):
        return special.ndtr((self.mu - self._log(t)) / self.sigma)

    def cdf(self, t):
        return special.ndtr((self._log(t) - self.mu) / self.sigma)

    def _head_tail(self, t):
        t = np.maximum(np.asarray(t, dtype=float), 0.0)
        u = (self._log(t) - self.mu) / self.sigma
        x = u - self.sigma
        mean = self.mean
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            near = 0.5 * t * np.exp(-0.5 * u * u) * special.erfcx(np.abs(x) / math.sqrt(2.0))
            head = np.where(x <= 0, near, mean - near)
            tail = np.where(x >= 0, near, np.exp(self.mu + 0.5 * self.sigma**2 + special.log_ndtr(-x)))
        if np.any(np.isposinf(t)):  # inf * exp(-inf) above; t = 0 needs no case
            head, tail = np.where(np.isposinf(t), mean, head), np.where(np.isposinf(t), 0.0, tail)
        return head, tail

    def head_expectation(self, t):
        return self._head_tail(t)[0]

    def tail_expectation(self, t):
        return self._head_tail(t)[1]

    @property
    def mean(self) -> float:
        return _exp(self.mu + self.sigma**2 / 2)

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
        try:
            math.fsum(x)
        except OverflowError:
            raise InputError("samples: their sum must be a finite double") from None
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
    require(
        isinstance(kind, str) and kind in LAWS,
        f"{field_name}.kind",
        f"must be one of {sorted(LAWS)}, got {kind!r}",
    )
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
