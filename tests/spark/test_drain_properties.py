"""`dlqhandler drain` of dead letters with their properties in an MQRFH2 in front of
the MQDLH (a dump of a DLQ defined PROPCTL(FORCE), or one IBM's dmpmqmsg unloaded):
RETRY and FWD HEADER(NO) write the message without its MQDLH and with its MQRFH2 and
properties byte for byte (told what follows it: :func:`stripped_data`), FWD HEADER(YES)
the message as read, and a damaged MQRFH2 in front leaves the message on the DLQ.

The drain reads through the ``dmpmqmsg`` data source, which finds the MQDLH behind the
MQRFH2 as ``dlqhandler run`` does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq.message import Message, decode_dead_letter, stripped_data
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.mq.rfh2 import decode_rfh2, properties_of
from dlqhandler.qmgr import connect, create_qmgr
from tests.spark.props_dumps import PROPS, in_front
from tests.worker.helpers import DLQ, browse, dead_letter, define, load, same_properties

pytestmark = pytest.mark.spark

RULES = """INPUTQ(SYSTEM.DEAD.LETTER.QUEUE) INPUTQM(QM1)
REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)
REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(KEEP.YES) HEADER(YES)
REASON(MQRC_PUT_INHIBITED) ACTION(FWD) FWDQ(KEEP.NO) HEADER(NO)
"""
ACTIONS = {2053: "RETRY", 2035: "YES", 2051: "NO"}


def _messages() -> list[Message]:
    out = []
    n = 0
    for reason in ACTIONS:
        for encoding, ccsid in ((546, 1208), (273, 500), (273, 819)):
            for props in PROPS:
                for nv in (1208, 1200):
                    n += 1
                    original = MQMD(
                        format="MQSTR",
                        encoding=546,
                        coded_char_set_id=1208,
                        msg_id=f"P{n:05d}".encode().ljust(24, b"\x00"),
                    )
                    dead = Message.dead_letter(
                        original,
                        f"payload {n}".encode(),
                        reason=reason,
                        dest_q_name="APP.IN",
                        encoding=encoding,
                        ccsid=ccsid,
                    )
                    out.append(in_front(dead, props, nv, inherit=n % 3 == 0))
    damaged = out[-1]
    body = bytearray(damaged.body)
    body[8] = 0x7F  # StrucLength past the end
    out.append(Message(damaged.md.replace(msg_id=b"DAMAGED".ljust(24, b"\x00")), bytes(body)))
    return out


def _properties(m: Message) -> Any:
    rfh2, _ = decode_rfh2(m.body, encoding=m.md.encoding, ccsid=m.md.coded_char_set_id or 819)
    return properties_of(rfh2.folders)


def test_drain_keeps_properties_in_front_byte_for_byte(spark: Any, tmp_path: Path) -> None:
    """RETRY and FWD HEADER(NO): the message stripped_data builds (MQMD unchanged,
    MQRFH2 kept but told the MQDLH's Format, Encoding and CCSID, MQDLH gone); HEADER(YES):
    the message as read; the damaged one stays on the DLQ. Properties equal by name,
    type and value, every message written once."""
    messages = _messages()
    src = tmp_path / "dlq.dmp"
    write_dump(src, messages)
    rules = tmp_path / "props.rul"
    rules.write_text(RULES)
    out = tmp_path / "out"
    assert (
        cli_main(["drain", "--rules", str(rules), "--input", str(src), "--output", str(out)]) == 0
    )
    manifest = json.loads((out / "manifest.json").read_text())
    by_id = {m.md.msg_id: m for m in read_dump(src)}
    written: dict[bytes, tuple[str, Message]] = {}
    files = {o["queue"]: o["file"] for o in manifest["outputs"]}
    assert set(files) == {"APP.IN", "KEEP.YES", "KEEP.NO"}
    for queue, name in files.items():
        for m in read_dump(out / name):
            assert m.md.msg_id not in written
            written[m.md.msg_id] = (queue, m)
    (left,) = read_dump(out / manifest["remaining"]["file"])
    assert left == by_id[b"DAMAGED".ljust(24, b"\x00")]
    assert len(written) == len(messages) - 1
    for msg_id, (queue, m) in written.items():
        original = by_id[msg_id]
        dlh = decode_dead_letter(original.md, original.body).dlh
        assert dlh is not None
        action = ACTIONS[dlh.reason]
        assert queue == {"RETRY": "APP.IN", "YES": "KEEP.YES", "NO": "KEEP.NO"}[action]
        if action == "YES":
            assert m == original
            continue
        md, data = stripped_data(original.md, original.body)
        assert (m.md, m.body) == (md, data)
        assert m.md.format == "MQHRF2"
        assert _properties(m) == _properties(original)
        header, _ = decode_rfh2(m.body, encoding=m.md.encoding, ccsid=m.md.coded_char_set_id)
        assert header.format == "MQSTR"


def test_drain_of_a_queue_keeps_properties_in_its_outputs(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``drain -m QM1`` (offline, from the queue) snapshots the DLQ as IBM's dmpmqmsg
    unloads it, without a message handle, so every property is in the snapshot and in
    the output files: each file loaded with ``qm dmpmqmsg -o`` gives messages with the
    dead letters' properties (name, type, value), their data (without the MQDLH for
    RETRY and HEADER(NO)), each message once."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    props = (
        Property("jms.Cid", PropertyType.STRING, "ID:414d5120"),
        Property("OrderNo", PropertyType.INT64, 2**40 + 1),
        Property("Urgent", PropertyType.BOOLEAN, True),
    )
    with connect("QM1", home=home) as qm:
        define(qm, "APP.IN", "KEEP.YES", "KEEP.NO")
        load(
            qm,
            [
                dead_letter("retry me", reason=2053, destq="APP.IN", properties=props),
                dead_letter("keep whole", reason=2035, destq="APP.IN", properties=props[:2]),
                dead_letter("strip me", reason=2051, destq="APP.IN", properties=props[1:]),
                dead_letter("none", reason=2051, destq="APP.IN"),
            ],
        )
        sent = browse(qm, DLQ)
        assert [len(m.properties) for m in sent] == [3, 2, 2, 0]
    rules = tmp_path / "props.rul"
    rules.write_text(RULES)
    out = tmp_path / "out"
    assert cli_main(["drain", "--rules", str(rules), "-m", "QM1", "--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    files = {o["queue"]: o["file"] for o in manifest["outputs"]}
    assert set(files) == {"APP.IN", "KEEP.YES", "KEEP.NO"}
    for queue, name in files.items():
        assert cli_main(["qm", "dmpmqmsg", "-m", "QM1", "-o", queue, "-f", str(out / name)]) == 0
    with connect("QM1", home=home) as qm:
        got = {q: browse(qm, q) for q in files}
    by_id = {m.md.msg_id: m for m in sent}
    assert sorted(m.md.msg_id for ms in got.values() for m in ms) == sorted(by_id)
    for queue, messages in got.items():
        for m in messages:
            original = by_id[m.md.msg_id]
            assert same_properties(m.properties, original.properties), (queue, m.properties)
            if queue == "KEEP.YES":
                assert m.body == original.body  # the MQDLH and data
            else:
                assert m.body == original.body[MQDLH_LENGTH_1:]  # the data alone
