"""Lexer and parser: logical entries, tokens and items keep their source positions."""

from __future__ import annotations

from dlqhandler.rules.lexer import TokenKind, lex, source_lines
from dlqhandler.rules.parser import parse


def test_tokens_carry_physical_positions_across_continuations() -> None:
    """A token after a '+' join points at its own physical line and column."""
    entries, diags = lex("DESTQ(A) +\n   ACTION(FWD) FWDQ('X''Y')\n")
    assert diags == []
    (entry,) = entries
    assert entry.line == 1
    assert entry.text == "DESTQ(A) ACTION(FWD) FWDQ('X''Y')"
    words = [(t.text, t.line, t.column) for t in entry.tokens if t.kind == TokenKind.WORD]
    assert words == [
        ("DESTQ", 1, 1),
        ("A", 1, 7),
        ("ACTION", 2, 4),
        ("FWD", 2, 11),
        ("FWDQ", 2, 16),
    ]
    string = next(t for t in entry.tokens if t.kind == TokenKind.STRING)
    assert (string.text, string.line, string.column, string.end_column) == ("X'Y", 2, 21, 27)


def test_quoted_value_split_by_continuation_spans_lines() -> None:
    """A quoted value continued with '-' starts on one line and ends on the next."""
    entries, _ = lex("APPLNAME('ABC-\n D') ACTION(DISCARD)\n")
    string = next(t for t in entries[0].tokens if t.kind == TokenKind.STRING)
    assert string.text == "ABC D"
    assert (string.line, string.column, string.end_line, string.end_column) == (1, 10, 2, 4)


def test_comments_are_dropped_before_joining() -> None:
    """A comment line inside a continued entry is skipped, its trailing '-' ignored."""
    entries, _ = lex("REASON(2053) +\n* note -\n ACTION(DISCARD)\n* end +\nACTION(IGNORE)\n")
    assert [e.text for e in entries] == ["REASON(2053) ACTION(DISCARD)", "ACTION(IGNORE)"]
    assert [e.line for e in entries] == [1, 5]


def test_source_lines_handle_crlf_bom_and_missing_newline() -> None:
    """Lines are split on LF; a CR before it and a leading BOM are dropped."""
    assert source_lines("\ufeffA\r\nB\r\nC") == ["A", "B", "C"]
    assert source_lines("A\n") == ["A", ""]
    assert source_lines("") == [""]


def test_parser_items_and_values() -> None:
    """Items keep keyword and value positions; unquoted values are folded, quoted kept."""
    entries, _ = lex("destq(myq) ACTION ( FWD ) FWDQ('Mixed.Q')\n")
    (parsed,), diags = parse(entries)
    assert diags == []
    assert list(parsed.args) == ["DESTQ", "ACTION", "FWDQ"]
    destq = parsed.args["DESTQ"].value
    assert destq is not None
    assert (destq.text, destq.raw, destq.quoted, destq.has_lower) == ("MYQ", "myq", False, True)
    action = parsed.args["ACTION"]
    assert action.value is not None
    assert (action.column, action.value.text, action.value.column) == (12, "FWD", 21)
    fwdq = parsed.args["FWDQ"].value
    assert fwdq is not None
    assert (fwdq.text, fwdq.quoted, fwdq.has_lower) == ("Mixed.Q", True, False)


def test_parser_marks_broken_items_and_reports_once() -> None:
    """A syntax error is reported once; the item is kept but not checked further."""
    entries, lex_diags = lex("DESTQ(A B) FORMAT ACTION(IGNORE\n")
    (parsed,), diags = parse(entries)
    assert lex_diags == []
    assert [d.code for d in diags] == ["E107", "E103", "E105"]
    assert parsed.args["DESTQ"].broken
    assert parsed.args["FORMAT"].bare
    assert parsed.args["ACTION"].broken


def test_unknown_keywords_are_remembered_with_suggestions() -> None:
    """Unknown keywords and what they probably meant feed later checks."""
    entries, _ = lex("ACTON(IGNORE) XYZZY(1)\n")
    (parsed,), diags = parse(entries)
    assert parsed.unknown == ("ACTON", "XYZZY")
    assert parsed.suggestions == ("ACTION",)
    assert [d.code for d in diags] == ["E101", "E101"]
