"""The keywords of the rules-table language and what each accepts (spec §1.2-§4)."""

from __future__ import annotations

import difflib

from dlqhandler.rules.fields import PATTERN_FIELDS

__all__ = [
    "ACTION_KEYWORDS",
    "ALL_KEYWORDS",
    "CONTROL_KEYWORDS",
    "FEEDBACK_WARN_FAMILIES",
    "NAME_LENGTHS",
    "NUMERIC_FAMILIES",
    "PATTERN_KEYWORDS",
    "RULE_KEYWORDS",
    "STRING_LENGTHS",
    "suggest",
]

PATTERN_KEYWORDS: tuple[str, ...] = tuple(PATTERN_FIELDS)
ACTION_KEYWORDS: tuple[str, ...] = ("ACTION", "FWDQ", "FWDQM", "HEADER", "PUTAUT", "RETRY")
CONTROL_KEYWORDS: tuple[str, ...] = ("INPUTQ", "INPUTQM", "RETRYINT", "WAIT")
RULE_KEYWORDS: frozenset[str] = frozenset(PATTERN_KEYWORDS + ACTION_KEYWORDS)
ALL_KEYWORDS: tuple[str, ...] = PATTERN_KEYWORDS + ACTION_KEYWORDS + CONTROL_KEYWORDS

# Maximum value length of the string pattern keywords ('*' not counted).
STRING_LENGTHS: dict[str, int] = {
    k: spec.length for k, spec in PATTERN_FIELDS.items() if spec.kind == "str"
}
# Queue and queue-manager name keywords (no wildcards; MQ naming rules).
NAME_LENGTHS: dict[str, int] = {"FWDQ": 48, "FWDQM": 48, "INPUTQ": 48, "INPUTQM": 48}

# Symbolic-name families each numeric pattern keyword accepts.
NUMERIC_FAMILIES: dict[str, tuple[str, ...]] = {
    "APPLTYPE": ("MQAT",),
    "FEEDBACK": ("MQFB",),
    "MSGTYPE": ("MQMT",),
    "PERSIST": ("MQPER",),
    "REASON": ("MQRC", "MQFB"),
}
# Families accepted with a warning (reason codes in Feedback come from reports).
FEEDBACK_WARN_FAMILIES: dict[str, tuple[str, ...]] = {"FEEDBACK": ("MQRC",)}


def _distance(a: str, b: str) -> int:
    """Levenshtein edit distance."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def suggest(word: str, choices: tuple[str, ...] | list[str], *, prefix: bool = True) -> str | None:
    """The choice ``word`` most likely meant.

    A unique prefix match wins (``ACT`` -> ``ACTION``); otherwise the closest
    candidate by edit distance among difflib's close matches and those at most
    two edits away (``RETRIES`` -> ``RETRY``, not ``RETRYINT``).
    """
    word = word.upper()
    if prefix:
        starts = [c for c in choices if c.startswith(word)]
        if len(starts) == 1:
            return starts[0]
    pool = set(difflib.get_close_matches(word, list(choices), n=5, cutoff=0.6))
    if len(choices) <= 50:  # long lists (MQRC_* names): difflib's candidates are enough
        # (lengths more than 2 apart are more than 2 edits apart: no distance to compute)
        pool |= {c for c in choices if abs(len(word) - len(c)) <= 2 and _distance(word, c) <= 2}
    if not pool:
        return None

    def rank(c: str) -> tuple[int, float, str]:
        return (_distance(word, c), -difflib.SequenceMatcher(None, word, c).ratio(), c)

    return min(pool, key=rank)
