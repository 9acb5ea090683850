"""Synthetic desktop grids modelled on the paper's platforms (Sections 3.1, 3.2, 6.2).

The paper's CPU-availability traces are not public; these generators draw
traces with the statistics it publishes (readings 3.1-3.10), from laws in
``scipy.stats`` and ``numpy.random``, and :func:`calibrate` measures them the
way the paper does.

Clock rates (MHz), drawn independently of availability ("the availability
interval size is independent of host clock rate", Section 3.2):

* **SDSC**: "ranged from 179MHz up to 3.0GHz, with an average of 1.19GHz ...
  no host has a clock rate between 1GHz and 1.45GHz ... over 30% of the hosts
  have clock rates between 797MHz and 863MHz", SD "730MHz" (Section 5.1),
  slightly more than half at or above 1.45 GHz (reading 3.1a). Those
  statistics leave almost no freedom (reading 3.1a: a linear program forces a
  slow tail); the law is a mixture of uniform bands, one per product step, with
  the weights of smallest sum of squares that meet them
  (``benchmarks/fit_prescient_platforms.py --clocks``): 30 % in 797-863 MHz,
  50 % at or above 1450 MHz, 20 % below 300 MHz, mean 1190, SD 730.
* **DEUG**: 1.6-2.8 GHz, "almost 70% of the hosts have clock rates of
  2.4GHz" (also the median): 70 % at 2400, 15 % uniform in [1600, 2400),
  15 % in (2400, 2800].
* **LRI**: 1.5-2 GHz, "about 65%" at the mode and median 2 GHz: 65 % at
  2000, 35 % uniform in [1500, 2000).
* **UCB**: all 1500 MHz (the paper's own transformation).
* **GIMPS**: SDSC availability, clocks from a left-heavy law over 25 MHz to
  3.4 GHz ("many more slow hosts than fast hosts"): a beta(1.3, 3) law scaled
  to [25, 3400] (mean 1045 MHz). Figure 2b is not given numerically; the shape
  is this module's choice.
* **LRI-WISC**: SDSC availability, clocks in the proportions 9 x 1800 :
  50 x 600 : 73 x 900 MHz over the N hosts (reading 3.6).
* **UCB-LRI-{n33,n15,n06,p06,p15,p33}** (Section 6.2): half UCB hosts with
  clocks normal(1500, 250) (truncated to [100, 3400] MHz), half LRI hosts all
  at ``1500 * (1 + x)`` MHz (reading 3.7, the literal reading).

Clock rates are drawn by stratified sampling (quantiles ``(i + U_i) / N`` of
the law, then shuffled), so that 200 hosts show the law's statistics.

Availability: each host alternates up and down. Up lengths are Weibull with
a per-host scale (lognormal across hosts: a few very volatile hosts and many
stable ones, Section 6.1), down lengths lognormal. Failures run on a clock
that is slower outside the platform's weekday window (``off_factor``) and
varies from weekday to weekday by a factor common to all hosts (a lognormal
day factor): that common factor is what gives the aggregate power its
coefficient of variation (Section 5.2: "13%"). DEUG's classrooms add
group-wide outages (correlated availability, Section 6.1).

SDSC (and so GIMPS and LRI-WISC) adds two host classes, so that the failure
rate grows linearly with task length as Section 3.3 says ("increases
linearly with task size from a minimum of 6.33% for a 5 minute task to a
maximum of 22% for a 35 minute task"). By random incidence, a task of wall
length ``L`` fails with probability ``sum_i min(U_i, L) / sum_i U_i`` over the
up intervals ``U_i``: a straight line ``a + b L`` needs a share ``a`` of the up
time in intervals shorter than every task (``a`` about 3.7 %, the line's
value at 0) and no other interval shorter than ``L`` (then ``b`` is the
number of intervals per unit of up time). Hence:

* **flap hosts** (``flap_hosts``, about a quarter): every up period is a flap of
  about a minute of real time; they fail almost every task, hold the
  intercept's up time and most of the hosts above 20 % failure (Section 6.1);
* **the other hosts** stay up at least ``up_min`` minutes of real time (about
  7 hours) each time they come up, then fail on the failure clock after a
  Weibull draw. The minimum is that long because SDSC's slowest hosts
  (179 MHz) run a 35-minute task for 293 minutes.

A plain Weibull with lognormal scales (the other platforms' law) puts up
intervals at every length and bends the curve (a fitted SDSC of that law gave
6.8 / 12.4 / 18.3 % at 5 / 15 / 35 minutes, benchmarks/RESULTS.md). While up, the
CPU is whole ("hosts are usually completely idle", Section 4) except during
load episodes, of share 0 (suspension) or uniform in [0.1, 0.9]. UCB has no
suspension and no load (its traces mark a host available only when idle).

Time 0 is Monday 00:00; the application starts at a random time in a weekday
window from Tuesday on, and the history is the previous weekday's window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from ..errors import InputError, check_int, check_number, require
from .model import DEFAULT_PERIOD_S, UCB_PERIOD_S, PrescientInstance

HOUR = 3600.0
#: Most hosts x days a generator draws (the speed scale: 10,000 hosts over a week); a larger
#: platform is refused, not run out of memory.
MAX_HOST_DAYS = 70_000
DAY = 86400.0
WEEK = 7 * DAY


# ---------------------------------------------------------------------- clock laws
@dataclass(frozen=True)
class ClockLaw:
    """A mixture of ``scipy.stats`` laws and atoms, in MHz.

    ``parts`` holds ``(weight, law)`` pairs, a law being a frozen
    ``scipy.stats`` distribution or a number (an atom).
    """

    parts: tuple
    low: float
    high: float

    def _moments(self) -> tuple[float, float]:
        m1 = m2 = 0.0
        for w, law in self.parts:
            if isinstance(law, (int, float)):
                m1, m2 = m1 + w * law, m2 + w * law * law
            else:
                m1, m2 = m1 + w * law.mean(), m2 + w * (law.var() + law.mean() ** 2)
        return m1, m2

    @property
    def mean(self) -> float:
        return self._moments()[0]

    @property
    def std(self) -> float:
        m1, m2 = self._moments()
        return math.sqrt(max(m2 - m1 * m1, 0.0))

    def cdf(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        out = np.zeros_like(x)
        for w, law in self.parts:
            out += w * ((x >= law).astype(float) if isinstance(law, (int, float)) else law.cdf(x))
        return out

    def ppf(self, q) -> np.ndarray:
        """Quantiles on a 0.1-MHz grid (atoms exactly)."""
        atoms = [float(law) for _, law in self.parts if isinstance(law, (int, float))]
        grid = np.union1d(np.arange(self.low, self.high + 0.1, 0.1), atoms)
        cdf = np.maximum.accumulate(self.cdf(grid))
        idx = np.searchsorted(cdf, np.asarray(q, dtype=float) * cdf[-1], side="left")
        return grid[np.minimum(idx, grid.size - 1)]

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` clock rates, stratified over the law's quantiles and shuffled, rounded to 1 MHz."""
        q = (np.arange(n) + rng.random(n)) / n
        return rng.permutation(np.round(self.ppf(q)))


