"""``qm dmpmqmsg`` unloads and loads message properties as IBM's dmpmqmsg does: it gets
without a message handle, so the queue's PROPCTL puts them in an MQRFH2 in front of the
data (of the MQDLH, for a dead letter), and a load puts that data back, which the queue
manager turns into properties again. ``decode`` shows them; ``run`` acts on a DLQ
loaded from such a dump with the properties kept as properties."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq import Message
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.mq.rfh2 import decode_rfh2, properties_of
from dlqhandler.qmgr import EmbeddedQueueManager, connect, create_qmgr
from tests.worker.helpers import (
    DLQ,
    JMS_PROPERTIES,
    RunCli,
    browse,
    dead_letter,
    define,
    load,
    same_properties,
)

T = PropertyType
JMS = (*JMS_PROPERTIES, Property("Ratio", T.FLOAT64, math.nan))
RULES = """\
RETRYINT(0) WAIT(NO)
DESTQ(RETRY.OK) ACTION(RETRY)
DESTQ(FWD.YES) ACTION(FWD) FWDQ(TARGET.YES) HEADER(YES)
DESTQ(FWD.NO) ACTION(FWD) FWDQ(TARGET.NO) HEADER(NO)
"""


def _dead_letters() -> list[Message]:
    return [
        dead_letter("retry me", destq="RETRY.OK", properties=JMS),
        dead_letter("forward whole", destq="FWD.YES", properties=JMS[:5]),
        dead_letter("forward stripped", destq="FWD.NO", properties=JMS[5:]),
        dead_letter("no properties", destq="FWD.NO"),
    ]


def _assert_equal(got: list[Message], sent: list[Message]) -> None:
    assert len(got) == len(sent)
    for new, old in zip(got, sent, strict=True):
        assert (new.md, new.body) == (old.md, old.body)
        assert same_properties(new.properties, old.properties), (new.properties, old.properties)


def _unload(qm_name: str, queue: str, path: Path, flag: str = "-i") -> None:
    assert main(["qm", "dmpmqmsg", "-m", qm_name, flag, queue, "-f", str(path)]) == 0


def _load(qm_name: str, queue: str, path: Path) -> None:
    assert main(["qm", "dmpmqmsg", "-m", qm_name, "-o", queue, "-f", str(path)]) == 0


def test_unload_then_load_keeps_every_property_mqmd_and_body(
    home: Path, qm: EmbeddedQueueManager, tmp_path: Path
) -> None:
    """Dead letters with every IBM property type (and one without) unloaded from QM1's
    DLQ: in the file a message with properties has MQMD Format MQHRF2 and an MQRFH2
    (Format MQDEAD) in front of its MQDLH. Loaded onto another queue and onto another
    queue manager, every message has the same MQMD, data and properties (name, type,
    value) as the one unloaded."""
    load(qm, _dead_letters())
    define(qm, "DLQ.COPY")
    sent = browse(qm, DLQ)
    dump = tmp_path / "dlq.dmp"
    _unload("QM1", DLQ, dump)

    in_file = list(read_dump(dump))
    assert [m.md.format for m in in_file] == ["MQHRF2", "MQHRF2", "MQHRF2", "MQDEAD"]
    for message, original in zip(in_file[:3], sent, strict=False):
        rfh2, end = decode_rfh2(message.body, encoding=message.md.encoding, ccsid=819)
        assert rfh2.format == "MQDEAD"
        assert message.body[end:] == original.body  # the MQDLH and data behind it
        assert same_properties(properties_of(rfh2.folders), original.properties)

    _load("QM1", "DLQ.COPY", dump)
    _assert_equal(browse(qm, "DLQ.COPY"), sent)
    create_qmgr(home, "QM2")
    _load("QM2", DLQ, dump)
    with connect("QM2", home=home) as qm2:
        _assert_equal(browse(qm2, DLQ), sent)


def test_a_destructive_unload_and_reload_of_an_application_queue(
    qm: EmbeddedQueueManager, tmp_path: Path
) -> None:
    """-I of an application queue (MQMD Format MQSTR, JMS properties), then -o back:
    the queue holds the same messages with the same properties; the file holds them in
    an MQRFH2 in front of the text (Format MQSTR behind it)."""
    define(qm, "APP.IN")
    original = [m.strip_dead_letter_header() for m in _dead_letters()]
    load(qm, original, "APP.IN")
    sent = browse(qm, "APP.IN")
    dump = tmp_path / "app.dmp"
    _unload("QM1", "APP.IN", dump, "-I")
    assert browse(qm, "APP.IN") == []
    first = next(iter(read_dump(dump)))
    rfh2, end = decode_rfh2(first.body, encoding=first.md.encoding, ccsid=819)
    assert (first.md.format, rfh2.format, first.body[end:]) == ("MQHRF2", "MQSTR", b"retry me")
    _load("QM1", "APP.IN", dump)
    _assert_equal(browse(qm, "APP.IN"), sent)


def test_decode_of_the_dump_shows_the_properties(
    qm: EmbeddedQueueManager, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``dlqhandler decode --format json`` of an unloaded DLQ: each dead letter's MQDLH,
    and for those with properties ``rfh2_in_front`` and the properties by name, type
    and value."""
    load(qm, _dead_letters())
    dump = tmp_path / "dlq.dmp"
    _unload("QM1", DLQ, dump)
    capsys.readouterr()
    assert main(["decode", str(dump), "--format", "json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["dest_q_name"] for r in rows] == ["RETRY.OK", "FWD.YES", "FWD.NO", "FWD.NO"]
    assert [r.get("rfh2_in_front", False) for r in rows] == [True, True, True, False]
    assert rows[0]["properties"]["Items"] == {"type": "i4", "value": 70000}
    assert rows[0]["properties"]["Ratio"] == {"type": "r8", "value": "NaN"}
    assert rows[0]["properties"]["jms.Cid"] == {"type": "string", "value": "ID:414d5120"}
    assert len(rows[0]["properties"]) == len(JMS)
    assert "properties" not in rows[3]


def test_run_on_a_dlq_loaded_from_the_dump_keeps_the_properties(
    qm: EmbeddedQueueManager, ledger, run_cli: RunCli, tmp_path: Path
) -> None:
    """The DLQ unloaded destructively and loaded back from the dump: ``dlqhandler run``
    finds each MQDLH and retries or forwards (HEADER YES and NO) every message once,
    with its data and the same properties, as properties (no MQRFH2 left in the data)."""
    define(qm, "RETRY.OK", "TARGET.YES", "TARGET.NO")
    messages = _dead_letters()
    load(qm, messages)
    dump = tmp_path / "dlq.dmp"
    _unload("QM1", DLQ, dump, "-I")
    _load("QM1", DLQ, dump)
    book = ledger()

    run = run_cli(RULES)

    assert run.rc == 0, run.err
    book.check(["RETRY.OK", "TARGET.YES", "TARGET.NO"])
    [retried] = browse(qm, "RETRY.OK")
    assert (retried.body, retried.md.format) == (b"retry me", "MQSTR")
    assert same_properties(retried.properties, JMS)
    [whole] = browse(qm, "TARGET.YES")
    assert whole.md.format == "MQDEAD"
    assert same_properties(whole.properties, JMS[:5])
    stripped, plain = browse(qm, "TARGET.NO")
    assert (stripped.body, plain.body) == (b"forward stripped", b"no properties")
    assert same_properties(stripped.properties, JMS[5:])
    assert plain.properties == ()
