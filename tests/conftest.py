"""Shared pytest set-up.

* ``slow`` tests run only with ``--runslow``.
* A test marked ``@pytest.mark.problem(family, problem)`` with a ``method``
  argument runs once per exact method registered for that problem (PyJobShop's
  ``--solvers`` pattern): a new method is tested by every semantic test without
  a hand-kept list. ``exclude=(...)`` leaves out methods a test does not apply
  to; ``--methods a,b`` restricts a run to some methods.
"""

from oracles.registry import registered_methods
from oracles.slow import add_runslow, skip_slow


def pytest_addoption(parser):
    add_runslow(parser)
    parser.addoption(
        "--methods",
        default=None,
        help="comma-separated exact methods to test (default: every registered one)",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "problem(family, problem, exclude=()): run the test's `method` "
        "argument over every registered method of the problem",
    )


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("problem")
    if marker is None or "method" not in metafunc.fixturenames:
        return
    family, problem = marker.args
    exclude = set(marker.kwargs.get("exclude", ()))
    chosen = metafunc.config.getoption("--methods")
    keep = None if chosen is None else set(chosen.split(","))
    methods = [
        m for m in registered_methods(family, problem) if m not in exclude and (keep is None or m in keep)
    ]
    metafunc.parametrize("method", methods)


def pytest_collection_modifyitems(config, items):
    skip_slow(config, items)
