"""The CLI contract (DESIGN.md) for the coupled family: generate -> solve -> verify with every
method, one JSON object with --json, and every broken instance file rejected with one line
``volsched: error: <path>: <fragment>``, exit 2 and nothing written."""

import itertools
import json
from pathlib import Path

import pytest
from oracles.cli import assert_input_error, one_json, run
from oracles.registry import registered_methods

from volsched.instances.coupled import CoupledInstance
from volsched.instances.io import read_json

DATA = Path(__file__).resolve().parents[3] / "data"
BROKEN = DATA / "broken" / "coupled"
EXPECTED = json.loads((BROKEN / "EXPECTED.json").read_text())
METHODS = registered_methods("coupled", "offline-coupled")

VALID = {
    "format": "volsched-instance",
    "version": 1,
    "family": "coupled",
    "name": "valid",
    "params": {},
    "data": {
        "availability": ["UUUU", "URUU", "UUDU"],
        "w": [1, 1, 1],
        "mu": [1, 1, 1],
        "m": 2,
        "n_com": 1,
        "T_prog": 0,
        "T_data": 0,
        "K": 1,
    },
}


def brute_optimum(rows: list[str], m: int) -> int:
    return max(
        sum(all(rows[q][t] == "U" for q in s) for t in range(len(rows[0])))
        for s in itertools.combinations(range(len(rows)), m)
    )


@pytest.fixture
def valid_file(tmp_path) -> Path:
    path = tmp_path / "valid.json"
    path.write_text(json.dumps(VALID))
    return path


# ---------------------------------------------------------------------------
# Broken instance files


def test_every_broken_file_has_an_expected_error():
    files = {p.name for p in BROKEN.glob("*.json")} - {"EXPECTED.json"}
    assert files == set(EXPECTED)
    assert len(files) >= 12


def test_the_valid_base_of_the_broken_files_loads(capsys, valid_file):
    code, out, _ = run(capsys, "solve", valid_file, "--json")
    assert code == 0
    result = one_json(out)
    assert result["objective"] == brute_optimum(VALID["data"]["availability"], 2) == 3


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("command", ["solve", "verify", "evaluate", "simulate"])
def test_broken_instance_is_rejected_naming_the_field(capsys, tmp_path, name, command):
    path = BROKEN / name
    result = tmp_path / "result.json"
    argv = [command, path, "--json"]
    if command == "solve":
        argv += ["--out", result]
    if command == "verify":
        solution = tmp_path / "solution.json"
        solution.write_text(json.dumps({"solution": {"processors": [0, 1]}}))
        argv.insert(2, solution)
    if command == "simulate":
        argv += ["--heuristic", "random"]
    code, out, err = run(capsys, *argv)
    assert_input_error(code, err, EXPECTED[name], prefix=f"volsched: error: {path}: ")
    assert out == ""
    assert not result.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["solution.json"] if command == "verify" else [])


# ---------------------------------------------------------------------------
# generate -> solve -> verify


