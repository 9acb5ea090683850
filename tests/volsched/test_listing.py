"""Discovery: ``volsched list``, each command's ``--help``, and one spelling per option.

The listing is checked against the registry it reads (every problem, method, heuristic and preset of
every family, each once, the default method first) and the help against the parser; ``--help`` must
load no family (a fresh interpreter).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.cli import build_parser
from volsched.families import FAMILIES
from volsched.instances.prescient.platforms import PLATFORMS


def test_list_json_is_one_object_keyed_by_family(capsys):
    code, out, err = run(capsys, "list", "--json")
    assert code == 0, err
    listed = one_json(out)
    assert list(listed) == list(FAMILIES)
    for name, d in listed.items():
        family = FAMILIES[name]
        assert {"problems", "methods", "heuristics", "presets"} <= set(d)
        assert [p["name"] for p in d["problems"]] == list(family.problems)
        for p in d["problems"]:
            problem = family.problems[p["name"]]
            assert p["sense"] == problem.sense
            assert d["methods"][p["name"]] == p["methods"] == list(problem.methods)
            assert p["methods"][0] == p["default_method"] == problem.default_method
        assert {h["name"]: h["problem"] for h in d["heuristics"]} == {
            n: h.problem for n, h in family.heuristics.items()
        }
        assert [p["name"] for p in d["presets"]] == list(family.extras.presets)
        assert d["default_heuristic_problem"] in family.problems
    assert listed["prescient"]["platforms"] == list(PLATFORMS)
    assert listed["slack"]["default_heuristic_problem"] == "slack"


def test_list_family_text_has_one_line_per_problem_method_heuristic_and_preset(capsys):
    code, out, err = run(capsys, "list", "coupled")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "coupled"
    family = FAMILIES["coupled"]
    for name, h in family.heuristics.items():
        hits = [line for line in lines if line.split()[:2] == [name, h.problem]]
        assert len(hits) == 1, name
    for problem in family.problems.values():
        for i, method in enumerate(problem.methods):
            hits = [line for line in lines if line.split()[:2] == [problem.name, method]]
            assert len(hits) == 1 and (("default" in hits[0]) == (i == 0)), (problem.name, method)
    for preset in family.extras.presets:
        assert sum(line.split()[:1] == [preset] for line in lines) == 1
    for generator in family.generators:
        assert sum(line.split()[:1] == [generator] for line in lines) == 1


def test_list_refuses_an_unknown_family(capsys):
    code, out, err = run(capsys, "list", "nope")
    assert_input_error(code, err, "invalid choice: 'nope'")
    assert out == ""


def test_help_loads_no_family():
    code = (
        "import sys\nfrom volsched.cli import build_parser\n"
        "build_parser(['--help']).format_help()\n"
        "print(sorted(m for m in sys.modules if m.startswith('volsched.families.')\n"
        "             and m not in ('volsched.families.base', 'volsched.families.plugins')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_command_help_starts_with_what_it_does():
    parser = build_parser(None)
    assert "DESIGN.md" not in parser.format_help()
    assert parser.description.startswith("volsched: exact off-line optima")
    sub = next(a for a in parser._actions if a.dest == "command")
    descriptions = {}
    for name, command in sub.choices.items():
        text = command.format_help()
        assert "DESIGN.md" not in text and "The ``volsched`` command" not in text, name
        assert command.description and command.description[0].isupper(), name
        descriptions[name] = command.description
    assert len(set(descriptions.values())) == len(descriptions)  # each says something of its own


def test_export_writes_a_folder_given_by_dir_and_still_by_out_with_one_warning(capsys, tmp_path):
    path = tmp_path / "p.json"
    assert run(capsys, "generate", "prescient", "--hosts", 12, "--tasks", 5, "--out", path)[0] == 0
    capsys.readouterr()
    code, _, err = run(capsys, "export", "simgrid", path, "--dir", tmp_path / "a", "--json")
    assert code == 0 and err == ""
    new = sorted(p.name for p in (tmp_path / "a").iterdir())
    code, _, err = run(capsys, "export", "simgrid", path, "--out", tmp_path / "b", "--json")
    assert code == 0
    assert err.count("\n") == 1 and "--out FOLDER here is deprecated" in err and "--dir FOLDER" in err
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == new
    code, _, err = run(capsys, "export", "simgrid", path)
    assert_input_error(code, err, "--dir: export writes a folder")


@pytest.mark.parametrize("option", ["--dir", "--out"])
def test_generate_a_many_instance_preset_into_a_folder(capsys, tmp_path, option):
    folder = tmp_path / "paper"
    code, out, err = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "paper",
        "--scenarios",
        1,
        "--trials",
        1,
        "--slots",
        50,
        option,
        folder,
        "--json",
    )
    assert code == 0, err
    written = sorted(folder.iterdir())
    assert one_json(out)["instances"] == len(written) > 0
    assert ("deprecated" in err) == (option == "--out")


def test_generate_dir_writes_one_instance_under_its_name(capsys, tmp_path):
    code, out, err = run(capsys, "generate", "checkpoint", "--slices", 4, "--dir", tmp_path, "--json")
    assert code == 0, err
    name = one_json(out)["instance"]
    assert (tmp_path / f"{name}.json").is_file()
    code, _, err = run(capsys, "generate", "checkpoint", "--dir", tmp_path, "--out", tmp_path / "x.json")
    assert_input_error(code, err, "--dir: give either --out FILE or --dir FOLDER")
    assert not (tmp_path / "x.json").exists()
