"""Oracles of the slack family: brute force of the exact problems, Algorithm 1 and the disturbed
execution written literally, and small random instances."""
