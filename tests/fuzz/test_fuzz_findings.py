"""Each defect the fuzz suite found, pinned by its smallest input so that it stays fixed.

Every case was an exit 1, a second stderr line, or a false accept by ``volsched verify``.
"""

from __future__ import annotations

import json

import pytest
from oracles.cli import assert_input_error, one_json, run

from volsched.instances.checkpoint import generate
from volsched.instances.coupled import MAX_CELLS, generate_markov, paper_realization
from volsched.instances.io import write_json
from volsched.solvers.coupled.horizon import cut


@pytest.fixture
def solved(capsys, tmp_path):
    """``(instance path, result)`` of ``solve --out`` on a coupled instance for ``problem``."""

    def make(instance, problem):
        path = tmp_path / "i.json"
        write_json(path, instance.to_json())
        out = tmp_path / "r.json"
        code, _, err = run(capsys, "solve", path, "--problem", problem, "--out", out, "--json")
        assert code == 0, err
        return path, json.loads(out.read_text())

    return make


def _verify(capsys, tmp_path, instance, result):
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(result))
    return run(capsys, "verify", instance, path, "--json")


def test_a_huge_allocation_in_a_schedule_is_bad_input(capsys, tmp_path, solved):
    """A 2^1030 task count was compared with the float mu: OverflowError, exit 1."""
    path, result = solved(paper_realization(5, 5, 1, 0, 0, slots=60), "iterations")
    result["solution"]["schedule"]["configurations"][0]["allocation"][7] = 2**1030
    code, _, err = _verify(capsys, tmp_path, path, result)
    assert_input_error(code, err, "allocation[7]: 1150")


def test_a_wrong_gap_is_rejected_and_the_right_one_accepted(capsys, tmp_path, solved):
    """verify accepted any ``gap``; it is relative_gap(objective, bound) or null without an objective."""
    path, result = solved(generate_markov(5, 30, 2, 0), "offline-coupled")
    for gap in (0.5, "0", None):
        code, _, err = _verify(capsys, tmp_path, path, {**result, "gap": gap})
        assert_input_error(code, err, f"gap: claims {gap!r}")
    looser = {
        **result,
        "bound": result["objective"] + 10,
        "status": "feasible",
        "gap": 10 / (result["objective"] + 10),
    }
    code, out, err = _verify(capsys, tmp_path, path, looser)
    assert code == 0 and "gap" in one_json(out)["checked"], err
    code, _, err = _verify(capsys, tmp_path, path, {k: v for k, v in result.items() if k != "objective"})
    assert code == 0, err  # the verified objective stands for a missing claim; its gap is still 0


def test_a_json_boolean_is_not_a_count(capsys, tmp_path, solved):
    """``completed_iterations: true`` passed for 1 (``True == 1`` in Python)."""
    path, result = solved(generate_markov(5, 30, 2, 0), "iterations")
    assert result["solution"]["completed_iterations"] == 1
    result["solution"]["completed_iterations"] = True
    code, _, err = _verify(capsys, tmp_path, path, result)
    assert_input_error(code, err, "solution.completed_iterations: claims True")
    path, result = solved(generate_markov(5, 30, 2, 0), "offline-coupled")
    result["solution"]["decision"]["iteration_fits"] = 1
    code, _, err = _verify(capsys, tmp_path, path, result)
    assert_input_error(code, err, "solution.decision: claims")


def test_a_missing_field_of_a_solution_is_named_once(capsys, tmp_path, solved):
    path, result = solved(generate_markov(5, 30, 2, 0), "iterations")
    del result["solution"]["schedule"]
    code, _, err = _verify(capsys, tmp_path, path, result)
    assert_input_error(code, err, ": solution.schedule: missing")
    assert "solution.solution" not in err


