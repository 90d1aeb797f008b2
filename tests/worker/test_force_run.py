"""`dlqhandler run` on a DLQ defined PROPCTL(FORCE): every get hands the handler the
message properties in an MQRFH2 in front of the MQDLH (MQMD Format MQHRF2). The handler
finds the MQDLH behind the MQRFH2 and acts on it with the properties kept as
properties; a damaged MQRFH2 in front is reported with what is wrong and where, and the
message is left on the DLQ, untouched."""

from __future__ import annotations

import struct

from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.mq.rfh2 import MQRFH2, Folder, encode_rfh2
from tests.worker.helpers import RunCli, browse, dead_letter, define, load, msg_id
from tests.worker.test_properties_run import JMS, RULES

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def test_force_dlq_messages_are_acted_on_with_their_properties(qm, ledger, run_cli: RunCli) -> None:
    """RETRY, FWD HEADER(YES), FWD HEADER(NO) and a forward through a transmission queue
    of dead letters the FORCE queue hands over as MQRFH2 + MQDLH + data: each arrives
    once with its data and context, the Format chain restored (MQDEAD + MQDLH for
    HEADER(YES), the original Format without the MQDLH otherwise), and the same
    properties as properties, not as an MQRFH2 in the data."""
    define(qm, "RETRY.OK", "TARGET.YES", "TARGET.NO")
    define(qm, "QM2", usage="XMITQ")
    messages = [
        dead_letter("retry me", destq="RETRY.OK", properties=JMS),
        dead_letter("forward whole", destq="FWD.YES", properties=JMS[:5]),
        dead_letter(
            "forward stripped", destq="FWD.NO", properties=JMS[5:], encoding=273, ccsid=37
        ),  # big-endian, EBCDIC: the header follows suit
        dead_letter("forward far", destq="REMOTE", properties=JMS),
        dead_letter("no properties", destq="FWD.NO"),
    ]
    load(qm, messages)
    book = ledger()  # the originals, properties in the handle (PROPCTL(COMPAT))
    qm.admin().alter_queue(DLQ, {"PROPCTL": "FORCE"})
    seen = browse(qm, DLQ)
    assert [m.md.format for m in seen] == ["MQHRF2"] * 4 + ["MQDEAD"]
    assert all(m.properties == () for m in seen)

    run = run_cli(RULES)

    assert run.rc == 0, run.err
    assert run.events("message_without_dlh") == []
    qm.admin().alter_queue(DLQ, {"PROPCTL": "COMPAT"})
    book.check(["RETRY.OK", "TARGET.YES", "TARGET.NO", "QM2"])  # MsgId, body, properties
    assert [book.where(m) for m in messages] == [
        "RETRY.OK",
        "TARGET.YES",
        "TARGET.NO",
        "APP.IN@QM2",
        "TARGET.NO",
    ]
    [retried] = browse(qm, "RETRY.OK")
    assert (retried.md.format, retried.body, retried.properties) == ("MQSTR", b"retry me", JMS)
    [whole] = browse(qm, "TARGET.YES")
    assert whole.md.format == "MQDEAD"
    assert whole.body == messages[1].body  # MQDLH + data, no MQRFH2
    assert whole.properties == JMS[:5]
    stripped, bare = browse(qm, "TARGET.NO")
    assert (stripped.md.format, stripped.md.encoding, stripped.md.coded_char_set_id) == (
        "MQSTR",
        273,
        37,
    )
    assert stripped.body == b"forward stripped"
    assert stripped.properties == JMS[5:]
    assert bare.properties == ()
    assert run.summary("retried") == 1
    assert run.summary("forwarded") == 4


def _in_front(rfh2: bytes, tag: str) -> Message:
    """A dead letter an application put with an MQRFH2 of its own in front."""
    inner = dead_letter("payload", destq="APP.Q", tag=tag)
    md = inner.md.replace(format="MQHRF2")
    return Message(md, rfh2 + inner.body)


