"""Markdown tables: the one format of ``volsched report``'s tables and of the families' paper tables.

It sits below both (:mod:`volsched.experiments.report` and the family modules such as
:mod:`volsched.families.coupled.tables`), so that neither imports the other to share it.
"""

from __future__ import annotations


def markdown_table(header: list[str], lines: list[list[str]]) -> list[str]:
    """A markdown table's lines: ``header``, the separator, one line per row of cells (strings).

    Examples
    --------
    >>> markdown_table(["a", "b"], [["1", "2"]])
    ['| a | b |', '|---|---|', '| 1 | 2 |']
    """
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return out + ["| " + " | ".join(line) + " |" for line in lines]
