"""Hunts on worker processes, and a hunt killed mid-way then run again.

The oracle is the serial hunt of the same seed and budget: candidates are bred in batches from the
state before each batch and scored in the batch's order, so the workers change nothing but the
seconds. A hunt subprocess killed by SIGKILL (no clean-up) and run again with the same command
resumes from its journal and ends with the archive of an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest
from oracles.cli import assert_input_error, run

from volsched.hunt import JOURNAL, hunt

if TYPE_CHECKING:
    from pathlib import Path

#: What a hunt's result is, beside its seconds.
SAME = ("best_ratio", "random_worst_ratio", "progress", "random_progress", "candidates", "evaluated")


def archive_files(folder: Path) -> dict[str, dict]:
    """The archive's instance, certificate and run files (the journal and the summary aside), each
    without the seconds its solve took."""
    return {
        p.name: {k: v for k, v in json.loads(p.read_text()).items() if k != "runtime_s"}
        for p in sorted(folder.glob("hunt-*.json"))
    }


@pytest.mark.parametrize(
    ("family", "heuristic", "bounds", "budget"),
    [
        ("checkpoint", "young", {"slices": 8}, 120),
        ("slack", "list", {"machines": 3, "jobs": 7}, 150),
    ],
)
def test_two_workers_give_the_serial_hunt(tmp_path, family, heuristic, bounds, budget):
    args = dict(budget=budget, seed=3, bounds=bounds)
    serial = hunt(family, heuristic, out=tmp_path / "serial", **args)
    pooled = hunt(family, heuristic, out=tmp_path / "pooled", workers=2, **args)
    for key in SAME:
        assert pooled[key] == serial[key], key
    assert archive_files(tmp_path / "pooled") == archive_files(tmp_path / "serial")
    assert len(archive_files(tmp_path / "serial")) >= 3


def test_a_sweep_on_workers_after_a_hunt_on_workers_in_the_same_process(tmp_path, capsys):
    # joblib.Parallel (the sweeps) shares loky's reusable executor and its bookkeeping: a hunt's
    # pool must not leave that executor behind without it.
    hunt("checkpoint", "young", budget=40, seed=0, bounds={"slices": 6}, out=tmp_path / "h", workers=2)
    config = tmp_path / "s.toml"
    config.write_text(
        '[[sweep]]\nfamily = "checkpoint"\nseeds = 2\nheuristics = ["young"]\n[sweep.grid]\nslices = [5]\n'
    )
    code, out, err = run(capsys, "sweep", config, "--store", tmp_path / "s.db", "--workers", 2, "--json")
    assert code == 0, err
    assert (json.loads(out)["done"], json.loads(out)["failed"]) == (4, 0)


def test_blackbox_and_random_strategies_on_workers_too(tmp_path):
    for strategy in ("blackbox", "random"):
        args = dict(budget=60, seed=1, bounds={"slices": 6}, strategy=strategy, baseline=False)
        assert (
            hunt("checkpoint", "daly", workers=2, **args)["progress"]
            == hunt("checkpoint", "daly", **args)["progress"]
        )


@pytest.mark.parametrize("workers", ["0", "-2", "100000"])
def test_bad_worker_counts_are_bad_input(tmp_path, capsys, workers):
    out = tmp_path / "archive"
    code, _, err = run(
        capsys, "hunt", "slack", "--heuristic", "lpt", "--budget", 3, "--workers", workers, "--out", out
    )
    assert_input_error(code, err, "--workers")
    assert not out.exists()


def _command(out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "volsched",
        "hunt",
        "checkpoint",
        "--heuristic",
        "daly",
        "--budget",
        "1500",
        "--seed",
        "7",
        "--out",
        str(out),
        "--json",
    ]


def _journaled(out: Path) -> int:
    try:
        return len((out / JOURNAL).read_text().splitlines())
    except FileNotFoundError:
        return 0


def test_a_hunt_killed_mid_way_then_run_again_ends_as_an_uninterrupted_one(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(_command(whole), capture_output=True, text=True, env=env, timeout=300, check=True)
    expected = json.loads(done.stdout)
    total = _journaled(whole)

    proc = subprocess.Popen(_command(killed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 240
        while _journaled(killed) < total // 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the hunt ended before it could be killed: give it a larger budget"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    cut = _journaled(killed)
    assert 1 < cut < total
    assert not (killed / "hunt.json").exists()

    again = subprocess.run(_command(killed), capture_output=True, text=True, env=env, timeout=300, check=True)
    resumed = json.loads(again.stdout)
    assert resumed["resumed"] >= cut - 2  # the header, and a line the kill may have cut short
    for key in SAME:
        assert resumed[key] == expected[key], key
    assert archive_files(killed) == archive_files(whole)
    assert _journaled(killed) == total


def test_a_score_the_verifier_contradicts_stops_the_hunt(monkeypatch):
    """Candidates are scored from the simulator's own value; every new best is verified through
    ``evaluate`` (the family's verifier): a simulator that overstates its waste is caught."""
    from volsched.hunt.driver import Scorer
    from volsched.solvers import VerificationError

    honest = Scorer._run
    monkeypatch.setattr(Scorer, "_run", lambda self, instance: 1.5 * honest(self, instance))
    with pytest.raises(VerificationError, match="once verified"):
        hunt("checkpoint", "daly", budget=20, seed=0, bounds={"slices": 5}, baseline=False)


def test_the_verifier_runs_on_new_bests_only(monkeypatch):
    from volsched.hunt.driver import Scorer

    checked = []
    original = Scorer.check
    monkeypatch.setattr(
        Scorer,
        "check",
        lambda self, cand, score, *a: checked.append(score) or original(self, cand, score, *a),
    )
    s = hunt("checkpoint", "daly", budget=400, seed=0, bounds={"slices": 6}, baseline=False, keep=3)
    progress = [v for v in s["progress"] if v is not None]
    assert len(set(checked)) <= len(set(progress)) + 3  # each new best, and the archive
    assert len(checked) < 100


def test_an_unreachable_dask_scheduler_is_bad_input_and_writes_nothing(tmp_path, capsys, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    real = distributed.Client
    monkeypatch.setattr(
        distributed, "Client", lambda address, timeout=None, **kw: real(address, timeout=0.5, **kw)
    )
    out = tmp_path / "archive"
    code, _, err = run(
        capsys,
        "hunt",
        "slack",
        "--heuristic",
        "lpt",
        "--budget",
        3,
        "--dask-scheduler",
        "tcp://127.0.0.1:1",
        "--out",
        out,
    )
    assert_input_error(code, err, "--dask-scheduler")
    assert not out.exists()
