"""A stand-in for CBC in tests: an executable that replays what CBC wrote on a recorded run.

PuLP runs its bundled CBC (``PULP_CBC_CMD.pulp_cbc_path``) with ``-solution FILE`` and reads the
solution file's first line as the status; ``volsched.solvers.cbc`` reads the log. The stand-in
writes both, so a test can put a solver in a state that depends on timing (a time limit that
stops CBC in its pre-processing) deterministically.
"""

from __future__ import annotations

import stat
import sys
import textwrap

import pulp

#: CBC 2.10.3's log when the time limit (0.2 s) stopped its pre-processing (recorded on the repro).
PREPROCESSING_STOPPED_LOG = textwrap.dedent("""\
    Welcome to the CBC MILP Solver
    Version: 2.10.3
    Build Date: Dec 15 2019

    command line - cbc model.mps -sec 0.2 -timeMode elapsed -solve -printingOptions all -solution model.sol
    Problem MODEL has 3304 rows, 1683 columns and 134647 elements
    Coin0008I MODEL read with 0 errors
    seconds was changed from 1e+100 to 0.2
    Option for timeMode changed from cpu to elapsed
    Continuous objective value is 3012 - 0.02 seconds
    Cgl0000I Cut generators found to be infeasible! (or unbounded)
    Pre-processing says infeasible or unbounded
    Option for printingOptions changed from normal to all
    Total time (CPU seconds):       0.08   (Wallclock seconds):       0.62
    """)


def fake_cbc(monkeypatch, tmp_path, log: str, header: str) -> None:
    """Replace CBC by an executable that writes ``header`` as the solution file and prints ``log``."""
    script = tmp_path / "cbc"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\n"
        f"open(args[args.index('-solution') + 1], 'w').write({header + chr(10)!r})\n"
        f"sys.stdout.write({log!r})\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(pulp.PULP_CBC_CMD, "pulp_cbc_path", str(script))
