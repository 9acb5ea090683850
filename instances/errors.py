"""The one exception type for bad input anywhere in volsched."""


class InputError(ValueError):
    """Bad input: a malformed file, an out-of-range parameter, an invalid field.

    The message names the offending field (and index where there is one); the
    CLI prints it as ``volsched: error: <message>`` and exits with code 2.
    """


def require(condition: bool, field: str, message: str) -> None:
    """Raise :class:`InputError` ``"<field>: <message>"`` unless ``condition``."""
    if not condition:
        raise InputError(f"{field}: {message}")