def _uniform(a: float, b: float):
    return stats.uniform(loc=a, scale=b - a)


#: SDSC bands (MHz) and weights: see the module docstring and
#: ``benchmarks/fit_prescient_platforms.py --clocks``.
SDSC_BANDS = (
    (179, 200, 0.166),
    (233, 300, 0.034),
    (797, 863, 0.300),
    (1450, 1600, 0.307),
    (1700, 2000, 0.121),
    (2800, 3000, 0.072),
)


def sdsc_clocks() -> ClockLaw:
    return ClockLaw(tuple((w, _uniform(a, b)) for a, b, w in SDSC_BANDS), 179.0, 3000.0)


def deug_clocks() -> ClockLaw:
    return ClockLaw(
        ((0.70, 2400.0), (0.15, _uniform(1600, 2400)), (0.15, _uniform(2400.1, 2800))), 1600.0, 2800.0
    )


def lri_clocks() -> ClockLaw:
    return ClockLaw(((0.65, 2000.0), (0.35, _uniform(1500, 2000))), 1500.0, 2000.0)


def ucb_clocks() -> ClockLaw:
    return ClockLaw(((1.0, 1500.0),), 1500.0, 1500.0)


#: GIMPS: beta(1.3, 3) over [25, 3400] MHz, "left heavy" (module docstring).
GIMPS_BETA = (1.3, 3.0)


def gimps_clocks() -> ClockLaw:
    return ClockLaw(((1.0, stats.beta(*GIMPS_BETA, loc=25.0, scale=3375.0)),), 25.0, 3400.0)


