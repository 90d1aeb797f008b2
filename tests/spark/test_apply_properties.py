"""drain --apply keeps message properties: the per-message function the executors run
moves a property-bearing dead letter (RETRY, FWD, or to the catch-all queue) with the same
properties. No Spark needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import GetOptions, PutOptions
from dlqhandler.rules import Matcher, compile_rules
from dlqhandler.spark.drain.apply import apply_message

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
PROPS = (
    Property("mcd.Msd", PropertyType.STRING, "jms_text"),
    Property("Items", PropertyType.INT32, 7),
    Property("Checksum", PropertyType.BYTE_STRING, b"\x01\x02"),
    Property("Coupon", PropertyType.NULL, None),
)


@pytest.mark.parametrize(
    ("table", "target", "catch_all"),
    [
        ("ACTION(RETRY)\n", "APP.ORDERS", None),
        ("ACTION(FWD) FWDQ(OUT) HEADER(YES)\n", "OUT", None),
        ("ACTION(FWD) FWDQ(OUT) HEADER(NO)\n", "OUT", None),
        ("ACTION(IGNORE)\n", "CATCH", "CATCH"),
    ],
)
def test_apply_moves_a_message_with_its_properties(
    tmp_path: Path, table: str, target: str, catch_all: str | None
) -> None:
    """Whatever the action, the moved message carries the dead letter's properties."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    with connect("QM1", home=home) as qm:
        for name in ("APP.ORDERS", "OUT", "CATCH"):
            qm.admin().define_queue(name, {})
        msg = Message.dead_letter(
            MQMD(format="MQSTR", msg_id=b"\x05" * 24),
            b"order-1",
            reason=2053,
            dest_q_name="APP.ORDERS",
            properties=PROPS,
        )
        qm.put1(DLQ, msg, PutOptions(syncpoint=False, context="set_all"))
        ruleset = compile_rules("INPUTQ(' ') RETRYINT(1)\n" + table).ruleset
        assert ruleset is not None
        outcome = apply_message(
            qm,
            qm.open(DLQ),
            Matcher(ruleset),
            msg.md.msg_id,
            msg.md.correl_id,
            input_queue=DLQ,
            catch_all=catch_all,
        )
        assert outcome.outcome in ("ok", "catch_all")
        moved = qm.open(target).get(GetOptions(syncpoint=False))
        assert moved.properties == PROPS
        assert qm.inquire_queue(DLQ).curdepth == 0
