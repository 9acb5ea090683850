"""volsched: exact off-line optima for scheduling on volatile resources, and heuristics scored against them.

``volsched list [FAMILY]`` shows each family's problems, exact methods, heuristics, presets and
generators. A heuristic is a built-in name (in any case) or a policy class of your own, named by
import path: ``--heuristic mine.py:MyPolicy`` or ``--heuristic mypkg.mymod:MyPolicy``.

Exit codes: 0 success, 2 bad input (one line ``volsched: error: ...`` on
stderr, nothing written), 1 internal error. With ``--json`` every command
prints exactly one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import sqlite3
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

from volsched import __version__
from volsched.instances.errors import InputError, VolschedWarning, check_int, require
from volsched.instances.io import file_kind, read_json, write_json

from .families import FAMILIES, check_fields, exports, family_of, run_option_owners, run_options, with_fields

#: Most Monte-Carlo samples ``simulate --samples`` draws (a few arrays of this many floats are held at once).
MAX_SAMPLES = 10_000_000


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line and exit 2, through main()
        raise InputError(message)


class _Formatter(argparse.HelpFormatter):
    """Fills a one-paragraph text to the terminal's width, and keeps a text of several lines as written
    (the families' choices after a command's options are a table)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def _jsonable(obj: Any) -> Any:
    """Replace non-finite floats (not valid JSON) by ``None``."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def emit(args: argparse.Namespace, obj: dict, text: str) -> None:
    """Print ``obj`` as one JSON object with ``--json``, else the human-readable ``text``."""
    if args.json:
        print(json.dumps(_jsonable(obj), allow_nan=False))
    else:
        print(text)


def _load(path: str):
    obj = read_json(path)
    try:
        family = family_of(obj)
        return family, family.load(obj)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


#: Deprecation lines of the running command, printed on stderr once it has run (a command that fails on
#: bad input prints its one error line only).
_WARNINGS: list[str] = []


def deprecated(old: str, new: str) -> None:
    """``old`` still works for one release; ``new`` is its spelling now (one line on stderr)."""
    _WARNINGS.append(f"volsched: warning: {old} is deprecated and will be removed; use {new}")


def _folder(args: argparse.Namespace, option: str = "--dir") -> str | None:
    """The folder a command writes: ``--dir``, or the deprecated ``--out`` spelling of it (one warning)."""
    if args.out is not None:
        require(args.dir is None, "--out", f"give the folder once, with {option}")
        deprecated("--out FOLDER here", f"{option} FOLDER (--out always names a file)")
        return args.out
    return args.dir


def _is(test, path: str, option: str = "--out", verb: str = "write") -> bool:
    """``Path(path).is_dir()`` or ``.is_file()``; a path the system refuses (too long...) is bad input."""
    try:
        return test(Path(path))
    except OSError as exc:
        raise InputError(f"{option}: {path}: cannot {verb} ({exc.strerror or exc})") from None


def _writable(path: str | None) -> None:
    if path is not None:
        require(not _is(Path.is_dir, path), "--out", f"{path} is a directory")


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.6g}"


# The commands import the modules only they use (verify, evaluate, hunt, list, compile, demo, the sweep
# engine and the report) inside their functions: `volsched --help` and every other command start
# without paying for them (start-up, README "Set up").
def cmd_generate(args: argparse.Namespace) -> int:
    made = FAMILIES[args.family].generate_args(args)
    if isinstance(made, list):
        folder = _folder(args) if args.out is None or not _is(Path.is_file, args.out) else args.out
        require(folder is not None, "--dir", "this preset makes many instances: give a folder")
        require(
            not _is(Path.is_file, folder, "--dir"), "--dir", f"{folder} is a file; this preset needs a folder"
        )
        for instance in made:
            write_json(Path(folder) / f"{instance.name}.json", instance.to_json())
        emit(
            args,
            {"family": args.family, "out": folder, "instances": len(made)},
            f"wrote {len(made)} instances to {Path(folder)}/",
        )
        return 0
    if args.dir is not None:
        require(args.out is None, "--dir", "give either --out FILE or --dir FOLDER")
        require(not _is(Path.is_file, args.dir, "--dir"), "--dir", f"{args.dir} is a file, not a folder")
        args.out = str(Path(args.dir) / f"{made.name}.json")
    _writable(args.out)
    obj = made.to_json()
    if args.out:
        write_json(args.out, obj)
    emit(
        args,
        {"instance": made.name, "family": args.family, "out": args.out, "params": obj["params"]}
        if args.out
        else obj,
        f"wrote {args.out} ({made.name})" if args.out else json.dumps(obj, indent=1),
    )
    return 0


def _setup(args: argparse.Namespace, family, instance, problem: str | None = None):
    """The family's run options of this command applied (``--beta``...); see :meth:`Family.setup`."""
    values = {name: getattr(args, _RUN + name) for name in run_options(args.command)}
    return family.setup(args.command, instance, values, problem)


