"""SimGrid, the prescient family's oracle: the tests' marks and one replay (for every test folder)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from volsched.solvers.prescient.simgrid import export_simgrid

RUNNER = Path(__file__).resolve().parent / "simgrid_replay.py"


def simgrid_available() -> bool:
    probe = "import sys; sys.path.append('/usr/lib/python3/dist-packages'); import simgrid"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


#: ``pytestmark`` of a SimGrid test module: marked, and skipped with the reason when SimGrid is absent.
MARKS = [
    pytest.mark.simgrid,
    pytest.mark.skipif(
        not simgrid_available(),
        reason="SimGrid's Python bindings are absent (apt-get install python3-simgrid)",
    ),
]


def replay(instance, schedule, folder) -> list[dict]:
    """Export ``schedule`` on ``instance`` into ``folder``; replay it in SimGrid (one engine per process)."""
    export_simgrid(instance, folder, schedule)
    out = subprocess.run(
        [sys.executable, str(RUNNER), str(folder)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])
