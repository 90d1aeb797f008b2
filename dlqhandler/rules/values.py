"""Keyword values: from the parsed text to typed values, or a :class:`Problem`.

One converter per kind of value (string pattern, numeric pattern, choice,
count, queue name...). A converter either returns the typed value, raises
:class:`Problem` (an error with a code and a position), or raises
:class:`Skip` for an item whose syntax error is already reported. Warnings go
to the ``warn`` callback so a value can be both accepted and questioned.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from dlqhandler.mq.constants import FAMILIES, family_of
from dlqhandler.mq.names import MQ_NAME_CHARS
from dlqhandler.rules.keywords import (
    FEEDBACK_WARN_FAMILIES,
    NAME_LENGTHS,
    NUMERIC_FAMILIES,
    STRING_LENGTHS,
    suggest,
)
from dlqhandler.rules.parser import Arg, Value

__all__ = [
    "MAX_NUMBER",
    "Problem",
    "Skip",
    "Warn",
    "choice",
    "count",
    "numeric_pattern",
    "queue_name",
    "string_pattern",
    "wait_value",
]

MAX_NUMBER = 999_999_999
_INTEGER = re.compile(r"-?[0-9]+")
_SYMBOL = re.compile(r"MQ[A-Z]+_[A-Z0-9_]+")

FWDQ_TOKENS = ("&DESTQ", "&REPLYQ")
FWDQM_TOKENS = ("&DESTQM", "&REPLYQM")
_SUBSTITUTION_PLACES = (
    "&DESTQ and &REPLYQ are only allowed in FWDQ, &DESTQM and &REPLYQM only in FWDQM"
)


class Problem(Exception):  # noqa: N818 - a control-flow signal inside the validator
    """A value error: diagnostic code, position and template fields."""

    def __init__(
        self, code: str, line: int, column: int, end_column: int | None = None, **fields: Any
    ) -> None:
        super().__init__(code)
        self.code = code
        self.line = line
        self.column = column
        self.end_column = end_column
        self.fields = fields


class Skip(Exception):  # noqa: N818 - a control-flow signal inside the validator
    """The item's syntax error is already reported; check nothing more."""


Warn = Callable[[Problem], None]


def _at(code: str, where: Arg | Value, **fields: Any) -> Problem:
    end = where.end_column if isinstance(where, Arg) or where.end_line == where.line else None
    return Problem(code, where.line, where.column, end, **fields)


def present(arg: Arg) -> Value:
    """The item's value, or :class:`Skip`/:class:`Problem` when there is none."""
    if arg.broken or arg.bare:
        raise Skip
    if arg.value is None or arg.value.text == "":
        raise _at("E301", arg, keyword=arg.keyword)
    return arg.value


def _has_wildcard(text: str) -> bool:
    return "*" in text or "?" in text


def _no_wildcard(arg: Arg, value: Value) -> None:
    if _has_wildcard(value.text):
        raise _at("E303", value, keyword=arg.keyword)


def _folded(arg: Arg, value: Value, warn: Warn) -> None:
    if value.has_lower:
        warn(_at("W104", value, keyword=arg.keyword, raw=value.raw, folded=value.text))


def string_pattern(arg: Arg, warn: Warn) -> str:
    """A generic string pattern (``DESTQ``, ``FORMAT``...): the pattern text."""
    value = present(arg)
    text = value.text
    if not value.quoted and text.startswith("&"):
        raise _at(
            "E312",
            value,
            token=text,
            keyword=arg.keyword,
            allowed=_SUBSTITUTION_PLACES + "; quote the value to match a literal '&'",
        )
    if arg.keyword == "FORMAT" and not value.quoted and text.startswith("MQFMT_"):
        formats = FAMILIES["MQFMT"]
        if text not in formats:
            guess = suggest(text, list(formats), prefix=False)
            raise _at(
                "E307",
                value,
                name=text,
                keyword=arg.keyword,
                suggestion=f"did you mean {guess}?"
                if guess
                else "write the format name, for example FORMAT(MQSTR)",
            )
        mapped = str(formats[text])
        warn(_at("W301", value, name=text, value=mapped, plain=mapped.rstrip() or "' '"))
        return mapped
    limit = STRING_LENGTHS[arg.keyword]
    length = len(text) - text.count("*")
    if length > limit:
        note = " not counting '*'" if "*" in text else ""
        raise _at("E302", value, keyword=arg.keyword, length=length, limit=limit, star_note=note)
    _folded(arg, value, warn)
    return text


