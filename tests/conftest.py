"""Shared pytest set-up.

* ``slow`` tests run only with ``--runslow``.
* A test marked ``@pytest.mark.problem(family, problem)`` with a ``method``
  argument runs once per exact method registered for that problem (PyJobShop's
  ``--solvers`` pattern): a new method is tested by every semantic test without
  a hand-kept list. ``exclude=(...)`` leaves out methods a test does not apply
  to; ``--methods a,b`` restricts a run to some methods.
* ``demo_run``: one ``volsched demo --json`` for every test that reads its output (it takes
  about ten seconds); ``kept``: the figures a test draws stay open for it to inspect.
"""

import contextlib
import io

import pytest
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


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    """One ``volsched demo --dir FOLDER --json``: the folder and the one JSON object it printed."""
    from volsched.cli import main

    out = tmp_path_factory.mktemp("demo") / "demo"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["demo", "--dir", str(out), "--json"]) == 0
    return out, printed.getvalue()


@pytest.fixture
def kept(monkeypatch):
    """Figures stay open after :mod:`volsched.plots` saves them; calling it lists the open figures."""
    import matplotlib.pyplot as plt

    from volsched import plots

    plt.close("all")
    monkeypatch.setattr(plots.plt, "close", lambda fig=None: None)
    yield lambda: [plt.figure(n) for n in plt.get_fignums()]
    monkeypatch.undo()
    plt.close("all")
