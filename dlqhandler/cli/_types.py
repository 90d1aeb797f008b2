"""argparse value types shared by the subcommands: out-of-range numbers and names MQ would
refuse are usage errors (argparse exits 2 naming the option and the reason)."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

from dlqhandler.mq.names import NAME_RULE, validate_qmgr_name, validate_queue_name

__all__ = [
    "AGE_OPTIONS",
    "MQLONG_MAX",
    "ages_joined",
    "bounded_int",
    "non_negative_float",
    "non_negative_int",
    "positive_int",
    "qmgr_name",
    "qmgr_name_or_blank",
    "queue_name",
    "queue_name_or_blank",
]


def bounded_int(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (no upper bound if None;
    for a Spark option, what the value becomes in the JVM, an ``int`` or a byte count)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is out of range: it must be {low} or more")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{value} is out of range: it must be at most {high}")
        return value

    parse.__name__ = f"int from {low}" if high is None else f"int {low}-{high}"
    return parse


positive_int = bounded_int(1)
positive_int.__doc__ = "An integer of 1 or more (``0`` and negatives are refused, not taken as 1)."
non_negative_int = bounded_int(0)
non_negative_int.__doc__ = "An integer of 0 or more."

MQLONG_MAX = 2**31 - 1  # the largest value of an MQLONG field (Expiry, Reason...)


def non_negative_float(text: str) -> float:
    """A finite number of 0 or more (seconds): negatives, ``nan`` and ``inf`` are refused."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"{text} is out of range: it must be a finite number, 0 or more"
        )
    return value


# Options whose value is an age (run and report --older-than/--newer-than, audit --since).
AGE_OPTIONS = frozenset({"--older-than", "--newer-than", "--since"})
_DASHED = re.compile(r"-[0-9.]")


def ages_joined(words: list[str]) -> list[str]:
    """``--older-than -5d`` as ``--older-than=-5d``: argparse takes a word that starts
    with '-' and is not a plain number for an option and answers "expected one
    argument"; joined, the value reaches the option, which says that an age cannot be
    negative. Words after ``--`` are left alone."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return out + words[i:]
        if word in AGE_OPTIONS and i + 1 < len(words) and _DASHED.match(words[i + 1]):
            out.append(f"{word}={words[i + 1]}")
            i += 2
            continue
        out.append(word)
        i += 1
    return out


def queue_name(text: str) -> str:
    """A queue name MQ accepts (:mod:`dlqhandler.mq.names`, the rule ``run`` applies)."""
    try:
        return validate_queue_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}: not a valid MQ name ({NAME_RULE})") from None


def queue_name_or_blank(text: str) -> str:
    """A queue name, or empty (the field is left blank)."""
    return "" if text == "" else queue_name(text)


def qmgr_name(text: str) -> str:
    """A queue-manager name MQ accepts; blank is refused where the user typed one."""
    try:
        if not text.strip(" "):
            raise ValueError(f"queue manager name {text!r} is blank")
        return validate_qmgr_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}: not a valid MQ name ({NAME_RULE})") from None


def qmgr_name_or_blank(text: str) -> str:
    """A queue-manager name, or blank (the local queue manager)."""
    return "" if not text.strip(" ") else qmgr_name(text)
