"""The ``--runslow`` option and the skipping of ``slow`` tests, for ``tests/`` and ``benchmarks/`` alike.

Both folders' conftests call these (``tests`` is on pytest's ``pythonpath``);
one run may load both (``pytest tests benchmarks``), so the option is
registered by whichever comes first.
"""

import contextlib

import pytest


def add_runslow(parser) -> None:
    # the other folder's conftest may have registered it in this run
    with contextlib.suppress(ValueError):
        parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


def skip_slow(config, items) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
