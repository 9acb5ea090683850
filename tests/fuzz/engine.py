"""The fuzzing engine shared by ``tests/fuzz`` and the campaign in ``benchmarks/fuzz``.

Three parts:

* **seeds**: small valid instance files of every family in :data:`volsched.families.FAMILIES`
  (through ``volsched generate``), and a result file for every problem of the family (through
  ``volsched solve --out``), plus each result's bare solution object;
* **mutations** of a parsed JSON document (types, magnitudes, shapes, nesting, booleans,
  NaN/inf, added and deleted keys, list lengths, tampered claims) and of command lines, drawn
  through a :class:`Chooser` (a seeded ``random.Random`` for the campaign, hypothesis'
  ``data`` in the test suite, so that failures shrink);
* **the contract check**: ``volsched.cli.main`` run in-process on a mutant, which must exit 0
  or 2, never 1; on 2 print exactly one ``volsched: error:`` line and write nothing; with
  ``--json`` print one JSON object; and a ``verify`` that accepts must agree with
  :mod:`oracle`.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import json
import math
import os
import signal
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oracles.registry import budget_argv, work_budget

from volsched.cli import main
from volsched.families import FAMILIES

from .oracle import beta_of_argv, check_accepted

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

# --- choosers --------------------------------------------------------------------------------------


class Chooser:
    """Where a mutation's choices come from."""

    def choice(self, seq: Sequence):
        raise NotImplementedError

    def integer(self, low: int, high: int) -> int:
        raise NotImplementedError

    def chance(self, p: float) -> bool:
        return self.integer(0, 999) < int(p * 1000)


class RandomChooser(Chooser):
    def __init__(self, rnd):
        self.rnd = rnd

    def choice(self, seq):
        return seq[self.rnd.randrange(len(seq))]

    def integer(self, low, high):
        return self.rnd.randint(low, high)


class DataChooser(Chooser):
    """Choices drawn from hypothesis' ``data`` (shrinkable)."""

    def __init__(self, data):
        from hypothesis import strategies as st

        self.data, self.st = data, st

    def choice(self, seq):
        return self.data.draw(self.st.sampled_from(list(seq)))

    def integer(self, low, high):
        return self.data.draw(self.st.integers(low, high))


# --- seeds ------------------------------------------------------------------------------------------

#: Small generator options per family (a family missing here is seeded with its defaults).
SMALL_INSTANCES: dict[str, list[list[str]]] = {
    "checkpoint": [
        ["--slices", "6"],
        ["--slices", "5", "--law", "empirical", "--seed", "1"],
        ["--slices", "4", "--law", "hyperexponential", "--slice-hours", "0.05", "0.5"],
        ["--slices", "3", "--law", "lognormal", "--alpha", "0.5"],
        ["--slices", "4", "--law", "exponential"],
    ],
    "coupled": [
        ["--preset", "markov", "--processors", "5", "--slots", "30", "--tasks", "2"],
        ["--preset", "paper-realization", "--slots", "60"],
        ["--preset", "paper-realization", "--slots", "14", "--w-min", "2", "--seed", "3"],
        ["--preset", "planted", "--processors", "6", "--slots", "20", "--tasks", "3", "--block", "4"],
        ["--preset", "edgelist", "--file", "{graph}", "--tasks", "2"],
        ["--preset", "encd", "--file", "{graph}", "--a", "2", "--b", "2"],
    ],
    "prescient": [
        ["--platform", "sdsc", "--hosts", "6", "--tasks", "4", "--task-minutes", "5", "--days", "2"],
        [
            "--platform",
            "ucb",
            "--hosts",
            "5",
            "--tasks",
            "3",
            "--task-minutes",
            "5",
            "--days",
            "2",
            "--seed",
            "1",
        ],
        ["--preset", "fta", "--fta", "{fta}", "--tasks", "3", "--task-minutes", "5"],
    ],
    "slack": [
        ["--preset", "theorem2", "--machines", "3", "--jobs", "6"],
        ["--preset", "paper", "--machines", "5", "--jobs", "12", "--horizon", "2", "--beta", "0.5"],
        ["--preset", "planted", "--groups", "2", "--B", "13", "--answer", "no"],
    ],
}

#: An input file a generator reads (``{graph}`` in :data:`SMALL_INSTANCES`): a bipartite edge list.
GRAPH = "# 4 5 8\n0 0\n0 1\n1 0\n1 1\n2 3\n3 4\n1 2\n2 2\n"

#: An FTA ``event_trace.tab`` (``{fta}``): two nodes, availability and unavailability events touching.
FTA_TRACE = (
    "event_id component_id node_id platform_id node_name event_type event_start_time event_end_time "
    "event_end_reason\n"
    "1 1 7 3 pc-a 1 1000 4600 5\n2 1 7 3 pc-a 0 4600 5000 NULL\n3 1 7 3 pc-a 1 5000 9000 2\n"
    "4 2 9 3 pc-b 0 1000 1600 NULL\n5 2 9 3 pc-b 1 1600 2800 6\n6 2 9 3 pc-b 1 3400 9000 0\n"
)

#: Each input file placeholder of :data:`SMALL_INSTANCES`: its file name and valid text.
INPUTS = {"{graph}": ("graph.txt", GRAPH), "{fta}": ("event_trace.tab", FTA_TRACE)}

#: Methods for the seed results where the default one is slow on a seed (``full``'s ``cpsat``
#: takes a minute and more at p * H = 1200); the first that applies is used.
SEED_METHODS: dict[tuple[str, str], tuple[str, ...]] = {("coupled", "full"): ("greedy",)}

#: Methods a mutated instance is solved with (fast on a seed-sized instance).
FAST_METHODS: dict[tuple[str, str], str] = {("coupled", "full"): "greedy"}

#: Seconds a mutant's exact solve may run (``--time-limit``): a safety net well inside the
#: contract's timeout; the method's work budget (``--budget``) is what stops a seed-sized search.
MUTANT_TIME_LIMIT = 10


