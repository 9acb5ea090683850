"""``volsched COMMAND [FAMILY] --help`` lists the choices that command takes, read from the registry.

The oracle is the registry itself (:data:`volsched.families.FAMILIES`: each family's problems,
methods, heuristics, presets and generators) and prescient's platform table: every choice must have
its own line, the default method first, and a family named after the command limits the list to it.
``volsched --help`` and a command that is not asked for help must still load no family (a fresh
interpreter).
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from volsched.cli import main
from volsched.families import FAMILIES
from volsched.instances.prescient.platforms import PLATFORMS


def _help(capsys, *argv: str) -> list[str]:
    """The lines ``volsched ARGV --help`` prints after the options (exit 0, nothing on stderr)."""
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    out, err = capsys.readouterr()
    assert stop.value.code == 0 and err == ""
    lines = out.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith(("The ", "Each family's "))]
    return lines[heads[0] :] if heads else []


def _method_lines(lines: list[str], family: str) -> dict[tuple[str, str], str]:
    problems = FAMILIES[family].problems
    return {
        (words[0], words[1]): line
        for line in lines
        if len(words := line.split()) >= 2 and words[0] in problems and words[1] in problems[words[0]].methods
    }


def test_solve_help_lists_every_familys_problems_and_methods_default_first(capsys):
    lines = _help(capsys, "solve")
    for name, family in FAMILIES.items():
        assert name in lines  # one heading per family
        found = _method_lines(lines, name)
        for problem in family.problems.values():
            assert sum(line.split()[:1] == [problem.name] for line in lines) >= 1
            for method in problem.methods:
                line = found[(problem.name, method)]
                assert ("default" in line.split(maxsplit=2)[2]) == (method == problem.default_method), line
            listed = [m for (p, m) in found if p == problem.name]
            assert listed[0] == problem.default_method


@pytest.mark.parametrize("command", ["simulate", "evaluate"])
def test_heuristic_commands_list_every_heuristic_with_its_problem(capsys, command):
    lines = _help(capsys, command)
    for family in FAMILIES.values():
        for name, heuristic in family.heuristics.items():
            hits = [line for line in lines if line.split()[:2] == [name, heuristic.problem]]
            assert len(hits) == 1, (family.name, name)


def test_a_family_after_the_command_lists_that_family_only(capsys):
    lines = _help(capsys, "evaluate", "coupled")
    coupled = FAMILIES["coupled"]
    for name, heuristic in coupled.heuristics.items():
        assert sum(line.split()[:2] == [name, heuristic.problem] for line in lines) == 1, name
    methods = list(_method_lines(lines, "coupled"))
    for problem in coupled.problems.values():
        assert [m for (p, m) in methods if p == problem.name] == list(problem.methods)
        assert next(iter(problem.methods)) == problem.default_method
    for preset in coupled.extras.presets:
        assert sum(line.split()[:1] == [preset] for line in lines) == 1, preset
    for generator in coupled.generators:
        assert sum(line.split()[:1] == [generator] for line in lines) == 1, generator
    others = {n for f in FAMILIES.values() for n in f.heuristics} - set(coupled.heuristics)
    assert not [line for line in lines if line.split()[:1] and line.split()[0] in others]
    assert not [n for n in FAMILIES if n != "coupled" and n in lines]


def test_generate_family_help_lists_its_generators_and_platforms(capsys):
    lines = _help(capsys, "generate", "prescient")
    text = "\n".join(lines)
    for generator in FAMILIES["prescient"].generators:
        assert sum(line.split()[:1] == [generator] for line in lines) == 1, generator
    platforms = next(line for line in lines if line.strip().startswith("platforms:"))
    assert platforms.split(":", 1)[1].strip().split(", ") == list(PLATFORMS)
    assert "checkpoint" not in lines and "--fta" in text


def test_sweep_help_lists_every_preset(capsys):
    lines = _help(capsys, "sweep")
    for family in FAMILIES.values():
        for preset in family.extras.presets:
            assert sum(line.split()[:1] == [preset] for line in lines) == 1, (family.name, preset)


@pytest.mark.parametrize("command", ["report", "list", "demo"])
def test_a_command_without_family_choices_lists_none(capsys, command):
    assert _help(capsys, command) == []


@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "x.json"], ["solve", "coupled"]])
def test_help_of_volsched_and_a_run_without_help_load_no_family(argv):
    """The listing loads every family and its solvers; only a command's own ``--help`` may pay for it."""
    code = (
        "import contextlib, io, sys\nfrom volsched.cli import build_parser\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    build_parser(sys.argv[1:]).format_help()\n"
        "print(sorted(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True)
    heavy = [
        m
        for m in ast.literal_eval(out.stdout)
        if m.endswith(".family")
        or m == "volsched.listing"
        or m.split(".")[:3] in (["volsched", "solvers", f] for f in FAMILIES)
    ]
    assert heavy == []


def test_volsched_help_says_where_the_choices_are(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "`volsched COMMAND FAMILY --help` those of one family" in text
    assert not [n for n in FAMILIES if n in text.splitlines()]
