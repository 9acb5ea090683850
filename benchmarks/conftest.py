"""pytest set-up for ``python -m pytest benchmarks``: ``slow`` tests run only with ``--runslow``.

The default suite (``testpaths = ["tests"]``) never collects this folder, and this folder does
not load ``tests/conftest.py``, so the option is registered here too. One run may load both
files, in either order (``pytest tests benchmarks``, ``pytest benchmarks tests``); the option
must then be registered once.
"""

import pytest

RUNSLOW = ("--runslow",)


def pytest_addoption(parser):
    try:
        parser.addoption(*RUNSLOW, action="store_true", default=False, help="run tests marked slow")
    except ValueError:  # tests/conftest.py, loaded first, registered it
        return
    register = parser.addoption

    def addoption(*opts, **attrs):  # tests/conftest.py, loaded later, registers it again: skip that
        if opts != RUNSLOW:
            register(*opts, **attrs)

    parser.addoption = addoption


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
