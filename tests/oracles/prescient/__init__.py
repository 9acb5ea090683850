"""Oracles of the prescient family: the exact-rational brute-force optimum, a per-second simulator,
SimGrid replays, and small random instances."""
