"""Named sweeps: each family's paper experiments, and ``smoke`` across all families."""

from __future__ import annotations

from volsched.instances.errors import require

from ..families import FAMILIES


def presets() -> dict[str, list[dict]]:
    """Name -> list of sweep tables. ``smoke`` joins every family's ``*-smoke`` preset."""
    out: dict[str, list[dict]] = {}
    for family in FAMILIES.values():
        out.update(family.extras.presets)
    out["smoke"] = [table for name, tables in out.items() if name.endswith("-smoke") for table in tables]
    return out


def preset(name: str) -> list[dict]:
    table = presets()
    require(name in table, "--preset", f"unknown preset {name!r}; choose from {sorted(table)}")
    return table[name]