#: LRI-WISC: "nine 1.8GHz machines ... fifty 600MHz machines and seventy-three 900MHz machines".
LRI_WISC_COUNTS = ((1800.0, 9), (600.0, 50), (900.0, 73))


def lri_wisc_clocks() -> ClockLaw:
    total = sum(c for _, c in LRI_WISC_COUNTS)
    return ClockLaw(tuple((c / total, v) for v, c in LRI_WISC_COUNTS), 600.0, 1800.0)


#: UCB-LRI: UCB clocks "follow a normal distribution with mean 1500MHz and standard deviation of 250MHz".
UCB_LRI_SHIFTS = {"n33": -0.33, "n15": -0.15, "n06": -0.06, "p06": 0.06, "p15": 0.15, "p33": 0.33}


def ucb_normal_clocks() -> ClockLaw:
    a, b = (100.0 - 1500.0) / 250.0, (3400.0 - 1500.0) / 250.0
    return ClockLaw(((1.0, stats.truncnorm(a, b, loc=1500.0, scale=250.0)),), 100.0, 3400.0)


# ---------------------------------------------------------------------- availability model
@dataclass(frozen=True)
class Availability:
    """Parameters of a platform's availability model (module docstring); times in minutes.

    Attributes
    ----------
    window : (float, float)
        Weekday window in hours (Section 3.2): SDSC 9-18, DEUG 6-18, UCB
        10-17, LRI all day (0-24).
    up_shape : float
        Weibull shape of up lengths.
    up_scale_median, up_scale_sigma : float
        Per-host Weibull scale (minutes, in business hours): lognormal with
        this median and log-SD.
    down_median, down_sigma : float
        Lognormal down lengths (minutes).
    off_factor : float
        Failures are this many times rarer outside the window and on weekends.
    day_sigma : float
        Log-SD of the weekday factor on the failure rate, common to all hosts.
    down_day_power : float
        Down periods that start inside a weekday window last ``factor **
        down_day_power`` times longer (busy days have more and longer outages).
    flap_prob, flap_mean : float
        An up period is a short "flap" (exponential, mean ``flap_mean``
        minutes of real time) with this probability: hosts that go down
        again within minutes ("a short availability interval is often
        followed by another short availability interval", Section 6.1). A
        flap's length does not follow the failure clock, so that it stays
        shorter than the tasks at night and on quiet days too.
    flap_hosts : float
        Share of the hosts (exactly ``round(flap_hosts * n)``, chosen at
        random) whose every up period is a flap. Default 0: no such host.
        Why: under random incidence, up time in intervals shorter than any
        task fails every task, which gives the paper's failure line its
        intercept (about 3.7 % at 0 minutes, Section 3.3); whole hosts that
        flap are the "few very volatile hosts" of Section 6.1 and cost
        little up time.
    up_min : float
        Minutes of real time a host stays up, at least, each time it comes
        up (flaps excepted); the Weibull draw runs on the failure clock
        after that. Default 0: the plain Weibull. Why: under random
        incidence a task of length ``L`` fails with probability
        ``E[min(U, L)] / E[U]`` over the up lengths ``U``, which is linear in
        ``L`` only while no up interval is shorter than ``L``; the paper's
        rates grow linearly from 5 to 35 minutes (Section 3.3), and a
        minimum longer than the tasks' wall time makes the curve straight. It
        is in real time so that busy days (a fast failure clock) keep it.
    load_per_hour, load_median, load_sigma, zero_share : float
        CPU load episodes per up hour in the window (rarer outside, by
        ``off_factor``), their lognormal length (minutes), and the probability
        that an episode's share is 0 (else uniform in [0.1, 0.9]).
    group_size, group_per_hour, group_median, group_sigma : float
        Correlated outages (DEUG): groups of ``group_size`` hosts go down
        together, that many times per hour in the window, for lognormal lengths.
    suspension : bool
    period : float
        CPU sample period in seconds.
    """

    window: tuple[float, float]
    up_shape: float
    up_scale_median: float
    up_scale_sigma: float
    down_median: float
    down_sigma: float
    off_factor: float
    day_sigma: float
    down_day_power: float = 0.0
    flap_prob: float = 0.0
    flap_mean: float = 1.0
    flap_hosts: float = 0.0
    up_min: float = 0.0
    load_per_hour: float = 0.0
    load_median: float = 5.0
    load_sigma: float = 1.0
    zero_share: float = 0.5
    group_size: int = 0
    group_per_hour: float = 0.0
    group_median: float = 10.0
    group_sigma: float = 1.0
    suspension: bool = True
    period: float = DEFAULT_PERIOD_S