def test_a_huge_integer_in_the_transitions_is_bad_input(capsys, tmp_path):
    obj = paper_realization(5, 5, 1, 0, 0, slots=20).to_json()
    obj["data"]["transitions"][2][0][1] = -(2**1030)
    path = tmp_path / "i.json"
    path.write_text(json.dumps(obj))
    code, _, err = run(capsys, "solve", path)
    assert_input_error(code, err, "transitions: must be a list of p 3x3 matrices of numbers")


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["simulate", "{job}", "--heuristic", "daly", "--seed", "-1"], "--seed: must be an integer >= 0"),
        (["evaluate", "{job}", "--seed", "-1"], "--seed: must be an integer >= 0"),
        (["simulate", "{job}", "--heuristic", "daly", "--samples", str(2**64)], "--samples: must be at most"),
        (
            ["simulate", "{job}", "--heuristic", "daly", "--samples", "1000000001"],
            "--samples: must be at most",
        ),
        (
            ["simulate", "{job}", "--heuristic", "daly", "--samples", "1"],
            "--samples: must be an integer >= 2",
        ),
    ],
)
def test_simulate_and_evaluate_options_are_checked(capsys, tmp_path, argv, fragment):
    """A negative seed reached numpy (ValueError) and a huge sample count its allocator: exit 1 or no end."""
    job = tmp_path / "job.json"
    write_json(job, generate(4, 0).to_json())
    code, _, err = run(capsys, *[a.replace("{job}", str(job)) for a in argv])
    assert_input_error(code, err, fragment)


@pytest.mark.parametrize(
    "command",
    [
        ["solve", "{job}"],
        ["generate", "checkpoint"],
        ["generate", "coupled", "--preset", "paper", "--scenarios", "1", "--trials", "1", "--slots", "5"],
    ],
)
def test_an_out_path_the_system_refuses_is_bad_input(capsys, tmp_path, monkeypatch, command):
    """``Path.is_dir`` raised ``File name too long``: exit 1."""
    monkeypatch.chdir(tmp_path)
    job = tmp_path / "job.json"
    write_json(job, generate(4, 0).to_json())
    code, _, err = run(capsys, *[a.replace("{job}", str(job)) for a in command], "--out", "a" * 300)
    assert_input_error(code, err, "cannot write (File name too long)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json"]


@pytest.mark.parametrize("text", ["two\nlines", "x\ry", "a\u2028b", "v\x0bt"])
def test_a_line_break_in_the_users_text_stays_on_the_error_line(capsys, tmp_path, text):
    for argv in (
        ["verify", text, text],
        ["solve", text],
        ["solve", "x", "--bogus", text],
        ["generate", "checkpoint", "--law", text],
    ):
        code, _, err = run(capsys, *argv)
        assert_input_error(code, err, text.encode("unicode_escape").decode())


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (
            ["--preset", "markov", "--processors", "1000000000", "--slots", "1000000000"],
            "slots: 1000000000 processors",
        ),
        (
            ["--preset", "markov", "--processors", "20", "--slots", str(MAX_CELLS // 20 + 1)],
            f"at most {MAX_CELLS:,}",
        ),
        (["--preset", "planted", "--processors", "100000", "--slots", "100000"], "slots: 100000 processors"),
        (["--preset", "paper-realization", "--slots", "50000000"], "slots: 20 processors x 50000000"),
        (
            ["--preset", "paper", "--scenarios", "1000", "--trials", "1000"],
            "scenarios: 60,000,000 realizations",
        ),
    ],
)
def test_coupled_sizes_beyond_memory_are_refused(capsys, tmp_path, argv, fragment):
    """The generators allocated p x H (x 8 bytes of draws) first: MemoryError, exit 1, or swapping."""
    code, _, err = run(capsys, "generate", "coupled", *argv, "--out", tmp_path / "out")
    assert_input_error(code, err, fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("0 1\n1 \u00b2\n", "line 2: must be two non-negative integers"),  # '²'.isdigit(), int('²') raises
        ("0 1\n1000000000000 3\n", "line 2: node index beyond"),
        ("0 1\n" + "9" * 30 + " 3\n", "line 2: node index beyond"),
        ("# 1000000000 1000000000 1\n0 1\n", "sizes: 1000000000 processors"),
    ],
)
@pytest.mark.parametrize(
    "preset", [["--preset", "edgelist", "--tasks", "1"], ["--preset", "encd", "--a", "1", "--b", "1"]]
)
def test_edge_lists_beyond_memory_or_with_odd_digits_are_bad_input(capsys, tmp_path, text, fragment, preset):
    graph = tmp_path / "g.txt"
    graph.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "generate", "coupled", *preset, "--file", graph, "--out", tmp_path / "o.json")
    assert_input_error(code, err, fragment)
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("seeds = 1000000001", "sweep[0].seeds: must be at most 3,000"),  # list(range(10^9)) never ended
        (
            "seeds = [0, 1]\n[sweep.grid]\nslices = [" + ", ".join(str(n) for n in range(1, 1001)) + "]\n"
            'law = ["weibull", "exponential"]\n[[sweep]]\nname = "b"\nfamily = "checkpoint"\nseeds = 1',
            "sweep[0].grid: 4,000 instances",
        ),
        ('seeds = 1\n[sweep.exact]\nproblem = ["iterations"]', "sweep[0].exact.problem: must be one of"),
        (
            "seeds = 1\n[sweep.grid]\nslice_hours = [[0.05, -" + "9" * 400 + "]]",
            "sweep[0].grid.slice_hours[0][1]: must be a finite number",
        ),
    ],
)
def test_sweep_configs_that_broke_the_reader_are_bad_input(capsys, tmp_path, monkeypatch, line, fragment):
    """A huge seed count hung, a list as the problem was unhashable, a 400-digit hour overflowed."""
    monkeypatch.setattr("volsched.experiments.config.MAX_INSTANCES", 3_000)
    config = tmp_path / "s.toml"
    config.write_text(f'[[sweep]]\nname = "a"\nfamily = "checkpoint"\n{line}\n')
    code, _, err = run(capsys, "sweep", config, "--store", tmp_path / "s.db", "--workers", 1, "--quiet")
    assert_input_error(code, err, fragment)
    assert not (tmp_path / "s.db").exists()


