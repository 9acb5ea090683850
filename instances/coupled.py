"""Coupled family: tightly-coupled iterative applications on volatile processors.

Casanova, Dufossé, Robert, Vivien, "Scheduling parallel iterative applications
on volatile resources" (HCW 2013), Section III. ``p`` processors, each UP,
RECLAIMED or DOWN in every time slot; processor ``q`` computes a task in ``w_q``
slots and holds at most ``mu_q`` tasks at once; an iteration is ``m`` identical
tasks that progress in lock step; the master sends at most ``n_com`` messages
at once (program ``T_prog`` slots, task data ``T_data`` slots); ``K`` iterations.
The availability realization is part of the instance: one string per
processor over ``U``, ``R``, ``D`` (DESIGN.md). A file stores ``H`` slots; an instance with
its chains and a continuation seed gives the same realization beyond ``H``, up to the on-line
simulator's cap (:meth:`CoupledInstance.realization`).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import MAX_FIELD_INT, InputError, check_int, is_int, is_number, require
from .io import envelope, read_text, unwrap

FAMILY = "coupled"
UP, RECLAIMED, DOWN = 0, 1, 2
ALPHABET = "URD"
_DATA_KEYS = ("availability", "w", "mu", "m", "n_com", "T_prog", "T_data", "K")
_OPTIONAL_KEYS = ("transitions", "continuation_seed")

#: Most cells (processors x slots) of one availability matrix: about 100 MB as int8 and as a file,
#: which the generators' float draws multiply by 8. Larger sizes are refused, not run out of memory.
MAX_CELLS = 10**8
#: Most cells of all the realizations of one ``paper`` folder (the default space holds 2.4 x 10^8).
MAX_FOLDER_CELLS = 10**9

#: The paper's cap on an on-line run: "we limit the makespan to 1,000,000 seconds" (Section
#: VII-A), read as slots (no slot duration is given); a makespan reaching it is a failure.
PAPER_CAP = 10**6
#: Most slots :meth:`CoupledInstance.realization` gives (10 times the paper's cap, and at most
#: ``MAX_CELLS`` cells), unless the stored horizon is longer.
MAX_REALIZATION_SLOTS = 10 * PAPER_CAP
#: Slots of one block of a continuation: block ``b`` draws its uniforms from
#: ``np.random.SeedSequence(continuation_seed, spawn_key=(b,))``.
REALIZATION_BLOCK = 65_536
#: Largest continuation seed: 2^53 - 1, an integer that every JSON reader holds exactly.
MAX_CONTINUATION_SEED = 2**53 - 1
#: Uniforms drawn at once (16 MB). A generator's stream does not depend on how it is split.
_DRAW_CELLS = 2**21
#: Spawn keys of the continuation seeds, one per generator, so no two generators share one.
_SEED_KEY_MARKOV, _SEED_KEY_PAPER = (15, 0), (15, 1)


def _int_at_least(v: Any, low: int, name: str) -> int:
    return check_int(v, name, low, MAX_FIELD_INT)


def check_wmin(v: Any, name: str = "w_min") -> int:
    """``w_min`` of a paper realization, or bad input naming why it is out of range."""
    w_min = _int_at_least(v, 1, name)
    require(
        w_min <= MAX_PAPER_WMIN,
        name,
        f"at most {MAX_PAPER_WMIN:,}, got {w_min:,}: the 10 iterations take at least 25 w_min slots, "
        f"beyond the paper's cap of {PAPER_CAP:,}",
    )
    return w_min


def _check_cells(processors: int, slots: int, name: str = "slots", limit: int = MAX_CELLS) -> None:
    require(
        processors * slots <= limit,
        name,
        f"{processors} processors x {slots} slots = {processors * slots:,} cells; at most {limit:,}",
    )


def parse_availability(rows: Any, name: str = "availability") -> np.ndarray:
    """Strings over ``U``/``R``/``D`` (one per processor, equal lengths) -> int8 matrix (p, H)."""
    require(
        isinstance(rows, (list, tuple)) and len(rows) >= 1,
        name,
        "must be a non-empty list of strings over U, R, D",
    )
    length = None
    codes = np.full(256, -1, dtype=np.int8)
    for code, letter in enumerate(ALPHABET):
        codes[ord(letter)] = code
    out = []
    for q, row in enumerate(rows):
        require(isinstance(row, str) and row.isascii(), f"{name}[{q}]", "must be a string over U, R, D")
        require(len(row) >= 1, f"{name}[{q}]", "is empty")
        if length is None:
            length = len(row)
        require(len(row) == length, f"{name}[{q}]", f"has {len(row)} slots, processor 0 has {length}")
        arr = codes[np.frombuffer(row.encode(), dtype=np.uint8)]
        bad = np.flatnonzero(arr < 0)
        if bad.size:
            raise InputError(f"{name}[{q}]: slot {bad[0]} is {row[bad[0]]!r}, not U, R or D")
        out.append(arr)
    return np.stack(out)


def format_availability(states: np.ndarray) -> list[str]:
    letters = np.frombuffer(ALPHABET.encode(), dtype=np.uint8)
    return [letters[row].tobytes().decode() for row in states]


@dataclass(frozen=True, eq=False)
class CoupledInstance:
    """Platform, application and availability realization (Section III).

    Parameters
    ----------
    availability : int8 array, shape (p, H)
        ``S_q[t]`` coded ``UP = 0``, ``RECLAIMED = 1``, ``DOWN = 2``.
    w : int array, shape (p,)
        Slots for ``P_q`` to compute one task while UP.
    mu : float array, shape (p,)
        Most tasks ``P_q`` may hold at once; ``inf`` for no bound (``mu = m`` is
        equivalent, Section IV).
    m : int
        Tasks per iteration.
    n_com : int
        Simultaneous master communications, ``floor(BW / bw)``.
    T_prog, T_data : int
        Slots to send the program and one task's data.
    K : int
        Iterations to complete.
    transitions : ndarray (p, 3, 3), optional
        The Markov chains that generated the availability, rows "from" and
        columns "to" over (UP, RECLAIMED, DOWN), when a generator had them
        (``markov``, ``paper-realization``); the on-line heuristics estimate
        from them (Section V). Instance format version 2.
    continuation_seed : int, optional
        Seed of the realization beyond the stored horizon (with ``transitions``; see
        :meth:`realization`), in ``[0, 2^53)``. The ``markov`` and ``paper-realization``
        generators set it. Instance format version 2, optional.
    """

    availability: np.ndarray
    w: np.ndarray
    mu: np.ndarray
    m: int
    n_com: int = 1
    T_prog: int = 0
    T_data: int = 0
    K: int = 1
    name: str = FAMILY
    params: dict = field(default_factory=dict)
    transitions: np.ndarray | None = None
    continuation_seed: int | None = None
    _continuation: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        try:
            states = np.asarray(self.availability)
        except ValueError:
            raise InputError("availability: rows must all have the same number of slots") from None
        require(
            states.ndim == 2 and states.shape[0] >= 1 and states.shape[1] >= 1,
            "availability",
            "must be a (processors x slots) matrix",
        )
        _check_cells(*states.shape, "availability")
        require(
            np.issubdtype(states.dtype, np.integer) and bool(np.all((states >= 0) & (states <= 2))),
            "availability",
            "codes must be 0 (UP), 1 (RECLAIMED) or 2 (DOWN)",
        )
        p = states.shape[0]
        w = list(self.w) if isinstance(self.w, (list, tuple, np.ndarray)) else None
        require(w is not None and len(w) == p, "w", f"must list one integer per processor ({p})")
        w = np.asarray([_int_at_least(v, 1, f"w[{q}]") for q, v in enumerate(w)], dtype=np.int64)
        mu = list(self.mu) if isinstance(self.mu, (list, tuple, np.ndarray)) else None
        require(mu is not None and len(mu) == p, "mu", f"must list one bound per processor ({p})")
        mu_out = []
        for q, v in enumerate(mu):
            v = v.item() if isinstance(v, np.generic) else v
            if isinstance(v, float) and v.is_integer():
                v = int(v)  # the stored array is float (for inf); integral values come back as such
            if v is None or (isinstance(v, float) and math.isinf(v) and v > 0):
                mu_out.append(math.inf)
            else:
                mu_out.append(_int_at_least(v, 1, f"mu[{q}]"))
        m = _int_at_least(self.m, 1, "m")
        require(
            sum(min(v, m) for v in mu_out) >= m,
            "mu",
            f"the processors hold at most {sum(min(v, m) for v in mu_out):g} tasks, m = {m}",
        )
        object.__setattr__(self, "availability", np.ascontiguousarray(states, dtype=np.int8))
        object.__setattr__(self, "w", w)
        object.__setattr__(self, "mu", np.asarray(mu_out, dtype=float))
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "n_com", _int_at_least(self.n_com, 1, "n_com"))
        object.__setattr__(self, "T_prog", _int_at_least(self.T_prog, 0, "T_prog"))
        object.__setattr__(self, "T_data", _int_at_least(self.T_data, 0, "T_data"))
        object.__setattr__(self, "K", _int_at_least(self.K, 1, "K"))
        if self.transitions is not None:
            object.__setattr__(self, "transitions", check_transitions(self.transitions, p))
        if self.continuation_seed is not None:
            seed = check_int(self.continuation_seed, "continuation_seed", 0, MAX_CONTINUATION_SEED)
            require(
                self.transitions is not None,
                "continuation_seed",
                "needs the chains that continue the realization (data.transitions), which are missing",
            )
            object.__setattr__(self, "continuation_seed", seed)
        for arr in (self.availability, self.w, self.mu, self.transitions):
            if arr is not None:
                arr.setflags(write=False)

    @property
    def p(self) -> int:
        return self.availability.shape[0]

    @property
    def horizon(self) -> int:
        return self.availability.shape[1]

    @property
    def up(self) -> np.ndarray:
        """Boolean (p, H): processor ``q`` UP in slot ``t``."""
        return self.availability == UP

    @property
    def extendable(self) -> bool:
        """Whether :meth:`realization` goes beyond the stored horizon (chains and continuation seed)."""
        return self.transitions is not None and self.continuation_seed is not None

    def max_realization(self) -> int:
        """The longest :meth:`realization` this instance gives, in slots."""
        if not self.extendable:
            return self.horizon
        return max(self.horizon, min(MAX_REALIZATION_SLOTS, MAX_CELLS // self.p))

    def realization(self, length: int, *, name: str = "length") -> np.ndarray:
        """The availability realization over slots ``0 .. length - 1``: read-only int8 (p, length).

        The first ``min(length, H)`` slots are :attr:`availability`. Beyond ``H`` the chains
        continue from the states of slot ``H - 1``, one step of ``transitions`` per slot, with
        the uniforms of fixed blocks of :data:`REALIZATION_BLOCK` slots: block ``b`` (slots
        ``H + b B`` to ``H + (b + 1) B - 1``) draws row after row of ``p`` uniforms from
        ``np.random.default_rng(np.random.SeedSequence(continuation_seed, spawn_key=(b,)))``
        and steps as :func:`markov_realization` does. The result is therefore
        deterministic and prefix-stable: ``realization(a)`` is the first ``a`` columns of
        ``realization(b)`` for ``a < b``, whatever the order of the calls, in every process.
        The slots generated so far are cached on the instance.

        Parameters
        ----------
        length : int
            Slots wanted, at least 1 and at most :meth:`max_realization` (the stored horizon
            when the instance is not :attr:`extendable`).
        name : str
            The field the caller's ``length`` comes from, for the error message (e.g. ``--cap``).

        Raises
        ------
        InputError
            ``length`` is not an integer in that range.
        """
        length = check_int(length, name, 1)
        horizon = self.horizon
        if length <= horizon:
            return self.availability[:, :length]
        if not self.extendable:
            missing = " and ".join(
                f"data.{key}" for key in ("transitions", "continuation_seed") if getattr(self, key) is None
            )
            raise InputError(
                f"{name}: {length:,} slots asked, but the realization ends at slot H = {horizon:,} and "
                f"the instance has no chains to continue it ({missing} missing); ask for at most {horizon:,}"
            )
        most = self.max_realization()
        require(
            length <= most,
            name,
            f"at most {most:,} slots ({MAX_REALIZATION_SLOTS:,}, 10 times the paper's cap, and at most "
            f"{MAX_CELLS:,} cells for {self.p} processors), got {length:,}",
        )
        continuation = self._continuation
        if continuation is None:
            continuation = _Continuation(self)
            object.__setattr__(self, "_continuation", continuation)
        return continuation.prefix(length)

    def __getstate__(self) -> dict:
        # The cached continuation is derived data: a pickled copy (sweep workers) recomputes it.
        return {**self.__dict__, "_continuation": None}

    def to_json(self) -> dict:
        data = {
            "availability": format_availability(self.availability),
            "w": self.w.tolist(),
            "mu": [None if math.isinf(v) else int(v) for v in self.mu],
            "m": self.m,
            "n_com": self.n_com,
            "T_prog": self.T_prog,
            "T_data": self.T_data,
            "K": self.K,
        }
        if self.transitions is not None:
            data["transitions"] = self.transitions.tolist()
        if self.continuation_seed is not None:
            data["continuation_seed"] = self.continuation_seed
        return envelope(FAMILY, self.name, self.params, data)

    @classmethod
    def from_json(cls, obj: Any) -> CoupledInstance:
        data = unwrap(obj, FAMILY, _DATA_KEYS, optional=_OPTIONAL_KEYS)
        return cls(
            availability=parse_availability(data["availability"]),
            w=data["w"],
            mu=data["mu"],
            m=data["m"],
            n_com=data["n_com"],
            T_prog=data["T_prog"],
            T_data=data["T_data"],
            K=data["K"],
            name=obj.get("name", FAMILY),
            params=obj.get("params", {}),
            transitions=data.get("transitions"),
            continuation_seed=data.get("continuation_seed"),
        )


class _Continuation:
    """The slots of one instance's realization generated so far, grown on demand (thread-safe).

    ``buffer[:, :filled]`` holds them (the stored availability first); ``state`` is the states
    of slot ``filled - 1`` and ``rng`` the generator of the current block, positioned at the
    next slot's uniforms.
    """

    def __init__(self, instance: CoupledInstance):
        self.instance = instance
        self.lock = threading.Lock()
        self.cum = np.cumsum(instance.transitions, axis=2)
        self.buffer = instance.availability
        self.filled = instance.horizon
        self.state = instance.availability[:, -1].astype(np.int64)
        self.rng: np.random.Generator | None = None

    def prefix(self, length: int) -> np.ndarray:
        with self.lock:
            if length > self.filled:
                self._extend(length)
            view = self.buffer[:, :length]
        view.flags.writeable = False
        return view

    def _extend(self, length: int) -> None:
        # numba loads on first use, not when the package is imported (start-up time)
        from ._markov_kernel import markov_steps

        inst = self.instance
        if length > self.buffer.shape[1]:
            # Grow geometrically; views handed out keep the old buffer, whose prefix is the same.
            capacity = min(max(length, 2 * self.buffer.shape[1]), inst.max_realization())
            grown = np.empty((inst.p, capacity), dtype=np.int8)
            grown[:, : self.filled] = self.buffer[:, : self.filled]
            self.buffer = grown
        rows = max(1, _DRAW_CELLS // inst.p)
        while self.filled < length:
            block, offset = divmod(self.filled - inst.horizon, REALIZATION_BLOCK)
            if offset == 0:
                seq = np.random.SeedSequence(inst.continuation_seed, spawn_key=(block,))
                self.rng = np.random.default_rng(seq)
            n = min(length - self.filled, REALIZATION_BLOCK - offset, rows)
            draws = self.rng.random((n, inst.p))
            markov_steps(self.cum, self.state, draws, self.buffer[:, self.filled : self.filled + n])
            self.filled += n


def continuation_seed_from(material: list[int], key: tuple[int, ...]) -> int:
    """A continuation seed from a generator's seed material: 53 bits of its own seed sequence.

    ``np.random.SeedSequence(material, spawn_key=key).generate_state(1, np.uint64)`` shifted
    right by 11 bits; ``key`` names the generator, so the stream is none of the generator's own.
    """
    word = np.random.SeedSequence(material, spawn_key=key).generate_state(1, np.uint64)[0]
    return int(word >> np.uint64(11))


def check_transitions(value: Any, p: int | None = None) -> np.ndarray:
    """``(p, 3, 3)`` finite, non-negative, row-stochastic matrices (rows sum to 1 within 1e-9).

    ``p = None`` accepts any number of processors (at least one).
    """
    ok = isinstance(value, (list, tuple, np.ndarray))
    require(ok, "transitions", "must be a list of p 3x3 matrices")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer too large for a float
        raise InputError("transitions: must be a list of p 3x3 matrices of numbers") from None
    ok = arr.ndim == 3 and arr.shape[1:] == (3, 3) and arr.shape[0] == (arr.shape[0] if p is None else p) >= 1
    require(ok, "transitions", f"must have shape ({'p' if p is None else p}, 3, 3), got {arr.shape}")
    bad = np.argwhere(~np.isfinite(arr) | (arr < 0))
    if bad.size:
        q, i, j = bad[0]
        raise InputError(f"transitions[{q}][{i}][{j}]: must be a finite probability, got {arr[q, i, j]!r}")
    rows = np.argwhere(np.abs(arr.sum(axis=2) - 1.0) > 1e-9)
    if rows.size:
        q, i = rows[0]
        raise InputError(f"transitions[{q}][{i}]: must sum to 1, sums to {arr[q, i].sum()!r}")
    return np.ascontiguousarray(arr)


def markov_chains(rng: np.random.Generator, p: int) -> np.ndarray:
    """The paper's per-processor 3-state chains (Section VII-A).

    ``P_xx ~ U[0.90, 0.99]`` for each state ``x`` and ``P_xy = 0.5 (1 - P_xx)``
    for ``y != x``; returns the (p, 3, 3) transition matrices (rows: from).
    """
    stay = rng.uniform(0.90, 0.99, (p, 3))
    trans = np.repeat((0.5 * (1.0 - stay))[:, :, None], 3, axis=2)
    idx = np.arange(3)
    trans[:, idx, idx] = stay
    return trans


def markov_realization(rng: np.random.Generator, trans: np.ndarray, horizon: int) -> np.ndarray:
    """One realization of the chains over ``horizon`` slots, every processor UP in slot 0.

    The paper does not give the initial state; all processors start UP. Draws ``horizon``
    rows of ``p`` uniforms from ``rng`` (the last one unused): row ``t`` moves every processor
    from slot ``t`` to slot ``t + 1``, to the number of cumulative row entries
    ``cum[q, s]`` the uniform is at least (capped at DOWN). Compiled:
    :func:`._markov_kernel.markov_steps`.
    """
    # numba loads on first use, not when the package is imported (start-up time)
    from ._markov_kernel import markov_steps

    p = trans.shape[0]
    cum = np.cumsum(trans, axis=2)
    states = np.empty((p, horizon), dtype=np.int8)
    states[:, 0] = UP
    state = np.zeros(p, dtype=np.int64)
    rows = max(1, _DRAW_CELLS // p)
    for start in range(0, horizon, rows):
        n = min(rows, horizon - start)
        draws = rng.random((n, p))
        steps = min(n, horizon - 1 - start)  # the last row moves beyond the horizon
        markov_steps(cum, state, draws[:steps], states[:, start + 1 : start + 1 + steps])
    return states


def generate_markov(processors: int, slots: int, tasks: int, seed: int, w: int = 1) -> CoupledInstance:
    """``markov`` preset: the paper's chains, identical ``w``, ``mu = 1``, no communication.

    The OFF-LINE-COUPLED (mu = 1) setting of Section IV; ``slots`` is the horizon ``H``.
    The realization beyond ``H`` (:meth:`CoupledInstance.realization`) draws from the
    continuation seed ``continuation_seed_from([seed, processors, slots], (15, 0))``.
    """
    processors = _int_at_least(processors, 1, "processors")
    slots = _int_at_least(slots, 1, "slots")
    _check_cells(processors, slots)
    tasks = _int_at_least(tasks, 1, "tasks")
    require(tasks <= processors, "tasks", f"m = {tasks} exceeds the {processors} processors (mu = 1)")
    require(is_int(seed) and seed >= 0, "seed", f"must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    chains = markov_chains(rng, processors)
    states = markov_realization(rng, chains, slots)
    return CoupledInstance(
        availability=states,
        w=[w] * processors,
        mu=[1] * processors,
        m=tasks,
        transitions=chains,
        continuation_seed=continuation_seed_from([seed, processors, slots], _SEED_KEY_MARKOV),
        name=f"coupled-markov-p{processors}-h{slots}-m{tasks}-s{seed}",
        params={
            "preset": "markov",
            "processors": processors,
            "slots": slots,
            "tasks": tasks,
            "seed": seed,
            "w": w,
        },
    )


def generate_planted(
    processors: int, slots: int, tasks: int, block: int, density: float, seed: int
) -> CoupledInstance:
    """``planted``: UP with probability ``density``, plus an all-UP ``tasks x block`` block.

    Rows and columns are shuffled so the block is hidden; the optimum is at least ``block``.
    """
    processors = _int_at_least(processors, 1, "processors")
    slots = _int_at_least(slots, 1, "slots")
    _check_cells(processors, slots)
    tasks = _int_at_least(tasks, 1, "tasks")
    block = _int_at_least(block, 1, "block")
    require(tasks <= processors, "tasks", f"m = {tasks} exceeds the {processors} processors")
    require(block <= slots, "block", f"{block} exceeds the {slots} slots")
    require(is_number(density) and 0.0 <= density <= 1.0, "density", f"must be in [0, 1], got {density!r}")
    require(is_int(seed) and seed >= 0, "seed", f"must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    up = rng.random((processors, slots)) < density
    up[:tasks, :block] = True
    up = up[rng.permutation(processors)][:, rng.permutation(slots)]
    return CoupledInstance(
        availability=np.where(up, UP, DOWN).astype(np.int8),
        w=[block] * processors,
        mu=[1] * processors,
        m=tasks,
        name=f"coupled-planted-p{processors}-h{slots}-m{tasks}-b{block}-s{seed}",
        params={
            "preset": "planted",
            "processors": processors,
            "slots": slots,
            "tasks": tasks,
            "block": block,
            "density": density,
            "seed": seed,
        },
    )


def read_edgelist(path, tasks: int, transpose: bool = False) -> CoupledInstance:
    """``edgelist``: a bipartite graph as an availability matrix (rows = processors, edge = UP).

    The format of ``../shared/data/biclique/``: ``#`` lines are a header, then one
    ``u<TAB>v`` edge per line, 0-based. Sizes are the largest indices plus one
    unless a header line ``# |U| |V| |E|`` (three integers) gives them.
    ``transpose`` reads ``v`` as the processor.
    """
    from pathlib import Path

    path = Path(path)
    tasks = _int_at_least(tasks, 1, "tasks")
    lines = read_text(path).splitlines()
    sizes, edges = None, []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        if text.startswith("#"):
            fields = text.lstrip("#").split()
            if sizes is None and len(fields) == 3 and all(f.isascii() and f.isdigit() for f in fields):
                sizes = (int(fields[0]), int(fields[1]))
            continue
        fields = text.split()
        ok = len(fields) == 2 and all(f.isascii() and f.isdigit() for f in fields)  # int() refuses '²'
        require(ok, f"{path.name}: line {number}", f"must be two non-negative integers 'u v', got {text!r}")
        u, v = int(fields[0]), int(fields[1])
        require(
            u < MAX_CELLS and v < MAX_CELLS,
            f"{path.name}: line {number}",
            f"node index beyond {MAX_CELLS:,} (the most cells of an instance), got {text!r}",
        )
        edges.append((u, v))
    require(edges, str(path.name), "has no edge")
    arr = np.asarray(edges, dtype=np.int64)
    rows = max(int(arr[:, 0].max()) + 1, sizes[0] if sizes else 0)
    cols = max(int(arr[:, 1].max()) + 1, sizes[1] if sizes else 0)
    _check_cells(rows, cols, f"{path.name}: sizes")
    up = np.zeros((rows, cols), dtype=bool)
    up[arr[:, 0], arr[:, 1]] = True
    if transpose:
        up = up.T
    require(tasks <= up.shape[0], "tasks", f"m = {tasks} exceeds the {up.shape[0]} processors")
    return CoupledInstance(
        availability=np.where(up, UP, DOWN).astype(np.int8),
        w=[1] * up.shape[0],
        mu=[1] * up.shape[0],
        m=tasks,
        name=f"coupled-edgelist-{path.stem}-m{tasks}",
        params={"preset": "edgelist", "file": path.name, "tasks": tasks, "transpose": transpose},
    )


def encd_instance(graph, left, right, a: int, b: int, mu: str = "1") -> CoupledInstance:
    """Theorem 4.1's reductions from ENCD (biclique with exactly ``a`` + ``b`` nodes).

    ``graph`` is a bipartite ``networkx`` graph with parts ``left`` (V, the
    processors) and ``right`` (W, the time slots), in the given orders.

    * ``mu = "1"`` (proof part i): ``p = |V|``, ``N = |W|``, ``P_i`` UP at slot ``j``
      iff ``(v_i, w_j)`` is an edge; ``m = a`` and ``w = b``.
    * ``mu = "inf"`` (part ii): ``N = 2|W| + 1``; the first ``|W|`` slots as above,
      every processor UP in the last ``|W| + 1``; ``m = a``, ``w = b + |W| + 1``,
      unbounded ``mu``.

    Either way a biclique ``a x b`` exists iff one iteration completes (for
    ``mu = 1``: iff the OFF-LINE-COUPLED optimum with ``m = a`` is at least ``b``).
    Slots that are not UP are DOWN.
    """
    left, right = list(left), list(right)
    require(len(left) >= 1 and len(right) >= 1, "graph", "both parts must be non-empty")
    require(is_int(a) and 1 <= a <= len(left), "a", f"must be in [1, |V| = {len(left)}], got {a!r}")
    require(is_int(b) and 1 <= b <= len(right), "b", f"must be in [1, |W| = {len(right)}], got {b!r}")
    require(mu in ("1", "inf"), "mu", f"must be '1' or 'inf', got {mu!r}")
    row = {v: i for i, v in enumerate(left)}
    col = {w: j for j, w in enumerate(right)}
    require(len(row) == len(left) and len(col) == len(right), "graph", "a node is listed twice in a part")
    require(not set(row) & set(col), "graph", "a node is in both parts")
    for node in (*left, *right):
        require(node in graph, "graph", f"node {node!r} is not in the graph")
    up = np.zeros((len(left), len(right)), dtype=bool)
    for u, v in graph.edges():
        if u in col:
            u, v = v, u
        require(u in row and v in col, "graph", f"edge ({u!r}, {v!r}) does not join the two parts")
        up[row[u], col[v]] = True
    if mu == "1":
        states, w, bound = up, b, 1
    else:
        states = np.concatenate([up, np.ones((len(left), len(right) + 1), dtype=bool)], axis=1)
        w, bound = b + len(right) + 1, None
    return CoupledInstance(
        availability=np.where(states, UP, DOWN).astype(np.int8),
        w=[w] * len(left),
        mu=[bound] * len(left),
        m=a,
        name=f"coupled-encd-mu{mu}-a{a}-b{b}",
        params={"preset": "encd", "mu": mu, "a": a, "b": b, "V": len(left), "W": len(right)},
    )


def read_bipartite(path) -> tuple:
    """An edge-list file (``u v`` per line, ``#`` comments) as a networkx bipartite graph.

    Returns ``(graph, left, right)`` with ``left = ("v", 0..)``, ``right = ("w", 0..)``.
    """
    import networkx as nx

    inst = read_edgelist(path, 1)
    up = inst.up
    graph = nx.Graph()
    left = [("v", i) for i in range(up.shape[0])]
    right = [("w", j) for j in range(up.shape[1])]
    graph.add_nodes_from(left, bipartite=0)
    graph.add_nodes_from(right, bipartite=1)
    graph.add_edges_from((left[i], right[j]) for i, j in zip(*np.nonzero(up), strict=True))
    return graph, left, right


PAPER_TASKS, PAPER_NCOM, PAPER_WMIN = (5, 10), (5, 10, 20), tuple(range(1, 11))
#: Largest ``w_min`` of a paper realization: its ``K = 10`` iterations take at least
#: ``T_prog + K (T_data + w_min) = 25 w_min`` slots (the data is sent again each iteration,
#: Section III-C), so beyond ``PAPER_CAP / 25`` no run can end within the paper's cap.
MAX_PAPER_WMIN = PAPER_CAP // 25


def paper_realization(
    m: int, n_com: int, w_min: int, scenario: int, trial: int, seed: int = 0, slots: int = 2000
) -> CoupledInstance:
    """One realization of the Section VII-A experiment space.

    ``p = 20``, ``w_q ~ U{w_min, ..., 10 w_min}``, ``T_data = w_min``,
    ``T_prog = 5 w_min``, ``K = 10``, ``mu = inf``. The scenario (seeded by
    ``seed, m, n_com, w_min, scenario``) draws the chains and the ``w_q``; the
    trial one realization of ``slots`` slots of them. The paper runs until the
    10 iterations end; an off-line instance needs a horizon (default 2,000).
    The paper's grid is ``m`` in {5, 10}, ``n_com`` in {5, 10, 20},
    ``w_min`` in 1..10; other values up to :data:`MAX_PAPER_WMIN` are accepted. The on-line heuristics run
    beyond ``slots`` on :meth:`CoupledInstance.realization`, whose continuation seed is
    ``continuation_seed_from([seed, m, n_com, w_min, scenario, trial, slots], (15, 1))``.
    """
    m = _int_at_least(m, 1, "tasks")
    n_com = _int_at_least(n_com, 1, "n_com")
    w_min = check_wmin(w_min)
    scenario = _int_at_least(scenario, 0, "scenario")
    trial = _int_at_least(trial, 0, "trial")
    slots = _int_at_least(slots, 1, "slots")
    require(is_int(seed) and seed >= 0, "seed", f"must be a non-negative integer, got {seed!r}")
    p = 20
    _check_cells(p, slots)
    rng = np.random.default_rng([seed, m, n_com, w_min, scenario])
    chains = markov_chains(rng, p)
    w = rng.integers(w_min, 10 * w_min + 1, p)
    trial_rng = np.random.default_rng([seed, m, n_com, w_min, scenario, trial])
    states = markov_realization(trial_rng, chains, slots)
    return CoupledInstance(
        availability=states,
        w=w.tolist(),
        mu=[None] * p,
        m=m,
        n_com=n_com,
        T_prog=5 * w_min,
        T_data=w_min,
        K=10,
        transitions=chains,
        continuation_seed=continuation_seed_from(
            [seed, m, n_com, w_min, scenario, trial, slots], _SEED_KEY_PAPER
        ),
        name=f"coupled-paper-m{m}-ncom{n_com}-wmin{w_min}-sc{scenario}-tr{trial}-s{seed}",
        params={
            "preset": "paper-realization",
            "tasks": m,
            "n_com": n_com,
            "w_min": w_min,
            "scenario": scenario,
            "trial": trial,
            "slots": slots,
            "seed": seed,
        },
    )


def generate_paper(
    seed: int, scenarios: int = 10, trials: int = 10, slots: int = 2000
) -> list[CoupledInstance]:
    """The experiment space of Section VII-A: ``(m, n_com, w_min)`` x scenarios x trials.

    ``2 x 3 x 10 x scenarios x trials`` realizations (6,000 with the
    defaults), each from :func:`paper_realization`.
    """
    require(is_int(seed) and seed >= 0, "seed", f"must be a non-negative integer, got {seed!r}")
    scenarios = _int_at_least(scenarios, 1, "scenarios")
    trials = _int_at_least(trials, 1, "trials")
    slots = _int_at_least(slots, 1, "slots")
    count = len(PAPER_TASKS) * len(PAPER_NCOM) * len(PAPER_WMIN) * scenarios * trials
    require(
        count * 20 * slots <= MAX_FOLDER_CELLS,
        "scenarios",
        f"{count:,} realizations of 20 processors x {slots} slots = {count * 20 * slots:,} cells; "
        f"a folder holds at most {MAX_FOLDER_CELLS:,}",
    )
    return [
        paper_realization(m, n_com, w_min, s, trial, seed, slots)
        for m in PAPER_TASKS
        for n_com in PAPER_NCOM
        for w_min in PAPER_WMIN
        for s in range(scenarios)
        for trial in range(trials)
    ]