#: Fitted with ``python benchmarks/fit_prescient_platforms.py`` to the paper's
#: statistics (benchmarks/RESULTS.md records the achieved figures).
SDSC_AVAILABILITY = Availability(
    window=(9.0, 18.0),
    up_shape=0.5498,
    up_scale_median=2.904,
    up_scale_sigma=2.508,
    up_min=400.3,
    flap_hosts=0.2322,
    flap_mean=1.09,
    down_median=8.0,
    down_sigma=1.3,
    off_factor=6.0,
    day_sigma=0.8637,
    down_day_power=1.458,
    load_per_hour=0.6,
    load_median=4.0,
    load_sigma=1.0,
    zero_share=0.5,
)
#: DEUG, LRI and UCB spell out every field (they once inherited SDSC's through ``replace``), so that
#: refitting SDSC leaves their traces unchanged.
DEUG_AVAILABILITY = Availability(
    window=(6.0, 18.0),
    up_shape=0.597,
    up_scale_median=75.31,
    up_scale_sigma=1.687,
    down_median=8.0,
    down_sigma=1.3,
    off_factor=6.0,
    day_sigma=0.6412,
    down_day_power=0.53,
    load_per_hour=0.6,
    load_median=4.0,
    load_sigma=1.0,
    zero_share=0.5,
    group_size=20,
    group_per_hour=0.15,
    group_median=8.0,
    group_sigma=1.0,
)
LRI_AVAILABILITY = Availability(
    window=(0.0, 24.0),
    up_shape=0.8,
    up_scale_median=20000.0,
    up_scale_sigma=0.5,
    down_median=8.0,
    down_sigma=1.3,
    off_factor=1.0,
    day_sigma=0.2,
    down_day_power=0.53,
    load_per_hour=0.2,
    load_median=4.0,
    load_sigma=1.0,
    zero_share=0.5,
)
UCB_AVAILABILITY = Availability(
    window=(10.0, 17.0),
    up_shape=0.597,
    up_scale_median=35.53,
    up_scale_sigma=2.056,
    down_median=3.0,
    down_sigma=1.2,
    off_factor=6.0,
    day_sigma=0.6412,
    down_day_power=0.53,
    load_per_hour=0.0,
    load_median=4.0,
    load_sigma=1.0,
    zero_share=0.5,
    suspension=False,
    period=UCB_PERIOD_S,
)


@dataclass(frozen=True)
class Platform:
    name: str
    clocks: ClockLaw
    availability: Availability
    #: For UCB-LRI: the second half of the hosts (LRI availability, clocks all at this value).
    second: tuple[Availability, float] | None = None


def platforms() -> dict[str, Platform]:
    out = {
        "sdsc": Platform("sdsc", sdsc_clocks(), SDSC_AVAILABILITY),
        "deug": Platform("deug", deug_clocks(), DEUG_AVAILABILITY),
        "lri": Platform("lri", lri_clocks(), LRI_AVAILABILITY),
        "ucb": Platform("ucb", ucb_clocks(), UCB_AVAILABILITY),
        "gimps": Platform("gimps", gimps_clocks(), SDSC_AVAILABILITY),
        "lri-wisc": Platform("lri-wisc", lri_wisc_clocks(), SDSC_AVAILABILITY),
    }
    for tag, shift in UCB_LRI_SHIFTS.items():
        name = f"ucb-lri-{tag}"
        out[name] = Platform(
            name,
            ucb_normal_clocks(),
            UCB_AVAILABILITY,
            second=(LRI_AVAILABILITY, round(1500.0 * (1 + shift), 6)),
        )
    return out


PLATFORMS = tuple(platforms())


