"""Coupled on-line heuristics: the Section V Markov estimates, the simulator and the policies.

Casanova, Dufossé, Robert, Vivien, HCW 2013, Sections V-VI (readings:
``../shared/readings/coupled-online.md``).
"""
