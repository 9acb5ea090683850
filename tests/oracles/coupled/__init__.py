"""Oracles of the coupled family: brute force of ``full``, Monte Carlo of the Section V estimates, and
the pure-Python greedy, sweep, replay and simulator that the compiled kernels replaced."""
