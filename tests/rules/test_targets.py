"""Targets of RETRY and FWD: substitutions resolved, untrusted names checked."""

from __future__ import annotations

import pytest

from dlqhandler.errors import DLQHandlerError
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.names import (
    is_valid_qmgr_name,
    is_valid_queue_name,
    validate_qmgr_name,
    validate_queue_name,
)
from dlqhandler.rules import (
    Action,
    InvalidTargetError,
    ResolvedTarget,
    compile_rules_or_raise,
    resolve_target,
)
from tests.conformance.messages import build_message


def test_retry_goes_to_the_original_destination() -> None:
    """RETRY puts to MQDLH.DestQName at MQDLH.DestQMgrName (blank = local)."""
    msg = build_message({"DESTQ": "ORDERS", "DESTQM": "QM.EAST"})
    assert resolve_target(Action("RETRY"), msg) == ResolvedTarget("ORDERS", "QM.EAST")
    local = build_message({"DESTQ": "ORDERS", "DESTQM": ""})
    assert resolve_target(Action("RETRY"), local) == ResolvedTarget("ORDERS", "")


def test_fwd_substitutions_and_literals() -> None:
    """&DESTQ/&REPLYQ and &DESTQM/&REPLYQM take the message's fields; literals stay."""
    msg = build_message({"DESTQ": "D.Q", "DESTQM": "D.QM", "REPLYQ": "R.Q", "REPLYQM": "R.QM"})
    assert resolve_target(Action("FWD", "&DESTQ", "&REPLYQM"), msg) == ResolvedTarget("D.Q", "R.QM")
    assert resolve_target(Action("FWD", "&REPLYQ", "&DESTQM"), msg) == ResolvedTarget("R.Q", "D.QM")
    literal = ResolvedTarget("LIT.Q", "LIT.QM")
    assert resolve_target(Action("FWD", "LIT.Q", "LIT.QM"), msg) == literal
    assert resolve_target(Action("FWD", "LIT.Q"), msg) == ResolvedTarget("LIT.Q", "")


def test_rule_or_action_accepted_and_line_reported() -> None:
    """A Rule resolves like its action; errors name the rule's line."""
    rs = compile_rules_or_raise("\n\nACTION(FWD) FWDQ(&REPLYQ)\n")
    with pytest.raises(InvalidTargetError) as info:
        resolve_target(rs.rules[0], build_message({"REPLYQ": ""}))
    err = info.value
    assert isinstance(err, DLQHandlerError)
    assert (err.field, err.value, err.rule_line) == ("MQMD.ReplyToQ", "", 3)
    assert "line 3" in str(err)
    assert "blank" in str(err)


@pytest.mark.parametrize(
    ("fields", "action", "field"),
    [
        ({"DESTQ": ""}, Action("RETRY"), "MQDLH.DestQName"),
        ({"DESTQ": "BAD Q"}, Action("RETRY"), "MQDLH.DestQName"),
        ({"DESTQ": "Q", "DESTQM": "QM#1"}, Action("RETRY"), "MQDLH.DestQMgrName"),
        (
            {"REPLYQ": "R", "REPLYQM": "qm with blanks"},
            Action("FWD", "&REPLYQ", "&REPLYQM"),
            "MQMD.ReplyToQMgr",
        ),
        ({"DESTQ": "Q*"}, Action("FWD", "&DESTQ"), "MQDLH.DestQName"),
    ],
)
def test_untrusted_names_are_checked(fields: dict[str, str], action: Action, field: str) -> None:
    """Blank or invalid names from the message raise InvalidTargetError naming the field."""
    with pytest.raises(InvalidTargetError) as info:
        resolve_target(action, build_message(fields))
    assert info.value.field == field


def test_targets_need_a_dead_letter_header() -> None:
    """Substitutions from the MQDLH fail cleanly for a message without one."""
    plain = Message(MQMD(reply_to_q="R"), b"x")
    with pytest.raises(InvalidTargetError, match="no MQDLH"):
        resolve_target(Action("RETRY"), plain)
    assert resolve_target(Action("FWD", "&REPLYQ"), plain) == ResolvedTarget("R", "")


def test_discard_and_ignore_have_no_target() -> None:
    """Only RETRY and FWD put messages anywhere."""
    for kind in ("DISCARD", "IGNORE"):
        with pytest.raises(ValueError, match="no target"):
            resolve_target(Action(kind), build_message({}))  # type: ignore[arg-type]


def test_mq_name_rules() -> None:
    """Queue and queue-manager names: 1-48 of A-Z a-z 0-9 . / _ %; blank QM = local."""
    assert is_valid_queue_name("SYSTEM.DEAD.LETTER.QUEUE")
    assert is_valid_queue_name("a/b_c%d.E9")
    assert is_valid_queue_name("Q" * 48)
    assert not is_valid_queue_name("Q" * 49)
    assert not is_valid_queue_name("")
    assert not is_valid_queue_name("MY-Q")
    assert not is_valid_queue_name("MY Q")
    assert is_valid_qmgr_name("QM1")
    assert not is_valid_qmgr_name(" ")
    assert validate_qmgr_name("   ") == ""
    assert validate_queue_name("Q1", "FWDQ") == "Q1"
    with pytest.raises(ValueError, match=r"FWDQ '' is blank"):
        validate_queue_name("", "FWDQ")
    with pytest.raises(ValueError, match="characters not allowed"):
        validate_qmgr_name("QM!")
    with pytest.raises(ValueError, match="49 characters"):
        validate_queue_name("Q" * 49)
