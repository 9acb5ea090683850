"""A family's own options of solve / simulate / evaluate, and ``volsched export`` (the family interface)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched import families
from volsched.families import FAMILIES, Option, RunOption
from volsched.instances.errors import InputError, check_number
from volsched.instances.io import read_json

VALID = Path(__file__).resolve().parents[2] / "data" / "valid_checkpoint.json"


def _scaled(instance, value):
    return dataclasses.replace(instance, name=f"{instance.name}-x{value:g}")


def _export(instance, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "instance.txt"
    path.write_text(instance.name)
    return [path]


OPTIONS = (
    RunOption(
        Option("factor", lambda v, k: check_number(v, k, 0, 1), help="a factor", cli_type=float),
        instance=_scaled,
    ),
    RunOption(
        Option("other", lambda v, k: v, help="the other problem", flag=True),
        commands=("solve",),
        problem="checkpoint",
    ),
    RunOption(
        Option("samples_too", lambda v, k: int(v), help="a simulator field", cli_type=int),
        commands=("simulate",),
        simulator_field="samples",
    ),
)


@pytest.fixture
def with_options(monkeypatch):
    """The checkpoint family with three run options and an export (the real families' come with them)."""
    checkpoint = FAMILIES["checkpoint"]
    extras = dataclasses.replace(checkpoint.extras, exports={"text": _export})
    fam = dataclasses.replace(checkpoint, run_options=OPTIONS, extras=extras)
    monkeypatch.setitem(families.FAMILIES, "checkpoint", fam)
    return fam


def test_setup_applies_each_kind_of_option(with_options):
    instance = with_options.load(read_json(VALID))
    setup = with_options.setup("solve", instance, {"factor": 0.5, "other": True, "samples_too": None})
    assert setup.instance.name == f"{instance.name}-x0.5"
    assert setup.problem == "checkpoint"
    sim = with_options.setup("simulate", instance, {"samples_too": 7}).simulator(
        with_options.heuristics["daly"].simulator
    )
    assert sim.samples == 7


@pytest.mark.parametrize(
    ("command", "values", "fragment"),
    [
        ("solve", {"factor": 2.0}, "--factor"),
        ("solve", {"samples_too": 3}, "--samples-too: the checkpoint family's solve takes no such option"),
        ("simulate", {"other": True}, "--other: the checkpoint family's simulate takes no such option"),
    ],
)
def test_setup_rejects_bad_values_and_foreign_options(with_options, command, values, fragment):
    instance = with_options.load(read_json(VALID))
    with pytest.raises(InputError, match=fragment):
        with_options.setup(command, instance, values)


def test_a_problem_flag_conflicts_with_another_problem(with_options):
    instance = with_options.load(read_json(VALID))
    with pytest.raises(InputError, match="--other: chooses problem 'checkpoint'"):
        with_options.setup("solve", instance, {"other": True}, problem="bot")


def test_a_simulator_without_the_field_is_an_error(with_options):
    setup = families.Setup(None, None, {"nonexistent": 1})
    with pytest.raises(InputError, match="--nonexistent"):
        setup.simulator(with_options.heuristics["daly"].simulator)


def test_run_option_needs_exactly_one_effect():
    with pytest.raises(ValueError, match="exactly one"):
        RunOption(Option("x", lambda v, k: v), problem="a", simulator_field="b")


def test_cli_passes_run_options_through(with_options, capsys):
    code, out, _ = run(capsys, "solve", VALID, "--factor", "0.25", "--json")
    assert code == 0
    assert one_json(out)["instance"].endswith("-x0.25")
    code, out, err = run(capsys, "solve", VALID, "--factor", "3", "--json")
    assert_input_error(code, err, "--factor")
    assert out == ""


def test_export_writes_a_folder_and_refuses_a_file(with_options, capsys, tmp_path):
    code, out, _ = run(capsys, "export", "text", VALID, "--out", tmp_path / "x", "--json")
    assert code == 0
    assert [Path(p).name for p in one_json(out)["files"]] == ["instance.txt"]
    target = tmp_path / "file"
    target.write_text("keep")
    code, out, err = run(capsys, "export", "text", VALID, "--out", target, "--json")
    assert_input_error(code, err, "is a file")
    assert target.read_text() == "keep"
    code, out, err = run(capsys, "export", "simgrid", VALID, "--out", tmp_path / "y", "--json")
    assert_input_error(code, err, "the checkpoint family exports ['text']")
    assert not (tmp_path / "y").exists()
