"""The slack family (Canon et al. 2011) behind the :class:`~volsched.families.Family` interface.

Generators (``--preset``): ``paper`` (the Section 6 stand-in), ``theorem2``
(``2 p_max <= a_min`` by construction), ``three-partition`` (Theorem 1's
completed reduction of a BPPLIB file) and ``planted`` (random 3-PARTITION
instances, YES or certified NO, through the same reduction); see
:mod:`volsched.instances.slack.generators`. Every generator takes ``beta``
(default 1), stored in the instance, so that a sweep grid can vary it.
Problems ``slack`` and ``plain`` (:mod:`volsched.solvers.slack`); heuristics
GAPS and the LPT / list baselines (:mod:`volsched.heuristics.slack`). Run
options: ``--beta`` (solve, simulate, evaluate, verify: the instance at another
``beta``, :meth:`SlackInstance.with_beta`), ``--plain`` (solve: the plain
problem) and ``--disturbance`` (simulate, evaluate).
"""
