"""plan_outgoing: what a RETRY or FWD puts, and what it refuses (shared with the drain)."""

from __future__ import annotations

import pytest

from dlqhandler.mq import Message
from dlqhandler.rules import InvalidTargetError, compile_rules, decide
from dlqhandler.rules.outgoing import ActionError, ForwardLoopError, header_depth, plan_outgoing
from tests.worker.helpers import dead_letter


def _decision(rule: str, message: Message):
    ruleset = compile_rules(rule + "\n").ruleset
    assert ruleset is not None
    return decide(ruleset, message, 0)


def test_a_name_longer_than_48_characters_is_refused() -> None:
    """A DestQName of 49 characters cannot come off the wire, but a decoded header from
    another source could hold one: it is an InvalidTargetError, not a put."""
    m = dead_letter("x")
    assert m.dlh is not None
    long = Message(m.md, m.body, m.dlh.replace(dest_q_name="Q" * 49))
    with pytest.raises(InvalidTargetError, match="49 characters"):
        plan_outgoing(_decision("ACTION(RETRY)", long), long, input_queue="DLQ", local_qmgr="QM1")


def test_header_no_strips_one_header_and_counts_hops() -> None:
    """HEADER(NO) strips exactly the outer MQDLH; header_depth counts the chain."""
    inner = dead_letter("payload")
    outer = Message.dead_letter(inner.md, inner.body, reason=2053, dest_q_name="B")
    assert (header_depth(inner), header_depth(outer)) == (1, 2)
    out, target = plan_outgoing(
        _decision("ACTION(FWD) FWDQ(T) HEADER(NO)", outer),
        outer,
        input_queue="DLQ",
        local_qmgr="QM1",
    )
    assert (out.body, out.md.format, target.queue) == (inner.body, "MQDEAD", "T")
    with pytest.raises(ForwardLoopError, match="2 dead-letter headers"):
        plan_outgoing(
            _decision("ACTION(FWD) FWDQ(T)", outer),
            outer,
            input_queue="DLQ",
            local_qmgr="QM1",
            max_hops=2,
        )


def test_forward_to_the_input_queue_on_this_queue_manager_is_a_loop() -> None:
    """FWDQ(DLQ) FWDQM(<this queue manager>) is the same loop as a blank FWDQM."""
    m = dead_letter("x")
    with pytest.raises(ForwardLoopError):
        plan_outgoing(
            _decision("ACTION(FWD) FWDQ(DLQ) FWDQM(QM1)", m), m, input_queue="DLQ", local_qmgr="QM1"
        )
    _out, target = plan_outgoing(
        _decision("ACTION(FWD) FWDQ(DLQ) FWDQM(QM2)", m), m, input_queue="DLQ", local_qmgr="QM1"
    )
    assert (target.queue, target.qmgr) == ("DLQ", "QM2")


def test_putaut_ctx_needs_a_usable_user_id() -> None:
    """PUTAUT(CTX) with a blank UserIdentifier cannot assume any identity."""
    m = dead_letter("x", user="")
    with pytest.raises(ActionError, match="UserIdentifier"):
        plan_outgoing(
            _decision("ACTION(FWD) FWDQ(T) PUTAUT(CTX)", m), m, input_queue="DLQ", local_qmgr="QM1"
        )
