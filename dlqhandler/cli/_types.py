"""argparse value types shared by the subcommands: out-of-range numbers are usage errors."""

from __future__ import annotations

import argparse

__all__ = ["positive_int"]


def positive_int(text: str) -> int:
    """An integer of 1 or more (``0`` and negatives are refused, not taken as 1)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is out of range: it must be 1 or more")
    return value
