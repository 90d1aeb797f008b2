"""Parser: tokenised entries -> ``KEYWORD(value)`` arguments with positions.

Each entry is a sequence of ``KEYWORD(value)`` items separated by blanks or
commas (blanks may surround the parentheses: ``ACTION (FWD)``). The parser
knows the keyword set but not what values mean; it reports syntax problems
(unknown or duplicate keywords, missing parentheses or values, stray text) and
keeps going, so every problem in the table is reported in one run. ``)KEYWORD``
with no separator is accepted with a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from dlqhandler.rules.diagnostics import Diagnostic, make_diagnostic
from dlqhandler.rules.keywords import ALL_KEYWORDS, suggest
from dlqhandler.rules.lexer import LogicalEntry, Token, TokenKind

__all__ = ["Arg", "ParsedEntry", "Value", "iter_parsed", "parse"]


@dataclass(frozen=True, slots=True)
class Value:
    """A keyword's value: ``text`` is folded to upper case when unquoted."""

    text: str
    raw: str
    quoted: bool
    line: int
    column: int
    end_line: int
    end_column: int

    @property
    def has_lower(self) -> bool:
        """Unquoted lower-case letters were folded."""
        return not self.quoted and self.raw != self.text


@dataclass(frozen=True, slots=True)
class Arg:
    """One ``KEYWORD(value)`` item.

    ``value`` is None for ``KEYWORD()``, ``KEYWORD( )`` and a bare ``KEYWORD``
    (then ``bare`` is set). ``broken`` marks an item whose syntax error is
    already reported; its value is not checked further.
    """

    keyword: str
    line: int
    column: int
    end_column: int | None  # None when the item ends on a later line
    value: Value | None
    bare: bool = False
    broken: bool = False


@dataclass(frozen=True, slots=True)
class ParsedEntry:
    """An entry's known keywords (first occurrence of each) and unknown ones."""

    line: int
    column: int
    text: str
    args: dict[str, Arg]
    unknown: tuple[str, ...]  # unknown keyword names, upper case
    suggestions: tuple[str, ...]  # what the unknown keywords probably meant


def _is_name(word: str) -> bool:
    return word[:1].isalpha() and word.isalnum() and word.isascii()


def parse(
    entries: list[LogicalEntry],
    path: str = "<stdin>",
    diags: list[Diagnostic] | None = None,
) -> tuple[list[ParsedEntry], list[Diagnostic]]:
    """Parse every entry; return the parsed entries and the syntax diagnostics (appended
    to ``diags`` when given)."""
    diags = [] if diags is None else diags
    return list(iter_parsed(entries, path, diags)), diags


def iter_parsed(
    entries: Iterable[LogicalEntry],
    path: str,
    diags: list[Diagnostic],
) -> Iterator[ParsedEntry]:
    """:func:`parse` one entry at a time, as the lexer yields them."""
    for e in entries:
        yield _parse_entry(e, path, diags)


def _parse_entry(entry: LogicalEntry, path: str, diags: list[Diagnostic]) -> ParsedEntry:
    toks = entry.tokens
    n = len(toks)
    args: dict[str, Arg] = {}
    unknown: list[str] = []
    suggestions: list[str] = []
    i = 0
    while i < n:
        tok = toks[i]
        if tok.kind == TokenKind.LPAREN:
            diags.append(make_diagnostic("E106", path, tok.line, tok.column, what="'('"))
            i = _skip_group(toks, i)
            continue
        if tok.bad:  # already reported by the lexer; skip its value too
            has_group = i + 1 < n and toks[i + 1].kind == TokenKind.LPAREN
            i = _skip_group(toks, i + 1) if has_group else i + 1
            continue
        if tok.kind != TokenKind.WORD:
            what = "')'" if tok.kind == TokenKind.RPAREN else "quoted string"
            diags.append(make_diagnostic("E106", path, tok.line, tok.column, what=what))
            i += 1
            continue
        if not tok.spaced and i > 0 and toks[i - 1].kind == TokenKind.RPAREN:
            diags.append(
                make_diagnostic("W101", path, tok.line, tok.column, keyword=tok.text.upper())
            )
        arg, i = _item(toks, i, path, diags)
        name = arg.keyword
        if name not in ALL_KEYWORDS:
            if _is_name(tok.text):
                guess = _unknown_keyword(tok, arg, path, diags)
                unknown.append(name)
                if guess:
                    suggestions.append(guess)
            else:
                diags.append(
                    make_diagnostic("E106", path, tok.line, tok.column, what=repr(tok.text))
                )
            continue
        first = args.get(name)
        if first is not None:
            diags.append(_repeated_keyword(tok, arg, first, path))
            continue
        if arg.bare:
            diags.append(
                make_diagnostic(
                    "E103", path, tok.line, tok.column, end_column=arg.end_column, keyword=name
                )
            )
        args[name] = arg
    return ParsedEntry(
        entry.line, entry.column, entry.text, args, tuple(unknown), tuple(suggestions)
    )