def cmd_solve(args: argparse.Namespace) -> int:
    _writable(args.out)
    family, instance = _load(args.instance)
    setup = _setup(args, family, instance, args.problem)
    result = family.solve(
        setup.instance,
        problem=setup.problem,
        method=args.method,
        time_limit=args.time_limit,
        seed=args.seed,
        budget=args.budget,
    )
    obj = result.to_dict()
    if args.out:
        write_json(args.out, obj)
    emit(
        args,
        obj,
        f"{result.instance}: {result.status.value} objective {_fmt(result.objective)} "
        f"(bound {_fmt(result.bound)}, gap {_fmt(result.gap)}) by {result.method} "
        f"in {result.runtime_s:.3f} s, verified={result.verified}"
        f"{'' if result.stopped is None else f', stopped by the {result.stopped}'}\n"
        f"solution: {_brief(result.solution)}",
    )
    return 0


#: Longest solution the text output prints whole; a schedule of thousands of entries is for --json / --out.
BRIEF_CHARS = 400


def _brief(solution: Any) -> str:
    text = json.dumps(solution)
    if len(text) <= BRIEF_CHARS:
        return text
    return f"{len(text):,} characters of JSON, not shown (--json or --out FILE gives it whole)"


def cmd_verify(args: argparse.Namespace) -> int:
    family, instance = _load(args.instance)
    from .verify import verify_result

    instance = _setup(args, family, instance).instance
    obj = read_json(args.solution)
    try:
        report = verify_result(family, instance, obj)
    except InputError as exc:
        raise InputError(f"{args.solution}: {exc}") from None
    value = report["objective"]
    exact = value if isinstance(value, int) else _fmt(value)  # an integer problem's value, every digit
    head = (
        f"feasible; {family.problems[report['problem']].objective_metric} {exact}"
        if value is not None
        else f"{report['status'] or 'no solution'}; its witness holds"
    )
    head += "".join(f" at {name} {report[name]!r}" for name in run_options("verify") if name in report)
    emit(
        args,
        {"instance": instance.name, "feasible": value is not None, **report},
        f"{head} (checked: {', '.join(report['checked']) or 'nothing'}"
        + (f"; not checked: {'; '.join(report['unchecked'])})" if report["unchecked"] else ")"),
    )
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    family, instance = _load(args.instance)
    setup = _setup(args, family, instance)
    instance = setup.instance
    heuristic = family.heuristic(args.heuristic)
    simulator = setup.simulator(heuristic.simulator)
    if args.samples is not None:
        check_fields(simulator, ["samples"], family.name)
        simulator = with_fields(
            simulator, {"samples": check_int(args.samples, "--samples", 2, MAX_SAMPLES)}, family.name
        )
    simulator = _with_cap(family, simulator, args.cap)
    _writable(args.out)
    out = family.simulate(instance, heuristic, seed=args.seed, simulator=simulator)
    metrics = ", ".join(f"{k} {_fmt(v)}" for k, v in out["metrics"].items())
    # The metrics and the solution's parts at the top level too ({"heuristic", "makespan",
    # "failed", "iterations", "schedule"}); `verify` checks them against the solution.
    result = {
        "family": family.name,
        "instance": instance.name,
        **out,
        **out["metrics"],
        **{k: v for k, v in out["solution"].items() if k != "problem"},
    }
    if args.out:
        write_json(args.out, result)
    emit(args, result, f"{instance.name}: {heuristic.name} ({out['problem']}, seed {args.seed}): {metrics}")
    return 0


