"""Arbitrary text never crashes the compiler, and every position points into the input."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from dlqhandler.rules import CODES, compile_rules
from dlqhandler.rules.lexer import source_lines

# Text made of the language's own pieces finds deeper paths than random characters.
PIECES = st.sampled_from(
    [
        "ACTION",
        "(",
        ")",
        "'",
        "''",
        " ",
        ",",
        "\n",
        "\r\n",
        "+",
        "-",
        "*",
        "?",
        "&",
        "FWD",
        "FWDQ",
        "FWDQM",
        "RETRY",
        "IGNORE",
        "DISCARD",
        "REASON",
        "MQRC_Q_FULL",
        "2053",
        "DESTQ",
        "INPUTQ",
        "WAIT",
        "NO",
        "HEADER",
        "YES",
        "PUTAUT",
        "CTX",
        "&DESTQ",
        "&REPLYQM",
        "MSGTYPE",
        "FORMAT",
        "MQFMT_STRING",
        "APPLTYPE",
        "MQAT_UNKNOWN",
        "A.Q",
        "x",
        "#",
        "\t",
        "é",
        "日",
        "RETRYINT",
        "0",
        "999999999",
        "1000000000",
        "REPLYQ",
        "?*",
        "USERID",
        "FEEDBACK",
    ]
)
language_like = st.lists(PIECES, max_size=60).map("".join)


def _check_positions(text: str) -> None:
    result = compile_rules(text, source="prop")
    lines = source_lines(text)
    for d in result.diagnostics:
        assert d.code in CODES
        assert 1 <= d.line <= len(lines), str(d)
        assert 1 <= d.column <= len(lines[d.line - 1]) + 1, str(d)
        if d.end_column is not None:
            assert d.column < d.end_column <= len(lines[d.line - 1]) + 1, str(d)
    has_error = any(d.severity == "error" for d in result.diagnostics)
    assert (result.ruleset is None) == has_error


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200))
@example("")
@example("\ufeff")
@example("'")
@example("ACTION(FWD) FWDQ('a\x00b')")
@example("* comment +\n+\n-")
def test_arbitrary_text_gives_only_diagnostics(text: str) -> None:
    """Any string compiles to diagnostics (never an exception), positions in range."""
    _check_positions(text)


@settings(max_examples=600, deadline=None)
@given(language_like)
def test_language_like_text_gives_only_diagnostics(text: str) -> None:
    """Text built from keywords, values and punctuation never crashes the compiler."""
    _check_positions(text)
