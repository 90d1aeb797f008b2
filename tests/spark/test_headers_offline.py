"""Headers behind and instead of the MQDLH, offline and with `run`: FWD HEADER(NO) of a
dead letter of a dead letter (several MQDLHs) and of one whose MQDLH is followed by a
transmission-queue header (MQXQH), and a message on the DLQ that starts with an MQXQH
instead of an MQDLH: `drain -m` writes what `run` puts, byte for byte, and leaves what
`run` leaves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.xqh import for_transmission
from dlqhandler.qmgr.port import browse_all
from tests.spark.drain_helpers import qm1_holding

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
UNKNOWN_REMOTE_Q_MGR = 2087


def _original(n: int) -> MQMD:
    return MQMD(format="MQSTR", msg_id=bytes([n]) * 24, coded_char_set_id=1208)


def _messages() -> list[Message]:
    # 1: dead-lettered three times (three MQDLHs)
    m = Message(_original(1), b"three trips")
    for _ in range(3):
        m = Message.dead_letter(m.md, m.body, reason=UNKNOWN_REMOTE_Q_MGR, dest_q_name="APP.X")
    # 2: a message from a transmission queue dead-lettered with its MQXQH (MQDLH Format MQXMIT)
    outer, data = for_transmission("APP.R", "QM9", _original(2), b"for QM9")
    xmit = Message.dead_letter(outer, data, reason=UNKNOWN_REMOTE_Q_MGR, dest_q_name="QM9.XMIT")
    # 3: an MQXQH where the MQDLH should be (no MQDLH: runmqdlq never processes it)
    outer, data = for_transmission("APP.R", "QM9", _original(3), b"no MQDLH")
    return [m, xmit, Message(outer, data)]


def _view(m: Message) -> tuple[Any, ...]:
    md = m.md
    return (md.msg_id[0], md.format, md.encoding, md.coded_char_set_id, md.expiry, m.body)


def test_header_no_and_transmission_headers_offline_are_as_run(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FWD HEADER(NO) removes the first MQDLH only and restores the MQMD's Format,
    Encoding and CodedCharSetId from it (IBM's "Dead-letter queue processing",
    https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.dev.doc/q029190_.htm: "The dead-letter
    queue header contains fields that have to be reinstated in the message descriptor
    before the message is put": Encoding, CodedCharSetId, Format), so the message with
    three MQDLHs goes on with two, and the one whose MQDLH names an MQXQH goes on as
    Format MQXMIT with its MQXQH: `drain -m` writes to q-APP.Y@LOCAL.dmp exactly what `run`
    puts on APP.Y. The message that starts with an MQXQH has no MQDLH: "All messages on
    the DLQ must be prefixed with a dead-letter header structure, MQDLH" (IBM's
    "Processing messages on an IBM MQ dead-letter queue", https://ibm.com/support/
    knowledgecenter/en/SSFKSJ_latest/administer/q005540_.html); `run`, as runmqdlq,
    leaves it on the DLQ, the drain in remaining.dmp, and the report counts it without
    an MQDLH."""
    home = tmp_path / "home"
    qm1_holding(home, monkeypatch, _messages())
    rules = tmp_path / "r.rul"
    rules.write_text(
        f"INPUTQ({DLQ}) INPUTQM(QM1) WAIT(NO)\n"
        "REASON(MQRC_UNKNOWN_REMOTE_Q_MGR) ACTION(FWD) FWDQ(APP.Y) HEADER(NO)\n"
    )
    common = ["-m", "QM1", "--rules", str(rules)]
    assert cli_main(["report", *common, "--output", str(tmp_path / "rep")]) == 0
    assert cli_main(["drain", *common, "--output", str(tmp_path / "out")]) == 0
    assert cli_main(["run", "--rules", str(rules), "--no-watch"]) == 0

    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert report["rules"]["left_on_dlq_by_cause"]["no_dlh"] == 1
    out = tmp_path / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    written = sorted(_view(m) for m in read_dump(out / "q-APP.Y@LOCAL.dmp"))
    remaining = [m.md.msg_id[0] for m in read_dump(out / manifest["remaining"]["file"])]
    qm = connect("QM1", home=home)
    try:
        put = sorted(_view(m) for m in browse_all(qm.open("APP.Y", browse=True)))
        left = [m.md.msg_id[0] for m in browse_all(qm.open(DLQ, browse=True))]
    finally:
        qm.disconnect()
    assert written == put
    assert [(v[0], v[1]) for v in put] == [(1, "MQDEAD"), (2, "MQXMIT")]
    assert remaining == left == [3]
