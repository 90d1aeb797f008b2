"""``drain --apply`` while the queue manager changes under it (between the snapshot and
the moves): every message of the snapshot is on exactly one queue afterwards, with its
content, and the messages that arrived on the DLQ after the snapshot stay there,
untouched and not counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import dlqhandler.spark.drain.run as drain_run
from dlqhandler.cli import main as cli_main
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import GetOptions, PutOptions
from tests.spark.drain_helpers import browse, payload_hash

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _letter(n: int, dest: str) -> Message:
    return Message.dead_letter(
        MQMD(format="MQSTR", persistence=1, msg_id=n.to_bytes(24, "big")),
        f"payload {n}".encode(),
        reason=2053,
        dest_q_name=dest,
    )


def test_apply_conserves_every_message_while_the_queues_change(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six dead letters for APP.FULL (MAXDEPTH 3), three for APP.CLOSING (set
    PUT(DISABLED) after the snapshot), two for APP.B of which one is got by another
    application after the snapshot, and three new dead letters put on the DLQ after the
    snapshot. RETRY(2), then the catch-all FWD: three retried to APP.FULL until it is
    full, the other three and APP.CLOSING's three forwarded to DLQ.CATCHALL with their
    header (IBM's "Processing the rules table": "If all attempts fail, the DLQ handler
    searches for the next matching rule in the table",
    https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table), the one
    taken counted skipped, and the three new ones left on the DLQ with their content,
    counted nowhere (the drain acts on its snapshot)."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    for q, depth in (("APP.FULL", 3), ("APP.CLOSING", 100), ("APP.B", 100), ("DLQ.CATCHALL", 100)):
        qm.admin().define_queue(q, {"MAXDEPTH": depth})
    dests = ["APP.FULL"] * 6 + ["APP.CLOSING"] * 3 + ["APP.B"] * 2
    snapshot = [_letter(n, d) for n, d in enumerate(dests, start=1)]
    put = PutOptions(syncpoint=False, context="set_all")
    for m in snapshot:
        qm.put1(DLQ, m, put)
    late = [_letter(n, "APP.B") for n in (101, 102, 103)]
    taken: list[Message] = []
    real = drain_run.snapshot_queue

    def then_change(q: Any, queue: str, path: Path) -> Any:
        snap = real(q, queue, path)
        for m in late:
            qm.put1(DLQ, m, put)
        qm.admin().alter_queue("APP.CLOSING", {"PUT": "DISABLED"})
        handle = qm.open(DLQ, input=True)
        taken.append(handle.get(GetOptions(msg_id=(10).to_bytes(24, "big"))))
        handle.close()
        return snap

    monkeypatch.setattr(drain_run, "snapshot_queue", then_change)
    rules = tmp_path / "r.rul"
    rules.write_text(
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\nACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)\n"
    )
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)]
    assert cli_main(argv) == 0

    on = {q: browse(qm, q) for q in (DLQ, "APP.FULL", "APP.CLOSING", "APP.B", "DLQ.CATCHALL")}
    qm.disconnect()
    ids = {q: sorted(int.from_bytes(m.md.msg_id, "big") for m in ms) for q, ms in on.items()}
    assert ids == {
        DLQ: [101, 102, 103],
        "APP.FULL": [1, 2, 3],
        "APP.CLOSING": [],
        "APP.B": [11],
        "DLQ.CATCHALL": [4, 5, 6, 7, 8, 9],
    }
    # by content: each message where it is has its own payload
    by_id = {m.md.msg_id: payload_hash(m) for m in [*snapshot, *late]}
    for ms in on.values():
        for m in ms:
            assert payload_hash(m) == by_id[m.md.msg_id]
    assert all(m.md.format == "MQDEAD" for m in on["DLQ.CATCHALL"])  # with their header
    assert [m.md.msg_id for m in taken] == [(10).to_bytes(24, "big")]
    totals = json.loads((out / "manifest.json").read_text())["totals"]
    assert (totals["messages"], totals["retried"], totals["forwarded"]) == (11, 4, 6)
    assert (totals["skipped"], totals["remaining"], totals["failed"]) == (1, 0, 0)