def _with_cap(family, simulator, cap):
    """``simulator`` with ``--cap`` (the coupled runs' length), or unchanged without one."""
    return simulator if cap is None else with_fields(simulator, {"cap": cap}, family.name)


#: The fields of an evaluated policy that the text table shows in its own columns, or not at all.
_EVALUATE_FIELDS = {"problem", "value", "ratio", "ratio_lo", "ratio_hi", "metrics", "solution"}


def cmd_evaluate(args: argparse.Namespace) -> int:
    from .evaluate import evaluate

    family, instance = _load(args.instance)
    setup = _setup(args, family, instance)
    instance = setup.instance
    names = [(n, "--heuristic") for n in args.heuristic or []]
    if args.heuristics is not None:
        deprecated("--heuristics A,B", "--heuristic A --heuristic B")
        names += [(n.strip(), "--heuristics") for n in args.heuristics.split(",")]
    chosen = [family.heuristic(n, where) for n, where in names] if names else None
    simulators = {
        h.name: _with_cap(family, setup.simulator(h.simulator), args.cap)
        for h in (chosen or family.heuristics.values())
    }
    report = evaluate(
        family,
        instance,
        chosen,
        method=args.method,
        time_limit=args.time_limit,
        seed=args.seed,
        simulators=simulators,
        budget=args.budget,
    )
    if report["optimum"] is not None:
        head = f"optimum {_fmt(report['optimum'])}"
    else:
        bound = report.get("lower_bound", report.get("upper_bound"))
        head = f"optimum unproven: bound {_fmt(bound)}, best known {_fmt(report['best_known'])}"
    policies = report["policies"]
    width = max([len("policy"), *map(len, policies)])
    # The runs' other numeric metrics and diagnoses (prescient: waste, laggers and their causes).
    # evaluate puts every metric and diagnosis at the policy's top level, so its keys are all there.
    extra = [
        k
        for k in dict.fromkeys(k for p in policies.values() for k in p)
        if k not in _EVALUATE_FIELDS
        and k != family.problems[report["problem"]].objective_metric
        and any(
            isinstance(p.get(k), int | float) and not isinstance(p.get(k), bool) for p in policies.values()
        )
    ]
    lines = [
        f"{report['instance']}: {head} ({report['problem']}, {report['method']})",
        f"{'policy':<{width}} {'value':>12} {'ratio':>8} {'interval':>20}"
        + "".join(f" {k:>{max(8, len(k))}}" for k in extra),
    ]
    lines += [
        f"{name:<{width}} {_fmt(p['value']):>12} {_fmt(p['ratio']):>8} "
        f"{'[' + _fmt(p['ratio_lo']) + ', ' + _fmt(p['ratio_hi']) + ']':>20}"
        + "".join(f" {_fmt(p.get(k)):>{max(8, len(k))}}" for k in extra)
        for name, p in policies.items()
    ]
    lines += [f"skipped {name}: {why}" for name, why in report["skipped"].items()]
    emit(args, report, "\n".join(lines))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    family, instance = _load(args.instance)
    require(
        args.format in family.extras.exports,
        "FORMAT",
        f"the {family.name} family exports {sorted(family.extras.exports) or 'nothing'}, not {args.format!r}",
    )
    folder = _folder(args)
    require(folder is not None, "--dir", "export writes a folder: give --dir FOLDER")
    require(not _is(Path.is_file, folder, "--dir"), "--dir", f"{folder} is a file; export writes a folder")
    paths = family.extras.exports[args.format](instance, Path(folder))
    emit(
        args,
        {
            "family": family.name,
            "instance": instance.name,
            "format": args.format,
            "out": folder,
            "files": [str(p) for p in paths],
        },
        f"wrote {len(paths)} files to {Path(folder)}/ ({args.format})",
    )
    return 0


