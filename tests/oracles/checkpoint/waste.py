"""Hand-written oracles of the checkpoint model shared by its tests (independent of the library)."""

from __future__ import annotations

import math

import numpy as np

from volsched.instances.laws import Exponential, HyperExponential, LogNormal, Weibull


def intervals(p, c, a):
    """Checkpoint intervals ``(start, end, sigma)`` of schedule ``a``, from the model.

    The job runs its slices back to back; after slice ``j`` with ``a_j = 1`` it
    spends ``c_j`` writing a checkpoint. An interval runs from the end of one
    checkpoint to the end of the next; ``sigma`` is the overhead accumulated
    up to and including the closing checkpoint.
    """
    out, clock, sigma, start = [], 0, 0, 0
    for pj, cj, aj in zip(p, c, a, strict=True):
        clock += pj
        if aj:
            clock += cj
            sigma += cj
            out.append((start, clock, sigma))
            start = clock
    return out


def survival(law):
    """Hand-written survival functions."""
    if isinstance(law, Exponential):
        return lambda t: math.exp(-law.rate * t)
    if isinstance(law, Weibull):
        return lambda t: math.exp(-((t / law.scale) ** law.shape))
    if isinstance(law, LogNormal):
        return lambda t: (
            0.5 * math.erfc((math.log(t) - law.mu) / (law.sigma * math.sqrt(2))) if t > 0 else 1.0
        )
    if isinstance(law, HyperExponential):
        pairs = list(zip(law.probs.tolist(), law.rates.tolist(), strict=True))
        return lambda t: sum(q * math.exp(-r * t) for q, r in pairs)
    raise TypeError(law)


def waste_at(t, p, c, a, alpha):
    """Wasted time if the failure strikes at ``t`` (Expression 1's integrand), vectorised.

    ``t`` in ``(start, end]``: ``sigma + alpha (t - start)``; after the job's end: 0. A drawn
    ``t = 0`` is a positive time below the smallest double (a Weibull law of shape 0.001
    draws ``scale E^1000``): it falls in the first interval.
    """
    t = np.asarray(t, dtype=float)
    w = np.zeros_like(t)
    for start, end, sigma in intervals(p, c, a):
        hit = ((t > start) if start > 0 else (t >= 0)) & (t <= end)
        w[hit] = sigma + alpha * (t[hit] - start)
    return w


def monte_carlo(inst, a, samples, seed):
    """Mean waste over ``samples`` failure times drawn from the law, its standard error, and
    how many draws fell inside the job."""
    t = inst.law.sample(np.random.default_rng(seed), samples)
    w = waste_at(t, inst.p.tolist(), inst.c.tolist(), a, inst.alpha)
    return float(w.mean()), float(w.std(ddof=1) / math.sqrt(samples)), int(np.count_nonzero(w))


def waste_mpmath(inst, a, digits=50):
    """Expression 1 in ``digits``-digit arithmetic (mpmath): the laws' F and S written from
    their definitions, ``sigma P + alpha int_s^e (F(e) - F(t)) dt`` per interval (or with S
    past the median), split at the law's quantiles and geometrically towards both ends."""
    import mpmath as mp

    mp.mp.dps = digits
    d = inst.law.to_dict()
    kind = d["kind"]
    levels = (
        [mp.mpf(10) ** -j for j in range(1, 16)]
        + [mp.mpf(j) / 20 for j in range(1, 20)]
        + [1 - mp.mpf(10) ** -j for j in range(2, 16)]
    )
    if kind == "exponential":
        r = mp.mpf(d["rate"])
        sf, cdf = (lambda t: mp.exp(-r * t)), (lambda t: -mp.expm1(-r * t))
        cuts = [-mp.log1p(-q) / r for q in levels]
    elif kind == "weibull":
        k, scale = mp.mpf(d["shape"]), mp.mpf(d["scale"])
        sf, cdf = (lambda t: mp.exp(-((t / scale) ** k))), (lambda t: -mp.expm1(-((t / scale) ** k)))
        cuts = [scale * (-mp.log1p(-q)) ** (1 / k) for q in levels]
    elif kind == "lognormal":
        mu, sg = mp.mpf(d["mu"]), mp.mpf(d["sigma"])
        sf = lambda t: mp.mpf(1) if t == 0 else mp.ncdf((mu - mp.log(t)) / sg)  # noqa: E731
        cdf = lambda t: mp.mpf(0) if t == 0 else mp.ncdf((mp.log(t) - mu) / sg)  # noqa: E731
        cuts = [mp.exp(mu + sg * mp.sqrt(2) * mp.erfinv(2 * q - 1)) for q in levels]
    elif kind == "hyperexponential":
        pairs = [(mp.mpf(q), mp.mpf(r)) for q, r in zip(d["probs"], d["rates"], strict=True)]
        sf = lambda t: mp.fsum(q * mp.exp(-r * t) for q, r in pairs)  # noqa: E731
        cdf = lambda t: mp.fsum(-q * mp.expm1(-r * t) for q, r in pairs)  # noqa: E731
        cuts = [-mp.log1p(-q) / r for _, r in pairs for q in levels]
    else:
        raise TypeError(kind)
    total = mp.mpf(0)
    for start, end, sigma in intervals(inst.p.tolist(), inst.c.tolist(), a):
        lo, hi = mp.mpf(start), mp.mpf(end)
        width = hi - lo
        points = {lo, hi, *mp.linspace(lo, hi, 9)}
        points |= {lo + width * mp.mpf(2) ** -j for j in range(1, 40 if start == 0 else 6)}
        points |= {hi - width * mp.mpf(2) ** -j for j in range(1, 6)}
        points |= {x for x in cuts if lo < x < hi}
        points = sorted(points)
        f_end = cdf(hi)
        if f_end <= mp.mpf(1) / 2:
            prob, lost = f_end - cdf(lo), mp.quad(lambda t, f_end=f_end: f_end - cdf(t), points)
        else:
            s_end = sf(hi)
            prob, lost = sf(lo) - s_end, mp.quad(lambda t, s_end=s_end: sf(t) - s_end, points)
        total += sigma * prob + mp.mpf(inst.alpha) * lost
    return total
