"""``volsched list``: what each family offers, from its :class:`~volsched.families.Family` object.

Problems with their sense and metrics, exact methods (the default first, with
their budget unit), heuristics with the problem they are scored against
(built-in ones, then those installed packages register in the entry-point
group ``volsched.heuristics``), sweep presets, generators with their options,
and the values of a generator's listed options (prescient's platforms).
"""

from __future__ import annotations

from typing import Any

from .families import FAMILIES, Family, Heuristic, entry_points_of


def _first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0].strip() if lines else ""


def _description(h: Heuristic) -> str:
    """A heuristic's description, else the first line of its rule's or policy class's docstring."""
    if h.description:
        return h.description
    rule = getattr(h.policy, "rule", None)
    if rule is not None:  # a generic wrapper around a rule function: the rule says what it does
        return _first_line(rule.__doc__)
    cls = type(h.policy)
    doc = _first_line(cls.__doc__)
    return "" if doc.startswith(cls.__name__ + "(") else doc  # a dataclass's generated signature


def _instances(family: Family, table: dict) -> int:
    """Instances of one sweep table: grid points (list values expand) times seeds."""
    options = family.options()
    count = 1
    for key, value in table.get("grid", {}).items():
        option = options.get(key)
        listed = isinstance(value, list) and (
            option is None or option.nargs is None or all(isinstance(v, list) for v in value)
        )
        count *= len(value) if listed else 1
    seeds = table.get("seeds", 1)
    return count * (len(seeds) if isinstance(seeds, list) else int(seeds))


def describe(family: Family) -> dict[str, Any]:
    """One family as a JSON-ready object (the ``volsched list --json`` value of its key)."""
    problems = [
        {
            "name": p.name,
            "sense": p.sense,
            "objective": p.objective_metric,
            "metrics": [m.name for m in p.metrics],
            "methods": list(p.methods),
            "default_method": p.default_method,
            "budgets": dict(p.budgets),
        }
        for p in family.problems.values()
    ]
    heuristics = [
        {"name": h.name, "problem": h.problem, "description": _description(h), "source": "built-in"}
        for h in family.heuristics.values()
    ]
    for point in entry_points_of(family.name).values():
        name = point.name.split(".", 1)[1]
        try:
            h = family.heuristic(name)
            heuristics.append(
                {
                    "name": h.name,
                    "problem": h.problem,
                    "description": h.description,
                    "source": f"entry point {point.value}",
                }
            )
        except Exception as exc:
            heuristics.append(
                {
                    "name": name,
                    "problem": None,
                    "description": f"cannot load: {exc}",
                    "source": f"entry point {point.value}",
                }
            )
    presets = [
        {
            "name": name,
            "sweeps": [t.get("name", name) for t in tables],
            "instances": sum(_instances(family, t) for t in tables),
            "heuristics": sorted({h for t in tables for h in t.get("heuristics", family.heuristics)}),
        }
        for name, tables in family.extras.presets.items()
    ]
    generators = [
        {
            "name": g.name,
            "help": g.help,
            "many": g.many,
            "options": {
                o.name: {
                    "default": o.default,
                    "help": o.help,
                    **({"choices": list(o.choices)} if o.choices else {}),
                }
                for o in g.options
            },
        }
        for g in family.generators.values()
    ]
    choices = {o.name: list(o.choices) for o in family.options().values() if o.choices}
    return {
        "problems": problems,
        "methods": {p.name: list(p.methods) for p in family.problems.values()},
        "heuristics": heuristics,
        "default_heuristic_problem": family.default_heuristic_problem,
        "presets": presets,
        "generators": generators,
        "platforms": choices.get("platform", []),
        "choices": choices,
        "run_options": [o.option.name for o in family.run_options],
        "exports": sorted(family.extras.exports),
    }


def listing(name: str | None = None) -> dict[str, dict]:
    """Family name -> :func:`describe` of it; every registered family when ``name`` is ``None``."""
    names = list(FAMILIES) if name is None else [name]
    return {n: describe(FAMILIES[n]) for n in names}


#: The parts of a family's listing, in the order :func:`to_text` prints them.
SECTIONS = ("problems", "methods", "heuristics", "presets", "generators", "choices", "exports")

