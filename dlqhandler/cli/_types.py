"""argparse value types shared by the subcommands: out-of-range numbers are usage errors."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["bounded_int", "positive_int"]


def positive_int(text: str) -> int:
    """An integer of 1 or more (``0`` and negatives are refused, not taken as 1)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is out of range: it must be 1 or more")
    return value


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high`` (``high``: what the value
    becomes in Spark's JVM, an ``int`` or a byte count, can hold)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{value} is out of range: it must be from {low} to {high}")
        return value

    parse.__name__ = "integer"  # argparse names the type in its messages
    return parse
