"""MQSC text -> commands: runmqsc's input conventions.

* A line whose last non-blank is ``+`` continues at the first non-blank of
  the next line; ``-`` continues at the start of the next line.
* A line starting with ``*`` is a comment; blank lines are skipped.
* Keywords are case-insensitive; unquoted values are folded to upper case,
  quoted ones (``'it''s'``) are kept as written.
* Keywords and values are separated by blanks or commas; a value is in
  parentheses after its keyword, blanks allowed before the ``(``.
* IBM's short forms are accepted: ``DEF``, ``DIS``, ``ALT``, ``QL``, ``Q``,
  ``PRO``.

:func:`parse` gives :class:`Command` objects; syntax errors raise
:class:`MQSCSyntaxError` with the line, the column inside the command text
and the segment up to the error (what runmqsc's AMQ8405I shows).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dlqhandler.errors import DLQHandlerError

__all__ = ["Attr", "Command", "MQSCSyntaxError", "parse", "split_commands"]

VERBS = {
    "DEFINE": "DEFINE",
    "DEF": "DEFINE",
    "ALTER": "ALTER",
    "ALT": "ALTER",
    "DELETE": "DELETE",
    "CLEAR": "CLEAR",
    "DISPLAY": "DISPLAY",
    "DIS": "DISPLAY",
    "SET": "SET",
    "PING": "PING",
    "END": "END",
}
OBJECTS = {
    "QLOCAL": "QLOCAL",
    "QL": "QLOCAL",
    "QALIAS": "QALIAS",
    "QA": "QALIAS",
    "QREMOTE": "QREMOTE",
    "QR": "QREMOTE",
    "QMODEL": "QMODEL",
    "QM": "QMODEL",
    "QUEUE": "QUEUE",
    "Q": "QUEUE",
    "QMGR": "QMGR",
    "PROCESS": "PROCESS",
    "PRO": "PROCESS",
    "AUTHREC": "AUTHREC",
    "QSTATUS": "QSTATUS",
    "QS": "QSTATUS",
}
_UNNAMED = {"QMGR", "AUTHREC"}
_SEPARATORS = " \t,"


class MQSCSyntaxError(DLQHandlerError):
    """A command runmqsc would reject with AMQ8405I; ``segment`` is the text up to the error."""

    def __init__(self, message: str, *, line: int, column: int, segment: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.column = column
        self.segment = segment
        self.detail = message


@dataclass(frozen=True, slots=True)
class Attr:
    """A keyword and its values (None for a bare keyword like ``REPLACE``)."""

    keyword: str
    values: tuple[str, ...] | None
    column: int

    def single(self) -> str:
        """The one value of ``KEY(value)``."""
        return self.values[0] if self.values else ""


@dataclass(frozen=True, slots=True)
class Command:
    """One MQSC command: verb, object type, name, attributes, where it came from."""

    line: int
    text: str
    verb: str
    objtype: str
    name: str | None
    attrs: tuple[Attr, ...]


def split_commands(source: str) -> Iterator[tuple[int, str]]:
    """(first line number, command text) for each command, continuations joined."""
    pending: list[str] = []
    start = 0
    strip_next = False
    for number, raw in enumerate(source.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if not pending:
            if not line.strip() or line.startswith("*"):
                continue
            start = number
        elif strip_next:
            line = line.lstrip()
        body = line.rstrip()
        if body.endswith(("+", "-")):
            strip_next = body.endswith("+")
            pending.append(body[:-1])
            continue
        pending.append(body)
        yield start, "".join(pending).strip()
        pending = []
    if pending:
        yield start, "".join(pending).strip()


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "word", "quoted", "(", ")"
    text: str
    column: int


def _tokens(text: str, line: int) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in _SEPARATORS:
            i += 1
        elif ch in "()":
            out.append(_Token(ch, ch, i))
            i += 1
        elif ch == "'":
            j, chars = i + 1, []
            while True:
                if j >= len(text):
                    raise MQSCSyntaxError(
                        "unterminated quoted string", line=line, column=i, segment=text
                    )
                if text[j] == "'":
                    if text[j + 1 : j + 2] == "'":
                        chars.append("'")
                        j += 2
                        continue
                    break
                chars.append(text[j])
                j += 1
            out.append(_Token("quoted", "".join(chars), i))
            i = j + 1
        else:
            j = i
            while j < len(text) and text[j] not in _SEPARATORS + "()'":
                j += 1
            out.append(_Token("word", text[i:j], i))
            i = j
    return out


def parse(text: str, line: int = 1) -> Command:
    """Parse one command's text (raises :class:`MQSCSyntaxError`)."""
    tokens = _tokens(text, line)
    pos = 0

    def fail(message: str, column: int) -> MQSCSyntaxError:
        end = len(text) if column < 0 else column
        return MQSCSyntaxError(message, line=line, column=end, segment=text[:end].rstrip())

    def value_list() -> tuple[str, ...]:
        nonlocal pos
        pos += 1  # the "("
        values: list[str] = []
        while True:
            if pos >= len(tokens):
                raise fail("missing ')'", -1)
            tok = tokens[pos]
            pos += 1
            if tok.kind == ")":
                return tuple(values)
            if tok.kind == "(":
                raise fail("unexpected '('", tok.column)
            values.append(tok.text if tok.kind == "quoted" else tok.text.upper())

    if not tokens or tokens[0].kind != "word":
        raise fail("expected a command verb", 0)
    verb = VERBS.get(tokens[0].text.upper())
    if verb is None:
        raise fail(f"unknown command {tokens[0].text!r}", tokens[0].column + len(tokens[0].text))
    pos = 1
    if verb == "END":
        if len(tokens) > 1:
            raise fail("END takes nothing", tokens[1].column)
        return Command(line, text, verb, "", None, ())
    if pos >= len(tokens) or tokens[pos].kind != "word":
        raise fail(f"{verb} needs an object type", -1)
    obj_tok = tokens[pos]
    objtype = OBJECTS.get(obj_tok.text.upper())
    if objtype is None:
        raise fail(
            f"unknown or unsupported object type {obj_tok.text!r}",
            obj_tok.column + len(obj_tok.text),
        )
    pos += 1
    name: str | None = None
    if objtype not in _UNNAMED:
        if pos >= len(tokens) or tokens[pos].kind != "(":
            raise fail(f"{objtype} needs a name in parentheses", -1)
        names = value_list()
        if len(names) != 1 or not names[0]:
            raise fail(f"{objtype} takes exactly one name", -1)
        name = names[0]
    attrs: list[Attr] = []
    seen: set[str] = set()
    while pos < len(tokens):
        tok = tokens[pos]
        if tok.kind != "word":
            raise fail(f"unexpected {tok.text!r}", tok.column)
        keyword = tok.text.upper()
        if keyword in seen:
            raise fail(f"keyword {keyword} repeated", tok.column + len(tok.text))
        seen.add(keyword)
        pos += 1
        values = value_list() if pos < len(tokens) and tokens[pos].kind == "(" else None
        attrs.append(Attr(keyword, values, tok.column))
    return Command(line, text, verb, objtype, name, tuple(attrs))
