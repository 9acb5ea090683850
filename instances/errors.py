"""The exception types for bad input anywhere in volsched, and the checks every reader shares."""

import math
import numbers


class InputError(ValueError):
    """Bad input: a malformed file, an out-of-range parameter, an invalid field.

    The message names the offending field (and index where there is one); the
    CLI prints it as ``volsched: error: <message>`` and exits with code 2.
    """


class VolschedWarning(UserWarning):
    """Something the user should know that does not stop the command (the CLI prints it as
    ``volsched: warning: <message>``)."""


class MissingData(InputError):
    """The instance lacks what one method needs (Markov chains, a history window): bad input for that method.

    ``volsched evaluate`` without ``--heuristics`` leaves such a heuristic out, with this message.
    """


def require(condition: bool, field: str, message: str) -> None:
    """Raise :class:`InputError` ``"<field>: <message>"`` unless ``condition``."""
    if not condition:
        raise InputError(f"{field}: {message}")


def is_int(value) -> bool:
    """An integer (Python or numpy): ``bool`` is not one (``True`` would pass as 1)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(value, field: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` if it is an integer in ``[low, high]``; else ``InputError`` naming it."""
    span = "" if low is None else f" >= {low}"
    ok = is_int(value) and (low is None or value >= low)
    require(ok, field, f"must be an integer{span}, got {value!r}")
    require(high is None or value <= high, field, f"must be at most {high}, got {value!r}")
    return int(value)


#: The largest integer an instance field may hold: sums and products of a
#: few such values stay exact in int64 and in OR-Tools' domains.
MAX_FIELD_INT = 10**9


def is_number(value) -> bool:
    """A finite real number that is not a ``bool`` (an integer too large for a float is not)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def check_number(value, field: str, low: float | None = None, high: float | None = None) -> float:
    """``value`` as a float if it is a finite number (not a bool) in ``[low, high]``."""
    ok = (
        isinstance(value, (int, float))
        and is_number(value)
        and (low is None or value >= low)
        and (high is None or value <= high)
    )
    span = "" if low is None and high is None else f" in [{low}, {'inf' if high is None else high}]"
    require(ok, field, f"must be a finite number{span}, got {value!r}")
    return float(value)


def check_flag(value, field: str) -> bool:
    """``value`` if it is a boolean (a sweep grid's ``true`` / ``false``, a command-line switch)."""
    require(isinstance(value, bool), field, f"must be true or false, got {value!r}")
    return value


def check_path(value, field: str) -> str:
    """``value`` if it is a non-empty string (a file path; the reader says if it is missing)."""
    require(isinstance(value, str) and value != "", field, f"must be a file path, got {value!r}")
    return value


def check_choice(value, field: str, choices) -> object:
    """``value`` if it is one of ``choices``."""
    require(
        isinstance(value, (str, int)) and not isinstance(value, bool) and value in tuple(choices),
        field,
        f"must be one of {list(choices)}, got {value!r}",
    )
    return value
