"""Compiled (numba) bit operations on ``uint64`` bitsets, shared by the kernels of :mod:`.bnb`.

The LLVM intrinsics ``ctpop``, ``cttz`` and BMI2 ``pext`` (a software ``pext`` where the CPU has
none), the clock as compiled code reads it, and two small helpers of the greedy, the tabu search
and the branch-and-bound (:mod:`._bnb_heuristics_kernel`, :mod:`._bnb_kernel`).

A value passed to a compiled helper is an ``np.int64`` where it would be a literal: numba compiles
a helper once per argument type it meets, and types a literal as its own type, so each literal
cost one more compilation on a cold cache (see :mod:`._bnb_kernel`).
"""

from __future__ import annotations

import time

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

ONE = np.uint64(1)


@intrinsic
def popc(typingctx, x):
    """Number of set bits of ``x`` (``ctpop``)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.uint64), codegen


@intrinsic
def lowest(typingctx, x):
    """Index of the lowest set bit of ``x`` (``cttz``)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.uint64), codegen


def pext_software(x, m):
    """:func:`pext` without BMI2: the bits of ``x`` under ``m``, one bit of ``m`` at a time."""
    out = np.uint64(0)
    k = np.uint64(0)
    while m:
        if x & m & (~m + ONE):
            out |= ONE << k
        k += ONE
        m &= m - ONE
    return out


def _has_bmi2() -> bool:
    from numba.core import config

    if config.CPU_NAME not in (None, "host"):
        return False
    import llvmlite.binding as llvm

    return bool(llvm.get_host_cpu_features().get("bmi2", False))


_BMI2 = _has_bmi2()


@intrinsic
def pext(typingctx, x, m):
    """The bits of ``x`` under ``m``, packed to the low end (BMI2 ``pext`` when the CPU has it)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        if _BMI2:
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(64)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pext.64")
            return builder.call(fn, args)
        return context.compile_internal(builder, pext_software, signature, args)

    return sig, codegen


@njit(cache=True)
def now():
    """``time.perf_counter()`` from compiled code."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True, nogil=True)
def count(x, y):
    """Number of bits common to the bitsets ``x`` and ``y``."""
    c = 0
    for w in range(x.shape[0]):
        c += popc(x[w] & y[w])
    return c


@njit(cache=True, nogil=True)
def ascending(x):
    """``x`` (a few item numbers) sorted in place and returned: an insertion sort, as numba's
    ``np.sort`` compiles its quicksort on a cold cache."""
    for i in range(1, x.shape[0]):
        v = x[i]
        j = i
        while j > 0 and x[j - 1] > v:
            x[j] = x[j - 1]
            j -= 1
        x[j] = v
    return x