def _cmd_hunt(args: argparse.Namespace) -> int:
    from .hunt import hunt, parse_bounds

    # checked before the hunt runs: a report needs the archive and a sample
    require(not args.report or args.out is not None, "--report", "needs --out DIR, the archive it reports on")
    require(
        not args.report or 1 <= args.report_samples <= 10_000,
        "--report-samples",
        f"must be in [1, 10000], got {args.report_samples}",
    )
    summary = hunt(
        args.family,
        heuristic=args.heuristic,
        objective=args.objective,
        budget=args.budget,
        seed=args.seed,
        bounds=parse_bounds(args.bound),
        out=args.out,
        time_limit=args.time_limit,
        solve_budget=args.solve_budget,
        method=args.method,
        problem=args.problem,
        strategy=args.strategy,
        keep=args.keep,
        workers=args.workers,
        dask_scheduler=args.dask_scheduler,
        batch=args.batch,
    )
    if args.report:
        from .hunt.report import write_report

        summary["report"] = write_report(args.out, args.report_samples)
    key = "ratio" if args.objective == "ratio" else "work"
    emit(
        args,
        summary,
        f"{args.family} {args.heuristic or args.method or 'exact'}: "
        f"best {key} {_fmt(summary[f'best_{key}'])} "
        f"(random worst {_fmt(summary[f'random_worst_{key}'])}) in {summary['candidates']} candidates, "
        f"{summary['elapsed_s']:.1f} s; worst instance {summary['instance']}",
    )
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from .listing import listing, to_text

    listed = listing(args.family)
    emit(args, listed, to_text(listed))
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    from .compile import compile_all

    summary = compile_all(quiet=args.json)
    emit(
        args,
        summary,
        f"compiled or loaded the kernels of {summary['steps']} methods and heuristics "
        f"in {summary['elapsed_s']:.1f} s",
    )
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    folder = _folder(args) or "volsched-demo"
    summary = run_demo(Path(folder), full=args.full, quiet=args.json, seed=args.seed)
    emit(args, summary, summary["text"])
    return 0


@contextlib.contextmanager
def _damaged_store(path: str):
    """SQLite's errors on a damaged store file (a malformed page, text that is not UTF-8) are bad input.

    A file of another kind (an instance, a TOML sweep file, an image) is named with the command that
    reads it. ``path`` is one path, or several joined by ``", "``.
    """

    def other_kind() -> None:
        for one in [path] if _is(Path.exists, path, "STORE", "open") else path.split(", "):
            kind = file_kind(one)
            if kind is not None and not kind.what.startswith("an SQLite"):
                raise kind.error(one, "a results store") from None

    try:
        yield
    except InputError:
        other_kind()
        raise
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        other_kind()
        raise InputError(f"{path}: not a readable volsched store ({exc})") from None


def cmd_sweep(args: argparse.Namespace) -> int:
    from .experiments.config import parse_config, read_config
    from .experiments.presets import preset
    from .experiments.runner import run_sweep

    require(
        (args.config is None) != (args.preset is None), "sweep", "give either a CONFIG file or --preset NAME"
    )
    sweeps = (
        read_config(args.config)
        if args.config
        else parse_config({"sweep": preset(args.preset)}, f"preset {args.preset}")
    )
    with _damaged_store(args.store):
        summary = run_sweep(
            sweeps,
            args.store,
            workers=args.workers,
            dask_scheduler=args.dask_scheduler,
            quiet=args.quiet or args.json,
        )
    emit(
        args,
        summary,
        f"{summary['store']}: {summary['done']}/{summary['tasks']} tasks done "
        f"({summary['new']} new, {summary['skipped']} already stored, {summary['failed']} failed), "
        f"{summary['pending']} pending, {summary['elapsed_s']:.1f} s"
        + ("; interrupted: run the same command again to resume" if summary["interrupted"] else ""),
    )
    return 130 if summary["interrupted"] else 0