@pytest.mark.parametrize("p, slots, m, seed", [(8, 60, 3, 5), (10, 40, 1, 0), (6, 30, 6, 2)])
def test_generate_solve_verify_with_every_method(capsys, tmp_path, p, slots, m, seed):
    inst = tmp_path / "inst.json"
    code, out, _ = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "markov",
        "--processors",
        p,
        "--slots",
        slots,
        "--tasks",
        m,
        "--seed",
        seed,
        "--out",
        inst,
        "--json",
    )
    assert code == 0
    gen = one_json(out)
    assert gen["out"] == str(inst) and gen["family"] == "coupled"
    obj = read_json(inst)
    instance = CoupledInstance.from_json(obj)
    assert (instance.p, instance.horizon, instance.m) == (p, slots, m)
    rows = obj["data"]["availability"]
    optimum = brute_optimum(rows, m)

    objectives = set()
    for method in METHODS:
        out_file = tmp_path / f"{method}.json"
        code, out, err = run(
            capsys,
            "solve",
            inst,
            "--problem",
            "offline-coupled",
            "--method",
            method,
            "--json",
            "--out",
            out_file,
        )
        assert code == 0, err
        result = one_json(out)
        assert set(result) >= {
            "family",
            "instance",
            "method",
            "status",
            "objective",
            "bound",
            "gap",
            "runtime_s",
            "solution",
            "verified",
        }
        assert result["family"] == "coupled" and result["method"] == method
        assert result["instance"] == instance.name
        assert result["status"] == "optimal" and result["verified"] is True
        assert result["objective"] == result["bound"] == optimum
        chosen = result["solution"]["processors"]
        assert len(set(chosen)) == m
        assert sum(all(rows[q][t] == "U" for q in chosen) for t in range(slots)) == optimum
        assert read_json(out_file) == result
        objectives.add(result["objective"])

        code, out, _ = run(capsys, "verify", inst, out_file, "--json")
        assert code == 0
        check = one_json(out)
        assert check["feasible"] is True and check["objective"] == optimum
    assert {"solution", "objective", "bound side", "derived fields"} <= set(check["checked"])
    assert objectives == {optimum}


def test_default_problem_and_method_and_text_output(capsys, tmp_path):
    inst = tmp_path / "inst.json"
    assert (
        run(
            capsys,
            "generate",
            "coupled",
            "--preset",
            "markov",
            "--processors",
            7,
            "--slots",
            50,
            "--tasks",
            3,
            "--out",
            inst,
        )[0]
        == 0
    )
    code, out, _ = run(capsys, "solve", inst, "--json")
    assert code == 0
    result = one_json(out)
    assert result["method"] == "bnb" and result["status"] == "optimal"
    code, out, _ = run(capsys, "solve", inst)
    assert code == 0 and "optimal objective" in out and "by bnb" in out


def test_generate_without_out_prints_the_instance(capsys):
    code, out, _ = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "markov",
        "--processors",
        4,
        "--slots",
        12,
        "--tasks",
        2,
        "--seed",
        1,
        "--json",
    )
    assert code == 0
    instance = CoupledInstance.from_json(one_json(out))
    assert (instance.p, instance.horizon, instance.m) == (4, 12, 2)


def test_planted_preset_decision_fits(capsys, tmp_path):
    inst = tmp_path / "planted.json"
    code, _, _ = run(
        capsys,
        "generate",
        "coupled",
        "--preset",
        "planted",
        "--processors",
        9,
        "--slots",
        40,
        "--tasks",
        3,
        "--block",
        8,
        "--density",
        0.4,
        "--seed",
        3,
        "--out",
        inst,
    )
    assert code == 0
    rows = read_json(inst)["data"]["availability"]
    code, out, _ = run(capsys, "solve", inst, "--json")
    result = one_json(out)
    assert result["objective"] == brute_optimum(rows, 3) >= 8
    assert result["solution"]["decision"] == {"w": 8, "iteration_fits": True}


def test_generate_is_deterministic(capsys, tmp_path):
    args = ["generate", "coupled", "--preset", "markov", "--processors", 6, "--slots", 40, "--tasks", 2]
    for k in (1, 2):
        assert run(capsys, *args, "--seed", 7, "--out", tmp_path / f"{k}.json")[0] == 0
    assert run(capsys, *args, "--seed", 8, "--out", tmp_path / "3.json")[0] == 0
    assert (tmp_path / "1.json").read_bytes() == (tmp_path / "2.json").read_bytes()
    assert (tmp_path / "1.json").read_bytes() != (tmp_path / "3.json").read_bytes()


def test_time_limited_solve_never_overclaims(capsys, tmp_path):
    inst = tmp_path / "big.json"
    assert (
        run(
            capsys,
            "generate",
            "coupled",
            "--preset",
            "markov",
            "--processors",
            60,
            "--slots",
            2000,
            "--tasks",
            10,
            "--seed",
            3,
            "--out",
            inst,
        )[0]
        == 0
    )
    code, out, _ = run(capsys, "solve", inst, "--method", "bnb", "--time-limit", 1e-4, "--json")
    assert code == 0
    result = one_json(out)
    assert result["verified"] is True and result["bound"] >= result["objective"]
    assert result["status"] == "feasible" and result["gap"] > 0
    result_file = tmp_path / "r.json"
    result_file.write_text(json.dumps(result))
    code, out, _ = run(capsys, "verify", inst, result_file, "--json")
    assert code == 0 and one_json(out)["objective"] == result["objective"]


