"""Running the command line in-process, as the CLI tests do: exit code, stdout, stderr."""

from __future__ import annotations

import json

from volsched.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    """Run ``volsched ARGV`` in-process; ``(exit code, stdout, stderr)``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_json(out: str) -> dict:
    obj = json.loads(out)  # fails on anything but exactly one JSON document
    assert isinstance(obj, dict)
    return obj


def assert_input_error(code: int, err: str, fragment: str, prefix: str = "volsched: error: ") -> None:
    """Exit 2 with exactly one line ``volsched: error: ...`` containing ``fragment``, no traceback."""
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix), (prefix, lines[0])
    assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in err