def _window_knots(av: Availability, days: int, day_factor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knots of the failure clock: real times and cumulative "failure time" (both increasing)."""
    a, b = av.window
    times, rates = [], []
    for d in range(days):
        base = d * DAY
        weekday = d % 7 < 5
        if weekday and b > a:
            times += [base, base + a * HOUR, base + b * HOUR]
            rates += [1.0 / av.off_factor, float(day_factor[d]), 1.0 / av.off_factor]
        else:
            times += [base]
            rates += [1.0 / av.off_factor]
    times = np.array([*times, days * DAY])
    rates = np.array(rates)
    cum = np.concatenate([[0.0], np.cumsum(np.diff(times) * rates)])
    # a window of 0-24 gives repeated knots; keep the first of equal times
    keep = np.concatenate([[True], np.diff(times) > 0])
    return times[keep], cum[keep]


def _renewal(rng, n, horizon, knots, up_draw, down_draw, p_up, down_scale):
    """Alternating up/down periods per host: up lengths on the failure clock, down lengths in real time.

    ``up_draw(n)`` gives ``(length, minimum)``: the failure clock starts ``minimum`` seconds of real
    time after the host comes up. ``down_scale(t)`` multiplies a down length that starts at ``t``.
    """
    kt, kc = knots
    t = np.zeros(n)
    up = rng.random(n) < p_up
    starts, ends = [], []
    while True:
        active = t < horizon
        if not active.any():
            break
        d_up, d_min = up_draw(n)
        d_down = down_draw(n)
        clock = np.interp(t + d_min, kt, kc)
        t_up_end = np.interp(clock + d_up, kc, kt, right=np.inf)
        beyond = clock + d_up > kc[-1]
        t_up_end = np.where(beyond, np.inf, t_up_end)
        nxt = np.where(up, t_up_end, t + d_down * down_scale(t))
        rec = active & up
        starts.append(np.where(rec, t, np.nan))
        ends.append(np.where(rec, np.minimum(nxt, horizon), np.nan))
        t = np.where(active, nxt, t)
        up = np.where(active, ~up, up)
    s = np.stack(starts, axis=1)
    e = np.stack(ends, axis=1)
    keep = np.isfinite(s) & (e > s)
    counts = keep.sum(axis=1)
    return s[keep], e[keep], counts


def _subtract(s, e, cs, ce):
    """Sorted disjoint intervals minus a set of (possibly overlapping) cuts."""
    if cs.size == 0:
        return s, e
    times = np.concatenate([s, e, cs, ce])
    du = np.concatenate([np.ones_like(s), -np.ones_like(e), np.zeros_like(cs), np.zeros_like(ce)])
    dc = np.concatenate([np.zeros_like(s), np.zeros_like(e), np.ones_like(cs), -np.ones_like(ce)])
    order = np.lexsort((du + dc, times))
    times, du, dc = times[order], du[order], dc[order]
    state = (np.cumsum(du) > 0) & (np.cumsum(dc) == 0)
    prev = np.concatenate([[False], state[:-1]])
    opens = np.flatnonzero(state & ~prev)
    closes = np.flatnonzero(~state & prev)
    ns, ne = times[opens], times[closes]
    keep = ne > ns
    return ns[keep], ne[keep]


def _draw_up(rng, av: Availability, scales, flapper):
    """Up lengths (seconds on the failure clock) and their real-time minimum; ``flapper`` marks flap hosts."""
    minimum = av.up_min * 60.0

    def draw(n):
        long = rng.weibull(av.up_shape, n) * scales * 60.0
        if av.flap_prob <= 0 and av.flap_hosts <= 0:
            return long, np.full(n, minimum)
        short = rng.exponential(av.flap_mean * 60.0, n)
        flap = flapper | (rng.random(n) < av.flap_prob) if av.flap_prob > 0 else flapper
        return np.where(flap, 0.0, long), np.where(flap, short, minimum)

    return draw


def _draw_down(rng, av: Availability):
    def draw(n):
        return rng.lognormal(math.log(av.down_median * 60.0), av.down_sigma, n)

    return draw


def _host_traces(rng, av: Availability, n: int, days: int, day_factor: np.ndarray, period: float):
    """``(starts, ends, counts)`` of the up intervals and ``(samples, shares, counts)`` of the CPU runs."""
    horizon = days * DAY
    knots = _window_knots(av, days, day_factor)
    scales = rng.lognormal(math.log(av.up_scale_median), av.up_scale_sigma, n)
    flapper = np.zeros(n, dtype=bool)
    if av.flap_hosts > 0:
        flapper[rng.permutation(n)[: int(round(av.flap_hosts * n))]] = True
    long_mean = av.up_min + scales * math.gamma(1 + 1 / av.up_shape)
    mean_up = (1 - av.flap_prob) * long_mean + av.flap_prob * av.flap_mean
    mean_up = np.where(flapper, av.flap_mean, mean_up)
    mean_down = av.down_median * math.exp(av.down_sigma**2 / 2)
    windows = np.array(weekday_windows(av.window, days)).reshape(-1, 2)
    factors = np.array([day_factor[d] for d in range(days) if d % 7 < 5]) ** av.down_day_power

    def down_scale(t):
        k = np.searchsorted(windows[:, 0], t, side="right") - 1
        inside = (k >= 0) & (t < windows[np.maximum(k, 0), 1])
        return np.where(inside, factors[np.maximum(k, 0)], 1.0)

    s, e, counts = _renewal(
        rng,
        n,
        horizon,
        knots,
        _draw_up(rng, av, scales, flapper),
        _draw_down(rng, av),
        p_up=mean_up / (mean_up + mean_down),
        down_scale=down_scale,
    )
    if av.group_size and av.group_per_hour > 0:
        ptr = np.concatenate([[0], np.cumsum(counts)])
        ups = [(s[ptr[h] : ptr[h + 1]], e[ptr[h] : ptr[h + 1]]) for h in range(n)]
        groups = int(math.ceil(n / av.group_size))
        kt, kc = knots
        for g in range(groups):
            count = rng.poisson(av.group_per_hour * kc[-1] / HOUR)
            at = np.sort(np.interp(rng.uniform(0, kc[-1], count), kc, kt))
            length = rng.lognormal(math.log(av.group_median * 60.0), av.group_sigma, count)
            for h in range(g * av.group_size, min((g + 1) * av.group_size, n)):
                ups[h] = _subtract(ups[h][0], ups[h][1], at, at + length)
        counts = np.array([u[0].size for u in ups], dtype=np.int64)
        s = np.concatenate([u[0] for u in ups])
        e = np.concatenate([u[1] for u in ups])
    return (s, e, counts), _load_runs(rng, av, knots, n, period)


_SHARE_LAW = stats.uniform(0.1, 0.8)


def _load_runs(rng, av: Availability, knots, n: int, period: float):
    """CPU runs (sample, share, per-host counts) of ``n`` hosts: share 1 except load episodes."""
    if av.load_per_hour <= 0:
        return np.zeros(n, dtype=np.int64), np.ones(n), np.ones(n, dtype=np.int64)
    kt, kc = knots
    count = rng.poisson(av.load_per_hour * kc[-1] / HOUR, n)
    total = int(count.sum())
    host = np.repeat(np.arange(n), count)
    u = rng.uniform(0, kc[-1], total)
    u = u[np.lexsort((u, host))]
    at = np.interp(u, kc, kt)
    length = rng.lognormal(math.log(av.load_median * 60.0), av.load_sigma, total)
    share = np.where(rng.random(total) < av.zero_share, 0.0, _SHARE_LAW.rvs(total, random_state=rng))
    share = np.round(share, 3)
    a = np.floor(at / period).astype(np.int64)
    b = np.maximum(np.ceil((at + length) / period).astype(np.int64), a + 1)
    nxt = np.append(a[1:], np.iinfo(np.int64).max)
    last = np.append(host[1:] != host[:-1], True)
    b = np.where(last, b, np.minimum(b, nxt))
    # per host: (0, 1.0), then (a_i, share_i), (b_i, 1.0) for each episode
    m = n + 2 * total
    idx = np.empty(m, dtype=np.int64)
    val = np.empty(m)
    owner = np.empty(m, dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(1 + 2 * count)[:-1]])
    idx[first], val[first], owner[first] = 0, 1.0, np.arange(n)
    within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    pos_a = np.repeat(first, count) + 1 + 2 * within
    idx[pos_a], val[pos_a], owner[pos_a] = a, share, host
    idx[pos_a + 1], val[pos_a + 1], owner[pos_a + 1] = b, 1.0, host
    # several runs on one sample: the last one holds; then merge equal neighbours
    same_host_next = np.append(owner[1:] == owner[:-1], False)
    keep = ~same_host_next | np.append(idx[1:] > idx[:-1], False)
    idx, val, owner = idx[keep], val[keep], owner[keep]
    new_run = np.append(True, (val[1:] != val[:-1]) | (owner[1:] != owner[:-1]))
    idx, val, owner = idx[new_run], val[new_run], owner[new_run]
    return idx, val, np.bincount(owner, minlength=n).astype(np.int64)


def weekday_windows(window: tuple[float, float], days: int) -> list[tuple[float, float]]:
    """The weekday windows ``[start, end)`` in seconds over ``days`` days from Monday 00:00."""
    a, b = window
    return [(d * DAY + a * HOUR, d * DAY + b * HOUR) for d in range(days) if d % 7 < 5]


def generate_platform(
    platform: str, hosts: int, tasks: int, task_minutes: float, seed: int, days: int = 7
) -> PrescientInstance:
    """A synthetic platform of ``hosts`` hosts over ``days`` days from Monday 00:00 (module docstring).

    The application starts at a uniformly drawn time inside a weekday window
    from the second weekday on (the window's last hour excluded, so that it
    starts in business hours with some left), and its history is the
    previous weekday's window (readings 4.4, 4.6, 4.12).
    """
    table = platforms()
    require(platform in table, "platform", f"must be one of {list(table)}, got {platform!r}")
    hosts = check_int(hosts, "hosts", 1, 100_000)
    tasks = check_int(tasks, "tasks", 1, 10_000_000)
    task_minutes = check_number(task_minutes, "task_minutes", 1e-3, 1e6)
    require(task_minutes > 0, "task_minutes", "must be positive")
    seed = check_int(seed, "seed", 0, 2**63 - 1)
    days = check_int(days, "days", 2, 366)
    require(
        hosts * days <= MAX_HOST_DAYS,
        "hosts",
        f"{hosts} hosts x {days} days = {hosts * days:,} host-days; "
        f"at most {MAX_HOST_DAYS:,} (a week of 10,000 hosts)",
    )
    plat = table[platform]
    rng = np.random.default_rng(seed)
    av = plat.availability
    day_factor = rng.lognormal(0.0, av.day_sigma, days)
    if plat.second is None:
        clocks = plat.clocks.sample(rng, hosts)
        parts = [_host_traces(rng, av, hosts, days, day_factor, av.period)]
    else:
        lri_av, lri_clock = plat.second
        half = hosts // 2
        clocks = np.concatenate([np.round(plat.clocks.sample(rng, hosts - half)), np.full(half, lri_clock)])
        parts = [
            _host_traces(rng, av, hosts - half, days, day_factor, av.period),
            # one suspension flag per instance: UCB's is off, so the LRI half gets no zero-share episodes
            # (on LRI a zero share suspends; here it would kill), on UCB's 2-s grid
            _host_traces(
                rng,
                replace(lri_av, zero_share=0.0),
                half,
                days,
                rng.lognormal(0.0, lri_av.day_sigma, days),
                av.period,
            ),
        ]
    s = np.concatenate([p[0][0] for p in parts])
    e = np.concatenate([p[0][1] for p in parts])
    counts = np.concatenate([p[0][2] for p in parts])
    cidx = np.concatenate([p[1][0] for p in parts])
    cval = np.concatenate([p[1][1] for p in parts])
    ccounts = np.concatenate([p[1][2] for p in parts])
    # a host that drew no up time at all (possible only on tiny horizons) gets one minute at the start
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        at = np.concatenate([[0], np.cumsum(counts)])[empty]
        s = np.insert(s, at, 0.0)
        e = np.insert(e, at, 60.0)
        counts[empty] = 1
    windows = weekday_windows(av.window, days)
    require(len(windows) >= 2, "days", "needs at least two weekdays (history and start)")
    w = int(rng.integers(1, len(windows)))
    lo, hi = windows[w]
    last = hi - HOUR if hi - lo > HOUR else hi
    start = float(np.round(rng.uniform(lo, last), 3))
    history = windows[w - 1]
    return PrescientInstance(
        clock_mhz=clocks,
        up_start=s,
        up_end=e,
        up_ptr=np.concatenate([[0], np.cumsum(counts)]),
        cpu_index=cidx,
        cpu_share=cval,
        cpu_ptr=np.concatenate([[0], np.cumsum(ccounts)]),
        task_minutes=np.full(tasks, float(task_minutes)),
        period=av.period,
        start=start,
        history=history,
        horizon=days * DAY,
        suspension=av.suspension,
        name=f"prescient-{platform}-n{hosts}-t{tasks}-m{task_minutes:g}-s{seed}",
        params={
            "platform": platform,
            "hosts": hosts,
            "tasks": tasks,
            "task_minutes": task_minutes,
            "seed": seed,
            "days": days,
        },
    )


def check_platform(value, field: str) -> str:
    if not (isinstance(value, str) and value in PLATFORMS):
        raise InputError(f"{field}: must be one of {list(PLATFORMS)}, got {value!r}")
    return value
