"""Every console example of the README runs and prints what the README shows.

The convention (stated in the README): a fenced ``console`` block holds commands, each a line
``$ volsched ...``, each followed by the lines it prints on stdout. A block runs in a fresh folder,
its commands in order, through the installed ``volsched`` executable, as a newcomer would type
them. The comparison is exact, line by line, except that ``...`` inside a shown line stands for
any text within that line (a run time, ``in ... s``). A command must exit 0, unless its shown
output is a ``volsched: error:`` line, which is then compared with its stderr.

The FTA example names the sample shipped at ``volsched/data/fta-sample/`` from a clone's root; in
the test's fresh folder that path leads to the installed package's copy (found through
:mod:`importlib.resources`, so the test also checks that the package ships it).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from importlib.resources import files
from pathlib import Path

import pytest

from volsched.instances.prescient.fta import read_fta

README = Path(__file__).resolve().parents[2] / "README.md"
SAMPLE = "volsched/data/fta-sample/event_trace.tab"
_BLOCK = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)


def console_blocks(text: str) -> list[list[tuple[str, list[str]]]]:
    """The ``console`` blocks of ``text``: per block, ``(command, shown output lines)`` in order."""
    blocks = []
    for match in _BLOCK.finditer(text):
        steps: list[tuple[str, list[str]]] = []
        for line in match.group(1).splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                assert steps, f"output before any command: {line!r}"
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def matches(shown: str, printed: str) -> bool:
    """``printed`` is ``shown``, where each ``...`` of ``shown`` stands for any text within the line."""
    pattern = ".*?".join(re.escape(part) for part in shown.split("..."))
    return re.fullmatch(pattern, printed) is not None


def compare(command: str, shown: list[str], printed: list[str]) -> None:
    assert len(printed) == len(shown), (command, shown, printed)
    for want, got in zip(shown, printed, strict=True):
        assert matches(want, got), f"{command}\n  README: {want}\n  prints: {got}"


BLOCKS = console_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_shows_console_examples_of_every_family():
    commands = [command for block in BLOCKS for command, _ in block]
    assert all(command.startswith("volsched ") for command in commands)
    for family in ("checkpoint", "coupled", "prescient", "slack"):
        assert any(c.startswith(f"volsched generate {family} ") for c in commands), family
    assert any(SAMPLE in c for c in commands)
    assert all(output for block in BLOCKS for _, output in block)  # every command shows its output


@pytest.mark.parametrize("block", BLOCKS, ids=[block[0][0].split()[2] for block in BLOCKS])
def test_a_readme_console_block_prints_what_it_shows(block, tmp_path):
    sample = Path(str(files("volsched") / "data" / "fta-sample"))
    (tmp_path / "volsched" / "data").mkdir(parents=True)
    (tmp_path / "volsched" / "data" / "fta-sample").symlink_to(sample, target_is_directory=True)
    volsched = shutil.which("volsched")
    assert volsched is not None, "the volsched executable is not on PATH"
    for command, shown in block:
        argv = shlex.split(command)
        done = subprocess.run(
            [volsched, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
        if shown[0].startswith("volsched: error:"):
            assert done.returncode == 2, (command, done.stderr)
            compare(command, shown, done.stderr.splitlines())
        else:
            assert done.returncode == 0, (command, done.stderr)
            compare(command, shown, done.stdout.splitlines())


def test_the_shipped_fta_sample_is_found_and_read():
    sample = files("volsched") / "data" / "fta-sample" / "event_trace.tab"
    assert sample.is_file()
    text = sample.read_text(encoding="utf-8")
    assert Path(__file__).resolve().parents[2].joinpath(SAMPLE).read_text(encoding="utf-8") == text
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    header, events = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    up: dict[str, list[tuple[float, float]]] = {}
    for row in events:
        if row[col["event_type"]] == "1":
            up.setdefault(row[col["node_name"]], []).append(
                (float(row[col["event_start_time"]]), float(row[col["event_end_time"]]))
            )
    first = min(float(row[col["event_start_time"]]) for row in events)
    last = max(float(row[col["event_end_time"]]) for row in events)
    start = first + 86400 + 9 * 3600  # the README's --start: 9:00 on the second day

    instance = read_fta(Path(str(sample)), tasks=6, task_minutes=30, start=start)
    assert instance.n_hosts == len(up) == 4
    assert list(instance.host_names) == list(up)
    for h, name in enumerate(instance.host_names):
        lo, hi = int(instance.up_ptr[h]), int(instance.up_ptr[h + 1])
        read = list(zip(instance.up_start[lo:hi].tolist(), instance.up_end[lo:hi].tolist(), strict=True))
        assert read == sorted(up[name])
    assert instance.start == start and instance.horizon == last
    assert instance.history == (start - 86400, start)
