"""Casanova et al. 2013's Figure 2 and the distance to the off-line reference, drawn again from a
stored ``volsched report --json`` file.

Usage:
  python benchmarks/bench_coupled_figures.py redraw REPORT.json [REPORT.json ...] [--out DIR]

A report of a store that holds the ``casanova2013`` preset's paper realizations carries, under
``papers.coupled.figure2``, the %diff against the reference per ``w_min`` for each ``m`` (the
"%diff per w_min" table), and under ``papers.coupled.distance`` the boxes of each heuristic's
makespan over the off-line reference. ``redraw`` draws ``figure2-m{m}.png`` and
``distance-to-offline-m{m}.png`` from them into ``--out`` (default: the report's folder) with
:func:`volsched.families.coupled.tables.draw_figure2` and
:func:`~volsched.families.coupled.tables.draw_distance`, so a change of the plotting style needs no
new sweep.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from volsched.families.coupled.tables import draw_distance, draw_figure2


def redraw(report: Path, out: Path | None) -> list[Path]:
    """Every Figure 2 and distance figure the report holds, one per ``m``; the reference is the
    report's."""
    data = json.loads(report.read_text())
    reference = data["reference"]["coupled"]
    coupled = data.get("papers", {}).get("coupled", {})
    folder = out or report.parent
    folder.mkdir(parents=True, exist_ok=True)
    suffix = "-conditional" if "[conditional]" in reference else ""
    made = [
        draw_figure2(series, folder / f"figure2-m{m}{suffix}.png", int(m), reference)
        for m, series in sorted(coupled.get("figure2", {}).items())
    ]
    made += [
        draw_distance(panels, folder / f"distance-to-offline-m{m}{suffix}.png", m)
        for m, panels in sorted(coupled.get("distance", {}).items())
    ]
    return made


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("redraw", help="Figure 2 and the distance figures from report JSON files")
    r.add_argument("reports", nargs="+", type=Path)
    r.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    for report in args.reports:
        made = redraw(report, args.out)
        print(f"{report}: " + (", ".join(str(p) for p in made) or "no figure data"))


if __name__ == "__main__":
    main()