@pytest.fixture
def store(capsys, tmp_path):
    """A results store of a one-task checkpoint sweep, closed."""
    config = tmp_path / "s.toml"
    config.write_text('name = "s"\nfamily = "checkpoint"\nseeds = 1\nheuristics = []\n[grid]\nslices = 4\n')
    path = tmp_path / "s.db"
    code, _, err = run(capsys, "sweep", config, "--store", path, "--workers", 1, "--quiet")
    assert code == 0, err
    return config, path


def _damage(path, sql):
    import sqlite3

    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


def _files(folder):
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()}


@pytest.mark.parametrize(
    "sql, fragment",
    [
        ("UPDATE results SET metrics = '{'", "column metrics is not JSON (a damaged store)"),
        ("UPDATE planned SET params = 'x'", "column params is not JSON (a damaged store)"),
        (
            "UPDATE results SET family = CAST(x'ff' AS TEXT)",
            "not a readable volsched store (Could not decode",
        ),
        ("ALTER TABLE results RENAME COLUMN method_params TO mp", "do not have the store's columns"),
    ],
)
def test_a_damaged_store_is_bad_input_and_stays_as_it_was(capsys, tmp_path, store, sql, fragment):
    """SQLite and JSON errors of a damaged store were exit 1 (DatabaseError, JSONDecodeError, KeyError)."""
    config, path = store
    _damage(path, sql)
    before = _files(tmp_path)
    code, _, err = run(capsys, "report", path)
    assert_input_error(code, err, fragment)
    assert _files(tmp_path) == before  # no -wal/-shm left, the file untouched
    if "RENAME" in sql:  # the sweep reads no other column of a finished task
        code, _, err = run(capsys, "sweep", config, "--store", path, "--workers", 1, "--quiet")
        assert_input_error(code, err, fragment)
        assert _files(tmp_path) == before


def test_a_store_with_a_zeroed_page_is_bad_input(capsys, tmp_path, store):
    _, path = store
    data = bytearray(path.read_bytes())
    data[4096:8192] = bytes(4096)
    path.write_bytes(bytes(data))
    code, _, err = run(capsys, "report", path)
    assert_input_error(code, err, "malformed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db", "s.toml"]