def cmd_report(args: argparse.Namespace) -> int:
    from .experiments.figures import check_plot_args, write_plots
    from .experiments.report import build_report, table_columns, write_csv
    from .experiments.runs import check_runs_path, write_runs
    from .experiments.store import Store

    require(args.param is None or args.plot, "--param", "needs --plot DIR (it names the plot's x axis)")
    columns = table_columns(args.columns)
    if args.runs is not None:
        check_runs_path(args.runs)
    for option, folder in (("--csv", args.csv), ("--plot", args.plot)):
        for path in (Path(folder), *Path(folder).parents) if folder is not None else ():
            if _is(Path.exists, path, option):  # the deepest existing part must be a folder
                require(_is(Path.is_dir, path, option), option, f"{path} is a file, not a folder")
                break
    stores = ", ".join(args.store)
    with _damaged_store(stores), Store.open(args.store, sweep=args.sweep) as store:
        built = build_report(store, reference=args.reference, metric=args.metric, columns=columns)
        summary, rows = built["summary"], store.rows()
        if args.plot:
            check_plot_args(rows, args.param, args.reference)
        written = []
        try:
            if args.csv:
                written += [str(p) for p in write_csv(summary, Path(args.csv))]
            if args.runs:
                written.append(str(write_runs(store, args.runs)))
            if args.plot:
                written += [
                    str(p)
                    for p in write_plots(store, Path(args.plot), param=args.param, reference=args.reference)
                ]
                for name in built["papers"]:
                    written += [
                        str(p)
                        for p in FAMILIES[name].extras.plots(
                            [r for r in rows if r["family"] == name], Path(args.plot), args.reference
                        )
                    ]
        except OSError as exc:  # a folder that cannot be created or written (permissions, a file in the way)
            raise InputError(
                f"{exc.filename or args.csv or args.plot}: cannot write ({exc.strerror or exc})"
            ) from None
    summary["papers"] = built["papers"]
    text = built["markdown"]
    text += "\n\nwrote " + ", ".join(written) if written else ""
    emit(args, {**summary, "written": written}, text)
    return 0


#: Prefix of the run options' argparse destinations, apart from the shared options' (``--seed``...).
_RUN = "run_"
_BUDGET_HELP = (
    "deterministic work budget of the exact method, in its own unit (CP-SAT methods: "
    "deterministic time; bnb: nodes; full greedy: compiled greedy calls; others run to the "
    "end): the same result on every machine"
)
_TIME_LIMIT_HELP = "wall-clock safety net in seconds; a result it cuts is marked stopped by the wall clock"


def _add_run_options(parser: argparse.ArgumentParser, command: str, light: bool = False) -> None:
    """The families' own options of ``command`` (one argument per name; :meth:`Family.setup` checks them)."""
    for name, o in ({} if light else run_options(command)).items():
        text = f"{o.help} [{', '.join(run_option_owners(name))}]"
        if o.flag:
            parser.add_argument(
                o.cli, dest=_RUN + name, action="store_const", const=True, default=None, help=text
            )
        else:
            parser.add_argument(o.cli, dest=_RUN + name, type=o.cli_type, default=None, help=text)


