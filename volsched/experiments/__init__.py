"""Experiment engine: sweeps of (instance, method) tasks, a results store, reports."""