def test_report_reads_without_writing(capsys, tmp_path, store):
    """``report`` ran the schema and its pragmas: an empty file became a store, a store got a new mtime."""
    _, path = store
    before = _files(tmp_path)
    code, _, err = run(capsys, "report", path)
    assert code == 0, err
    assert _files(tmp_path) == before
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    code, _, err = run(capsys, "report", empty)
    assert_input_error(code, err, "not a volsched store (no tables)")
    assert empty.read_bytes() == b""


@pytest.mark.parametrize(
    "option, target",
    [("--csv", "s.toml"), ("--csv", "s.toml/sub"), ("--plot", "s.toml/a/b"), ("--csv", "c" * 300)],
)
def test_report_folders_the_system_refuses_are_bad_input(
    capsys, tmp_path, monkeypatch, store, option, target
):
    """``--csv FILE`` raised FileExistsError in mkdir: exit 1."""
    monkeypatch.chdir(tmp_path)
    _, path = store
    before = _files(tmp_path)
    code, _, err = run(capsys, "report", path, option, target)
    assert_input_error(code, err, option)
    assert _files(tmp_path) == before


@pytest.mark.parametrize("workers", ["0", "257", "1000000001", str(2**63)])
def test_a_worker_count_beyond_reason_is_bad_input(capsys, tmp_path, store, workers):
    """joblib refused 10^9 + 1 workers (ValueError), 2^63 overflowed a C int, 5,000 never started."""
    config, _ = store
    code, _, err = run(capsys, "sweep", config, "--store", tmp_path / "new.db", "--workers", workers)
    assert_input_error(code, err, "--workers: must be -1 (all cores) or in [1, 256]")
    assert not (tmp_path / "new.db").exists()


@pytest.mark.parametrize("claim", [6.0, True, "6"])
def test_a_witness_completion_is_an_integer_slot(capsys, tmp_path, solved, claim):
    """An infeasible result's witness compared its completions with ``==``: ``[6.0]`` passed for ``[6]``."""
    # Stored slots only: an extendable realization would be read beyond them, to the optimum.
    path, result = solved(cut(paper_realization(5, 5, 2, 0, 0, seed=3, slots=14), 14), "iterations")
    assert result["status"] == "infeasible" and result["solution"]["schedule"]["completions"] == [6]
    assert _verify(capsys, tmp_path, path, result)[0] == 0
    result["solution"]["schedule"]["completions"] = [claim]
    code, _, err = _verify(capsys, tmp_path, path, result)
    assert_input_error(code, err, "solution.schedule.completions: must be a list of integer slots")


