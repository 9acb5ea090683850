"""Bag-of-tasks simulator: hand-checked scenarios, determinism, connection limit, consistency.

Hand scenarios use degenerate laws: ``NEVER_FAILS`` (Weibull with a billion-minute
scale and a steep shape: no failure and no departure within any horizon used
here) and constant periods (an empirical law with one repeated value).
"""

import numpy as np
import pytest

from volsched.heuristics.checkpoint.bot import policy_schedules, simulate_bot
from volsched.heuristics.checkpoint.policies import POLICIES
from volsched.instances import InputError
from volsched.instances.bot import BotInstance, generate_bot
from volsched.instances.laws import Empirical, Weibull

NEVER_FAILS = Weibull(shape=50.0, scale=1e9)


def constant(minutes: float) -> Empirical:
    return Empirical([minutes, minutes])


def jobs(minutes_per_job, mb=60.0, clients=1, bandwidth=1.0, **laws) -> BotInstance:
    """Jobs given as lists of slice minutes on a mean-speed client; 60 Mb is 1 minute at 1 Mb/s."""
    sizes = [len(j) for j in minutes_per_job]
    fields = dict(availability=NEVER_FAILS, unavailability=constant(10.0), lifetime=NEVER_FAILS)
    fields.update(laws)
    return BotInstance(
        speeds=[1771.0] * clients,
        bandwidths=[bandwidth] * clients,
        slice_hours=[m / 60 for j in minutes_per_job for m in j],
        job_offsets=np.concatenate([[0], np.cumsum(sizes)]),
        checkpoint_mb=[mb] * sum(sizes) if np.isscalar(mb) else mb,
        **fields,
    )


def test_without_failures_makespan_is_work_plus_uploads():
    bot = jobs([[60, 120, 30]], mb=[60.0, 90.0, 120.0])
    # Uploads of 60, 90, 120 Mb at 1 Mb/s: 1, 2 (90 s rounded up) and 2 minutes.
    r = simulate_bot(bot, [np.array([1, 0, 1])], seed=0)
    assert r.makespan == 60 + 1 + 120 + 30 + 2
    assert (r.wasted_checkpoint, r.wasted_lost, r.wasted_wait) == (3, 0, 0)
    assert (r.checkpoints, r.dispatches, r.duplicates, r.completed_jobs) == (1, 1, 0, 1)
    assert r.stop == "complete" and r.completion_times.tolist() == [213.0]
    every = simulate_bot(bot, [np.ones(3, dtype=int)], seed=0)
    assert every.makespan == 60 + 1 + 120 + 2 + 30 + 2 and every.checkpoints == 2


def test_slice_time_scales_with_client_speed():
    bot = jobs([[60, 30]])
    bot = BotInstance(**{**{f: getattr(bot, f) for f in bot.__dataclass_fields__}, "speeds": [3542.0]})
    r = simulate_bot(bot, [[0, 1]], seed=0)
    assert r.makespan == 30 + 15 + 1


def test_failure_restarts_a_duplicate_from_the_last_checkpoint():
    # Periods of 100 minutes, 10 minutes away. Slices 0-40, 40-80, upload 80-81,
    # slice 81-121 cut at 100 (19 lost); back at 110: download 110-111, slice
    # 111-151, result 151-152.
    bot = jobs([[40, 40, 40]], availability=constant(100.0))
    r = simulate_bot(bot, [[0, 1, 1]], seed=3)
    assert r.makespan == 152
    assert (r.wasted_lost, r.wasted_checkpoint) == (19, 3)
    assert (r.checkpoints, r.dispatches, r.duplicates) == (1, 2, 1)


def test_without_checkpoints_a_failure_forces_re_execution():
    # Two identical jobs of 59 + 1 minutes: the second starts at 60, is cut at
    # 100 (40 lost) and is re-run from scratch at 110.
    bot = jobs([[59], [59]], availability=constant(100.0))
    r = simulate_bot(bot, [[1], [1]], seed=0)
    assert sorted(r.completion_times) == [60, 170]
    assert (r.wasted_lost, r.wasted_checkpoint) == (40, 2)
    assert (r.checkpoints, r.dispatches, r.duplicates) == (0, 3, 1)


def test_work_ending_on_the_last_minute_of_a_period_completes():
    bot = jobs([[99]], availability=constant(100.0))
    r = simulate_bot(bot, [[1]], seed=0, horizon=5000)
    assert r.makespan == 100 and r.wasted_lost == 0


def test_never_dispatched_jobs_go_before_duplicates():
    # Job B fails at 100; at 110 the client must take the undispatched job C
    # (done at 170), and only then duplicate B: 170-229 cut at 210, 220-280 done.
    bot = jobs([[59], [59], [59]], availability=constant(100.0))
    r = simulate_bot(bot, [[1]] * 3, seed=1)
    assert sorted(r.completion_times) == [60, 170, 280]
    assert (r.dispatches, r.duplicates, r.wasted_lost) == (5, 2, 80)