def build_parser(given: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``volsched`` parser, complete for the command that ``given`` (the arguments) names.

    The families' own parts load only where the command needs them: a family's generator options
    under ``generate FAMILY``, the light run-option declarations under the commands that take them,
    the export formats under ``export``. ``volsched --help`` loads no family. ``None``: every part.

    A command's help (``given`` holds ``--help``) ends with the families' choices it takes
    (:func:`volsched.listing.help_text`): those of the family named after the command
    (``volsched evaluate coupled --help``), else of every family.
    """
    words = None if given is None else [a for a in given if not a.startswith("-")]
    helping = given is not None and any(a in ("-h", "--help") for a in given)
    named = next((w for w in (words or [])[1:] if w in FAMILIES), None)

    def wants(command: str) -> bool:
        return words is None or (bool(words) and words[0] == command)

    def generates(family: str) -> bool:
        return words is None or words[:2] == ["generate", family]

    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON object on stdout")

    parser = _Parser(
        prog="volsched",
        description=__doc__.split("\n\nExit codes")[0],
        epilog="`volsched COMMAND --help` lists the choices of every family (methods, heuristics, "
        "presets...);\n`volsched COMMAND FAMILY --help` those of one family.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"volsched {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gen = sub.add_parser("generate", help="generate a seeded instance")
    fam = gen.add_subparsers(dest="family", required=True, metavar="FAMILY")
    for name in FAMILIES:
        p = fam.add_parser(
            name,
            parents=[common],
            help=f"a {name} instance",
            description=f"Generate a seeded {name} instance (or, with a preset that makes "
            f"many, a folder of them). `volsched list {name}` lists the generators.",
        )
        if generates(name):
            FAMILIES[name].add_generate_arguments(p)
        p.add_argument("--out", help="write the instance to this file (default: print it)")
        p.add_argument("--dir", help="write the instance(s) into this folder, one NAME.json each")
    gen.set_defaults(func=cmd_generate)

    p = sub.add_parser("solve", parents=[common], help="solve an instance exactly")
    p.add_argument("instance")
    p.add_argument("--problem", help="exact problem (default: the family's first)")
    p.add_argument("--method", help="exact method (default: the problem's first, its fastest)")
    p.add_argument("--budget", type=float, help=_BUDGET_HELP)
    p.add_argument("--time-limit", type=float, help=_TIME_LIMIT_HELP)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="also write the result object here")
    _add_run_options(p, "solve", light=not wants("solve"))
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("simulate", parents=[common], help="run one heuristic on an instance")
    p.add_argument("instance")
    p.add_argument("--heuristic", required=True, help=_HEURISTIC_HELP)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--samples",
        type=int,
        help="Monte-Carlo samples, for simulators that sample (checkpoint: default 100000)",
    )
    p.add_argument(
        "--cap",
        type=int,
        help="slots before a run fails (coupled: default 10^6, the paper's "
        "cap, or the stored horizon of an instance without chains)",
    )
    p.add_argument("--out", help="also write the run (a result that `volsched verify` checks) here")
    _add_run_options(p, "simulate", light=not wants("simulate"))
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "evaluate", parents=[common], help="score heuristics against the optimum on the same instance"
    )
    p.add_argument("instance")
    p.add_argument(
        "--heuristic",
        action="append",
        metavar="HEURISTIC",
        help="a heuristic to score; repeat for several (default: every built-in one). " + _HEURISTIC_HELP,
    )
    p.add_argument(
        "--heuristics", metavar="A,B", help="deprecated: comma-separated names; use --heuristic, repeated"
    )
    p.add_argument("--method", help="exact method of each problem involved (default: each one's first)")
    p.add_argument("--budget", type=float, help=_BUDGET_HELP)
    p.add_argument("--time-limit", type=float, help=_TIME_LIMIT_HELP)
    p.add_argument("--seed", type=int, default=0, help="seed of the policies' RNG (default 0)")
    p.add_argument("--cap", type=int, help="slots before a coupled run fails (default: see simulate)")
    _add_run_options(p, "evaluate", light=not wants("evaluate"))
    p.set_defaults(func=cmd_evaluate)

    formats = (
        "see export --help"
        if not wants("export")
        else "; ".join(f"{k}: {', '.join(v)}" for k, v in exports().items()) or "none yet"
    )
    p = sub.add_parser("export", parents=[common], help=f"write an instance for another tool ({formats})")
    p.add_argument("format", metavar="FORMAT", help="e.g. simgrid (a platform and its profiles)")
    p.add_argument("instance")
    p.add_argument("--dir", help="the folder to write (created if missing)")
    p.add_argument("--out", help="deprecated spelling of --dir")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("verify", parents=[common], help="check a solution against an instance")
    p.add_argument("instance")
    p.add_argument("solution", help="a solve result or a solution object")
    _add_run_options(p, "verify", light=not wants("verify"))
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("sweep", parents=[common], help="run a resumable sweep of (instance, method) tasks")
    p.add_argument("config", nargs="?", help="a TOML sweep file")
    p.add_argument("--preset", help="a named sweep instead of a file (e.g. smoke)")
    p.add_argument("--store", required=True, help="SQLite results store (created if missing)")
    p.add_argument("--workers", type=int, default=-1, help="local worker processes (default: all cores)")
    p.add_argument("--dask-scheduler", metavar="ADDRESS", help="run on a Dask cluster, e.g. tcp://host:8786")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("report", parents=[common], help="tables and plots of a results store")
    p.add_argument(
        "store",
        nargs="+",
        help="one store, or several (from several machines) to combine; "
        "a task in several must have the same rows",
    )
    p.add_argument(
        "--sweep", metavar="NAME", help="only this sweep of the store(s) (the first line lists them)"
    )
    p.add_argument(
        "--columns",
        help="the heuristic table's columns: all, or comma-separated names "
        "(default: the ones that fit 120 characters)",
    )
    p.add_argument(
        "--runs", metavar="FILE", help="also write one row per run here (.csv, or .parquet with pyarrow)"
    )
    p.add_argument("--csv", metavar="DIR", help="also write CSV tables here")
    p.add_argument(
        "--plot",
        metavar="DIR",
        help="also write PNG figures here, one per family: ratios-FAMILY.png (proven ratios apart from "
        "the ratio intervals of unproven runs); with --param, ratio_vs_PARAM-FAMILY.png and "
        "pct_diff_vs_PARAM-FAMILY.png; and the papers' figures (casanova2013-*, canon2011-*)",
    )
    p.add_argument(
        "--reference",
        help="reference heuristic of %%diff for the problem it is scored against "
        "(default: the paper's: IE, FCFS, daly, gaps)",
    )
    p.add_argument(
        "--metric",
        help="a declared metric of the problems (default: each one's objective); "
        "the ratio to the optimum exists for the objective only",
    )
    p.add_argument("--param", help="generator parameter for the metric-vs-parameter plot")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "hunt",
        parents=[common],
        help="search for instances where a heuristic is worst, or the solver works hardest",
    )
    p.add_argument("family", metavar="FAMILY", help="checkpoint, coupled, prescient or slack")
    p.add_argument("--heuristic", help="the heuristic whose ratio to the optimum is maximised")
    p.add_argument(
        "--objective",
        default="ratio",
        help="ratio (default): the ratio's proven lower end; work: the exact method's "
        "deterministic work to proof",
    )
    p.add_argument("--budget", type=int, default=200, help="candidates evaluated (default 200)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="archive folder: the best instances, their optima and runs")
    p.add_argument(
        "--bound",
        action="append",
        metavar="NAME=VALUE",
        help="a size or value bound of the search (repeat; e.g. machines=3, jobs=7, p_max=20)",
    )
    p.add_argument("--time-limit", type=float, help="wall-clock safety net of the whole hunt, in seconds")
    p.add_argument("--solve-budget", type=float, help="each exact solve's work budget (" + _BUDGET_HELP + ")")
    p.add_argument("--method", help="exact method (default: the problem's)")
    p.add_argument("--problem", help="exact problem of a work hunt (default: the family's first)")
    p.add_argument(
        "--strategy",
        default="hunt",
        help="hunt (default), random or blackbox (SciPy's differential evolution): the baselines",
    )
    p.add_argument("--keep", type=int, default=5, help="instances archived (default 5)")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="local worker processes scoring each batch of candidates (default 1: this process; -1: all "
        "cores); the hunt is the same on any number",
    )
    p.add_argument(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="score the candidates on a Dask cluster, e.g. tcp://host:8786",
    )
    p.add_argument(
        "--batch",
        type=int,
        default=16,
        help="candidates bred and scored together (default 16; more keeps more workers busy)",
    )
    p.add_argument(
        "--report",
        action="store_true",
        help="with --out: also write DIR/report.md and report.json (the worst ratio against random "
        "instances of the same size, the search's progress, the worst instance drawn)",
    )
    p.add_argument(
        "--report-samples",
        type=int,
        default=20,
        help="random instances the report scores (default 20)",
    )
    p.set_defaults(func=_cmd_hunt)

    p = sub.add_parser(
        "compile",
        parents=[common],
        help="compile every numba kernel ahead of time (CI images, cluster workers)",
    )
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("demo", parents=[common], help="end-to-end demonstration")
    p.add_argument("--dir", help="output folder (default ./volsched-demo)")
    p.add_argument("--out", help="deprecated spelling of --dir")
    p.add_argument(
        "--full",
        action="store_true",
        help="reproduce the checkpoint paper's Figures 1-3 at full size (hours on 2 cores)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bag-of-tasks runs (default 0)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "list",
        parents=[common],
        help="what each family offers: problems, methods, heuristics, presets, generators",
    )
    p.add_argument(
        "family",
        nargs="?",
        metavar="FAMILY",
        choices=list(FAMILIES),
        help=f"one family ({', '.join(FAMILIES)}; default: all)",
    )
    p.set_defaults(func=cmd_list)

    helps = {a.dest: a.help for a in sub._choices_actions}  # noqa: SLF001 - argparse keeps sub-command helps only here
    for name, command in sub.choices.items():
        if command.description is None:
            text = _DESCRIPTIONS.get(name) or (helps.get(name) or name).capitalize() + "."
            command.description = text
    if helping and words and words[0] in sub.choices:
        from .listing import help_text

        command = sub.choices[words[0]]
        if words[0] == "generate" and named is not None:  # argparse shows `generate FAMILY`'s own help
            command = fam.choices[named]
        command.epilog = help_text(words[0], named)
        command.formatter_class = _Formatter
    return parser


_HEURISTIC_HELP = (
    "A built-in name, in any case (`volsched list FAMILY` lists them), or a policy class of "
    "your own by import path: file.py:Class (relative to the working directory) or "
    "package.module:Class (see volsched.heuristics.FAMILY.protocol)."
)

#: Each command's ``--help`` description (the first line says what it does).
_DESCRIPTIONS = {
    "generate": "Generate a seeded instance of a family, from its generators' options.",
    "solve": "Solve an instance exactly: the optimum of its problem, proven or with a bound, verified by an "
    "independent verifier. `volsched list FAMILY` lists the problems and methods (default first).",
    "simulate": "Run one heuristic on an instance: its verified value and metrics. The heuristic is a "
    "built-in name (`volsched list FAMILY`) or your own policy class: "
    "--heuristic mine.py:MyPolicy.",
    "evaluate": "Score heuristics against the exact optimum on the same instance and realization: each one's "
    "value and ratio (an interval when the optimum is not proven).",
    "export": "Write an instance in another tool's format (prescient: a SimGrid platform and its profiles).",
    "verify": "Check a solution (a solve or simulate result, or a solution object) against an instance, "
    "with the family's independent verifier.",
    "sweep": "Run a resumable sweep of (instance, method) tasks into an SQLite store, on local workers or a "
    "Dask cluster. `volsched list` names the presets.",
    "report": "Tables and plots of one or several results stores: ratios to the optimum, per family and "
    "paper.",
    "hunt": "Search for the instances where a heuristic's proven ratio to the optimum is worst, or where the "
    "exact method works hardest.",
    "compile": "Compile every numba kernel ahead of time (CI images, cluster workers), so that no run pays "
    "for it.",
    "demo": "An end-to-end demonstration: every family generated, solved, simulated and reported.",
    "list": "List what each family offers: its problems, exact methods (default first), heuristics with "
    "the problem each is scored against, sweep presets, generators and platforms.",
}


#: What ``str.splitlines`` breaks a line at: a message echoing a user's text (a path, a value) escapes them.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _one_line(text: str) -> str:
    """``text`` on one line, each line break written as its escape (``\\n``)."""
    return "".join(ch.encode("unicode_escape").decode() if ch in _LINE_BREAKS else ch for ch in text)


def console() -> int:
    """The ``volsched`` executable: :func:`main` with the shell's SIGPIPE behaviour."""
    if hasattr(signal, "SIGPIPE"):  # `volsched report S | head` ends quietly, like other tools
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    return main()


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """volsched's own warnings as one ``volsched: warning: ...`` line; others as Python shows them."""
    if issubclass(category, VolschedWarning):
        print(f"volsched: warning: {_one_line(str(message))}", file=sys.stderr)
    else:
        _SHOW_WARNING(message, category, filename, lineno, file, line)


_SHOW_WARNING = warnings.showwarning


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    parser = build_parser(given)
    _WARNINGS.clear()
    try:
        args = parser.parse_args(argv)
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            code = args.func(args)
        for line in _WARNINGS:
            print(line, file=sys.stderr)
        return code
    except InputError as exc:
        if os.environ.get("VOLSCHED_DEBUG") and exc.__cause__ is not None:  # a user's heuristic raised
            traceback.print_exception(exc.__cause__)
        print(f"volsched: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("volsched: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("VOLSCHED_DEBUG"):
            traceback.print_exc()
        print(
            f"volsched: internal error: {type(exc).__name__}: {_one_line(str(exc))} "
            "(set VOLSCHED_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(console())
