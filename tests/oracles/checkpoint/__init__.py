"""Oracles of the checkpoint family: the expected waste by quadrature, Monte Carlo and mpmath."""