def numeric_pattern(arg: Arg, warn: Warn) -> int | None:
    """A numeric pattern (``REASON``, ``MSGTYPE``...): the number, None for ``*``."""
    value = present(arg)
    text = value.text
    keyword = arg.keyword
    if text == "*":
        return None
    if _has_wildcard(text):
        raise _at("E304", value, keyword=keyword, value=text)
    if _INTEGER.fullmatch(text):
        return _in_range(keyword, value, int(text), 0)
    allowed = NUMERIC_FAMILIES[keyword]
    names = " or ".join(f"{f}_*" for f in allowed)
    if not _SYMBOL.fullmatch(text):
        raise _at(
            "E306",
            value,
            keyword=keyword,
            value=text,
            expected=f"a number, * or a symbolic name ({names})",
            suggestion=f"for example {keyword}(2053) or {keyword}({allowed[0]}_...)",
        )
    family = family_of(text)
    if family is None:
        pool = [n for f in allowed for n in FAMILIES[f]]
        guess = suggest(text, pool, prefix=False)
        raise _at(
            "E307",
            value,
            name=text,
            keyword=keyword,
            suggestion=f"did you mean {guess}?" if guess else f"{keyword} takes {names}",
        )
    number = FAMILIES[family][text]
    if family not in allowed:
        if family not in FEEDBACK_WARN_FAMILIES.get(keyword, ()):
            raise _at("E308", value, name=text, family=family, keyword=keyword, allowed=names)
        warn(_at("W302", value, name=text, value=number))
    assert isinstance(number, int)  # every numeric family holds integers
    if number < 0:
        raise _at("E309", value, name=text, value=number, keyword=keyword)
    return number


def _in_range(keyword: str, value: Value, number: int, low: int) -> int:
    if not low <= number <= MAX_NUMBER:
        raise _at("E305", value, keyword=keyword, value=value.text, low=low)
    return number


def count(arg: Arg, *, low: int) -> int:
    """A plain count (``RETRY`` from 1, ``RETRYINT`` from 0)."""
    value = present(arg)
    _no_wildcard(arg, value)
    if not _INTEGER.fullmatch(value.text):
        raise _at(
            "E306",
            value,
            keyword=arg.keyword,
            value=value.text,
            expected="a number",
            suggestion=f"for example {arg.keyword}(5)",
        )
    number = int(value.text)
    if arg.keyword == "RETRY" and number == 0:
        raise _at("E311", value)
    return _in_range(arg.keyword, value, number, low)


def choice(arg: Arg, choices: tuple[str, ...]) -> str:
    """One of a keyword's fixed values (``ACTION``, ``HEADER``, ``PUTAUT``)."""
    value = present(arg)
    _no_wildcard(arg, value)
    text = value.text.upper()
    if text in choices:
        return text
    guess = suggest(text, choices)
    raise _at(
        "E310",
        value,
        keyword=arg.keyword,
        value=value.text,
        choices=", ".join(choices),
        suggestion=f"did you mean {guess}?" if guess else f"write one of {', '.join(choices)}",
    )


def wait_value(arg: Arg) -> Literal["YES", "NO"] | int:
    """``WAIT``: YES, NO or a number of seconds."""
    value = present(arg)
    _no_wildcard(arg, value)
    text = value.text.upper()
    if text == "YES":
        return "YES"
    if text == "NO":
        return "NO"
    if _INTEGER.fullmatch(text):
        return _in_range("WAIT", value, int(text), 0)
    guess = suggest(text, ("YES", "NO"))
    raise _at(
        "E310",
        value,
        keyword="WAIT",
        value=value.text,
        choices="YES, NO or a number of seconds",
        suggestion=f"did you mean {guess}?" if guess else "for example WAIT(NO)",
    )


def queue_name(
    arg: Arg, warn: Warn, *, tokens: tuple[str, ...] = (), blank_ok: bool = False
) -> str | None:
    """A queue or queue-manager name (``FWDQ``, ``FWDQM``, ``INPUTQ``, ``INPUTQM``).

    ``tokens`` are the substitution tokens this keyword accepts (canonical
    upper case); a blank value is None when ``blank_ok``, else an error.
    """
    value = present(arg)
    keyword = arg.keyword
    text = value.text
    if text.startswith("&"):
        token = text.upper()
        if token in tokens:
            return token
        if token in FWDQ_TOKENS + FWDQM_TOKENS:
            raise _at("E312", value, token=token, keyword=keyword, allowed=_SUBSTITUTION_PLACES)
        accepted = " or ".join(tokens) if tokens else "no substitution tokens"
        raise _at("E313", value, token=text, keyword=keyword, allowed=accepted)
    if not text.strip(" "):
        if blank_ok:
            return None
        raise _at("E315", value, keyword=keyword)
    _no_wildcard(arg, value)
    limit = NAME_LENGTHS[keyword]
    if len(text) > limit:
        raise _at("E302", value, keyword=keyword, length=len(text), limit=limit, star_note="")
    bad = sorted({c for c in text if c not in MQ_NAME_CHARS})
    if bad:
        shown = ", ".join(repr(c) for c in bad[:5])
        raise _at(
            "E314",
            value,
            keyword=keyword,
            value=text,
            why=f"characters not allowed in MQ names ({shown})",
        )
    _folded(arg, value, warn)
    return text
