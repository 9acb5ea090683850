"""Hand-written oracles of the checkpoint model shared by its tests (independent of the library)."""

from __future__ import annotations

import math

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
        return lambda t: (0.5 * math.erfc((math.log(t) - law.mu) / (law.sigma * math.sqrt(2)))
                          if t > 0 else 1.0)
    if isinstance(law, HyperExponential):
        pairs = list(zip(law.probs.tolist(), law.rates.tolist(), strict=True))
        return lambda t: sum(q * math.exp(-r * t) for q, r in pairs)
    raise TypeError(law)
