"""A file of the wrong kind gets one line saying what it is and which command reads it; nothing is written.

The files are real: a store written by the store class, a sweep file the sweep reads, results written
by ``solve --out`` and ``simulate --out``, an evaluate report, a PNG's signature.
"""

from __future__ import annotations

import json

import pytest
from oracles.cli import assert_input_error, run

from volsched.experiments.store import Store
from volsched.instances.errors import InputError
from volsched.instances.io import read_json, read_text


@pytest.fixture
def files(tmp_path, capsys):
    """Name -> path of one file of each kind, and the instance they were made from."""
    job = tmp_path / "job.json"
    assert run(capsys, "generate", "checkpoint", "--slices", 6, "--out", job)[0] == 0
    assert run(capsys, "solve", job, "--out", tmp_path / "solved.json")[0] == 0
    assert run(capsys, "simulate", job, "--heuristic", "daly", "--out", tmp_path / "ran.json")[0] == 0
    code, out, _ = run(capsys, "evaluate", job, "--json")
    assert code == 0
    (tmp_path / "report.json").write_text(out)
    with Store(tmp_path / "smoke.db"):
        pass
    (tmp_path / "sweep.toml").write_text('family = "checkpoint"\nseeds = 2\n[grid]\nslices = [5]\n')
    (tmp_path / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    capsys.readouterr()
    return {p.stem: p for p in tmp_path.iterdir()}


KINDS = {
    "smoke": ("an SQLite database (a volsched results store), not a JSON file", "`volsched report"),
    "sweep": ("a sweep configuration (TOML), not a JSON file", "`volsched sweep"),
    "plot": ("a PNG image, not a JSON file", "no volsched command reads it"),
    "solved": ("a solve result (`volsched solve --out`), not an instance", "`volsched verify INSTANCE FILE`"),
    "ran": ("a simulate result (`volsched simulate --out`), not an instance", "`volsched verify"),
    "report": ("an evaluate report (`volsched evaluate --json`), not an instance", "no volsched command"),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("command", [["solve"], ["simulate", "--heuristic", "daly"], ["evaluate"]])
def test_a_file_of_another_kind_given_as_an_instance(capsys, files, tmp_path, kind, command):
    what, reader = KINDS[kind]
    out_file = tmp_path / "out.json"
    argv = [command[0], files[kind], *command[1:]] + (["--out", out_file] if command[0] != "evaluate" else [])
    code, out, err = run(capsys, *argv)
    assert_input_error(code, err, f"{files[kind]}: {what}; {reader}")
    assert out == "" and not out_file.exists()
    assert "codec" not in err


@pytest.mark.parametrize(
    ("kind", "fragment"),
    [
        ("job", "a checkpoint instance, not a results store; `volsched solve"),
        ("sweep", "a sweep configuration (TOML), not a results store; `volsched sweep"),
        ("plot", "a PNG image, not a results store"),
    ],
)
def test_a_file_of_another_kind_given_as_a_store(capsys, files, tmp_path, kind, fragment):
    before = files[kind].read_bytes()
    code, out, err = run(capsys, "report", files[kind], "--csv", tmp_path / "csv")
    assert_input_error(code, err, fragment)
    assert out == "" and not (tmp_path / "csv").exists()
    assert files[kind].read_bytes() == before


def test_an_instance_given_as_a_sweep_file(capsys, files, tmp_path):
    code, _out, err = run(capsys, "sweep", files["job"], "--store", tmp_path / "new.db")
    assert_input_error(code, err, "a checkpoint instance, not a sweep configuration (TOML); `volsched solve")
    assert not (tmp_path / "new.db").exists()


def test_a_store_given_as_a_solution_and_as_a_sweep_file(capsys, files, tmp_path):
    code, _, err = run(capsys, "verify", files["job"], files["smoke"])
    assert_input_error(code, err, "an SQLite database (a volsched results store), not a JSON file")
    code, _, err = run(capsys, "sweep", files["smoke"], "--store", tmp_path / "new.db")
    assert_input_error(code, err, "an SQLite database (a volsched results store), not a text file")
    assert not (tmp_path / "new.db").exists()


def test_readers_name_kinds_and_leave_other_files_to_their_own_errors(tmp_path):
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"abc\xf8def")
    with pytest.raises(InputError, match=r"odd.bin: not a text file \(byte 3 is not UTF-8\)"):
        read_text(odd)
    toml = tmp_path / "pyproject.toml"
    toml.write_text('[project]\nname = "x"\n')
    with pytest.raises(InputError, match="a TOML file, not a JSON file"):
        read_json(toml)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": ')
    with pytest.raises(InputError, match=r"not valid JSON \(line 1"):
        read_json(broken)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "other"}))
    assert read_json(other) == {"format": "other"}  # read; the instance check names its format
