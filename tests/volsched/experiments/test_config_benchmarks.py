"""The sweep files of ``benchmarks/`` parse, and a preset's halves plan exactly the preset's tasks.

RESULTS.md quotes tables measured from these files; a file that stopped parsing, or a half
whose task keys drifted from its preset's, would leave those tables unreproducible.
"""

from pathlib import Path

import pytest

from volsched.experiments.config import parse_config, read_config
from volsched.experiments.presets import preset
from volsched.experiments.tasks import build_tasks

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
HALVES = {
    "casanova2013": ["casanova2013-m5.toml", "casanova2013-m10.toml"],
    "casanova2013-conditional": ["casanova2013-conditional-m5.toml", "casanova2013-conditional-m10.toml"],
}


def keys(sweeps) -> set[str]:
    return {task["key"] for sweep in sweeps for task in build_tasks(sweep)}


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("*.toml")), ids=lambda p: p.name)
def test_every_benchmark_sweep_file_parses_and_plans_tasks(path):
    assert keys(read_config(path))


@pytest.mark.parametrize("name", sorted(HALVES))
def test_the_halves_of_a_preset_plan_its_tasks_and_no_others(name):
    whole = keys(parse_config({"sweep": preset(name)}))
    parts = [keys(read_config(BENCHMARKS / f)) for f in HALVES[name]]
    assert all(part <= whole for part in parts)
    assert sum(len(part) for part in parts) == len(set().union(*parts))  # disjoint
    assert set().union(*parts) == whole


@pytest.mark.parametrize("m", [5, 10])
def test_the_full_only_file_plans_exactly_the_halfs_full_tasks(m):
    half = [t for s in read_config(BENCHMARKS / f"casanova2013-m{m}.toml") for t in build_tasks(s)]
    full = keys(read_config(BENCHMARKS / f"casanova2013-m{m}-full.toml"))
    assert full == {t["key"] for t in half if t["kind"] == "exact" and t["problem"] == "full"}
    assert len(full) == 3000