@pytest.mark.parametrize("connections", [1, 4])
def test_connection_limit_serialises_uploads(connections):
    # Four clients finish a 10-minute slice together and upload 5 minutes each.
    bot = jobs([[10]] * 4, mb=300.0, clients=4)
    bot = BotInstance(
        **{**{f: getattr(bot, f) for f in bot.__dataclass_fields__}, "max_connections": connections}
    )
    r = simulate_bot(bot, [[1]] * 4, seed=0)
    if connections == 4:
        assert (r.makespan, r.wasted_wait, r.wasted_checkpoint) == (15, 0, 20)
        assert (r.duplicates, r.wasted_lost) == (0, 0)
        return
    # Uploads at 10-15, 15-20, 20-25, 25-30 after waits of 0, 5, 10, 15. Clients
    # freed at 15, 20, 25 duplicate a job; at 30 the duplicate started at 15
    # has queued 5 minutes, the one from 20 has just finished its slice and the
    # one from 25 has computed 5 minutes: all of it is wasted.
    assert sorted(r.completion_times) == [15, 20, 25, 30]
    assert r.wasted_wait == 0 + 5 + 10 + 15 + 5
    assert r.wasted_checkpoint == 5 + 10 + 15 + 20 + 5
    assert (r.duplicates, r.wasted_lost) == (3, 10 + 10 + 5)


def test_all_clients_leaving_is_reported():
    bot = jobs([[60]], clients=2, lifetime=constant(30.0))
    r = simulate_bot(bot, [[1]], seed=0)
    assert r.stop == "no-clients" and r.completed_jobs == 0
    assert r.makespan == np.inf and r.to_dict()["makespan"] is None


def test_horizon_caps_the_simulation():
    bot = jobs([[120]], availability=constant(100.0))
    r = simulate_bot(bot, [[1]], seed=0, horizon=2000)
    assert r.stop == "horizon" and r.completed_jobs == 0 and r.end_time > 2000
    # Dispatches at 0, 110, ..., 1980; the failures at 100, ..., 1970 each lose
    # 100 minutes and the next one, at 2080, is past the horizon.
    assert r.wasted_lost == 100 * 18 and r.dispatches == 19 and r.end_time == 2080


@pytest.fixture(scope="module")
def paper_small():
    bot = generate_bot(40, 15, seed=3)
    return bot, policy_schedules(bot, POLICIES["daly"])


def test_same_seed_same_result(paper_small):
    bot, sched = paper_small
    a = simulate_bot(bot, sched, seed=5).to_dict()
    assert a == simulate_bot(bot, sched, seed=5).to_dict()
    assert a != simulate_bot(bot, sched, seed=6).to_dict()


def test_no_checkpoint_policy_takes_no_checkpoints(paper_small):
    bot, _ = paper_small
    none = simulate_bot(bot, policy_schedules(bot, POLICIES["none"]), seed=2)
    every = simulate_bot(bot, policy_schedules(bot, POLICIES["every"]), seed=2)
    assert none.checkpoints == 0 and none.completed_jobs == bot.n_jobs
    assert every.checkpoints > 0 and every.completed_jobs == bot.n_jobs


def test_progress_bar_goes_to_stderr(paper_small, capsys):
    bot, sched = paper_small
    simulate_bot(bot, sched, seed=1, progress=True)
    out = capsys.readouterr()
    assert out.out == "" and "job" in out.err


@pytest.mark.parametrize("policy", ["daly", "none"])
def test_medium_run_is_complete_and_consistent(policy):
    bot = generate_bot(300, 100, seed=11)
    r = simulate_bot(bot, policy_schedules(bot, POLICIES[policy]), seed=11)
    assert r.stop == "complete" and r.completed_jobs == 100
    assert np.isfinite(r.completion_times).all()
    assert r.makespan == r.completion_times.max() == r.end_time
    assert min(r.wasted_checkpoint, r.wasted_lost, r.wasted_wait) >= 0
    assert r.wasted_wait <= r.wasted_checkpoint
    assert r.dispatches - r.duplicates == bot.n_jobs
    # Every job needs at least its own slices and result upload on the fastest client.
    fast = [
        bot.job_instance(k, speed=bot.speeds.max(), bandwidth=bot.bandwidths.max()) for k in range(bot.n_jobs)
    ]
    assert r.makespan >= max(job.tau[-1] + job.c[-1] for job in fast)
    if policy == "none":
        assert r.checkpoints == 0
    else:
        assert r.checkpoints > 0


def test_bad_schedules_and_seed_are_rejected():
    bot = jobs([[10, 10, 10]])
    cases = [
        ([], r"^schedules: has 0 vectors"),
        ([[1, 1]], r"^schedules\[0\]: has shape"),
        ([[1, 0, 0]], r"^schedules\[0\]\[2\]: the last slice"),
        ([[0, 2, 1]], r"^schedules\[0\]: must contain only 0 and 1"),
        ([[0.0, 0.0, 1.0]], r"^schedules\[0\]: must contain only 0 and 1"),
    ]
    for sched, message in cases:
        with pytest.raises(InputError, match=message):
            simulate_bot(bot, sched, seed=0)
    with pytest.raises(InputError, match=r"^seed:"):
        simulate_bot(bot, [[0, 0, 1]], seed=-1)
    with pytest.raises(InputError, match=r"^horizon:"):
        simulate_bot(bot, [[0, 0, 1]], seed=0, horizon=0)