def test_a_damaged_mqrfh2_in_front_is_reported_and_left(qm, ledger, run_cli: RunCli) -> None:
    """On a PROPCTL(FORCE) DLQ, messages whose MQRFH2 in front cannot be read (a
    StrucLength past the end, a Format that is not MQDEAD, a folder that is not message
    properties, a truncated MQDLH behind it) are each reported once by MsgId, saying
    what is wrong and at which byte, and stay on the DLQ byte for byte; the good dead
    letter beside them is forwarded."""
    define(qm, "TARGET")
    fixed = "<4siiii8sii"
    long_ = struct.pack(fixed, b"RFH ", 2, 4000, 546, 1208, b"MQDEAD  ", 0, 1208)
    not_dead = encode_rfh2(MQRFH2(546, 1208, "MQSTR"), encoding=546, ccsid=1208)
    foreign = encode_rfh2(
        MQRFH2(546, 1208, "MQDEAD", folders=(Folder("psc"),)), encoding=546, ccsid=1208
    )
    bad = [_in_front(long_, "LONG"), _in_front(not_dead, "NOTDEAD"), _in_front(foreign, "PSC")]
    truncated = Message(
        MQMD(format="MQHRF2", encoding=546, coded_char_set_id=1208, msg_id=msg_id("SHORTDLH")),
        encode_rfh2(MQRFH2(546, 1208, "MQDEAD"), encoding=546, ccsid=1208)
        + b"DLH \x01\x00\x00\x00",
    )
    good = dead_letter("good", destq="APP.Q", properties=JMS[:3])
    load(qm, [*bad, truncated, good])
    book = ledger()
    qm.admin().alter_queue(DLQ, {"PROPCTL": "FORCE"})

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(FWD) FWDQ(TARGET) HEADER(NO)\n")

    assert run.rc == 0, run.err
    reported = {e["msgid"]: e["detail"] for e in run.events("message_without_dlh")}
    assert set(reported) == {m.md.msg_id.hex() for m in [*bad, truncated]}
    assert "bad StrucLength 4000" in reported[bad[0].md.msg_id.hex()]
    assert "at byte 8 of the data" in reported[bad[0].md.msg_id.hex()]
    assert "Format is 'MQSTR', not 'MQDEAD'" in reported[bad[1].md.msg_id.hex()]
    assert "folder 'psc'" in reported[bad[2].md.msg_id.hex()]
    assert "behind the MQRFH2 (StrucLength 36)" in reported[truncated.md.msg_id.hex()]
    assert run.summary("without MQDLH") == 4
    qm.admin().alter_queue(DLQ, {"PROPCTL": "COMPAT"})
    placed = book.check(["TARGET"])  # the four left unchanged, byte for byte
    assert len(placed[DLQ]) == 4
    [forwarded] = placed["TARGET"]
    assert (forwarded.body, forwarded.properties) == (b"good", JMS[:3])


def test_a_group_on_a_force_dlq_moves_whole_with_its_properties(
    qm, ledger, run_cli: RunCli
) -> None:
    """A message group whose members the PROPCTL(FORCE) DLQ hands over with an MQRFH2
    in front: the group path finds each member's MQDLH and moves the group whole, in
    order, each member with its own properties as properties."""
    define(qm, "APP.GRP")
    gid = b"GROUP FORCED".ljust(24, b"\x00")
    members = [
        dead_letter(
            f"member {seq}",
            destq="APP.GRP",
            tag=f"GRP{seq}",
            group_id=gid,
            msg_seq_number=seq,
            properties=JMS[seq : seq + 2],
            msg_flags=MQMF_LAST_MSG_IN_GROUP if seq == 3 else MQMF_MSG_IN_GROUP,
        )
        for seq in (1, 2, 3)
    ]
    load(qm, members)
    book = ledger()
    qm.admin().alter_queue(DLQ, {"PROPCTL": "FORCE"})

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY)\n")

    assert run.rc == 0, run.err
    assert run.events("message_without_dlh") == []
    qm.admin().alter_queue(DLQ, {"PROPCTL": "COMPAT"})
    placed = book.check(["APP.GRP"])
    assert [(m.body, m.properties) for m in placed["APP.GRP"]] == [
        (f"member {seq}".encode(), JMS[seq : seq + 2]) for seq in (1, 2, 3)
    ]