def budget_options(family: str, problem: str, method: str) -> list[str]:
    """``--budget`` (the method's test budget, if it has a work unit) and :data:`MUTANT_TIME_LIMIT`."""
    budget = work_budget(family, problem, method)
    return [*(() if budget is None else ("--budget", repr(budget))), "--time-limit", str(MUTANT_TIME_LIMIT)]


def evaluate_options(family: str, instance: Any) -> list[str]:
    """:func:`budget_options` of ``evaluate`` on the valid ``instance`` (its JSON object, as the seed
    holds it: a mutant may have written over the seed's file since): its one ``--budget`` is the test
    budget of the method each problem of the family's heuristics runs there by default."""
    fam = FAMILIES[family]
    loaded = fam.load(instance)
    chosen = {(p, fam.problems[p].method_for(loaded)) for p in {h.problem for h in fam.heuristics.values()}}
    budgets = {work_budget(family, p, m) for p, m in chosen} - {None}
    assert len(budgets) <= 1, f"evaluate takes one --budget, the methods {sorted(chosen)} need {budgets}"
    budget = next(iter(budgets), None)
    return [*(() if budget is None else ("--budget", repr(budget))), "--time-limit", str(MUTANT_TIME_LIMIT)]


def cli(argv: Sequence[Any]) -> tuple[int, str, str]:
    """``volsched ARGV`` in-process: ``(exit code, stdout, stderr)``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@dataclass
class Seed:
    """A valid file of a family: an instance, or a result with the instance it solves."""

    family: str
    #: "instance", "result", "solution", "input" (a generator's file), "config" (a sweep), "store"
    kind: str
    path: Path
    obj: Any
    instance: Path | None = None
    problem: str | None = None
    results: list[Path] = field(default_factory=list)  # an instance's own results
    argv: list[str] = field(default_factory=list)  # an input's generate options ({input}: its path)


def _instance_argv(name: str) -> list[list[str]]:
    if name in SMALL_INSTANCES:
        return SMALL_INSTANCES[name]
    family = FAMILIES[name]
    out = []
    for spec in family.generators.values():
        if not spec.many and all(o.default is not None for o in spec.options):
            out.append(["--preset", spec.name] if len(family.generators) > 1 else [])
    return out


def small_sweeps(family) -> list[dict]:
    """The family's ``*-smoke`` sweep presets cut to one grid point and one seed."""
    out = []
    for preset, tables in family.extras.presets.items():
        if not preset.endswith("-smoke"):
            continue
        cut = []
        for table in copy.deepcopy(tables):
            table["grid"] = {
                k: (
                    v[0] if isinstance(v, list) and k != "slice_hours" else v[:1] if k == "slice_hours" else v
                )
                for k, v in table.get("grid", {}).items()
            }
            table["seeds"] = 1
            if len(table.get("heuristics", ())) > 3:  # the coupled presets run 17 heuristics per point
                table["heuristics"] = table["heuristics"][:3]
            cut.append(table)
        out.append({"sweep": cut})
    return out


#: How each family's simulator is kept short in a mutant: the checkpoint Monte-Carlo's samples, the
#: coupled runs' cap (a mutated platform, w = 10^4 say, makes every run fail, at the 10^6-slot cap
#: by default); the contract under test is the handling of the input, not the run's length.
SIMULATOR_ARGS = {
    "prescient": (),
    "checkpoint": ("--samples", "200"),
    "coupled": ("--cap", "3000"),
    "slack": ("--disturbance", "sampled"),
}
EVALUATE_ARGS = {"coupled": ("--cap", "3000")}


def make_seeds(folder: Path) -> list[Seed]:
    """Valid instances, results, generator input files and sweep configs of every family, under ``folder``."""
    seeds: list[Seed] = []
    folder.mkdir(parents=True, exist_ok=True)
    for file, text in INPUTS.values():
        (folder / file).write_text(text)
    for name, family in FAMILIES.items():
        for i, sweep in enumerate(small_sweeps(family)):
            path = folder / f"{name}-sweep-{i}.toml"
            path.write_text(toml_dumps(sweep))
            seeds.append(Seed(name, "config", path, sweep))
            store = folder / f"{name}-store-{i}.db"
            code, _, err = cli(["sweep", path, "--store", store, "--workers", 1, "--quiet"])
            if code != 0:
                raise AssertionError(f"seed sweep {path}: {err}")
            seeds.append(Seed(name, "store", store, store.read_bytes(), instance=path))
        for i, options in enumerate(_instance_argv(name)):
            for placeholder, (file, text) in INPUTS.items():
                if placeholder in options:
                    seeds.append(Seed(name, "input", folder / file, text, argv=["generate", name, *options]))
                    options = [str(folder / file) if o == placeholder else o for o in options]
            path = folder / f"{name}-{i}.json"
            code, _, err = cli(["generate", name, *options, "--out", path])
            if code != 0:
                raise AssertionError(f"seed generate {name} {options}: {err}")
            inst = Seed(name, "instance", path, json.loads(path.read_text()))
            seeds.append(inst)
            for problem in family.problems.values():
                methods = SEED_METHODS.get((name, problem.name), (problem.default_method,))
                for method in methods:
                    out = folder / f"{name}-{i}-{problem.name}-{method}.json"
                    code, _, _ = cli(
                        [
                            "solve",
                            path,
                            "--problem",
                            problem.name,
                            "--method",
                            method,
                            *budget_argv(name, problem.name, method),
                            "--out",
                            out,
                            "--json",
                        ]
                    )
                    if code == 2:  # the problem does not take this instance (e.g. m > p)
                        continue
                    if code != 0:
                        raise AssertionError(f"seed solve {path} {problem.name} {method} exit {code}")
                    obj = json.loads(out.read_text())
                    seeds.append(Seed(name, "result", out, obj, instance=path, problem=problem.name))
                    inst.results.append(out)
                    if obj["status"] not in ("optimal", "feasible"):
                        continue  # a witness without its status is no solution
                    bare = folder / f"{name}-{i}-{problem.name}-{method}-solution.json"
                    bare.write_text(json.dumps(obj["solution"]))
                    seeds.append(
                        Seed(name, "solution", bare, obj["solution"], instance=path, problem=problem.name)
                    )
            # A heuristic's run (simulate --out) is a result verify reads too: one per instance.
            for h in list(family.heuristics)[:2] if name == "coupled" else ():
                out = folder / f"{name}-{i}-run-{h}.json"
                code, _, _ = cli(
                    [
                        "simulate",
                        path,
                        "--heuristic",
                        h,
                        "--seed",
                        1,
                        *SIMULATOR_ARGS[name],
                        "--out",
                        out,
                        "--json",
                    ]
                )
                if code == 2:  # the heuristic does not take this instance (no chains)
                    continue
                if code != 0:
                    raise AssertionError(f"seed simulate {path} {h} exit {code}")
                obj = json.loads(out.read_text())
                seeds.append(Seed(name, "result", out, obj, instance=path, problem=obj["problem"]))
                inst.results.append(out)
    return seeds


