"""The Python back end: decide() follows spec §5.5 exactly, fast paths included."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dlqhandler.mq import MQMD, Message
from dlqhandler.rules import (
    PATTERN_FIELDS,
    Matcher,
    RuleSet,
    compile_rules,
    decide,
    message_fields,
)
from tests.conformance.messages import build_message
from tests.rules.reference import reference_decide
from tests.rules.strategies import messages, tables


def _compile(text: str) -> RuleSet:
    result = compile_rules(text)
    assert result.ruleset is not None, [str(d) for d in result.diagnostics]
    return result.ruleset


@settings(max_examples=150, deadline=None)
@given(tables, st.lists(messages(), min_size=1, max_size=6), st.integers(0, 12))
def test_matcher_agrees_with_reference_walk(
    text: str, descs: list[dict[str, Any]], attempts: int
) -> None:
    """Dispatch tree, closures and cache choose exactly what the naive §5.5 walk chooses."""
    ruleset = _compile(text)
    cached, uncached = Matcher(ruleset), Matcher(ruleset, cache_size=0)
    for desc in descs:
        message = build_message(desc)
        fields = message_fields(message)
        want = reference_decide(ruleset, fields, attempts)
        for m in (cached, uncached, cached):
            got = m.decide(message, attempts)
            assert (got.rule.line if got.rule else None, got.action.kind) == want
            assert got.implicit == (got.rule is None)
        lines = [r.line for r in cached.matching_rules(fields)]
        assert list(cached.decide(message, attempts).matched_lines) == lines


def test_dispatch_keeps_table_order_in_large_tables() -> None:
    """With many exact REASON rules the index is used, and table order still wins."""
    lines = [f"REASON({2000 + i}) ACTION(FWD) FWDQ(Q{i})" for i in range(200)]
    lines.insert(150, "DESTQ(APP.*) ACTION(DISCARD)")
    lines.append("ACTION(FWD) FWDQ(DLQ.CATCHALL)")
    ruleset = _compile("\n".join(lines))
    m = Matcher(ruleset)
    early = m.decide(build_message({"REASON": 2010, "DESTQ": "APP.IN"}), 0)
    assert early.rule is not None
    assert early.rule.action.fwdq == "Q10"
    assert early.matched_lines == (11, 151, 202)
    late = m.decide(build_message({"REASON": 2160, "DESTQ": "APP.IN"}), 0)
    assert late.rule is not None
    assert late.rule.line == 151
    other = m.decide(build_message({"REASON": 9999, "DESTQ": "X"}), 0)
    assert other.rule is not None
    assert other.rule.line == 202


def test_cache_is_keyed_on_the_fields_the_table_reads() -> None:
    """Messages that differ only in fields the table does not read share a cache entry."""
    ruleset = _compile("REASON(2053) ACTION(RETRY)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n")
    assert ruleset.keywords_read == ("REASON",)
    m = Matcher(ruleset)
    m.decide(build_message({"REASON": 2053, "DESTQ": "A"}), 0)
    m.decide(build_message({"REASON": 2053, "DESTQ": "B", "USERID": "x"}), 3)
    info = m.cache_info()
    assert (info.hits, info.misses) == (1, 1)
    assert Matcher(ruleset, cache_size=0).cache_info() is None


def test_table_reading_no_fields() -> None:
    """A table of action-only rules matches every message without reading any field."""
    ruleset = _compile("ACTION(FWD) FWDQ(DLQ.CATCHALL)\n")
    assert ruleset.keywords_read == ()
    d = decide(ruleset, build_message({}), 0)
    assert d.rule is ruleset.rules[0]
    assert d.action.fwdq == "DLQ.CATCHALL"


def test_decide_reuses_a_matcher_per_ruleset() -> None:
    """The module-level decide() builds a Matcher once per table, not per call."""
    from dlqhandler.rules import matcher as mod

    ruleset = _compile("REASON(2053) ACTION(DISCARD)\n")
    decide(ruleset, build_message({}), 0)
    first = mod._matcher_for(ruleset)
    decide(ruleset, build_message({}), 1)
    assert mod._matcher_for(ruleset) is first


def test_message_without_dlh_is_rejected() -> None:
    """Only messages that start with an MQDLH are matched (spec §5.6)."""
    ruleset = _compile("ACTION(DISCARD)\n")
    plain = Message(MQMD(), b"no header")
    with pytest.raises(ValueError, match="MQDLH"):
        decide(ruleset, plain, 0)
    with pytest.raises(ValueError, match="MQDLH"):
        message_fields(plain)


def test_message_fields_follow_spec_field_map() -> None:
    """APPLNAME is MQMD.PutApplName, FORMAT is MQDLH.Format, REASON is MQDLH.Reason (§3.1)."""
    md = MQMD(
        put_appl_name="orig.exe",
        format="MQSTR",
        put_appl_type=6,
        msg_type=1,
        persistence=1,
        feedback=0,
        reply_to_q="R",
        reply_to_q_mgr="RQM",
        user_identifier="bob",
        appl_identity_data="id",
    )
    msg = Message.dead_letter(
        md, b"x", reason=2053, dest_q_name="D", dest_q_mgr_name="DQM", put_appl_name="dlq.putter"
    )
    assert message_fields(msg) == {
        "APPLIDAT": "id",
        "APPLNAME": "orig.exe",
        "APPLTYPE": 6,
        "DESTQ": "D",
        "DESTQM": "DQM",
        "FEEDBACK": 0,
        "FORMAT": "MQSTR",
        "MSGTYPE": 1,
        "PERSIST": 1,
        "REASON": 2053,
        "REPLYQ": "R",
        "REPLYQM": "RQM",
        "USERID": "bob",
    }
    assert msg.md.format == "MQDEAD"


def test_pattern_fields_table() -> None:
    """PATTERN_FIELDS: structure, attribute, kind and length for each keyword (spec §3.1)."""
    assert PATTERN_FIELDS["APPLNAME"] == ("md", "put_appl_name", "str", 28)
    assert PATTERN_FIELDS["FORMAT"] == ("dlh", "format", "str", 8)
    assert PATTERN_FIELDS["REASON"] == ("dlh", "reason", "int", 0)
    assert {k for k, v in PATTERN_FIELDS.items() if v.kind == "str"} == {
        "APPLIDAT",
        "APPLNAME",
        "DESTQ",
        "DESTQM",
        "FORMAT",
        "REPLYQ",
        "REPLYQM",
        "USERID",
    }
    assert {v.length for v in PATTERN_FIELDS.values() if v.kind == "str"} == {8, 12, 28, 32, 48}


def test_matching_rules_from_field_values() -> None:
    """matching_rules() takes keyword -> value, as a Spark row or a test would give them."""
    ruleset = _compile("DESTQ(A*) ACTION(DISCARD)\nREASON(1) ACTION(IGNORE)\nACTION(FWD) FWDQ(Z)\n")
    m = Matcher(ruleset)
    got = m.matching_rules({"DESTQ": "AB", "REASON": 1})
    assert [r.line for r in got] == [1, 2, 3]
    assert [r.line for r in m.matching_rules({"DESTQ": "B", "REASON": 2})] == [3]


@settings(max_examples=150, deadline=None)
@given(tables, st.lists(messages(), min_size=1, max_size=6))
def test_reachability_analysis_is_sound(text: str, descs: list[dict[str, Any]]) -> None:
    """A rule flagged 'never reached' is never chosen; one reached 'only after N
    failures' is never chosen before encounter N.

    Checked against the reference walk, encounter after encounter, until a
    DISCARD removes the message (a DISCARD cannot fail; every other outcome
    leaves the message for its next encounter).
    """
    from dlqhandler.rules.checks import reachability

    ruleset = _compile(text)
    reach = {r.line: x for r, x in zip(ruleset.rules, reachability(ruleset.rules), strict=True)}
    for desc in descs:
        fields = message_fields(build_message(desc))
        for n in range(12):
            line, kind = reference_decide(ruleset, fields, n)
            if line is not None:
                assert reach[line].never_by is None
                assert n >= reach[line].attempts
            if kind == "DISCARD":
                break
