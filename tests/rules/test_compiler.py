"""The compiler and its IR: frozen, deterministic, JSON and pickle round-trips."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle

import pytest
from hypothesis import given, settings

from dlqhandler.errors import RulesError
from dlqhandler.rules import (
    Action,
    ControlData,
    IntPredicate,
    Rule,
    RuleSet,
    StringPredicate,
    compile_rules,
    compile_rules_or_raise,
)
from tests.rules.strategies import tables

IBM_R3 = (
    "MSGTYPE(MQMT_REQUEST) REPLYQM(AAAA.*) +\n"
    "  ACTION(FWD) FWDQ(DEADQ) FWDQM(&REPLYQM)\n"
    "ACTION(FWD) FWDQ(DEADQ.MANUAL.INTERVENTION)\n"
)


def test_compiled_ir_shape() -> None:
    """Predicates per field in keyword order, action, retry, source line and text."""
    rs = compile_rules_or_raise(IBM_R3, source="r3.rul")
    assert rs.control == ControlData(None, None, 60, "YES")
    first = rs.rules[0]
    assert first == Rule(
        line=1,
        predicates=(
            IntPredicate("MSGTYPE", 1),
            StringPredicate("REPLYQM", 48, "AAAA.*", "prefix", "(?s:AAAA\\..*) *"),
        ),
        action=Action("FWD", "DEADQ", "&REPLYQM", True, "DEF"),
        retry=1,
        text="MSGTYPE(MQMT_REQUEST) REPLYQM(AAAA.*) ACTION(FWD) FWDQ(DEADQ) FWDQM(&REPLYQM)",
    )
    assert rs.rules[1].predicates == ()
    assert rs.source == "r3.rul"
    assert rs.sha256 == hashlib.sha256(IBM_R3.encode()).hexdigest()
    assert rs.keywords_read == ("MSGTYPE", "REPLYQM")


def test_ir_is_frozen_and_slotted() -> None:
    """IR objects cannot be changed after compiling."""
    rs = compile_rules_or_raise(IBM_R3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rs.rules[0].retry = 5  # type: ignore[misc]
    assert not hasattr(rs.rules[0], "__dict__")


def test_same_input_same_json_bytes() -> None:
    """Compiling the same text twice gives byte-identical JSON; the JSON is ASCII."""
    text = "APPLIDAT('Größe') ACTION(DISCARD)\n" + IBM_R3
    a = compile_rules_or_raise(text, source="x").to_json()
    b = compile_rules_or_raise(text, source="x").to_json()
    assert a == b
    assert a.isascii()


@settings(max_examples=60, deadline=None)
@given(tables)
def test_json_and_pickle_round_trips_are_identity(text: str) -> None:
    """Any compiled table survives JSON and pickle unchanged (equal, same JSON)."""
    rs = compile_rules_or_raise(text, source="random")
    again = RuleSet.from_json(rs.to_json())
    assert again == rs
    assert again.to_json() == rs.to_json()
    assert pickle.loads(pickle.dumps(rs)) == rs
    assert hash(again) == hash(rs)


def test_from_json_rejects_other_documents() -> None:
    """Malformed or foreign JSON raises RulesError, not a bare KeyError."""
    with pytest.raises(RulesError, match="format"):
        RuleSet.from_json('{"format": "something/9"}')
    with pytest.raises(RulesError, match="malformed"):
        RuleSet.from_json('{"format": "dlqhandler.rules/1", "rules": []}')
    with pytest.raises(RulesError, match="malformed"):
        RuleSet.from_json("not json")


def test_compile_result_on_errors() -> None:
    """With any error there is no ruleset; diagnostics come sorted by line and column."""
    result = compile_rules("ACTION(FWD)\nREASON(2053) RETRIES(1) ACTION(FOO)\n")
    assert result.ruleset is None
    assert not result.ok
    assert [(d.line, d.column, d.code) for d in result.diagnostics] == [
        (1, 1, "E401"),
        (2, 14, "E101"),
        (2, 32, "E310"),
    ]
    assert len(result.errors) == 3
    assert result.warnings == ()


def test_warnings_do_not_stop_compiling() -> None:
    """Warnings are reported alongside a usable ruleset."""
    result = compile_rules("REASON(2053)ACTION(DISCARD)\n")
    assert result.ok
    assert {d.code for d in result.warnings} == {"W101", "W505"}


def test_compile_rules_or_raise_carries_every_diagnostic() -> None:
    """RulesError keeps all diagnostics (errors and warnings) as data."""
    with pytest.raises(RulesError) as info:
        compile_rules_or_raise("ACTION(FWD)\nWAIT(NO)\n", source="bad.rul")
    err = info.value
    assert "2 error(s) in rules table bad.rul" in str(err)
    assert [d.code for d in err.diagnostics] == ["E401", "E201"]  # type: ignore[attr-defined]


def test_options_reach_the_checks() -> None:
    """input_queue and triggered switch on the loop and triggering warnings."""
    text = "REASON(1) ACTION(IGNORE)\nACTION(FWD) FWDQ(MY.DLQ)\n"
    assert {d.code for d in compile_rules(text).diagnostics} == set()
    codes = {d.code for d in compile_rules(text, input_queue="MY.DLQ", triggered=True).diagnostics}
    assert codes == {"W504", "W507"}
