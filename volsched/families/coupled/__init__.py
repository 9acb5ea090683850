"""The coupled family (Casanova et al. 2013) behind the :class:`~volsched.families.Family` interface.

Generators (``--preset``): ``markov`` (the paper's 3-state chains), ``planted``
(a random matrix with a hidden all-UP block), ``edgelist`` (a bipartite graph
file), ``encd`` (Theorem 4.1's reduction), ``paper-realization`` (one
realization of the Section VII-A space) and ``paper`` (the whole space, a
folder of ``paper-realization`` files). Problems: the four of
:mod:`volsched.solvers.coupled.problems`. The on-line heuristics
are the 17 of Section VI (:mod:`volsched.heuristics.coupled`), scored against
``full`` on the same realization.
"""
