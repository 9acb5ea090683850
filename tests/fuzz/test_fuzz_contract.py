"""The CLI contract (DESIGN.md) under mutated input, on every family.

Hypothesis mutates valid instance files, result files (and bare solution objects) and command
lines of every family in ``FAMILIES``, the sweep configs of their smoke presets, the result stores
those sweeps write and the files their generators read (:mod:`fuzz.engine`), runs ``volsched`` in-process and
asserts the contract: exit 0 or 2, never 1; on 2 exactly one ``volsched: error:`` line, nothing
on stdout and nothing written; with ``--json`` one JSON object; and an accepting ``verify``
agrees with the independent oracle (:mod:`fuzz.oracle`). The example counts are bounded for
the default suite; ``python -m pytest benchmarks/fuzz --runslow`` runs the long campaign.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fuzz.engine import (
    INPUTS,
    SMALL_INSTANCES,
    DataChooser,
    make_seeds,
    run_contract,
    try_argv_mutant,
    try_file_mutant,
)
from fuzz.oracle import check_accepted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from volsched.families import FAMILIES

# 75 fresh mutants per test and run (no example database, a new random seed each run): the suite
# samples the contract; the campaign of benchmarks/fuzz (50,000 mutants, --runslow) covers it.
FUZZ = settings(
    max_examples=75,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return make_seeds(tmp_path_factory.mktemp("seeds"))


def _of(seeds, family):
    return [s for s in seeds if s.family == family]


def _report(trial) -> str:
    o = trial.outcome
    return (
        f"{trial.kind} mutant {trial.what}\n  argv: {o.argv}\n  exit {o.code}\n  stderr: {o.err!r}\n"
        f"  defects: {o.defects}"
    )


def test_the_seeds_cover_every_family_and_problem(seeds):
    for name, family in FAMILIES.items():
        mine = _of(seeds, name)
        assert any(s.kind == "instance" for s in mine), name
        assert {s.problem for s in mine if s.kind == "result"} == set(family.problems), name


def test_the_oracle_accepts_every_seed_result(seeds, tmp_path):
    """No false alarm: each untouched result and bare solution verifies, and the oracle agrees."""
    for seed in seeds:
        if seed.kind not in ("result", "solution"):
            continue
        outcome = run_contract(
            ["verify", seed.instance, seed.path, "--json"],
            tmp_path,
            oracle=lambda rep, s=seed: check_accepted(s.instance, s.path, rep),
        )
        assert outcome.code == 0 and not outcome.defects, (seed.path.name, outcome.err, outcome.defects)


def test_every_seed_config_and_input_file_is_accepted(seeds, tmp_path):
    for seed in seeds:
        if seed.kind == "config":
            argv = [
                "sweep",
                seed.path,
                "--store",
                tmp_path / f"{seed.path.stem}.db",
                "--workers",
                1,
                "--quiet",
            ]
        elif seed.kind == "input":
            argv = [*seed.argv, "--out", tmp_path / "g.json"]
            argv = [str(seed.path) if a in INPUTS else a for a in argv]
        else:
            continue
        outcome = run_contract(argv, tmp_path)
        assert outcome.code == 0 and not outcome.defects, (argv, outcome.err, outcome.defects)


def test_the_oracle_rejects_what_it_should(seeds, tmp_path):
    """The oracle is not vacuous: a claim that does not hold is a false accept to it."""
    import json

    for seed in seeds:
        if seed.kind != "result" or seed.obj["objective"] is None:
            continue
        wrong = {**seed.obj, "objective": seed.obj["objective"] + 1}
        path = tmp_path / "wrong.json"
        path.write_text(json.dumps(wrong))
        assert check_accepted(
            seed.instance, path, {"problem": seed.problem, "objective": seed.obj["objective"]}
        ), seed.path.name


@pytest.mark.parametrize("family", list(FAMILIES))
@FUZZ
@given(data=st.data())
def test_mutated_instances_keep_the_contract(seeds, family, data):
    with tempfile.TemporaryDirectory() as work:
        trial = try_file_mutant(DataChooser(data), _of(seeds, family), Path(work), kind="instance")
    assert not trial.outcome.defects, _report(trial)


@pytest.mark.parametrize("family", list(FAMILIES))
@FUZZ
@given(data=st.data())
def test_mutated_results_keep_the_contract_and_verify_agrees_with_the_oracle(seeds, family, data):
    with tempfile.TemporaryDirectory() as work:
        trial = try_file_mutant(DataChooser(data), _of(seeds, family), Path(work), kind="result")
    assert not trial.outcome.defects, _report(trial)


@pytest.mark.parametrize("family", list(FAMILIES))
@FUZZ
@given(data=st.data())
def test_mutated_sweep_configs_keep_the_contract(seeds, family, data):
    if not any(s.kind == "config" for s in _of(seeds, family)):
        pytest.skip(f"{family} has no smoke sweep preset")
    with tempfile.TemporaryDirectory() as work:
        trial = try_file_mutant(DataChooser(data), _of(seeds, family), Path(work), kind="config")
    assert not trial.outcome.defects, _report(trial)


@pytest.mark.parametrize("family", list(FAMILIES))
@FUZZ
@given(data=st.data())
def test_damaged_result_stores_keep_the_contract(seeds, family, data):
    if not any(s.kind == "store" for s in _of(seeds, family)):
        pytest.skip(f"{family} has no smoke sweep preset")
    with tempfile.TemporaryDirectory() as work:
        trial = try_file_mutant(DataChooser(data), _of(seeds, family), Path(work), kind="store")
    assert not trial.outcome.defects, _report(trial)


@pytest.mark.parametrize(
    "family", [f for f, opts in SMALL_INSTANCES.items() if any(set(INPUTS) & set(o) for o in opts)]
)
@FUZZ
@given(data=st.data())
def test_mutated_generator_input_files_keep_the_contract(seeds, family, data):
    with tempfile.TemporaryDirectory() as work:
        trial = try_file_mutant(DataChooser(data), _of(seeds, family), Path(work), kind="input")
    assert not trial.outcome.defects, _report(trial)


@pytest.mark.parametrize("family", list(FAMILIES))
@FUZZ
@given(data=st.data())
def test_mutated_command_lines_keep_the_contract(seeds, family, data):
    with tempfile.TemporaryDirectory() as work:
        trial = try_argv_mutant(DataChooser(data), _of(seeds, family), Path(work))
    assert not trial.outcome.defects, _report(trial)


def test_run_contract_catches_what_it_claims_to(tmp_path, monkeypatch):
    """The checker itself: an exit 1, a second stderr line and a file written on error are defects."""

    def two_lines(argv):
        print("volsched: error: one\nvolsched: error: two", file=__import__("sys").stderr)
        (tmp_path / "left.json").write_text("{}")
        return 2

    monkeypatch.setattr("fuzz.engine.main", two_lines)
    defects = run_contract(["solve", "x"], tmp_path).defects
    assert any("one 'volsched: error:' line" in d for d in defects)
    assert any("wrote on error" in d for d in defects)
    monkeypatch.setattr("fuzz.engine.main", lambda argv: 1)
    assert any(d.startswith("exit 1") for d in run_contract(["solve", "x"], tmp_path).defects)
