"""The prescient family (Kondo, Chien, Casanova 2007) behind the :class:`~volsched.families.Family` interface.

Two generators (:mod:`.generators`: a synthetic platform, or an FTA trace,
chosen by ``--platform`` / ``--fta``), one problem (``makespan``: the optimal
prescient schedule, methods ``greedy`` and ``cpsat``), the paper's twelve
heuristics on the trace-driven simulator, and the SimGrid export.
"""
