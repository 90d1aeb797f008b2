"""Hypothesis strategies: random rules tables and messages that overlap often."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

# Small pools of values so random rules and messages overlap often.
STRING_PATTERNS = ["*", "?*", "A", "A*", "AB", "A?", "*B", "'A '", "B*"]
STRING_VALUES = ["", "A", "AB", "ABC", "B", "A B", " A"]
KEYWORD_VALUES: dict[str, list[Any]] = {
    "REASON": [2053, 2051, 2035],
    "PERSIST": [0, 1],
    "MSGTYPE": [1, 8],
}
STRING_KEYWORDS = ["DESTQ", "REPLYQM", "FORMAT", "USERID"]
ACTIONS = [
    "ACTION(RETRY) RETRY(2)",
    "ACTION(RETRY)",
    "ACTION(FWD) FWDQ(X) RETRY(3)",
    "ACTION(DISCARD)",
    "ACTION(IGNORE)",
]


@st.composite
def rule_lines(draw: st.DrawFn) -> str:
    parts = []
    for keyword, values in KEYWORD_VALUES.items():
        if draw(st.booleans()):
            parts.append(f"{keyword}({draw(st.sampled_from([*values, '*']))})")
    for keyword in STRING_KEYWORDS:
        if draw(st.integers(0, 3)) == 0:
            parts.append(f"{keyword}({draw(st.sampled_from(STRING_PATTERNS))})")
    parts.append(draw(st.sampled_from(ACTIONS)))
    return " ".join(parts)


tables = st.lists(rule_lines(), min_size=1, max_size=40).map(lambda ls: "\n".join(ls) + "\n")


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    fields: dict[str, Any] = {k: draw(st.sampled_from(v)) for k, v in KEYWORD_VALUES.items()}
    for keyword in STRING_KEYWORDS:
        fields[keyword] = draw(st.sampled_from(STRING_VALUES))
    return fields
