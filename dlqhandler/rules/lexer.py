"""Lexer: rules-table text -> logical entries of tokens, every token with its position.

Steps, in the order runmqdlq's conventions imply (spec §1.3, §1.6):

1. Split into physical lines on ``\\n`` (a ``\\r`` before it is dropped, so CRLF
   files work; a last line without a newline is a line like any other).
2. Drop comment lines (first non-blank character ``*``) *before* joining, so a
   comment inside a continued entry is skipped, and a comment ending in ``+``
   or ``-`` continues nothing.
3. Join continuations: a line whose last non-blank character is ``+`` goes on
   at the first non-blank character of the next line; ``-`` goes on at column 1
   of the next line. The character is removed, the text before it is kept.
   This happens before tokenising, so it works inside quoted values too
   (``'ABC+`` / `` D')`` is ``ABCD``; ``'ABC-`` / `` D')`` is ``ABC D``).
4. Tokenise each logical entry: blanks, tabs and commas separate; ``(`` and
   ``)``; quoted strings (``''`` is one quote); unquoted words of
   ``A-Z a-z 0-9 . / _ % * ? & -``. Every character keeps its physical line and
   column, so every token (and so every diagnostic) points into the source.

Columns are 1-based character offsets in the physical line (a tab is one column).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from dlqhandler.rules.diagnostics import Diagnostic, make_diagnostic

__all__ = ["LogicalEntry", "Token", "TokenKind", "iter_entries", "lex", "source_lines"]

MAX_SIGNIFICANT = 72
_BLANKS = " \t"
_SEPARATORS = " \t,"
WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/%*?&-")


class TokenKind(StrEnum):
    WORD = "word"
    STRING = "string"
    LPAREN = "("
    RPAREN = ")"


@dataclass(frozen=True, slots=True)
class Token:
    """A token of a logical entry.

    ``text`` is the word as written, the decoded content of a quoted string
    (``''`` reduced to ``'``), or the parenthesis. ``spaced`` is true when a
    separator (or the start of the entry) comes right before it. ``bad`` marks a
    token already reported (an unterminated string, a word with a character
    that needs quotes), so later stages do not report it again.
    """

    kind: TokenKind
    text: str
    line: int
    column: int
    end_line: int
    end_column: int  # one past the last character, on end_line
    spaced: bool
    bad: bool = False


@dataclass(frozen=True, slots=True)
class LogicalEntry:
    """One entry: a physical line plus its continuation lines, tokenised."""

    line: int  # first physical line
    column: int  # first significant character
    text: str  # the joined text, stripped
    tokens: tuple[Token, ...]


def source_lines(text: str) -> list[str]:
    """The physical lines of ``text`` as the lexer sees them (no line ends)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def lex(
    text: str,
    path: str = "<stdin>",
    diags: list[Diagnostic] | None = None,
) -> tuple[list[LogicalEntry], list[Diagnostic]]:
    """Split ``text`` into tokenised logical entries, with lexical diagnostics (appended
    to ``diags`` when given)."""
    diags = [] if diags is None else diags
    return list(iter_entries(text, path, diags)), diags


def iter_entries(text: str, path: str, diags: list[Diagnostic]) -> Iterator[LogicalEntry]:
    """:func:`lex` one entry at a time (the compiler's pipeline holds one entry's tokens,
    not a whole file's)."""
    entries: list[LogicalEntry] = []
    chars: list[str] = []
    where: list[tuple[int, int]] = []
    pending: str | None = None  # continuation character of the previous line
    pending_at = (0, 0)
    lines = source_lines(text)
    for lineno, line in enumerate(lines, 1):
        significant = line.rstrip(_BLANKS)
        if len(significant) > MAX_SIGNIFICANT:
            diags.append(
                make_diagnostic("W102", path, lineno, MAX_SIGNIFICANT + 1, length=len(significant))
            )
        if significant.lstrip(_BLANKS).startswith("*"):
            continue  # a comment line, even in the middle of a continued entry
        if pending is None and not significant:
            continue  # a blank line between entries
        start = 0
        if pending == "+":
            start = len(line) - len(line.lstrip(_BLANKS))
        end = len(significant)
        following: str | None = None
        if end > start and significant[-1] in "+-":
            following = significant[-1]
            pending_at = (lineno, end)
            end -= 1
        for col in range(start, end):
            chars.append(line[col])
            where.append((lineno, col + 1))
        pending = following
        if pending is None:
            _finish(chars, where, entries, diags, path)
            chars, where = [], []
            yield from entries
            entries.clear()
    if pending is not None:
        diags.append(make_diagnostic("W103", path, pending_at[0], pending_at[1], char=pending))
    _finish(chars, where, entries, diags, path)
    yield from entries


def _finish(
    chars: list[str],
    where: list[tuple[int, int]],
    entries: list[LogicalEntry],
    diags: list[Diagnostic],
    path: str,
) -> None:
    tokens = _tokenise(chars, where, diags, path)
    if not tokens:
        return
    joined = "".join(chars).strip(_SEPARATORS)
    entries.append(LogicalEntry(tokens[0].line, tokens[0].column, joined, tuple(tokens)))


def _tokenise(
    chars: list[str], where: list[tuple[int, int]], diags: list[Diagnostic], path: str
) -> list[Token]:
    tokens: list[Token] = []
    n = len(chars)
    i = 0
    spaced = True
    while i < n:
        c = chars[i]
        line, col = where[i]
        if c in _SEPARATORS:
            spaced = True
            i += 1
            continue
        if c in "()":
            kind = TokenKind.LPAREN if c == "(" else TokenKind.RPAREN
            tokens.append(Token(kind, c, line, col, line, col + 1, spaced))
            i += 1
        elif c == "'":
            i = _quoted(chars, where, i, tokens=tokens, diags=diags, path=path, spaced=spaced)
        else:
            j = i
            bad_at = -1
            while j < n and chars[j] not in _SEPARATORS and chars[j] not in "()'":
                if bad_at < 0 and chars[j] not in WORD_CHARS:
                    bad_at = j
                j += 1
            if bad_at >= 0:
                bline, bcol = where[bad_at]
                diags.append(
                    make_diagnostic(
                        "E108", path, bline, bcol, end_column=bcol + 1, char=chars[bad_at]
                    )
                )
            eline, ecol = where[j - 1]
            tokens.append(
                Token(
                    TokenKind.WORD,
                    "".join(chars[i:j]),
                    line,
                    col,
                    eline,
                    ecol + 1,
                    spaced,
                    bad=bad_at >= 0,
                )
            )
            i = j
        spaced = False
    return tokens


def _quoted(
    chars: list[str],
    where: list[tuple[int, int]],
    i: int,
    *,
    tokens: list[Token],
    diags: list[Diagnostic],
    path: str,
    spaced: bool,
) -> int:
    """Scan the quoted string opening at ``i``; return the index after it."""
    n = len(chars)
    line, col = where[i]
    buf: list[str] = []
    j = i + 1
    while j < n:
        if chars[j] == "'":
            if j + 1 < n and chars[j + 1] == "'":
                buf.append("'")
                j += 2
                continue
            eline, ecol = where[j]
            tokens.append(Token(TokenKind.STRING, "".join(buf), line, col, eline, ecol + 1, spaced))
            return j + 1
        buf.append(chars[j])
        j += 1
    diags.append(make_diagnostic("E104", path, line, col))
    eline, ecol = where[n - 1]
    tokens.append(
        Token(TokenKind.STRING, "".join(buf), line, col, eline, ecol + 1, spaced, bad=True)
    )
    return n