def _unknown_keyword(tok: Token, arg: Arg, path: str, diags: list[Diagnostic]) -> str | None:
    """E101 for a word that is no keyword, with the nearest keyword (returned) as its hint,
    or the list of keywords when none is near."""
    guess = suggest(arg.keyword, ALL_KEYWORDS)
    hint = f"did you mean {guess}?" if guess else ("keywords are " + " ".join(sorted(ALL_KEYWORDS)))
    diags.append(
        make_diagnostic(
            "E101",
            path,
            tok.line,
            tok.column,
            end_column=arg.end_column,
            keyword=arg.keyword,
            suggestion=hint,
        )
    )
    return guess


def _repeated_keyword(tok: Token, arg: Arg, first: Arg, path: str) -> Diagnostic:
    """E102 for a keyword given twice in one entry, naming where it first stood."""
    return make_diagnostic(
        "E102",
        path,
        tok.line,
        tok.column,
        end_column=arg.end_column,
        keyword=arg.keyword,
        first=first.column if first.line == tok.line else f"{first.column} of line {first.line}",
    )


def _skip_group(toks: tuple[Token, ...], i: int) -> int:
    """Index after the ``)`` closing the group opened at ``i`` (or the end)."""
    j = i + 1
    while j < len(toks) and toks[j].kind not in (TokenKind.RPAREN, TokenKind.LPAREN):
        j += 1
    return j + 1 if j < len(toks) and toks[j].kind == TokenKind.RPAREN else j


def _item(
    toks: tuple[Token, ...],
    i: int,
    path: str,
    diags: list[Diagnostic],
) -> tuple[Arg, int]:
    """Read ``WORD [(value)]`` starting at ``i``; return the item and the next index."""
    kw = toks[i]
    name = kw.text.upper()
    kw_end = kw.end_column if kw.end_line == kw.line else None
    if i + 1 >= len(toks) or toks[i + 1].kind != TokenKind.LPAREN:
        return Arg(name, kw.line, kw.column, kw_end, None, bare=True), i + 1
    j = i + 2
    inner: list[Token] = []
    while j < len(toks) and toks[j].kind not in (TokenKind.RPAREN, TokenKind.LPAREN):
        inner.append(toks[j])
        j += 1
    closed = j < len(toks) and toks[j].kind == TokenKind.RPAREN
    broken = any(t.bad for t in inner)
    if not closed:
        broken = True
        if not (inner and inner[-1].bad):  # an unterminated string is already reported
            diags.append(
                make_diagnostic("E105", path, toks[i + 1].line, toks[i + 1].column, keyword=name)
            )
    end_column = toks[j].end_column if closed and toks[j].line == kw.line else kw_end
    value: Value | None = None
    if inner:
        first = inner[0]
        quoted = first.kind == TokenKind.STRING
        value = Value(
            first.text if quoted else first.text.upper(),
            first.text,
            quoted,
            first.line,
            first.column,
            first.end_line,
            first.end_column,
        )
        if len(inner) > 1 and not broken:
            extra = inner[1]
            diags.append(
                make_diagnostic(
                    "E107", path, extra.line, extra.column, keyword=name, value=first.text
                )
            )
            broken = True
    return Arg(name, kw.line, kw.column, end_column, value, broken=broken), j + 1 if closed else j