def test_slice_hours_beyond_integer_quanta_are_bad_input_without_a_warning(capsys, tmp_path):
    """``--slice-hours 0.05 9.2e18`` printed numpy's RuntimeWarning (invalid cast) before its error."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, _, err = run(
            capsys,
            "generate",
            "checkpoint",
            "--slices",
            4,
            "--slice-hours",
            0.05,
            str(2**63),
            "--out",
            tmp_path / "j.json",
        )
    assert_input_error(code, err, "--slice-hours[1]: must be a finite number in [0, 1000000]")
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert not (tmp_path / "j.json").exists()


@pytest.mark.parametrize("command", ["sweep", "report"])
def test_a_store_path_the_system_refuses_is_bad_input(capsys, tmp_path, monkeypatch, store, command):
    """``Path.exists`` raised ``File name too long`` in the store: exit 1 (campaign seed 1)."""
    monkeypatch.chdir(tmp_path)
    config, _ = store
    before = _files(tmp_path)
    long = "a" * 300
    argv = ["sweep", config, "--store", long, "--workers", 1] if command == "sweep" else ["report", long]
    code, _, err = run(capsys, *argv)
    assert_input_error(code, err, "cannot open (File name too long)")
    assert _files(tmp_path) == before


FTA_HEADER = (
    "event_id component_id node_id platform_id node_name event_type event_start_time event_end_time "
    "event_end_reason\n"
)


@pytest.mark.parametrize(
    "events, fragment",
    [
        (
            "1 1 7 3 a 1 0 100 99999999999999999999999\n",
            "line 2: event_end_reason must be an integer code in [-1, 1000000000] or NULL",
        ),
        (
            "1 1 7 3 a 1 0 1000 1\n2 1 7 3 a 0 500 1500 NULL\n",
            "line 3: event_start_time: node a: this unavailability event starts at 500.0",
        ),
        (
            "1 1 7 3 a 0 0 1000 NULL\n2 1 7 3 a 1 100 200 1\n",
            "line 3: event_start_time: node a: this availability event starts at 100.0",
        ),
    ],
)
def test_fta_traces_that_broke_the_reader_are_bad_input(capsys, tmp_path, events, fragment):
    """A 23-digit end reason reached an int64 array (OverflowError, exit 1); an availability event inside
    an unavailability event of its node was read as up time (exit 0)."""
    trace = tmp_path / "event_trace.tab"
    trace.write_text(FTA_HEADER + events)
    code, _, err = run(
        capsys,
        "generate",
        "prescient",
        "--fta",
        trace,
        "--tasks",
        1,
        "--task-minutes",
        1,
        "--out",
        tmp_path / "o.json",
    )
    assert_input_error(code, err, f"{trace}, {fragment}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["event_trace.tab"]


def test_an_fta_header_with_repeated_column_names_is_bad_input(capsys, tmp_path):
    """A header whose first name was replaced by ``0 0 0`` named 11 columns, two of them alike; the
    9-field rows passed the width check against the 10 distinct names and the reader indexed past
    them (IndexError, exit 1)."""
    trace = tmp_path / "event_trace.tab"
    trace.write_text("0 0 0" + FTA_HEADER[len("event_id") :] + "1 1 7 3 a 1 0 1000 NULL\n")
    code, _, err = run(
        capsys,
        "generate",
        "prescient",
        "--fta",
        trace,
        "--tasks",
        1,
        "--task-minutes",
        1,
        "--out",
        tmp_path / "o.json",
    )
    assert_input_error(code, err, f"{trace}, line 2: has 9 fields, expected 11")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["event_trace.tab"]


def test_a_profile_looping_every_1e_300_s_is_refused_before_unrolling(tmp_path):
    """``0 1`` with ``LOOPAFTER 1e-300`` over a week never returned (6e305 cycles); no command reads
    profiles, so the reader is called as a caller of the Python API would."""
    from fuzz.engine import deadline

    from volsched.instances.errors import InputError
    from volsched.instances.prescient.simgrid_profiles import read_profiles

    profile = tmp_path / "h.state"
    profile.write_text("0 1\nLOOPAFTER 1e-300\n")
    with deadline(10.0), pytest.raises(InputError, match=r"h\.state, line 2: LOOPAFTER: repeating 1 event"):
        read_profiles([profile], None, [1500.0], tasks=1, task_minutes=1.0, horizon=7 * 86400.0)


@pytest.mark.parametrize(
    "grid, fragment",
    [
        (
            'family = "checkpoint"\nseeds = 10\n[grid]\nalpha = [0.0, 1e-300, 1.5]\n',
            "s.toml.grid.alpha[0] = 0.0: alpha: must be in (0, 1], got 0.0",
        ),
        (
            'family = "slack"\n[grid]\npreset = "three-partition"\nfile = ["no-such-file.txt"]\n',
            "s.toml.grid.file[0] = 'no-such-file.txt': no-such-file.txt: no such file",
        ),
    ],
)
def test_sweep_grid_values_the_generator_refuses_are_bad_input(capsys, tmp_path, monkeypatch, grid, fragment):
    """Both exited 0 with their tasks stored as ``error`` rows (20 of 30 for the alphas)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(grid)
    code, _, err = run(capsys, "sweep", "s.toml", "--store", "s.db", "--workers", 1, "--quiet")
    assert_input_error(code, err, fragment)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]
