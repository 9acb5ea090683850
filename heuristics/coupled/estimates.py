"""The Markov estimates of Section V, vectorised over many candidate sets of processors.

Casanova, Dufossé, Robert, Vivien, HCW 2013, Section V, with the corrections of
``../shared/readings/coupled-online.md`` §2. Each processor's availability is a
3-state chain over (UP, RECLAIMED, DOWN) (``CoupledInstance.transitions``, rows
"from"); ``M_q = transitions[q, :2, :2]`` is its UP/RECLAIMED block.

* ``P_uu^(q)(t) = (M_q^t)[0, 0]``: UP at ``t`` without a DOWN since UP at 0;
  ``P_uu^(S)(t) = prod_{q in S} P_uu^(q)(t)`` (the processors are independent).
* ``E_u(S) = sum_{t>0} P_uu^(S)(t)``, ``A(S) = sum_{t>0} t P_uu^(S)(t)``.
* ``P_+(S) = E_u / (1 + E_u)``: from an all-UP slot, the probability that all of
  ``S`` are UP together again before any of them goes DOWN (Definition 1).
* ``E_c(S) = A (1 - P_+) / (1 + E_u) = sum_t t P_+(t)``: a *partial*
  expectation of the gap to the next all-UP slot (over the successful gaps only,
  not divided by ``P_+``; reading §2.3).
* ``E^(S)(W)``: the expected span ``t_W - t_1 + 1`` of ``W`` all-UP slots,
  conditioned on success (Definition 2), in the paper's printed form
  ``(1 + (W-1) E_c) / P_+^(W-1)`` or the conditional form ``1 + (W-1) E_c / P_+``
  that Definition 2 actually gives (reading §2.4: the gaps are i.i.d.; the
  printed form is not the conditional expectation).
* ``P^(S)(W) = P_+^(W-1)``: the success probability of those ``W`` slots (reading §2.4).
* Section V-B: ``P_ND^(q)(t) = sum_{j in {u, r}} (M_q^t)[u, j]``, and the coarse
  communication estimates ``E_comm`` and ``P_comm``.

A candidate set is a row of a boolean mask array ``(k, p)``; every method takes
``k`` sets at once and returns ``k`` values (a single mask of shape ``(p,)``
gives a scalar).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import lambertw

from volsched.instances.coupled import check_transitions
from volsched.instances.errors import InputError

#: The two forms of ``E^(S)(W)`` (Section V-A as printed; Definition 2, reading §2.4).
FORMULAS = ("printed", "conditional")

#: ``log 0`` in the log tables: finite, so that ``0 * _LOG_ZERO = 0`` for a processor outside a set
#: in ``masks @ log P``, and low enough that ``exp`` of any sum holding it is exactly 0.
_LOG_ZERO = -1.0e4
#: The largest argument of ``P_ND`` and ``P_uu`` (binary powering over 62 squarings covers up to
#: ``2^62 - 1``); larger or infinite arguments are clipped to it.
_MAX_SLOTS = 2**61
#: Most (processor, slots) pairs beyond the table whose ``M_q^t`` row is remembered.
_FAR_MEMO = 2**16


class Communication(NamedTuple):
    """The Section V-B estimates of one communication phase per set."""

    time: np.ndarray
    """``E_comm^(S)``, the estimated length of the phase in slots."""
    success: np.ndarray
    """``P_comm^(S) = prod_{q in S} P_ND^(q)(ceil(E_comm^(S)))``."""


def _truncation(log_lam: np.ndarray, eps: float) -> np.ndarray:
    """Smallest integer ``T >= 1`` with ``Lambda^T (T/(1-Lambda) + Lambda/(1-Lambda)^2) <= eps``.

    Theorem 5.1 as corrected by the reading (§2.5): that tail bound on ``A`` and
    ``Lambda^T / (1 - Lambda) <= eps`` on ``E_u`` (implied by it for ``T >= 1``)
    bound the errors of the sums over ``0 < t < T``. With ``x = T + c``,
    ``c = Lambda / (1 - Lambda)``, the bound equals ``eps`` where
    ``x ln(Lambda) + ln(x) = K``, solved by the lower branch of Lambert's W; the
    bound decreases for ``T >= 1`` (no root: ``T = 1``). An integer check then
    makes ``T`` the smallest one. ``log_lam`` must be < 0 (``Lambda < 1``).
    """
    log_lam = np.asarray(log_lam, dtype=float)
    zero = log_lam <= _LOG_ZERO / 2  # Lambda = 0: every term from t = 1 on is 0
    ll = np.where(zero, -1.0, log_lam)
    one_minus = -np.expm1(ll)
    c = np.exp(ll) / one_minus
    log_eps = np.log(eps)
    z = ll * np.exp(c * ll + np.log(one_minus) + log_eps)
    with np.errstate(invalid="ignore"):
        x = np.real(lambertw(z, k=-1)) / ll
    t = np.where((z >= -np.exp(-1.0)) & np.isfinite(x), np.ceil(x - c - 1e-9), 1.0)
    t = np.maximum(1.0, t)

    def over(t):
        return t * ll + np.log((t + c) / one_minus) > log_eps

    for _ in range(100):  # a step at most: W is accurate to rounding
        up = over(t)
        down = (t > 1) & ~over(np.maximum(t - 1, 1.0))
        if not (up.any() or down.any()):
            break
        t = t + up - down
    return np.where(zero, 1, t).astype(np.int64)


class MarkovEstimates:
    """Section V estimates for the chains of one instance, vectorised over candidate sets.

    Parameters
    ----------
    transitions : array (p, 3, 3)
        Row-stochastic chains over (UP, RECLAIMED, DOWN), rows "from"
        (``CoupledInstance.transitions``).
    eps : float
        Precision of the truncated sums ``E_u`` and ``A`` (Theorem 5.1): each
        is within ``eps`` of its infinite sum.
    max_T : int
        Refuse chains whose truncation needs more terms: a processor that
        leaves UP for good too rarely (the tables take ``24 p T`` bytes).
    cache_size : int
        Sets whose ``(E_u, A, P_+, E_c)`` are kept (memoised by set; the
        memo is emptied when full).

    Notes
    -----
    **Truncation.** A set's sums run over ``0 < t < T(S)``, ``T(S)`` the smallest
    integer meeting the corrected bounds of Theorem 5.1 (reading §2.5) for
    ``Lambda(S) = prod_{q in S} rho_q``. ``rho_q`` is the paper's ``lambda_1^q``
    (largest eigenvalue of ``M_q``) except for a reducible block (``P_ur = 0``
    or ``P_ru = 0``), where ``P_uu^(q)(t) = P_uu^t`` exactly and
    ``rho_q = P_uu``: the bound ``P_uu^(q)(t) <= rho_q^t`` holds in both cases,
    and ``lambda_1 = 1`` of a processor that may be stuck RECLAIMED forever does
    not make the truncation infinite. The table of ``P_uu^(q)(t)`` is built once
    up to the largest single-processor ``T`` (a superset's ``Lambda`` is
    smaller, so its ``T(S)`` is shorter); sums are cut at each set's own
    ``T(S)``, so a set's values do not depend on the other sets of a call (to
    rounding). Results are memoised by set.

    **P_+ = 1.** ``E_u(S)`` is infinite exactly when the all-UP state of the
    product chain of ``S`` is recurrent, i.e. when every processor of ``S``
    returns to UP with probability 1 without going DOWN ("recurrent"
    processors: ``P_ud = 0`` and either ``P_ur = 0`` or ``P_rd = 0 < P_ru``).
    Such sets (and the empty set) take a separate route: ``P_+ = 1``,
    ``E_u = A = inf``, and ``E_c`` is the mean return time of the all-UP state,
    the inverse of its long-run frequency (Kac): ``1 / prod_{q in S} pi_q(u)``,
    ``pi_q(u) = P_ru / (P_ur + P_ru)`` (1 if ``P_ur = 0``), where the members
    that alternate UP/RECLAIMED with period 2 (``P_ur = P_ru = 1``, all in
    phase) count ``1/2`` together, not each. Then ``E^(S)(W) = 1 + (W-1) E_c``
    in both forms. The paper's test, "no processor of S can go DOWN", differs
    only for a processor that can be stuck RECLAIMED forever: it returns to UP
    with probability < 1, so ``P_+ = E_u / (1 + E_u) < 1`` (the renewal
    argument of Theorem 5.1 holds whenever ``E_u`` is finite).

    **Powers.** ``P_uu^(q)(t)`` and ``P_ND^(q)(t)`` come from the UP row of
    ``M_q^t``, computed by doubling (the table) or by binary powering of
    ``M_q^(2^j)`` (larger ``t``): products and sums of non-negative numbers
    only, relative error about ``t`` units in the last place.
    """

    def __init__(self, transitions, eps: float = 1e-6, max_T: int = 100_000, cache_size: int = 1 << 18):
        trans = check_transitions(transitions)
        if not (isinstance(eps, (int, float)) and 1e-15 <= eps < 1):
            raise ValueError(f"eps must be in [1e-15, 1), got {eps!r}")
        self.transitions = trans
        self.eps = float(eps)
        self.p = p = trans.shape[0]
        M = np.ascontiguousarray(trans[:, :2, :2])
        a, b, c, d = M[:, 0, 0], M[:, 0, 1], M[:, 1, 0], M[:, 1, 1]
        p_ud, p_rd = trans[:, 0, 2], trans[:, 1, 2]
        half_gap = (a - d) / 2
        self.lambda1 = (a + d) / 2 + np.sqrt(half_gap * half_gap + b * c)
        irreducible = (b > 0) & (c > 0)
        self.recurrent = (p_ud == 0) & ((b == 0) | ((p_rd == 0) & (c > 0)))
        self.rho = np.where(self.recurrent, 1.0, np.where(irreducible, self.lambda1, a))
        transient = ~self.recurrent
        if np.any(transient & (self.rho >= 1)):
            q = int(np.flatnonzero(transient & (self.rho >= 1))[0])
            raise InputError(
                f"transitions[{q}]: leaves UP and RECLAIMED so rarely that lambda_1 rounds "
                "to 1; the truncation of Theorem 5.1 cannot be computed"
            )
        with np.errstate(divide="ignore"):
            self._log_rho = np.where(self.rho > 0, np.log(np.where(self.rho > 0, self.rho, 1.0)), _LOG_ZERO)
        pi_u = np.where(b == 0, 1.0, c / np.where(b + c > 0, b + c, 1.0))
        self._periodic = self.recurrent & (a == 0) & (d == 0)
        aperiodic = self.recurrent & ~self._periodic
        self._log_pi = np.where(aperiodic, np.log(np.where(aperiodic, pi_u, 1.0)), 0.0)

        single_T = np.ones(p, dtype=np.int64)
        if transient.any():
            single_T[transient] = _truncation(self._log_rho[transient], self.eps)
        if single_T.max() > max_T:
            q = int(np.argmax(single_T))
            raise InputError(
                f"transitions[{q}]: Theorem 5.1 needs T = {single_T[q]:,} terms for "
                f"eps = {self.eps:g} (rho = {self.rho[q]!r}); at most max_T = {max_T:,}"
            )
        self.T = int(max(single_T.max(), 1024))

        # M_q^(2^j), j = 0..61, for binary powering; the UP rows of M_q^t for t < T by doubling.
        pow2 = np.empty((62, p, 2, 2))
        pow2[0] = M
        for j in range(1, 62):
            pow2[j] = pow2[j - 1] @ pow2[j - 1]
        self.pow2 = pow2
        rows = np.empty((p, self.T, 2))
        rows[:, 0] = (1.0, 0.0)
        n, j = 1, 0
        while n < self.T:
            m = min(n, self.T - n)
            rows[:, n : n + m] = rows[:, :m] @ pow2[j]
            n, j = 2 * n, j + 1
        self.rows = rows
        with np.errstate(divide="ignore"):
            self._log_puu = np.maximum(np.log(rows[:, :, 0]), _LOG_ZERO)
        self._t = np.arange(self.T, dtype=float)
        self.cache_size = int(cache_size)
        self.memo: dict[bytes, np.ndarray] = {}
        self._far: dict[tuple[int, int], tuple[float, float]] = {}
        eye = np.eye(p, dtype=bool)
        self._single = self.gap_sets(eye)

    # ------------------------------------------------------------------
    # Single processors

    def _up_rows(self, q: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(M_q^t)[u, u]`` and ``(M_q^t)[u, r]`` for flat integer arrays ``q``, ``t``."""
        q = np.asarray(q, dtype=np.int64).ravel()
        t = np.asarray(t, dtype=np.int64).ravel()
        uu = np.empty(t.shape)
        ur = np.empty(t.shape)
        small = t < self.T
        uu[small] = self.rows[q[small], t[small], 0]
        ur[small] = self.rows[q[small], t[small], 1]
        big = np.flatnonzero(~small)
        if big.size:
            # Beyond the table, by binary powering; remembered per (q, t), as decisions ask for the
            # same far horizons slot after slot (a huge T_data: 2 ms per slot without it). Each
            # value is computed element by element, so the memo changes no bit.
            memo = self._far
            keys = list(zip(q[big].tolist(), t[big].tolist(), strict=True))
            todo = sorted({k for k in keys if k not in memo})
            if todo:
                if len(memo) + len(todo) > _FAR_MEMO:
                    memo.clear()
                qb = np.array([k[0] for k in todo], dtype=np.int64)
                tb = np.array([k[1] for k in todo], dtype=np.int64)
                v0, v1 = np.ones(len(todo)), np.zeros(len(todo))
                for j in range(int(tb.max()).bit_length()):
                    sel = ((tb >> j) & 1).astype(bool)
                    if sel.any():
                        m = self.pow2[j, qb[sel]]
                        x0, x1 = v0[sel], v1[sel]
                        v0[sel] = x0 * m[:, 0, 0] + x1 * m[:, 1, 0]
                        v1[sel] = x0 * m[:, 0, 1] + x1 * m[:, 1, 1]
                memo.update(zip(todo, zip(v0.tolist(), v1.tolist(), strict=True), strict=True))
            found = np.array([memo[k] for k in keys])
            uu[big], ur[big] = found[:, 0], found[:, 1]
        return uu, ur

    def _per_processor(self, t, which: str) -> np.ndarray:
        t = np.asarray(t)
        if not np.issubdtype(t.dtype, np.integer) or np.any(t < 0):
            raise ValueError("t must be non-negative integers")
        q, tt = np.broadcast_arrays(np.arange(self.p).reshape((self.p,) + (1,) * t.ndim), t[None])
        uu, ur = self._up_rows(q, np.minimum(tt, _MAX_SLOTS))
        out = uu if which == "uu" else uu + ur
        return out.reshape(q.shape)

    def p_uu(self, t) -> np.ndarray:
        """``P_uu^(q)(t) = (M_q^t)[0, 0]`` for every processor (Theorem 5.1's proof).

        Parameters
        ----------
        t : int or int array
            Slots, ``>= 0``.

        Returns
        -------
        ndarray, shape ``(p,) + t.shape``
            The probability that ``P_q``, UP at slot 0, is UP at slot ``t``
            without having been DOWN in between.
        """
        return self._per_processor(t, "uu")

    def p_nd(self, t) -> np.ndarray:
        """``P_ND^(q)(t) = sum_{j in {u, r}} (M_q^t)[u, j]`` for every processor (Section V-B).

        The probability that ``P_q``, UP at slot ``t'``, is not DOWN at any slot
        of ``t' + 1 .. t' + t``. Arguments above ``2^61`` are clipped to it.

        Returns
        -------
        ndarray, shape ``(p,) + t.shape``
        """
        return self._per_processor(t, "nd")

    # ------------------------------------------------------------------
    # Sets

    def _masks(self, masks) -> tuple[np.ndarray, bool]:
        arr = np.asarray(masks)
        single = arr.ndim == 1
        arr = np.atleast_2d(arr)
        if arr.ndim != 2 or arr.shape[1] != self.p:
            raise ValueError(f"masks must have shape (k, {self.p}), got {np.shape(masks)}")
        if arr.dtype != bool:
            if not np.all((arr == 0) | (arr == 1)):
                raise ValueError("masks must be boolean (or 0/1)")
            arr = arr.astype(bool)
        return arr, single

    def truncation(self, masks) -> np.ndarray:
        """``T(S)`` of Theorem 5.1 (reading §2.5): the sums run over ``0 < t < T(S)``.

        Returns
        -------
        int array, shape (k,)
            0 for a set on the ``P_+ = 1`` route (no truncated sum).
        """
        masks, single = self._masks(masks)
        out = np.zeros(len(masks), dtype=np.int64)
        finite = (masks & ~self.recurrent).any(axis=1)
        if finite.any():
            out[finite] = np.minimum(_truncation(masks[finite] @ self._log_rho, self.eps), self.T)
        return out[0] if single else out

    def _sums(self, masks: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``E_u`` and ``A`` over ``0 < t < T(S)`` with ``P_uu^(S)(t) = exp(mask @ log P_uu(t))``."""
        top = int(T.max())
        if top <= 1:
            return np.zeros(len(masks)), np.zeros(len(masks))
        log_p = masks.astype(float) @ self._log_puu[:, 1:top]
        terms = np.exp(log_p)
        terms[self._t[1:top][None, :] >= T[:, None]] = 0.0
        return terms.sum(axis=1), terms @ self._t[1:top]

    def gap_sets(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(E_u, A, P_+, E_c)`` per set, memoised by set (a heuristic meets the same sets again)."""
        packed = np.packbits(masks, axis=1)
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel().tolist()
        cache = self.memo
        found = [cache.get(key) for key in keys]
        miss = [i for i, v in enumerate(found) if v is None]
        if miss:
            fresh = np.stack(self._gaps_uncached(masks[miss]), axis=1)
            if len(cache) + len(miss) > self.cache_size:
                cache.clear()
            for i, row in zip(miss, fresh, strict=True):
                cache[keys[i]] = found[i] = row
        out = np.array(found)
        return out[:, 0], out[:, 1], out[:, 2], out[:, 3]

    def _gaps_uncached(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(E_u, A, P_+, E_c)`` per set (the ``P_+ = 1`` route where every member is recurrent)."""
        k = len(masks)
        e_u, a = np.full(k, np.inf), np.full(k, np.inf)
        p_plus, e_c = np.ones(k), np.empty(k)
        finite = (masks & ~self.recurrent).any(axis=1)
        if finite.any():
            sub = masks[finite]
            T = np.minimum(_truncation(sub @ self._log_rho, self.eps), self.T)
            chunk = max(1, (1 << 22) // int(T.max()))  # at most 4M terms (32 MB) at once
            parts = [self._sums(sub[i : i + chunk], T[i : i + chunk]) for i in range(0, len(sub), chunk)]
            eu, aa = (np.concatenate(x) for x in zip(*parts, strict=True))
            e_u[finite], a[finite] = eu, aa
            p_plus[finite] = eu / (1.0 + eu)
            e_c[finite] = aa / (1.0 + eu) ** 2  # A (1 - P_+) / (1 + E_u), with 1 - P_+ = 1 / (1 + E_u)
        rec = ~finite
        if rec.any():
            sub = masks[rec]
            # Kac: 1 / the long-run frequency of all-UP slots, prod_q pi_q(u) over the aperiodic members,
            # halved when period-2 members (all in phase, UP at even slots) are in the set
            log_c = sub @ self._log_pi - np.log(2.0) * (sub & self._periodic).any(axis=1)
            e_c[rec] = np.exp(-log_c)
        return e_u, a, p_plus, e_c

    def sums(self, masks) -> tuple[np.ndarray, np.ndarray]:
        """``E_u(S) = sum_{t>0} P_uu^(S)(t)`` and ``A(S) = sum_{t>0} t P_uu^(S)(t)`` (Theorem 5.1).

        Truncated at ``T(S)`` (within ``eps`` each); ``inf`` on the ``P_+ = 1`` route.

        Returns
        -------
        (E_u, A) : two float arrays of shape (k,)
        """
        masks, single = self._masks(masks)
        e_u, a, _, _ = self.gap_sets(masks)
        return (e_u[0], a[0]) if single else (e_u, a)

    def p_plus(self, masks) -> np.ndarray:
        """``P_+^(S) = E_u / (1 + E_u)``, 1 on the ``P_+ = 1`` route (Theorem 5.1, Definition 1).

        Returns
        -------
        float array, shape (k,)
        """
        masks, single = self._masks(masks)
        out = self.gap_sets(masks)[2]
        return out[0] if single else out

    def e_c(self, masks) -> np.ndarray:
        """``E_c^(S) = A (1 - P_+) / (1 + E_u)`` (Theorem 5.1).

        ``sum_t t P_+(t)``, a partial expectation over the gaps that end in an
        all-UP slot (reading §2.3); ``E_c / P_+`` is the conditional mean gap.
        On the ``P_+ = 1`` route, the mean return time of the all-UP state.

        Returns
        -------
        float array, shape (k,)
        """
        masks, single = self._masks(masks)
        out = self.gap_sets(masks)[3]
        return out[0] if single else out

    @staticmethod
    def _steps(W, k: int) -> np.ndarray:
        w = np.asarray(W)
        if not np.issubdtype(w.dtype, np.integer) and (
            not np.all(np.isfinite(w)) or np.any(w != np.round(w))
        ):
            raise ValueError("W must be integers")
        w = np.broadcast_to(w, (k,)).astype(float)
        if np.any(w < 1):
            raise ValueError("W must be >= 1")
        return w - 1.0

    @staticmethod
    def _span(p_plus, e_c, steps, formula: str) -> np.ndarray:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
            if formula == "printed":
                return (1.0 + steps * e_c) / p_plus**steps
            if formula == "conditional":
                gap = np.where(p_plus > 0, e_c / np.where(p_plus > 0, p_plus, 1.0), np.inf)
                return np.where(steps == 0, 1.0, 1.0 + steps * gap)
        raise ValueError(f"formula must be one of {FORMULAS}, got {formula!r}")

    def expected_span(self, masks, W, formula: str = "printed") -> np.ndarray:
        """``E^(S)(W)``: expected span of ``W`` slots of computation, conditioned on success.

        Parameters
        ----------
        masks : bool array (k, p)
        W : int or int array (k,)
            Slots of simultaneous computation, ``>= 1`` (one ``W`` per set).
        formula : {"printed", "conditional"}
            ``"printed"``: Section V-A as printed, ``(1 + (W-1) E_c) / P_+^(W-1)``,
            the default, with which the paper's heuristics were defined.
            ``"conditional"``: ``1 + (W-1) E_c / P_+``, the expectation of
            ``t_W - t_1 + 1`` given success that Definition 2 asks for (the
            ``W - 1`` gaps are i.i.d.; reading §2.4, checked by Monte Carlo).

        Returns
        -------
        float array, shape (k,)
            1 for ``W = 1``. ``inf`` when success is impossible (``P_+ = 0``,
            ``W >= 2``) and, for the printed form, when ``P_+^(W-1)`` underflows.
        """
        masks, single = self._masks(masks)
        _, _, p_plus, e_c = self.gap_sets(masks)
        out = self._span(p_plus, e_c, self._steps(W, len(masks)), formula)
        return out[0] if single else out

    def success_probability(self, masks, W) -> np.ndarray:
        """``P^(S)(W) = P_+^(W-1)``: ``W`` all-UP slots before any DOWN (reading §2.4; IP's ``P^(S)(W)``).

        Returns
        -------
        float array, shape (k,)
        """
        masks, single = self._masks(masks)
        p_plus = self.gap_sets(masks)[2]
        with np.errstate(under="ignore"):
            out = p_plus ** self._steps(W, len(masks))
        return out[0] if single else out

    def single_expected_span(self, n, formula: str = "printed") -> np.ndarray:
        """``E^(q)(n_q)`` per processor, the last axis of ``n`` indexing processors; 0 where ``n_q = 0``.

        Section V-B's per-worker communication time ``E_q = E^(P_q)(n_q)``, with
        the same formula choice as :meth:`expected_span`. ``E^(q)(0)`` is taken
        as 0: a worker with nothing to receive adds no communication time.

        Parameters
        ----------
        n : int array (..., p)
            Slots of communication, ``>= 0``.
        """
        n = np.asarray(n)
        if n.shape[-1:] != (self.p,) or not np.issubdtype(n.dtype, np.integer) or np.any(n < 0):
            raise ValueError(f"n must be non-negative integers with last axis {self.p}")
        _, _, p_plus, e_c = self._single
        steps = np.maximum(n - 1, 0).astype(float)
        return np.where(n > 0, self._span(p_plus, e_c, steps, formula), 0.0)

    def communication(self, masks, n, n_com: int, formula: str = "printed") -> Communication:
        """``E_comm^(S)`` and ``P_comm^(S)`` of Section V-B.

        Parameters
        ----------
        masks : bool array (k, p)
            The enrolled sets ``S``.
        n : int array (k, p)
            ``n_q``, the communication slots worker ``q`` still needs: the caller
            computes ``T_prog`` if it lacks the program plus ``T_data`` times
            the data messages it does not hold (reading §2.6). 0 outside ``S``
            and for a worker with nothing to receive.
        n_com : int
            Simultaneous master communications.
        formula : {"printed", "conditional"}
            The form of ``E^(q)(n_q)``, as in :meth:`expected_span`.

        Returns
        -------
        Communication
            ``time = max(max_{q in S, n_q > 0} E^(q)(n_q), sum_q n_q / n_com)``:
            the paper's two cases in one expression (for ``|S| <= n_com``,
            ``sum_q n_q / n_com <= max_q n_q <= max_q E^(q)(n_q)``); 0 when
            nothing is to be received. ``success = prod_{q in S}
            P_ND^(q)(ceil(time))``: ``P_ND`` takes whole slots and
            ``E_comm`` is rarely an integer; the ceiling makes the estimate
            the pessimistic one (reading §2.6). Workers of ``S`` with
            ``n_q = 0`` must stay out of DOWN as well.
        """
        masks, single = self._masks(masks)
        n = np.atleast_2d(np.asarray(n))
        if n.shape != masks.shape:
            raise ValueError(f"n must have the shape of masks {masks.shape}, got {n.shape}")
        if np.any((n > 0) & ~masks):
            raise ValueError("n must be 0 for workers outside the set")
        if not (isinstance(n_com, (int, np.integer)) and n_com >= 1):
            raise ValueError(f"n_com must be an integer >= 1, got {n_com!r}")
        each = self.single_expected_span(n, formula)
        time = np.maximum(each.max(axis=1), n.sum(axis=1) / n_com)
        slots = np.where(np.isfinite(time), np.ceil(np.minimum(time, float(_MAX_SLOTS))), _MAX_SLOTS)
        rows, cols = np.nonzero(masks)
        uu, ur = self._up_rows(cols, slots.astype(np.int64)[rows])
        full = np.ones(masks.shape)
        full[rows, cols] = uu + ur
        success = full.prod(axis=1)
        if single:
            return Communication(time[0], success[0])
        return Communication(time, success)
