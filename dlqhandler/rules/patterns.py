"""String patterns (spec §3.2): classification, one regex, fast tests, subsumption.

runmqdlq compares a pattern P with the field F *padded with blanks to its
length L*: a literal must equal the character in place; ``*`` matches any run
of characters; ``?`` matches one character provided a non-blank character
exists at or after it (so never inside the trailing padding); when P runs out
the rest of F must be blanks.

That is exactly ``re.fullmatch`` of :func:`to_regex` against :func:`pad`
(F cut or padded to L, like SQL ``rpad``): ``*`` -> ``.*``, ``?`` ->
``(?=.*[^ ]).``, literals escaped, all in a ``(?s:...)`` group, then `` *``.
The regex uses only syntax that Python ``re`` and Java regex share, so the
Spark back end can apply the same string with ``rlike`` (anchored) to
``rpad(col, L, ' ')``.

:func:`matcher` returns a specialised test for the four common shapes (exact,
prefix, any, non-blank) and the compiled regex otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

__all__ = ["PatternKind", "classify", "covers", "literal_head", "matcher", "pad", "to_regex"]

PatternKind = Literal["exact", "prefix", "any", "nonblank", "generic"]
_META = frozenset("\\^$.|?*+()[]{}")


def pad(value: str, length: int) -> str:
    """The field as the matcher sees it: cut or right-padded with blanks to ``length``."""
    return value[:length].ljust(length)


def classify(pattern: str) -> PatternKind:
    """Which specialised form ``pattern`` takes."""
    body = pattern.rstrip("*")
    if not body:
        return "any"
    if body == "?" and len(pattern) > 1:
        return "nonblank"
    if "?" in body or "*" in body:
        return "generic"
    return "exact" if body == pattern else "prefix"


def _escape(c: str) -> str:
    if c in _META:
        return "\\" + c
    if ord(c) < 0x20 or ord(c) == 0x7F:
        return f"\\u{ord(c):04x}"
    return c


def to_regex(pattern: str) -> str:
    """The full-match regex for ``pattern`` against the padded field."""
    out: list[str] = []
    for c in pattern:
        if c == "*":
            if not out or out[-1] != ".*":
                out.append(".*")
        elif c == "?":
            out.append("(?=.*[^ ]).")
        else:
            out.append(_escape(c))
    return "(?s:" + "".join(out) + ") *"


def matcher(pattern: str, length: int) -> Callable[[str], bool]:
    """A test of the *padded* field value (see :func:`pad`) equivalent to the regex."""
    kind = classify(pattern)
    if kind == "any":
        return lambda f: True
    if kind == "nonblank":
        return lambda f: f.strip(" ") != ""
    if kind == "exact":
        padded = pattern.ljust(length)
        return lambda f: f == padded
    if kind == "prefix":
        head = pattern.rstrip("*")
        return lambda f: f.startswith(head)
    rx = re.compile(to_regex(pattern))
    return lambda f: rx.fullmatch(f) is not None


def literal_head(pattern: str) -> str:
    """The literal characters before the first wildcard: every match starts with them."""
    for i, c in enumerate(pattern):
        if c in "*?":
            return pattern[:i]
    return pattern


def _needs_nonblank(pattern: str) -> bool:
    """True when every field matching ``pattern`` has a non-blank character."""
    return any(c not in "* " for c in pattern)


def covers(
    a: str,
    b: str,
    length: int,
    kind_a: PatternKind | None = None,
    kind_b: PatternKind | None = None,
) -> bool:
    """Conservatively: does pattern ``a`` match every field that ``b`` matches?

    True answers are always right; some true inclusions answer False. The
    kinds may be passed when known (the IR has them) to save classifying.
    """
    kind_a = kind_a or classify(a)
    kind_b = kind_b or classify(b)
    if kind_a == "any" or a == b:
        return True
    if kind_b == "exact":  # b matches exactly one field: does a match it?
        field = pad(b, length)
        if kind_a == "exact":  # (longer than the field, it matches nothing: no cutting)
            return len(a) <= length and field == pad(a, length)
        if kind_a == "prefix":
            return field.startswith(a.rstrip("*"))
        if kind_a == "nonblank":
            return field.strip(" ") != ""
        return re.fullmatch(to_regex(a), field) is not None
    if kind_a == "nonblank":
        return _needs_nonblank(b)
    if kind_a == "prefix":
        return literal_head(b).startswith(a.rstrip("*"))
    return False