# ---------------------------------------------------------------------------
# Bad arguments and bad solutions


def test_unknown_problem_exits_2_naming_problem(capsys, tmp_path, valid_file):
    out_file = tmp_path / "r.json"
    code, out, err = run(capsys, "solve", valid_file, "--problem", "makespan", "--json", "--out", out_file)
    assert_input_error(code, err, "--problem")
    assert "'makespan'" in err and "offline-coupled" in err and "iterations" in err
    assert out == "" and not out_file.exists()


def test_unknown_method_exits_2(capsys, tmp_path, valid_file):
    out_file = tmp_path / "r.json"
    code, out, err = run(capsys, "solve", valid_file, "--method", "dp", "--out", out_file)
    assert_input_error(code, err, "--method: offline-coupled has methods ['bnb', 'cpsat', 'milp', 'brute']")
    assert out == "" and not out_file.exists()


def test_more_tasks_than_processors_exits_2_at_solve_time(capsys, tmp_path):
    obj = json.loads(json.dumps(VALID))
    obj["data"].update(mu=[None, None, None], m=5)  # a valid instance, but not for mu = 1
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(obj))
    out_file = tmp_path / "r.json"
    code, out, err = run(capsys, "solve", path, "--out", out_file)
    assert_input_error(code, err, "m: m = 5 exceeds the 3 processors")
    assert out == "" and not out_file.exists()


def test_brute_refuses_more_than_16_processors(capsys, tmp_path):
    inst = tmp_path / "p17.json"
    assert (
        run(
            capsys,
            "generate",
            "coupled",
            "--preset",
            "markov",
            "--processors",
            17,
            "--slots",
            10,
            "--tasks",
            2,
            "--out",
            inst,
        )[0]
        == 0
    )
    code, _, err = run(capsys, "solve", inst, "--method", "brute")
    assert_input_error(code, err, "method: brute enumerates")


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--preset", "markov", "--processors", "0"], "processors: must be an integer >= 1"),
        (
            ["--preset", "markov", "--processors", "4", "--tasks", "5"],
            "tasks: m = 5 exceeds the 4 processors",
        ),
        (["--preset", "markov", "--slots", "0"], "slots: must be an integer >= 1"),
        (["--preset", "planted", "--density", "1.5"], "--density: must be a finite number in [0.0, 1.0]"),
        (["--preset", "planted", "--slots", "50", "--block", "51"], "block: 51 exceeds the 50 slots"),
        (["--preset", "hidden"], "argument --preset: invalid choice"),
        (["--processors", "4"], "the following arguments are required: --preset"),
        (["--preset", "markov", "--tasks", "two"], "argument --tasks: invalid int value"),
    ],
)
def test_bad_generate_arguments_exit_2_and_write_nothing(capsys, tmp_path, extra, fragment):
    out_file = tmp_path / "inst.json"
    code, out, err = run(capsys, "generate", "coupled", *extra, "--out", out_file)
    assert_input_error(code, err, fragment)
    assert out == "" and not out_file.exists()


@pytest.mark.parametrize(
    "solution, fragment",
    [
        (
            {"objective": 2, "solution": {"processors": [0, 1]}},
            "objective: claimed 2 but the solution's is 3",
        ),
        ({"solution": {"processors": [0, 0]}}, "processors[1]: processor 0 is chosen twice"),
        ({"solution": {"processors": [0, 3]}}, "processors[1]: must be a processor index in [0, 3), got 3"),
        ({"solution": {"processors": [0]}}, "processors: has 1 processors, an iteration needs m = 2"),
        ({"solution": {"processors": [0, True]}}, "processors[1]: must be a processor index"),
        ({"solution": {"a": [0, 1]}}, "solution.processors: missing"),
    ],
)
def test_verify_rejects_wrong_claims_and_bad_solutions(capsys, tmp_path, valid_file, solution, fragment):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(solution))
    code, out, err = run(capsys, "verify", valid_file, path, "--json")
    assert_input_error(code, err, fragment, prefix=f"volsched: error: {path}: ")
    assert out == ""


