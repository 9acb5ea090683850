"""Bag-of-tasks instances: generator ranges, validation, JSON round trip, job view."""

import copy
import json

import numpy as np
import pytest

from volsched.instances import InputError, read_json, write_json
from volsched.instances.bot import BotInstance, generate_bot
from volsched.instances.checkpoint import (
    checkpoint_quanta,
    paper_failure_law,
    paper_lifetime_law,
    paper_unavailability_law,
    slice_quanta,
)
from volsched.instances.laws import Exponential, Weibull


def small(**overrides) -> BotInstance:
    fields = dict(
        speeds=[1771.0, 3542.0],
        bandwidths=[1.5, 1.0],
        slice_hours=[1.0, 2.0, 0.5],
        job_offsets=[0, 2, 3],
        checkpoint_mb=[90.0, 150.0, 30.0],
        availability=Weibull(shape=0.5, scale=100.0),
        unavailability=Exponential(rate=0.1),
        lifetime=Weibull(shape=0.6, scale=1e5),
    )
    fields.update(overrides)
    return BotInstance(**fields)


def test_generator_follows_tables_i_and_ii():
    bot = generate_bot(500, 300, seed=4)
    assert bot.n_clients == 500 and bot.n_jobs == 300
    sizes = bot.n_slices
    assert sizes.min() >= 1 and sizes.max() <= 50 and sizes.sum() == len(bot.slice_hours)
    assert 20 < sizes.mean() < 31
    assert bot.slice_hours.min() >= 1.0 and bot.slice_hours.max() <= 5.0
    assert bot.checkpoint_mb.min() >= 10.0 and bot.checkpoint_mb.max() <= 512.0
    assert bot.bandwidths.min() >= 1.0 and bot.bandwidths.max() <= 2.0
    assert 1600 < bot.speeds.mean() < 1950 and bot.speeds.min() > 0
    assert bot.availability.to_dict() == paper_failure_law().to_dict()
    assert bot.unavailability.to_dict() == paper_unavailability_law().to_dict()
    assert bot.lifetime.to_dict() == paper_lifetime_law().to_dict()
    assert bot.max_connections == 100 and bot.alpha == 1.0
    assert bot.params["seed"] == 4 and bot.params["clients"] == 500


def test_generator_is_deterministic():
    a, b, c = generate_bot(20, 10, 7), generate_bot(20, 10, 7), generate_bot(20, 10, 8)
    assert a.to_json() == b.to_json()
    assert a.to_json()["data"] != c.to_json()["data"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"clients": 0, "jobs": 5, "seed": 1}, "clients"),
        ({"clients": 2.5, "jobs": 5, "seed": 1}, "clients"),
        ({"clients": True, "jobs": 5, "seed": 1}, "clients"),
        ({"clients": 5, "jobs": -1, "seed": 1}, "jobs"),
        ({"clients": 5, "jobs": "3", "seed": 1}, "jobs"),
        ({"clients": 5, "jobs": 3, "seed": -2}, "seed"),
    ],
)
def test_generator_rejects_bad_parameters(kwargs, field):
    with pytest.raises(InputError, match=f"^{field}:"):
        generate_bot(**kwargs)


def test_json_round_trip_is_exact(tmp_path):
    bot = generate_bot(30, 12, seed=2)
    obj = bot.to_json()
    assert obj["family"] == "checkpoint-bot" and obj["format"] == "volsched-instance"
    again = BotInstance.from_json(json.loads(json.dumps(obj)))
    assert again.to_json() == obj
    for name in ("speeds", "bandwidths", "slice_hours", "job_offsets", "checkpoint_mb"):
        assert np.array_equal(getattr(again, name), getattr(bot, name))
    write_json(tmp_path / "bot.json", obj)
    assert BotInstance.from_json(read_json(tmp_path / "bot.json")).to_json() == obj


def _break(path, value):
    def apply(obj):
        target = obj
        for key in path[:-1]:
            target = target[key]
        if value is KeyError:
            del target[path[-1]]
        else:
            target[path[-1]] = value
        return obj

    return apply


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_break(("data", "speeds", 1), -3.0), r"^speeds\[1\]: must be positive"),
        (_break(("data", "speeds", 0), "fast"), r"^speeds\[0\]:"),
        (_break(("data", "bandwidths", 1), 0.0), r"^bandwidths\[1\]:"),
        (_break(("data", "bandwidths"), [1.5]), r"^bandwidths: has 1 entries"),
        (_break(("data", "slice_hours", 2), 0), r"^slice_hours\[2\]:"),
        (_break(("data", "checkpoint_mb"), [1.0, 2.0]), r"^checkpoint_mb: has 2 entries"),
        (_break(("data", "checkpoint_mb", 0), None), r"^checkpoint_mb\[0\]:"),
        (_break(("data", "job_offsets"), [0, 2, 2, 3]), r"^job_offsets\[2\]: must exceed"),
        (_break(("data", "job_offsets"), [1, 3]), r"^job_offsets\[0\]: must be 0"),
        (_break(("data", "job_offsets"), [0, 2]), r"^job_offsets\[1\]: must equal"),
        (_break(("data", "job_offsets", 1), 1.5), r"^job_offsets\[1\]: must be an integer"),
        (_break(("data", "max_connections"), 0), r"^max_connections:"),
        (_break(("data", "max_connections"), 2.0), r"^max_connections:"),
        (_break(("data", "alpha"), 1.5), r"^alpha:"),
        (_break(("data", "availability", "shape"), -1.0), r"^availability\.shape:"),
        (_break(("data", "lifetime", "kind"), "gamma"), r"^lifetime\.kind:"),
        (_break(("data", "unavailability"), KeyError), r"^data\.unavailability: missing"),
        (_break(("data", "extra"), 1), r"^data\.extra: unknown field"),
        (_break(("family",), "checkpoint"), r"^family:"),
        (_break(("version",), 3), r"^version:"),
    ],
)
def test_broken_files_name_the_field(edit, message):
    obj = edit(copy.deepcopy(small().to_json()))
    with pytest.raises(InputError, match=message):
        BotInstance.from_json(obj)


def test_constructor_validates_and_freezes():
    with pytest.raises(InputError, match=r"^speeds\[1\]: must be positive"):
        small(speeds=np.array([1.0, np.nan]))
    with pytest.raises(InputError, match=r"^lifetime: must be a FailureLaw"):
        small(lifetime=3.0)
    bot = small()
    with pytest.raises(ValueError, match="read-only"):
        bot.speeds[0] = 1.0


def test_job_instance_converts_to_quanta():
    bot = small()
    nominal = bot.job_instance(0)
    # 1 h and 2 h at mean speed; 90 Mb and 150 Mb at 1.5 Mb/s are 60 s and 100 s.
    assert nominal.p.tolist() == [60, 120] and nominal.c.tolist() == [1, 2]
    assert nominal.law is bot.availability and nominal.alpha == bot.alpha
    fast = bot.job_instance(0, speed=3542.0, bandwidth=0.5)
    assert fast.p.tolist() == [30, 60] and fast.c.tolist() == [3, 5]
    assert np.array_equal(fast.p, slice_quanta(bot.job_slice_hours(0), 3542.0))
    assert np.array_equal(fast.c, checkpoint_quanta(bot.job_checkpoint_mb(0), 0.5))
    assert bot.job_instance(1).p.tolist() == [30]
    for k in (-1, 2, 1.0):
        with pytest.raises(InputError, match=r"^k:"):
            bot.job_instance(k)
    with pytest.raises(InputError, match=r"^speed:"):
        bot.job_instance(0, speed=0.0)
