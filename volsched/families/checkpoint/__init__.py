"""The checkpoint family (Bouguerra et al. 2011) behind the :class:`~volsched.families.Family` interface.

One generator (a job of the paper's distributions for one client), one
problem (``checkpoint``: the minimum expected waste), the four law-based
policies run by the single-job simulator, the paper's presets, and the demo
part, which includes the bag-of-tasks experiment of Section IV (:mod:`.bot`).
"""
