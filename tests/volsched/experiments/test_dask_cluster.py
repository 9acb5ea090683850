"""A real Dask cluster (two worker processes): a small sweep and a small hunt give the serial results.

The oracle is the same sweep run by one local process (every stored row, but its seconds, host and
timestamp) and the same hunt scored in this process (its scores, progress and archive).
"""

from __future__ import annotations

import json
import sqlite3
import tomllib

import pytest

from volsched.experiments.config import parse_config
from volsched.experiments.runner import run_sweep
from volsched.experiments.store import VOLATILE_COLUMNS
from volsched.hunt import hunt

distributed = pytest.importorskip("dask.distributed")

#: 2 sizes x 2 laws x 2 seeds x (dp + 3 heuristics) = 32 tasks.
SWEEP = """\
name = "dask"
family = "checkpoint"
seeds = 2
heuristics = ["none", "young", "daly"]
[grid]
slices = [4, 7]
law = ["weibull", "exponential"]
slice_hours = [[0.05, 0.5]]
"""

#: Columns that differ between two runs of the same task.


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as c:
        yield c


def rows(path) -> dict[str, dict]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        found = [dict(r) for r in db.execute("SELECT * FROM results")]
    finally:
        db.close()
    return {r["key"]: {k: v for k, v in r.items() if k not in VOLATILE_COLUMNS} for r in found}


def test_a_sweep_on_two_dask_workers_stores_the_serial_rows(tmp_path, cluster):
    sweeps = parse_config(tomllib.loads(SWEEP))
    local = run_sweep(sweeps, tmp_path / "local.db", workers=1, quiet=True)
    remote = run_sweep(sweeps, tmp_path / "dask.db", dask_scheduler=cluster.scheduler_address, quiet=True)
    assert local["done"] == remote["done"] == remote["new"] == 32
    assert remote["failed"] == 0
    assert rows(tmp_path / "dask.db") == rows(tmp_path / "local.db")


def test_a_hunt_on_two_dask_workers_is_the_serial_hunt(tmp_path, cluster):
    args = dict(budget=100, seed=2, bounds={"machines": 3, "jobs": 7})
    serial = hunt("slack", "lpt", out=tmp_path / "serial", **args)
    remote = hunt("slack", "lpt", out=tmp_path / "dask", dask_scheduler=cluster.scheduler_address, **args)
    for key in ("best_ratio", "random_worst_ratio", "progress", "random_progress", "candidates", "evaluated"):
        assert remote[key] == serial[key], key
    for name in ("hunt-slack-lpt-s2-01.json", "hunt-slack-lpt-s2-01.run.json"):
        assert json.loads((tmp_path / "dask" / name).read_text()) == json.loads(
            (tmp_path / "serial" / name).read_text()
        )
    journal = (tmp_path / "dask" / "candidates.jsonl").read_text()
    assert journal == (tmp_path / "serial" / "candidates.jsonl").read_text()
    with distributed.Client(cluster.scheduler_address) as client:
        scorers = client.run(_worker_scorers)
    assert len(scorers) == 2 and sum(scorers.values()) >= 1  # the candidates were scored on the workers


def _worker_scorers() -> int:
    from volsched.hunt import driver

    return len(driver._WORKER_SCORERS)