#: The parts each command's ``--help`` lists for every family when it is not given one family.
COMMAND_SECTIONS = {
    "generate": ("generators", "choices"),
    "solve": ("problems", "methods"),
    "verify": ("problems",),
    "simulate": ("heuristics",),
    "evaluate": ("methods", "heuristics"),
    "sweep": ("presets",),
    "hunt": ("heuristics",),
}


def _section(name: str, part: str, d: dict) -> list[str]:
    """The lines of one part of one family's listing (``part`` one of :data:`SECTIONS`)."""
    out = []
    if part == "problems":
        out.append("  problems:")
        for p in d["problems"]:
            out.append(
                f"    {p['name']:<22} {p['sense']} {p['objective']}"
                + (f" (metrics: {', '.join(p['metrics'][1:])})" if len(p["metrics"]) > 1 else "")
            )
    elif part == "methods":
        out.append("  methods (the default first):")
        for p in d["problems"]:
            for i, m in enumerate(p["methods"]):
                unit = p["budgets"].get(m)
                notes = ", ".join(
                    x
                    for x in ("default" if i == 0 else "", f"budget in {unit}" if unit else "runs to the end")
                    if x
                )
                out.append(f"    {p['name'] + ' ' + m:<30} {notes}")
    elif part == "heuristics":
        out.append("  heuristics (name, the problem it is scored against):")
        width = max([len(h["name"]) for h in d["heuristics"]] + [4])
        for h in d["heuristics"]:
            source = "" if h["source"] == "built-in" else f" [{h['source']}]"
            line = f"    {h['name']:<{width}}  {h['problem'] or '?':<16} {h['description']}{source}"
            out.append(line.rstrip())
        out.append(
            f"    your own: --heuristic file.py:Class or module:Class (problem: the class's attribute "
            f"`problem`, else {d['default_heuristic_problem']})"
        )
    elif part == "presets":
        out.append("  presets (volsched sweep --preset NAME):")
        for p in d["presets"]:
            out.append(f"    {p['name']:<28} {p['instances']:,} instances, {len(p['heuristics'])} heuristics")
    elif part == "generators":
        out.append(f"  generators (volsched generate {name} --preset NAME):")
        for g in d["generators"]:
            options = ", ".join("--" + o.replace("_", "-") for o in g["options"])
            out.append(f"    {g['name']:<20} {g['help']} (options: {options or 'none'})")
    elif part == "choices":
        for option, values in d["choices"].items():
            out.append(f"  {option}s: {', '.join(map(str, values))}")
    elif part == "exports" and d["exports"]:
        out.append(f"  exports (volsched export FORMAT): {', '.join(d['exports'])}")
    return out


def to_text(listed: dict[str, dict], sections: tuple[str, ...] = SECTIONS) -> str:
    """The listing as text: per family, one line per problem, method, heuristic, preset and generator.

    ``sections`` keeps some parts only (names from :data:`SECTIONS`, printed in that order).
    """
    out = []
    for name, d in listed.items():
        out.append(name)
        for part in SECTIONS:
            if part in sections:
                out += _section(name, part, d)
    return "\n".join(out)


def help_text(command: str, family: str | None = None) -> str | None:
    """What ``volsched COMMAND [FAMILY] --help`` lists after the options, or ``None`` for none.

    With a family, everything ``volsched list FAMILY`` shows; without one, the parts of every family
    that ``command`` chooses from (:data:`COMMAND_SECTIONS`: ``solve`` its problems and methods,
    ``evaluate`` its methods and heuristics...).
    """
    if command not in COMMAND_SECTIONS:
        return None
    if family is not None:
        return f"The {family} family (volsched list {family}):\n" + to_text(listing(family))
    sections = COMMAND_SECTIONS[command]
    parts = ", ".join(s for s in SECTIONS if s in sections)
    head = f"Each family's {parts} (`volsched {command} FAMILY --help` lists everything of one family):"
    return head + "\n" + to_text(listing(), sections)


__all__ = ["COMMAND_SECTIONS", "SECTIONS", "describe", "help_text", "listing", "to_text"]
