"""The indexed reachability walk gives exactly the all-pairs walk's answers (issue 28).

``reachability`` compares each rule only with the earlier rules its index finds (it used
to compare every wildcard rule with every earlier one: 69 s for 10,000 rules). The oracle
here is the §5.5 walk written out by brute force: every earlier rule, in order, tested with
``rule_covers``. Seeded random tables over small pools of values (so that rules cover each
other often, with every pattern kind: exact, prefix, generic, non-blank, any; a value that
fills its field) must give the same Reach for every rule, and ``compile_rules`` the
same diagnostics.
"""

from __future__ import annotations

import random

import pytest

from dlqhandler.rules import checks, compile_rules
from dlqhandler.rules.checks import Reach, reachability, rule_covers
from dlqhandler.rules.ir import Rule

STRING_PATTERNS = [
    "*",
    "?*",
    "A",
    "A*",
    "AB",
    "AB*",
    "A?",
    "A?C*",
    "*B",
    "'A '",
    "B*",
    "ABC",
    "'A B'",
    "A*B",
    "??*",
    "'AB*'",
    "QQQQQQQQ",
    "Q*",
    "'?*'",
    "'A  '",
]
INT_KEYWORDS = {
    "REASON": ["2053", "2051", "MQRC_Q_FULL", "*"],
    "PERSIST": ["0", "1"],
    "MSGTYPE": ["1", "8"],
}
STRING_KEYWORDS = ["DESTQ", "REPLYQ", "APPLNAME", "FORMAT", "USERID"]
ACTIONS = [
    "ACTION(RETRY) RETRY(2)",
    "ACTION(RETRY)",
    "ACTION(FWD) FWDQ(X) RETRY(3)",
    "ACTION(FWD) FWDQ(Y)",
    "ACTION(DISCARD)",
    "ACTION(IGNORE)",
]


def brute_force(rules: list[Rule] | tuple[Rule, ...]) -> list[Reach]:
    """The §5.5 walk over every earlier rule: the oracle."""
    out = []
    for j, later in enumerate(rules):
        after: list[int] = []
        attempts = 0
        reach = None
        for earlier in rules[:j]:
            if not rule_covers(earlier, later):
                continue
            if earlier.action.kind in ("IGNORE", "DISCARD"):
                reach = Reach(earlier.line, earlier.action.kind, tuple(after), attempts)
                break
            after.append(earlier.line)
            attempts += earlier.retry
        out.append(reach or Reach(None, None, tuple(after), attempts))
    return out


def random_table(rng: random.Random, size: int) -> str:
    lines = []
    for _ in range(size):
        parts = []
        for keyword, values in INT_KEYWORDS.items():
            if rng.random() < 0.3:
                parts.append(f"{keyword}({rng.choice(values)})")
        for keyword in STRING_KEYWORDS:
            if rng.random() < 0.35:
                parts.append(f"{keyword}({rng.choice(STRING_PATTERNS)})")
        parts.append(rng.choice(ACTIONS))
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_indexed_walk_equals_brute_force(seed: int) -> None:
    """On 40 seeded random tables of 120 overlapping rules, every rule's Reach (never
    reached by which line, reached after which lines and how many attempts) is the
    brute-force walk's."""
    rng = random.Random(seed)
    result = compile_rules(random_table(rng, 120), source="t.rul")
    assert result.ruleset is not None, result.errors
    rules = result.ruleset.rules
    expected = brute_force(rules)
    assert reachability(rules) == expected
    assert any(r.never_by or r.after for r in expected)  # the table exercises coverage


def test_the_same_diagnostics_as_with_the_brute_force_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """compile_rules gives the same diagnostics (W501 included) with the indexed walk as
    with the brute-force one, on a 1,500-rule table of wildcard rules that cover each
    other (prefixes of prefixes, shared REASON values, generic patterns)."""
    rng = random.Random(28)
    lines = []
    for i in range(1500):
        head = f"APP{rng.randrange(60)}"
        kind = i % 5
        if kind == 0:
            lines.append(f"DESTQ({head}*) ACTION(FWD) FWDQ(X{i}) RETRY(1)")
        elif kind == 1:
            lines.append(f"DESTQ({head}.{rng.randrange(9)}*) REASON(2053) ACTION(RETRY)")
        elif kind == 2:
            lines.append(f"APPLNAME({head}?*) DESTQ({head}*) ACTION(IGNORE)")
        elif kind == 3:
            lines.append(f"DESTQ({head}.Q{rng.randrange(5)}) ACTION(DISCARD)")
        else:
            lines.append(f"REPLYQ(?*) DESTQ({head[:4]}*) ACTION(FWD) FWDQ(Y)")
    table = "\n".join(lines) + "\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n"
    fast = compile_rules(table, source="w.rul")
    monkeypatch.setattr(checks, "reachability", brute_force)
    slow = compile_rules(table, source="w.rul")
    assert fast.diagnostics == slow.diagnostics
    assert sum(d.code == "W501" for d in fast.diagnostics) > 100


def test_rules_without_conditions_cover_everything_after_them() -> None:
    """An unconditional RETRY rule is indexed apart (it has no key) and still listed in the
    'after' of every later rule; an unconditional IGNORE hides every later rule."""
    table = (
        "ACTION(RETRY) RETRY(2)\nDESTQ(A*) ACTION(FWD) FWDQ(X)\nACTION(IGNORE)\n"
        "REASON(2053) ACTION(DISCARD)\n"
    )
    result = compile_rules(table)
    assert result.ruleset is not None
    rules = result.ruleset.rules
    assert reachability(rules) == brute_force(rules)
    assert reachability(rules)[3].never_by == 3
