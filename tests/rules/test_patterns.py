"""String patterns: the regex, the specialised tests and the reference agree (spec §3.2)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dlqhandler.rules.patterns import classify, covers, literal_head, matcher, pad, to_regex
from tests.rules.reference import reference_match

PATTERN_CHARS = st.sampled_from("AB *?.(\\[$")
FIELD_CHARS = st.sampled_from("AB .(\\[$\t")
patterns = st.text(PATTERN_CHARS, min_size=1, max_size=10)
fields = st.text(FIELD_CHARS, max_size=10)
lengths = st.integers(min_value=1, max_value=12)

# The only constructs the regex may use (Python re and Java regex both accept them).
_TOKEN = re.compile(
    r"\(\?s:|\)|\.\*|\(\?=\.\*\[\^ \]\)\.|\\u[0-9a-f]{4}|\\[\\^$.|?*+()\[\]{}]"
    r"|[^\\^$.|?*+()\[\]{}]"
)


@settings(max_examples=600, deadline=None)
@given(patterns, fields, lengths)
def test_regex_and_fast_test_agree_with_reference(pattern: str, value: str, length: int) -> None:
    """For any pattern and field, full-match of the regex = specialised test = reference."""
    f = pad(value, length)
    expected = reference_match(pattern, value, length)
    assert (re.fullmatch(to_regex(pattern), f) is not None) == expected
    assert matcher(pattern, length)(f) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec="utf-8"), min_size=1, max_size=12))
def test_regex_uses_only_shared_python_java_syntax(pattern: str) -> None:
    """The regex is (?s:...) then ' *', built only from tokens both engines read alike."""
    rx = to_regex(pattern)
    assert rx.startswith("(?s:")
    assert rx.endswith(") *")
    body = rx[len("(?s:") : -len(") *")]
    pos = 0
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        assert m is not None, f"unexpected regex syntax at {body[pos:]!r}"
        pos = m.end()
    re.compile(rx)


@pytest.mark.parametrize(
    ("pattern", "kind"),
    [
        ("*", "any"),
        ("***", "any"),
        ("?*", "nonblank"),
        ("?**", "nonblank"),
        ("ABC", "exact"),
        ("AB ", "exact"),
        ("AB*", "prefix"),
        ("AB**", "prefix"),
        ("A*B", "generic"),
        ("?", "generic"),
        ("A?", "generic"),
        ("*A", "generic"),
        ("??*", "generic"),
    ],
)
def test_classify(pattern: str, kind: str) -> None:
    """Patterns are sorted into the specialised kinds back ends can use."""
    assert classify(pattern) == kind


def test_regex_examples() -> None:
    """The regex translation: '?' needs a non-blank ahead, '*' is '.*', literals escaped."""
    assert to_regex("A?C") == "(?s:A(?=.*[^ ]).C) *"
    assert to_regex("A**.B") == "(?s:A.*\\.B) *"
    assert to_regex("X\tY") == "(?s:X\\u0009Y) *"


@settings(max_examples=400, deadline=None)
@given(patterns, patterns, fields, lengths)
@example(".A", ".", ".", 1)  # an exact pattern longer than its field matches nothing
def test_covers_is_sound(a: str, b: str, value: str, length: int) -> None:
    """When ``covers(a, b)`` says yes, every field that b matches, a matches too."""
    if covers(a, b, length) and reference_match(b, value, length):
        assert reference_match(a, value, length)


def test_covers_examples() -> None:
    """Typical inclusions are recognised; exclusions are not claimed."""
    assert covers("*", "ABC", 8)
    assert covers("?*", "A*", 8)
    assert covers("?*", "?", 8)
    assert not covers("?*", "*", 8)
    assert covers("AB*", "ABC", 8)
    assert covers("AB*", "ABC*", 8)
    assert covers("AB*", "AB?D*", 8)
    assert not covers("AB*", "A*", 8)
    assert covers("'A*C'".strip("'"), "ABC", 8)
    assert covers("AB", "AB  ", 8)
    assert not covers("ABC", "AB*", 8)
    assert literal_head("AB?C*") == "AB"