def test_verify_accepts_a_bare_solution_object(capsys, tmp_path, valid_file):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"processors": [0, 2]}))
    code, out, _ = run(capsys, "verify", valid_file, path, "--json")
    assert code == 0
    assert one_json(out)["objective"] == 3.0  # processors 0 and 2: slots 0, 1, 3


# ---------------------------------------------------------------------------
# Problem iterations on the command line

# Hand-derived (tests/solvers/coupled/test_iterations.py, "heterogeneous"): makespan 9.
ITERATIONS = {
    **VALID,
    "name": "iterations",
    "data": {
        "availability": ["UUUDDDDDDD", "UUUUUUUUUU"],
        "w": [1, 3],
        "mu": [1, None],
        "m": 2,
        "n_com": 1,
        "T_prog": 0,
        "T_data": 0,
        "K": 2,
    },
}


def test_iterations_solve_then_verify_and_a_tampered_claim_is_rejected(capsys, tmp_path):
    inst = tmp_path / "it.json"
    inst.write_text(json.dumps(ITERATIONS))
    out_file = tmp_path / "result.json"
    code, out, _ = run(capsys, "solve", inst, "--problem", "iterations", "--out", out_file, "--json")
    assert code == 0
    result = one_json(out)
    assert (result["method"], result["status"], result["objective"]) == ("chain", "optimal", 9)
    code, out, _ = run(capsys, "verify", inst, out_file, "--json")
    assert code == 0 and one_json(out)["objective"] == 9
    stored = read_json(out_file)
    stored["solution"]["schedule"]["completions"] = [2, 7]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(stored))
    code, _, err = run(capsys, "verify", inst, tampered, "--json")
    assert_input_error(code, err, "solution.schedule")


def test_full_solve_then_verify_replays_with_communication(capsys, tmp_path):
    data = {**ITERATIONS["data"], "n_com": 1, "T_prog": 1, "T_data": 1, "K": 1}
    inst = tmp_path / "full.json"
    inst.write_text(json.dumps({**ITERATIONS, "name": "full", "data": data}))
    out_file = tmp_path / "result.json"
    code, out, _ = run(capsys, "solve", inst, "--problem", "full", "--out", out_file, "--json")
    assert code == 0
    result = one_json(out)
    assert result["status"] == "optimal" and result["objective"] == result["bound"]
    code, out, _ = run(capsys, "verify", inst, out_file, "--json")
    assert code == 0 and one_json(out)["objective"] == result["objective"]
    stored = read_json(out_file)
    stored["solution"]["problem"] = "iterations"  # a relaxed replay refuses its transfers
    relabelled = tmp_path / "relabelled.json"
    relabelled.write_text(json.dumps(stored))
    code, _, err = run(capsys, "verify", inst, relabelled, "--json")
    assert code == 2 and "volsched: error:" in err


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--problem", "iterations", "--method", "bnb"], "--method: iterations has methods"),
        (["--problem", "full", "--method", "milp"], "--method: full has methods"),
        (["--problem", "makespan"], "--problem"),
        (["--problem", "offline-coupled-inf", "--method", "milp"], "--method"),
    ],
)
def test_solve_rejects_a_method_of_another_problem(capsys, tmp_path, argv, fragment):
    inst = tmp_path / "it.json"
    inst.write_text(json.dumps(ITERATIONS))
    out_file = tmp_path / "result.json"
    code, _, err = run(capsys, "solve", inst, *argv, "--out", out_file)
    assert_input_error(code, err, fragment)
    assert not out_file.exists()
