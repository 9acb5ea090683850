"""Problem ``full`` in two stores of the ``casanova2013`` preset: the same realizations, before and after.

Usage: python benchmarks/bench_coupled_full_stores.py BEFORE.db AFTER.db [--measured]

Reads the ``full`` rows (the preset's exact reference, method ``greedy``) of both stores, keeps the
realizations present in both (a sweep still running has done only some), and prints per ``w_min``
and in all: how many, proven optimal before and after, the median and maximum gap ``(UB - LB) / UB``
of the row's own bounds (rows without a schedule aside), and the after rows' median and maximum
seconds; where the after store records them (layout 5), its rows' CPU seconds (median, maximum, how
many above 60) and work (the greedy's compiled calls and the holder bound's states, median and
maximum; ``--measured`` keeps only the realizations whose after row has them, such as the rows
of a store resumed after some were deleted). The rows are deterministic (work budgets), so a
store built on another day with the same code gives the same values and work; the seconds are
the machine's (wall-clock ones with its load).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics


def rows(path: str) -> dict[str, tuple]:
    """``{key: (params, status, objective, bound, runtime_s, cpu_s, work)}``, the last two ``None``
    in a store of a layout before 5."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    present = {r[1] for r in db.execute("PRAGMA table_info(results)")}
    later = ", ".join(c if c in present else f"NULL AS {c}" for c in ("cpu_s", "work"))
    query = (
        f"SELECT key, params, status, objective, bound, runtime_s, {later} FROM results "
        "WHERE kind = 'exact' AND problem = 'full'"
    )
    return {key: (json.loads(params), *rest) for key, params, *rest in db.execute(query)}


def gap(row) -> float | None:
    objective, bound = row[2], row[3]
    return None if objective is None or bound is None else (objective - bound) / objective


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument(
        "--measured", action="store_true", help="only the realizations whose after row has CPU seconds"
    )
    args = parser.parse_args()
    before, after = rows(args.before), rows(args.after)
    common = sorted(k for k in set(before) & set(after) if not args.measured or after[k][5] is not None)
    cells: dict[int, list[str]] = {}
    for key in common:
        cells.setdefault(after[key][0]["w_min"], []).append(key)
    columns = ["w_min", "n", "proven before", "proven after", "median gap before", "median gap after"]
    columns += ["max gap before", "max gap after", "median s after", "max s after"]
    measured = any(after[k][5] is not None for k in common)
    if measured:
        columns += ["median CPU s after", "max CPU s after", "above 60 CPU s", "median work", "max work"]
    print(f"{len(common)} realizations in both stores")
    print("| " + " | ".join(columns) + " |")
    print("|---" + "|---:" * (len(columns) - 1) + "|")
    for label, keys in [*((str(w), cells[w]) for w in sorted(cells)), ("all", common)]:
        out = [label, str(len(keys))]
        out += [str(sum(store[k][1] == "optimal" for k in keys)) for store in (before, after)]
        gaps = [[g for k in keys if (g := gap(store[k])) is not None] for store in (before, after)]
        out += [f"{statistics.median(g):.4f}" if g else "-" for g in gaps]
        out += [f"{max(g):.4f}" if g else "-" for g in gaps]
        seconds = [after[k][4] for k in keys]
        out += [f"{statistics.median(seconds):.1f}", f"{max(seconds):.1f}"]
        if measured:
            cpu = [after[k][5] for k in keys if after[k][5] is not None]
            work = [after[k][6] for k in keys if after[k][6] is not None]
            out += [f"{statistics.median(cpu):.1f}", f"{max(cpu):.1f}"] if cpu else ["-", "-"]
            out += [str(sum(c > 60 for c in cpu))]
            out += [f"{statistics.median(work):,.0f}", f"{max(work):,.0f}"] if work else ["-", "-"]
        print("| " + " | ".join(out) + " |")


if __name__ == "__main__":
    main()
