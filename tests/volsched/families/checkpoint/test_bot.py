"""The bag-of-tasks experiment glue: schedules per policy, runs, the reproduction table."""

from pathlib import Path

import numpy as np
import pytest

from volsched.families.checkpoint.bot import (
    BOT_POLICIES,
    bot_table,
    optimal_schedules,
    reproduce,
    run_bot,
    schedules_for,
)
from volsched.heuristics.checkpoint.policies import daly, daly_period, daly_printed, periodic_schedule
from volsched.instances.bot import generate_bot
from volsched.instances.errors import InputError
from volsched.solvers.checkpoint.brute import solve_brute


@pytest.fixture(scope="module")
def bot():
    return generate_bot(20, 12, seed=5)


def test_optimal_schedules_are_optimal_per_job(bot):
    schedules = optimal_schedules(bot, workers=1)
    assert len(schedules) == bot.n_jobs
    for k, a in enumerate(schedules):
        job = bot.job_instance(k)
        if job.n <= 12:
            _, best = solve_brute(job)
            assert job.expected_waste(a) == pytest.approx(best, rel=1e-9)
        assert a[-1]


def test_parallel_and_serial_schedules_agree(bot):
    serial = optimal_schedules(bot, workers=1)
    parallel = optimal_schedules(bot, workers=2)
    assert all(np.array_equal(a, b) for a, b in zip(serial, parallel, strict=True))


def test_periodic_is_daly_and_none_checkpoints_only_at_the_end(bot):
    periodic = schedules_for(bot, "periodic")
    none = schedules_for(bot, "none")
    for k in range(bot.n_jobs):
        assert np.array_equal(periodic[k], daly(bot.job_instance(k)))
        assert none[k].sum() == 1 and none[k][-1]


def test_periodic_printed_is_daly_over_checkpoint_costs(bot):
    printed = schedules_for(bot, "periodic-printed")
    for k in range(bot.n_jobs):
        job = bot.job_instance(k)
        assert np.array_equal(printed[k], daly_printed(job))
        rho = daly_period(float(job.c.mean()), job.law.mean)
        assert np.array_equal(printed[k], periodic_schedule(job.c, rho))
        assert printed[k][-1]


def test_on_the_papers_slices_periodic_checkpoints_every_slice(bot):
    # Daly's period for the paper's law and 10-512 Mb checkpoints stays under an hour, below every
    # 1-5 h slice, so the nearest boundary is always the next one.
    periodic = schedules_for(bot, "periodic")
    for k in range(bot.n_jobs):
        job = bot.job_instance(k)
        assert daly_period(float(job.c.mean()), job.law.mean) < job.p.min()
        assert periodic[k].all()


def test_unknown_policy_is_bad_input(bot):
    with pytest.raises(InputError, match="policy"):
        schedules_for(bot, "young")
    with pytest.raises(InputError, match="policies"):
        reproduce(Path("unused"), clients=[10], jobs=[2], policies=["optimal", "daly"])


def test_run_bot_on_a_small_platform():
    out = run_bot(40, 8, seed=2, workers=1)
    assert set(out["policies"]) == set(BOT_POLICIES)
    for result in out["policies"].values():
        assert result["stop"] == "complete" and result["completed_jobs"] == 8
        assert result["wasted_checkpoint"] >= 0 and result["wasted_lost"] >= 0
    assert out["policies"]["none"]["checkpoints"] == 0
    assert run_bot(40, 8, seed=2, workers=1) == out


def test_reproduce_writes_one_figure_per_client_count(tmp_path):
    res = reproduce(tmp_path, clients=[15, 25], jobs=[4, 6], seed=1, workers=1)
    assert [(r["clients"], r["jobs"], r["policy"]) for r in res["rows"]] == [
        (m, j, p) for m in (15, 25) for j in (4, 6) for p in BOT_POLICIES
    ]
    assert [p.split("/")[-1] for p in res["figures"]] == [
        "figure-1-15-clients.png",
        "figure-2-25-clients.png",
    ]
    for path in res["figures"]:
        assert (tmp_path / path.split("/")[-1]).read_bytes()[:4] == b"\x89PNG"
    table = bot_table(res["rows"]).splitlines()
    assert len(table) == 2 + len(res["rows"])
