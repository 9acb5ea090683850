"""Constants shared by the proactive policies (:mod:`.proactive`) and their compiled rule.

They sit at the kernels' level so that :mod:`._proactive_kernel` reads them without importing
a policy module; this module imports nothing, so the policies read them without loading numba.
"""

#: A P-hold needs the kept probability at least this: its power ``P_+^(W-c-1)`` is then a normal
#: float, far from the subnormal range where a larger exponent could round to a larger power.
TINY = 1e-290
#: The P and E promises need the estimates' truncation ``T`` below this
#: (:meth:`.proactive.Proactive.decide`).
MONOTONE_T = 2**30
