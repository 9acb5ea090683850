"""``volsched hunt --out DIR --report``: the report's figures, its sample re-scored, its bad input."""

from __future__ import annotations

import json

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.evaluate import evaluate
from volsched.families import FAMILIES
from volsched.hunt.report import reference_instance, write_report


@pytest.mark.parametrize(
    ("family", "heuristic", "bounds"),
    [
        ("slack", "lpt", ["machines=3", "jobs=7"]),
        ("checkpoint", "daly", ["slices=6"]),
        ("coupled", "IE", ["processors=4", "slots=30"]),
        ("prescient", "FCFS", ["hosts=4", "tasks=6"]),
    ],
)
def test_report_files_figures_and_sample(tmp_path, capsys, family, heuristic, bounds):
    out = tmp_path / "archive"
    argv = ["hunt", family, "--heuristic", heuristic, "--budget", "20", "--seed", "1", "--out", out]
    argv += [a for b in bounds for a in ("--bound", b)] + ["--report", "--report-samples", "5", "--json"]
    code, stdout, err = run(capsys, *argv)
    assert code == 0, err
    report = one_json(stdout)["report"]
    assert json.loads((out / "report.json").read_text()) == json.loads(json.dumps(report))
    md = (out / "report.md").read_text()
    from matplotlib.image import imread

    for key in ("progress", "worst", "ratios"):
        path = out / f"report-{key}.png"
        assert f"]({path.name})" in md
        height, width = imread(path).shape[:2]
        assert width <= 1600 and height > 100
    # The sample is what it says: each ratio re-scored here from the reference instance alone.
    summary = json.loads((out / "hunt.json").read_text())
    fam = FAMILIES[family]
    from volsched.hunt.families import SPACES

    space = SPACES[family].from_bounds(summary["bounds"], heuristic)
    i = 3
    again = evaluate(
        fam,
        reference_instance(space, summary, i),
        [fam.heuristic(heuristic)],
        method=summary["method"],
        seed=0,
        budget=summary["solve_budget"],
    )["policies"][heuristic]["ratio_lo"]
    assert report["reference"]["ratios"][i] == pytest.approx(again, rel=1e-9)  # floats
    scored = [r for r in report["reference"]["ratios"] if r is not None]
    assert report["reference"]["n"] == len(scored)
    assert report["reference"]["max"] == max(scored) and report["reference"]["q0"] == min(scored)
    assert report["best_ratio"] == summary["best_ratio"]


def test_report_rewritten_from_the_archive_alone(tmp_path, capsys):
    out = tmp_path / "a"
    code, _, err = run(
        capsys, "hunt", "slack", "--heuristic", "list", "--budget", "10", "--out", out, "--json"
    )
    assert code == 0, err
    assert not (out / "report.md").exists()
    moved = tmp_path / "moved"
    out.rename(moved)
    report = write_report(moved, samples=3)
    assert report["reference"]["n"] == 3 and (moved / "report-worst.png").is_file()


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--report"], "--report: needs --out"),
        (["--report", "--out", "{tmp}/r", "--report-samples", "0"], "--report-samples"),
    ],
)
def test_report_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, argv, fragment):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, _, err = run(capsys, "hunt", "slack", "--heuristic", "lpt", "--budget", "5", *argv)
    assert_input_error(code, err, fragment)
    assert not (tmp_path / "r").exists()


def test_write_report_on_a_folder_that_is_no_archive(tmp_path):
    from volsched.instances.errors import InputError

    with pytest.raises(InputError, match=r"DIR: .*hunt.json is missing"):
        write_report(tmp_path)
