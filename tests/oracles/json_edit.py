"""Editing nested JSON objects in tests: tampering with one field of a file a command wrote."""

from __future__ import annotations


def set_item(obj, path, value) -> None:
    """``obj[path[0]][path[1]]...[path[-1]] = value``, in place."""
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
