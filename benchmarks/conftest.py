"""pytest set-up for ``python -m pytest benchmarks``: ``slow`` tests run only with ``--runslow``.

The default suite (``testpaths = ["tests"]``) never collects this folder, and this folder does
not load ``tests/conftest.py``; both use ``tests/oracles/slow.py``, which registers the option
once when one run loads both (``pytest tests benchmarks``).
"""

from oracles.slow import add_runslow, skip_slow


def pytest_addoption(parser):
    add_runslow(parser)


def pytest_collection_modifyitems(config, items):
    skip_slow(config, items)