# --- JSON mutations -----------------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")
HUGE = (10**30, 2**63, -(2**63), 2**64, 2**1030, -(2**1030), 10**9 + 1, 2**31)
STRANGE: tuple = (
    None,
    True,
    False,
    0,
    -1,
    1,
    2,
    0.0,
    -0.0,
    0.5,
    1.5,
    -2.5,
    1e-300,
    1e300,
    NAN,
    INF,
    -INF,
    "",
    "x",
    "0",
    "1",
    "NaN",
    "U",
    "optimal",
    "two\nlines",
    [],
    {},
    [0],
    [[]],
    {"": None},
    *HUGE,
)
STATUSES = ("optimal", "feasible", "infeasible", "unknown", "solved", "OPTIMAL", "")
TEXT_EDITS = ("U", "R", "D", ".", "P", "u", "x", " ", "é", "\x00", "\n", "UU", "DDDD")

Path_ = tuple


def walk(obj: Any, path: Path_ = ()) -> list[Path_]:
    """Every node's path (keys and indices), the root included."""
    out = [path]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += walk(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += walk(v, (*path, i))
    return out


def get(obj: Any, path: Path_) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def put(obj: Any, path: Path_, value: Any) -> Any:
    if not path:
        return value
    get(obj, path[:-1])[path[-1]] = value
    return obj


def _numeric_variants(v: Any) -> list:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return []
    out: list = [v + 1, v - 1, -v, 2 * v, 0]
    if isinstance(v, int):
        out += [v + 10**9, v * 10**6]
        if abs(v) < 2**1000:
            out += [float(v), v + 0.5]
    elif math.isfinite(v):
        out += [v + 0.5, v * (1 + 1e-12), v * (1 + 1e-6), v * (1 - 1e-6), math.nextafter(v, INF)]
        if v.is_integer():
            out.append(int(v))
    return out


def _string_variants(ch: Chooser, s: str) -> list[str]:
    out = ["", s + s, s.upper(), s.lower(), s[::-1], s * 50]
    if s:
        i = ch.integer(0, len(s) - 1)
        c = ch.choice(TEXT_EDITS)
        out += [s[:i] + c + s[i + 1 :], s[:i] + s[i + 1 :], s[:i] + c + s[i:], s[:-1], s + c]
        if len(s) > 1:
            j = ch.integer(0, len(s) - 1)
            t = list(s)
            t[i], t[j] = t[j], t[i]
            out.append("".join(t))
    return out


def _list_variants(ch: Chooser, v: list) -> list[list]:
    out: list[list] = [[], v[::-1], [*v, ch.choice(STRANGE)], [v]]
    if v:
        i = ch.integer(0, len(v) - 1)
        out += [v[:i], v[:i] + v[i + 1 :], [*v[: i + 1], copy.deepcopy(v[i]), *v[i + 1 :]], v * 2]
        ints = [k for k, x in enumerate(v) if isinstance(x, int) and not isinstance(x, bool)]
        if len(ints) >= 2:  # move one unit between two entries: keeps the sum (an allocation stays m)
            a, b = ch.choice(ints), ch.choice(ints)
            moved = list(v)
            moved[a] -= 1
            moved[b] += 1
            out.append(moved)
    return out


def _deep(v: Any, depth: int) -> Any:
    for _ in range(depth):
        v = [v]
    return v


def plausible() -> list:
    """Values a valid file could hold: small counts, fractions, the names the families know."""
    from volsched.instances.checkpoint import LAW_CHOICES

    return [
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        12,
        0.25,
        0.5,
        1.0,
        [1, 2],
        [0.05, 0.5],
        *LAW_CHOICES,
        *_known_names(),
        *FAMILIES,
    ]


def mutate_value(ch: Chooser, v: Any) -> Any:
    """A replacement for node ``v``: another type, a nearby or huge magnitude, another shape."""
    pools = [list(STRANGE), plausible()]
    pools.append(_numeric_variants(v) or list(HUGE))
    if isinstance(v, str):
        pools.append(_string_variants(ch, v))
    if isinstance(v, list):
        pools.append(_list_variants(ch, v))
    if isinstance(v, dict):
        pools.append([{}, {**v, "extra": ch.choice(STRANGE)}, [v], list(v.values()), list(v)])
    pools.append(
        [[v], {"value": v}, _deep(v, 40), str(v) if not isinstance(v, (dict, list)) else json.dumps(v)]
    )
    return copy.deepcopy(ch.choice(ch.choice(pools)))


#: Keys a mutant may gain: the schema's own names in the wrong place, and unknown ones.
EXTRA_KEYS = (
    "extra",
    "problem",
    "schedule",
    "solution",
    "objective",
    "status",
    "transitions",
    "completions",
    "communication",
    "configurations",
    "start",
    "allocation",
    "a",
    "processors",
    "law",
    "kind",
    "__proto__",
    "",
)


def mutate_json(ch: Chooser, obj: Any, claims: Sequence[Path_] = ()) -> tuple[Any, str]:
    """One structural mutation of ``obj`` (a deep copy); returns it and a description."""
    obj = copy.deepcopy(obj)
    op = ch.choice(
        ("replace", "replace", "replace", "delete", "add", "claim")
        if claims
        else ("replace", "replace", "replace", "delete", "add")
    )
    if op == "claim":
        present = [p for p in claims if _has(obj, p) and isinstance(get(obj, p[:-1]), (dict, list))]
        if present:
            path = ch.choice(present)
            value = claim_value(ch, get(obj, path), path)
            return put(obj, path, value), f"claim {_show(path)} = {_short(value)}"
        op = "replace"
    paths = walk(obj)
    if op == "delete":
        inner = [p for p in paths if p]
        if inner:
            path = ch.choice(inner)
            parent = get(obj, path[:-1])
            del parent[path[-1]]
            return obj, f"delete {_show(path)}"
        op = "replace"
    if op == "add":
        holders = [p for p in paths if isinstance(get(obj, p), dict)]
        if holders:
            path = ch.choice(holders)
            key = ch.choice(EXTRA_KEYS)
            value = copy.deepcopy(ch.choice(STRANGE))
            get(obj, path)[key] = value
            return obj, f"add {_show((*path, key))} = {_short(value)}"
    path = ch.choice(paths)
    value = mutate_value(ch, get(obj, path))
    return put(obj, path, value), f"replace {_show(path)} = {_short(value)}"


def claim_value(ch: Chooser, v: Any, path: Path_) -> Any:
    """A plausible but possibly wrong claim in place of ``v``."""
    key = path[-1] if path else None
    if key == "status":
        return ch.choice(STATUSES)
    if key == "problem":
        return ch.choice([*sorted({p for f in FAMILIES.values() for p in f.problems}), "", "nope"])
    if key == "family":
        return ch.choice([*FAMILIES, "", "Coupled"])
    if key == "instance":
        return ch.choice(["", v + "x" if isinstance(v, str) else "x", None])
    if isinstance(v, bool) or v is None:
        return ch.choice([True, False, None, 0, 1])
    if isinstance(v, dict):
        key2 = ch.choice(list(v)) if v else "x"
        return {**v, key2: claim_value(ch, v.get(key2), (key2,))}
    if isinstance(v, list):
        return ch.choice([*_list_variants(ch, v), [x + 1 if _is_int(x) else x for x in v]])
    return ch.choice([*_numeric_variants(v), None, True, str(v), NAN, INF])


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _has(obj, path) -> bool:
    try:
        get(obj, path)
        return True
    except (KeyError, IndexError, TypeError):
        return False


def _show(path: Path_) -> str:
    return "/" + "/".join(str(k) for k in path)


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


#: Claims of a result file, by path (``completions`` entries are added per file).
CLAIMS: tuple[Path_, ...] = (
    ("objective",),
    ("bound",),
    ("status",),
    ("verified",),
    ("family",),
    ("instance",),
    ("gap",),
    ("solution", "problem"),
    ("solution", "checkpoints"),
    ("solution", "a"),
    ("solution", "decision"),
    ("solution", "decision", "iteration_fits"),
    ("solution", "decision", "w"),
    ("solution", "k"),
    ("solution", "tasks_per_processor"),
    ("solution", "workload"),
    ("solution", "completion_slots"),
    ("solution", "makespan"),
    ("solution", "completed_iterations"),
    ("solution", "processors"),
    ("solution", "schedule", "completions"),
    ("solution", "schedule", "configurations"),
    ("solution", "schedule", "communication"),
)


def claims_of(obj: Any) -> list[Path_]:
    """The claim paths present in a result (or, without the ``solution`` prefix, a bare solution)."""
    paths = list(CLAIMS)
    if isinstance(obj, dict) and "solution" not in obj:
        paths = [p[1:] for p in paths if p[0] == "solution"] + [("objective",)]
    out = []
    for p in paths:
        if _has(obj, p):
            out.append(p)
            v = get(obj, p)
            if isinstance(v, list):
                out += [(*p, i) for i in range(len(v))]
    return out


def dumps(obj: Any) -> str:
    """JSON text; NaN and infinities as the ``NaN``/``Infinity`` tokens Python's json reads."""
    try:
        return json.dumps(obj, allow_nan=True)
    except (ValueError, RecursionError):
        return json.dumps(str(obj))


def mutate_text(ch: Chooser, text: str) -> tuple[bytes, str]:
    """A byte-level mutation of a file: truncation, stray bytes, BOM, duplicated keys, depth."""
    data = text.encode()
    i = ch.integer(0, max(0, len(data) - 1))
    op = ch.choice(("truncate", "byte", "bom", "trailing", "empty", "duplicate-key", "deep", "utf16"))
    if op == "truncate":
        return data[:i], f"truncate at {i}"
    if op == "byte":
        b = ch.choice((b"\xff", b"\x00", b"\xc3", b"}", b",", b'"', b"1e999", b"NaN"))
        return data[:i] + b + data[i:], f"insert {b!r} at {i}"
    if op == "bom":
        return b"\xef\xbb\xbf" + data, "utf-8 BOM"
    if op == "trailing":
        return data + b"\n{}", "trailing document"
    if op == "empty":
        return b"", "empty file"
    if op == "duplicate-key":
        return data.replace(b"{", b'{"format": 1, ', 1), "duplicate key"
    if op == "deep":
        n = ch.choice((100, 5000, 200_000))
        return b"[" * n + data + b"]" * n, f"nested {n} deep"
    return text.encode("utf-16"), "utf-16"


ODD_TOKENS = (
    "-1",
    "\u00b2",
    "\u0661",
    "1e3",
    "0x1",
    "1.5",
    str(10**12),
    "9" * 30,
    "",
    "a",
    "#",
    "0 0 0",
    str(10**8),
    "99999999",
)


def mutate_lines(ch: Chooser, text: str) -> tuple[str, str]:
    """A token- or line-level mutation of a text input (an edge list)."""
    lines = text.splitlines()
    i = ch.integer(0, len(lines) - 1)
    op = ch.choice(("token", "token", "drop", "dup", "header"))
    if op == "token":
        tokens = lines[i].split() or [""]
        j = ch.integer(0, len(tokens) - 1)
        tokens[j] = ch.choice(ODD_TOKENS)
        lines[i] = " ".join(tokens)
        return "\n".join(lines) + "\n", f"line {i + 1} token {j} = {tokens[j]!r}"
    if op == "drop":
        del lines[i]
        return "\n".join(lines) + "\n", f"drop line {i + 1}"
    if op == "dup":
        lines.insert(i, lines[i])
        return "\n".join(lines) + "\n", f"repeat line {i + 1}"
    lines.insert(0, "# " + " ".join(ch.choice((*ODD_TOKENS[:8], "3", "5", "1")) for _ in range(3)))
    return "\n".join(lines) + "\n", f"header {lines[0]!r}"


def mutate_bytes(ch: Chooser, data: bytes) -> tuple[bytes, str]:
    """A damaged binary file (a SQLite store): flipped bytes, a truncated or zeroed page."""
    page = 4096
    op = ch.choice(("flip", "flip", "flip", "truncate", "zero-page", "append"))
    if op == "truncate":
        cut = ch.choice((0, 16, 100, page, len(data) // 2, len(data) - 1))
        return data[:cut], f"truncate at {cut}"
    if op == "zero-page":
        k = ch.integer(0, max(0, len(data) // page - 1))
        return data[: k * page] + bytes(page) + data[(k + 1) * page :], f"zero page {k}"
    if op == "append":
        return data + b"garbage", "trailing bytes"
    out = bytearray(data)
    count = ch.choice((1, 4, 16, 64))
    for _ in range(count):
        out[ch.integer(0, len(out) - 1)] = ch.integer(0, 255)
    return bytes(out), f"flip {count} bytes"


def mutant(ch: Chooser, seed: Seed) -> tuple[bytes, list[str]]:
    """The bytes of a mutated copy of ``seed`` and what was done to it (1 to 3 mutations)."""
    if seed.kind == "store":
        data, what = mutate_bytes(ch, seed.obj)
        return data, [what]
    if seed.kind == "input":
        text, done = seed.obj, []
        for _ in range(ch.choice((1, 1, 2, 3))):
            if ch.chance(0.1):
                data, what = mutate_text(ch, text)
                return data, [*done, what]
            text, what = mutate_lines(ch, text)
            done.append(what)
        return text.encode(), done
    if seed.kind == "config":
        obj, done = seed.obj, []
        for _ in range(ch.choice((1, 1, 2))):
            obj, what = mutate_json(ch, obj)
            done.append(what)
        return toml_dumps(obj).encode(), done
    if ch.chance(0.08):
        data, what = mutate_text(ch, dumps(seed.obj))
        return data, [what]
    obj, done = seed.obj, []
    claims = claims_of(seed.obj) if seed.kind != "instance" else ()
    for _ in range(ch.choice((1, 1, 1, 2, 2, 3))):
        obj, what = mutate_json(ch, obj, claims)
        done.append(what)
    return dumps(obj).encode(), done


# --- TOML (sweep configs) -------------------------------------------------------------------------------


def _toml_key(k: Any) -> str:
    k = str(k)
    return k if k and all(c.isascii() and (c.isalnum() or c in "_-") for c in k) else json.dumps(k)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v if x is not None) + "]"
    if isinstance(v, dict):
        pairs = (f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items() if x is not None)
        return "{" + ", ".join(pairs) + "}"
    return json.dumps(str(v))  # TOML has no null


def toml_dumps(obj: Any, prefix: str = "") -> str:
    """A TOML document of a JSON-like table (``None`` dropped, as TOML has no null)."""
    if not isinstance(obj, dict):
        return f"value = {_toml_value(obj)}\n"
    head, tail = [], []
    for k, v in obj.items():
        key = f"{prefix}{_toml_key(k)}"
        if isinstance(v, dict):
            tail.append(f"[{key}]\n" + toml_dumps(v, key + "."))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            tail += [f"[[{key}]]\n" + toml_dumps(x, key + ".") for x in v]
        elif v is not None:
            head.append(f"{_toml_key(k)} = {_toml_value(v)}\n")
    return "".join(head) + "".join(tail)


# --- command lines ---------------------------------------------------------------------------------------

STRANGE_ARGS = (
    "",
    " ",
    "-1",
    "0",
    "1",
    "2",
    "-0",
    "0.0",
    "0.5",
    "1e-300",
    "1e400",
    "-1e400",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1.5",
    "3.0",
    str(10**30),
    str(2**63),
    str(2**64),
    str(-(2**63)),
    "0x10",
    "1_0",
    "\u0661\u0662",
    "abc",
    "\u00e9",
    "--json",
    "-",
    "--",
    "a" * 300,
    "None",
    "null",
    "true",
    "10**9",
    "1000000001",
    "two\nlines",
    "x\r",
    "x\u2028y",
    "[1, 2]",
    "{}",
    "%s",
    "../",
    "/",
    ".",
)


def argv_templates(seeds: list[Seed], tmp: Path) -> list[tuple[str, list[str]]]:
    """Valid command lines of every command over the seeds, each with the family it exercises."""
    out: list[tuple[str, list[str]]] = []
    inputs = {o: str(s.path) for s in seeds if s.kind == "input" for o in s.argv if o in INPUTS}
    for name, family in FAMILIES.items():
        for options in _instance_argv(name):
            options = [inputs.get(o, INPUTS[o][0]) if o in INPUTS else o for o in options]
            out.append((name, ["generate", name, *options, "--out", str(tmp / "g.json"), "--json"]))
        for s in seeds:
            if s.family == name and s.kind == "config":
                out.append(
                    (
                        name,
                        [
                            "sweep",
                            str(s.path),
                            "--store",
                            str(tmp / "s.db"),
                            "--workers",
                            "1",
                            "--quiet",
                            "--json",
                        ],
                    )
                )
            if s.family == name and s.kind == "store":
                metric = next(iter(family.problems.values())).objective_metric
                out.append((name, ["report", str(s.path), "--json"]))
                out.append(
                    (name, ["report", str(s.path), "--metric", metric, "--csv", str(tmp / "csv"), "--json"])
                )
                if family.heuristics:
                    out.append(
                        (
                            name,
                            ["report", str(s.path), "--reference", next(iter(family.heuristics)), "--json"],
                        )
                    )
        if "coupled" == name:
            out.append(
                (
                    name,
                    [
                        "generate",
                        name,
                        "--preset",
                        "paper",
                        "--scenarios",
                        "1",
                        "--trials",
                        "1",
                        "--slots",
                        "5",
                        "--out",
                        str(tmp / "folder"),
                    ],
                )
            )
        insts = [s for s in seeds if s.family == name and s.kind == "instance"]
        for s in insts:
            for problem in family.problems.values():
                method = FAST_METHODS.get((name, problem.name), problem.default_method)
                out.append(
                    (
                        name,
                        [
                            "solve",
                            str(s.path),
                            "--problem",
                            problem.name,
                            "--method",
                            method,
                            *budget_options(name, problem.name, method),
                            "--seed",
                            "0",
                            "--out",
                            str(tmp / "r.json"),
                            "--json",
                        ],
                    )
                )
            for h in family.heuristics:
                out.append(
                    (
                        name,
                        [
                            "simulate",
                            str(s.path),
                            "--heuristic",
                            h,
                            "--seed",
                            "1",
                            *SIMULATOR_ARGS[name],
                            "--json",
                        ],
                    )
                )
            if family.heuristics:
                out.append(
                    (
                        name,
                        [
                            "evaluate",
                            str(s.path),
                            "--heuristics",
                            ",".join(family.heuristics),
                            *evaluate_options(name, s.obj),
                            "--seed",
                            "0",
                            *EVALUATE_ARGS.get(name, ()),
                            "--json",
                        ],
                    )
                )
            for r in s.results:
                out.append((name, ["verify", str(s.path), str(r), "--json"]))
    return out


def _other_paths(seeds: list[Seed], tmp: Path) -> list[str]:
    files = [str(s.path) for s in seeds]
    return [
        *files[:: max(1, len(files) // 6)],
        str(tmp),
        str(tmp / "missing.json"),
        "/dev/null",
        str(tmp / "sub" / "deeper" / "x.json"),
    ]


def mutate_argv(ch: Chooser, argv: list[str], seeds: list[Seed], tmp: Path) -> tuple[list[str], str]:
    """One mutation of a command line: an option's value, an option dropped, doubled or added."""
    argv = list(argv)
    values = [i for i, a in enumerate(argv) if i >= 2 and not a.startswith("--")]
    options = [i for i, a in enumerate(argv) if a.startswith("--")]
    op = ch.choice(("value", "value", "value", "path", "drop", "double", "add"))
    if op == "path" and values:
        i = ch.choice(values)
        argv[i] = ch.choice(_other_paths(seeds, tmp))
        return argv, f"arg {i} = {argv[i]!r}"
    if op == "drop" and options:
        i = ch.choice(options)
        takes = i + 1 < len(argv) and not argv[i + 1].startswith("--")
        del argv[i : i + 1 + takes]
        return argv, "drop option"
    if op == "double" and options:
        i = ch.choice(options)
        argv += [argv[i], ch.choice(STRANGE_ARGS)]
        return argv, f"repeat {argv[i]}"
    if op == "add":
        pool = sorted(
            {o for f in FAMILIES.values() for o in (x.cli for x in f.options().values())}
            | {
                "--problem",
                "--method",
                "--time-limit",
                "--budget",
                "--seed",
                "--samples",
                "--heuristic",
                "--preset",
                "--out",
            }
        )
        opt = ch.choice(pool)
        argv += [opt, ch.choice(STRANGE_ARGS + _known_names())]
        return argv, f"add {opt}"
    if values:
        i = ch.choice(values)
        argv[i] = ch.choice(STRANGE_ARGS + _known_names())
        return argv, f"arg {i} = {argv[i]!r}"
    return argv, "unchanged"


def _known_names() -> tuple[str, ...]:
    names = set()
    for f in FAMILIES.values():
        names |= set(f.problems) | set(f.heuristics) | set(f.generators)
        for p in f.problems.values():
            names |= set(p.methods)
    return tuple(sorted(names))


# --- the contract ---------------------------------------------------------------------------------------


#: ``TRACE(seed name, mutations)`` is called before a mutant runs (to name the one that hangs).
TRACE: Callable[[str, list[str]], None] | None = None


class FuzzTimeout(BaseException):
    """A run that exceeded its time budget (not caught by ``main``'s ``except Exception``)."""


@contextlib.contextmanager
def deadline(seconds: float | None):
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return

    def fire(signum, frame):
        raise FuzzTimeout(f"more than {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its size and modification time."""
    out = {}
    for root, dirs, files in os.walk(folder):
        out.update({str(Path(root) / d): (0, 0) for d in dirs})
        for f in files:
            p = Path(root) / f
            try:
                st = p.stat()
            except OSError:
                continue
            out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


#: Warnings Python would not print in a real run (default filters ignore these).
QUIET_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning)


@dataclass
class Outcome:
    argv: list[str]
    code: int | None
    out: str
    err: str
    defects: list[str]
    accepted: bool = False
    judged: bool = False  # an accepted verify that the oracle judged


def _subprocess(argv: list[str], cwd: Path, timeout: float | None) -> tuple[int, str, str]:
    import subprocess
    import sys

    try:
        done = subprocess.run(
            [sys.executable, "-m", "volsched", *argv],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "PYTHONPATH": ""},
        )
    except subprocess.TimeoutExpired:
        raise FuzzTimeout(f"more than {timeout} s") from None
    return done.returncode, done.stdout, done.stderr


def run_contract(
    argv: Sequence[Any],
    watch: Path,
    timeout: float | None = 60.0,
    oracle: Callable[[dict], list[str]] | None = None,
    isolated: bool = False,
) -> Outcome:
    """Run ``volsched ARGV`` and check the CLI contract; ``oracle(report)`` judges an accepted verify.

    ``isolated`` runs it as a separate process (a sweep that starts worker processes: in-process,
    they would inherit the test runner's import path).
    """
    argv = [str(a) for a in argv]
    before = snapshot(watch)
    defects: list[str] = []
    if isolated:
        try:
            code, out, err = _subprocess(argv, watch, timeout)
        except FuzzTimeout as exc:
            return Outcome(argv, None, "", "", [f"timeout: {exc}"])
        return _judge(argv, code, out, err, [], [], before, watch, oracle)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with deadline(timeout), contextlib.chdir(watch):  # relative paths land in the watched folder
                code, out, err = cli(argv)
        except FuzzTimeout as exc:
            return Outcome(argv, None, "", "", [f"timeout: {exc}"])
        except SystemExit as exc:  # argparse --help/--version only; anything else is a defect
            code, out, err = (exc.code if isinstance(exc.code, int) else 1), "", ""
            defects.append(f"SystemExit({exc.code!r}) escaped main")
    return _judge(argv, code, out, err, defects, caught, before, watch, oracle)


def _judge(argv, code, out, err, defects, caught, before, watch, oracle) -> Outcome:
    loud = [w for w in caught if not issubclass(w.category, QUIET_WARNINGS)]
    for w in loud:
        where = f"{Path(w.filename).name}:{w.lineno}"
        defects.append(f"warning printed: {w.category.__name__}: {w.message} ({where})")
    if code not in (0, 2):
        defects.append(f"exit {code}: {err.strip()[:300]}")
    if "Traceback" in err:
        defects.append("traceback on stderr")
    if code == 2:
        lines = err.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("volsched: error: "):
            defects.append(f"stderr is not one 'volsched: error:' line: {err!r:.300}")
        if out:
            defects.append(f"stdout on error: {out!r:.200}")
        after = snapshot(watch)
        changed = sorted(k for k in after if before.get(k) != after[k])
        if changed:
            defects.append(f"wrote on error: {changed[:3]}")
    accepted, judged = code == 0, False
    if accepted and "--json" in argv:
        try:
            obj = json.loads(out, parse_constant=_no_constant)
            if not isinstance(obj, dict):
                defects.append("--json output is not an object")
            elif oracle is not None:
                defects += oracle(obj)
                judged = True
        except ValueError as exc:
            defects.append(f"--json output is not one JSON object: {exc}")
    return Outcome(argv, code, out, err, defects, accepted, judged)


def _no_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


# --- one mutant, end to end -------------------------------------------------------------------------


@dataclass
class Trial:
    """What one mutant did: its kind, its mutations, and the outcome."""

    kind: str
    what: list[str]
    outcome: Outcome
    family: str = ""


def try_file_mutant(
    ch: Chooser, seeds: list[Seed], work: Path, kind: str | None = None, timeout: float | None = 60.0
) -> Trial:
    """Mutate an instance or a result file and run the command that reads it."""
    pool = [s for s in seeds if kind is None or s.kind == kind or (kind == "result" and s.kind == "solution")]
    seed = ch.choice(pool)
    data, what = mutant(ch, seed)
    path = work / ("mutant-" + seed.path.name)
    path.write_bytes(data)
    if TRACE is not None:
        TRACE(seed.path.name, what)
    family = FAMILIES[seed.family]
    flag = ["--json"] if ch.chance(0.85) else []
    if seed.kind == "input":
        argv = [str(path) if a in INPUTS else a for a in seed.argv]
        argv += ["--out", work / "out" / "g.json", *flag]
        outcome = run_contract(argv, work, timeout)
    elif seed.kind == "store":
        if ch.chance(0.75):
            argv = ["report", path, *flag]
        else:  # resume the seed's own sweep on the damaged store
            argv = ["sweep", seed.instance, "--store", path, "--workers", 1, "--quiet", *flag]
        outcome = run_contract(argv, work, timeout)
    elif seed.kind == "config":
        argv = ["sweep", path, "--store", work / "s.db", "--workers", 1, "--quiet", *flag]
        size = sweep_size(path, timeout)
        long_run = size is not None and (
            size[0] > MAX_SWEEP_RUN or size[1] > MAX_SWEEP_GROWTH * _seed_sweep_bytes(str(seed.path))
        )
        if long_run:  # valid, and a long run (many or large instances): its reading is what is tested
            outcome = Outcome([str(a) for a in argv], 0, "", "", [], accepted=True)
        else:
            outcome = run_contract(argv, work, timeout)
            if outcome.code == 0:
                outcome.defects += refused_values_stored(path, work / "s.db")
    elif seed.kind == "instance":
        commands = [("solve", p.name) for p in family.problems.values()]
        commands += [("verify", r) for r in seed.results]
        commands += [("simulate", h) for h in family.heuristics]
        if family.heuristics:
            commands.append(("evaluate",))
        cmd = ch.choice(commands)
        if cmd[0] == "solve":
            method = FAST_METHODS.get((seed.family, cmd[1]), family.problems[cmd[1]].default_method)
            argv = [
                "solve",
                path,
                "--problem",
                cmd[1],
                "--method",
                method,
                *budget_options(seed.family, cmd[1], method),
                "--out",
                work / "out" / "r.json",
                *flag,
            ]
        elif cmd[0] == "verify":
            argv = ["verify", path, cmd[1], *flag]
        elif cmd[0] == "simulate":
            argv = ["simulate", path, "--heuristic", cmd[1], *SIMULATOR_ARGS[seed.family], *flag]
        else:
            # the budget of the methods the seed's own instance chooses: the mutant may not load
            argv = [
                "evaluate",
                path,
                *evaluate_options(seed.family, seed.obj),
                *EVALUATE_ARGS.get(seed.family, ()),
                *flag,
            ]
        outcome = run_contract(
            argv,
            work,
            timeout,
            oracle=(lambda rep: check_accepted(path, cmd[1], rep)) if cmd[0] == "verify" else None,
        )
    else:
        argv = ["verify", seed.instance, path, *flag]
        outcome = run_contract(
            argv, work, timeout, oracle=lambda rep: check_accepted(seed.instance, path, rep)
        )
        if outcome.accepted and not flag:  # the text form: judge the same file through --json
            again = run_contract(
                [*argv, "--json"], work, timeout, oracle=lambda rep: check_accepted(seed.instance, path, rep)
            )
            outcome.defects += again.defects
            outcome.judged = again.judged
    return Trial(seed.kind, [seed.path.name, *what], outcome, seed.family)


#: A mutated sweep with more instances than this is only read and validated, not run.
MAX_SWEEP_RUN = 8
#: A valid mutant sweep whose largest instance (JSON bytes) is this many times its seed's is only
#: read: a dropped grid key falls back to the generator's paper-scale default (slack: 3,000 jobs,
#: each exact task then runs to the config's safety net), which tests the reading, not the contract.
MAX_SWEEP_GROWTH = 20


@functools.cache
def _seed_sweep_bytes(path: str) -> int:
    return sweep_size(Path(path), None)[1]


def sweep_size(path: Path, timeout: float | None) -> tuple[int, int] | None:
    """``(instances, largest star-point instance in JSON bytes)`` of a sweep config that validates.

    ``None`` if it does not validate. Instance files count by their own size.
    """
    from volsched.experiments.config import read_config
    from volsched.families.base import Family

    built: list[int] = []
    real = Family.generate_from

    def measured(self, params):
        """The instances the config's own checks build (one per grid value), measured as they go."""
        inst = real(self, params)
        built.append(len(json.dumps(inst.to_json())))
        return inst

    try:
        Family.generate_from = measured
        with deadline(timeout):
            sweeps = read_config(path)
    except Exception:
        return None
    finally:
        Family.generate_from = real
    count = sum(math.prod(len(v) for v in s.grid.values()) * len(s.seeds) for s in sweeps)
    files = [len(f.text) for s in sweeps for f in s.files]
    return count, max([0, *built, *files])


def refused_values_stored(config: Path, store: Path) -> list[str]:
    """Rows of an accepted sweep whose instance its generator refused although the config checks met it.

    The checks build one instance per grid value (``star_points``, first seed): such a point
    failing with ``InputError`` at run time is a value the checks let through.
    """
    from volsched.experiments.config import read_config, star_points
    from volsched.experiments.store import Store

    checked = [
        {**point, "seed": sweep.seeds[0]}
        for sweep in read_config(config)
        for _, _, point in star_points(sweep.grid)
    ]
    with Store(store, create=False) as st:
        rows = st.rows()
    return [
        f"grid value refused only at run time, stored as an error row: {r['params']}: {r['error']}"
        for r in rows
        if r["status"] == "error" and str(r["error"]).startswith("InputError") and r["params"] in checked
    ]


def try_argv_mutant(ch: Chooser, seeds: list[Seed], work: Path, timeout: float | None = 60.0) -> Trial:
    """Mutate a valid command line (1 to 2 mutations) and run it."""
    templates = argv_templates(seeds, work)
    family, argv = ch.choice(templates)
    done = []
    for _ in range(ch.choice((1, 1, 2))):
        argv, what = mutate_argv(ch, argv, seeds, work)
        done.append(what)
    oracle = None
    if argv and argv[0] == "verify" and len(argv) >= 3:
        inst, res = argv[1], argv[2]
        oracle = lambda rep: check_accepted(Path(inst), Path(res), rep, beta_of_argv(argv))  # noqa: E731
    workers = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--workers"]
    isolated = bool(argv) and argv[0] == "sweep" and (not workers or workers[-1] != "1")
    outcome = run_contract(argv, work, timeout, oracle=oracle, isolated=isolated)
    return Trial("argv", [" ".join(argv)[:200], *done], outcome, family)


# --- the campaign --------------------------------------------------------------------------------------

#: Share of each kind of mutant in a campaign.
CAMPAIGN_MIX = (("instance", 25), ("result", 25), ("argv", 20), ("config", 10), ("input", 10), ("store", 10))


@dataclass
class Tally:
    tried: int = 0
    accepted: int = 0
    rejected: int = 0
    judged: int = 0
    defects: int = 0


def run_campaign(
    mutants: int,
    seed: int,
    folder: Path,
    timeout: float | None = 60.0,
    progress: Callable[[int, dict], None] | None = None,
) -> dict:
    """``mutants`` mutants drawn with ``random.Random(seed)``: counts per (family, kind) and every defect.

    Returns ``{"tally": {(family, kind): Tally}, "defects": [(kind, mutations, argv, exit, defects)],
    "seeds": n}``. Each mutant runs in a fresh folder under ``folder``, removed afterwards.
    """
    import random
    import shutil

    rnd = random.Random(seed)
    seeds = make_seeds(folder / "seeds")
    kinds = [
        k
        for k, w in CAMPAIGN_MIX
        for _ in range(w)
        if k == "argv" or any(s.kind == k or (k == "result" and s.kind == "solution") for s in seeds)
    ]
    tally: dict[tuple[str, str], Tally] = {}
    found = []
    for i in range(mutants):
        work = folder / f"m{i}"
        work.mkdir()
        ch = RandomChooser(rnd)
        kind = ch.choice(kinds)
        trial = (
            try_argv_mutant(ch, seeds, work, timeout)
            if kind == "argv"
            else try_file_mutant(ch, seeds, work, kind=kind, timeout=timeout)
        )
        shutil.rmtree(work, ignore_errors=True)
        t = tally.setdefault((trial.family, kind), Tally())
        o = trial.outcome
        t.tried += 1
        t.accepted += o.code == 0 and not o.defects
        t.rejected += o.code == 2 and not o.defects
        t.judged += o.judged and not o.defects
        if o.defects:
            t.defects += 1
            found.append((kind, trial.what, o.argv, o.code, o.defects))
        if progress is not None:
            progress(i + 1, tally)
    return {"tally": tally, "defects": found, "seeds": len(seeds)}
