"""Expiry offline: the drain writes each message's MQMD Expiry as it reads it, the
remaining lifetime the queue manager gave the browse that unloaded it, as IBM's dmpmqmsg
load puts the MQMD it reads; a message that expired on the queue before the snapshot is
not in it, as the queue manager never gives it to `run` either (docs/drain.md, "Expiry")."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq import MQMD, Message
from tests.spark.drain_helpers import qm1_holding

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
TABLE = f"INPUTQ({DLQ}) INPUTQM(QM1)\nACTION(FWD) FWDQ(APP.Y) HEADER(YES)\n"


def _letter(n: int, expiry: int) -> Message:
    md = MQMD(format="MQSTR", msg_id=bytes([n]) * 24, expiry=expiry)
    return Message.dead_letter(md, f"m{n}".encode(), reason=2053, dest_q_name="APP.X")


def _written(out: Path) -> dict[int, int]:
    manifest = json.loads((out / "manifest.json").read_text())
    return {
        m.md.msg_id[0]: m.md.expiry for o in manifest["outputs"] for m in read_dump(out / o["file"])
    }


def test_the_drain_of_a_dump_writes_expiry_as_read(spark: Any, tmp_path: Path) -> None:
    """A dump's messages with Expiry 600, 1 and unlimited (-1): the drain's output holds
    each with the Expiry it read, the rest of the record byte for byte. IBM's "Expiry
    (MQLONG)" (https://www.ibm.com/docs/en/ibm-mq/8.0?topic=mqmd-expiry-mqlong): "When
    the message is retrieved by an application using the MQGET call, the Expiry field
    represents the expiry time that still remains", and "an application forwarding this
    message to another queue might decrement the value if necessary"; dmpmqmsg's load
    ("dmpmqmsg -m QM1 -o Q1 -f c:\\myfile", https://www.ibm.com/docs/en/ibm-mq/10.0.x?
    topic=systems-examples-using-dmpmqmsg-utility) puts the MQMD read from the file, so
    the drain does not decrement it either: a dump records only its local creation time
    (`* DMPMQMSG ... Created:`), without a time zone."""
    messages = [_letter(1, 600), _letter(2, 1), _letter(3, -1)]
    dump = tmp_path / "in.dmp"
    write_dump(dump, messages, qmgr="QM1", queue=DLQ)
    rules = tmp_path / "r.rul"
    rules.write_text(TABLE)
    out = tmp_path / "out"
    args = ["--rules", str(rules), "--input", str(dump), "--output", str(out)]
    assert cli_main(["drain", *args]) == 0
    assert _written(out) == {1: 600, 2: 1, 3: -1}
    written = (out / "q-APP.Y@LOCAL.dmp").read_bytes()
    for line in dump.read_bytes().splitlines(keepends=True):
        if not line.startswith(b"*"):
            assert line in written


def test_a_snapshot_drain_writes_the_remaining_expiry_and_not_the_expired(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On QM1's DLQ: a message put with Expiry 36000 (an hour), one with Expiry 2 (0.2 s)
    that expires before the snapshot, one unlimited. `drain -m QM1` writes the first with
    what remains of its hour (at most 36000, more than 35000 here) and the unlimited one
    as -1, and neither writes nor counts the expired one: IBM's "Expiry (MQLONG)"
    (https://www.ibm.com/docs/en/ibm-mq/8.0?topic=mqmd-expiry-mqlong): "A message that
    has expired is never returned to an application (either by a browse or a non-browse
    MQGET call)", so `run` never sees it either, and "the Expiry field represents the
    expiry time that still remains"."""
    letters = [_letter(n, expiry) for n, expiry in ((1, 36000), (2, 2), (3, -1))]
    qm1_holding(tmp_path / "home", monkeypatch, letters)
    time.sleep(0.5)  # the 0.2 s one expires
    rules = tmp_path / "r.rul"
    rules.write_text(TABLE)
    out = tmp_path / "out"
    assert cli_main(["drain", "-m", "QM1", "--rules", str(rules), "--output", str(out)]) == 0
    written = _written(out)
    assert sorted(written) == [1, 3]
    assert 35000 < written[1] <= 36000
    assert written[3] == -1
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["totals"]["forwarded"] == 2
