"""One-off actions and the audit trail through IBM's ibmmq package on the MQI stand-in."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dlqhandler.cli import main
from dlqhandler.mq.constants import MQRC_Q_FULL
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from tests.worker.helpers import DLQ, Ledger, alter, browse, dead_letter, define
from tests.worker.helpers import load as put_all

AUDIT = "DLQHANDLER.AUDIT"


def test_a_one_off_retry_through_ibmmq_is_audited_and_an_inhibited_audit_queue_backs_out(
    standin_world: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the ibmmq package: with the audit queue put-inhibited, a one-off retry moves
    nothing (exit 6, every message still on the DLQ, no record); once it takes puts, the
    selected messages are retried, each with one audit record whose MQ user id is the
    connection's, and `dlqhandler audit --backend ibmmq` prints them."""
    qm = standin_world["qm"]
    define(qm, "APP.Q", DEFAULT_STATUS_QUEUE)
    define(qm, AUDIT, put="DISABLED")
    full = [
        dead_letter(f"full {i}", reason=MQRC_Q_FULL, destq="APP.Q", tag=f"F{i}") for i in range(3)
    ]
    other = [dead_letter("other", reason=2085, destq="GONE.Q", tag="O")]
    put_all(qm, [*full, *other])
    book = Ledger.of(qm, DLQ)
    argv = [
        "run",
        "--backend",
        "ibmmq",
        "--match",
        "REASON(MQRC_Q_FULL)",
        "--action",
        "retry",
        "--reason",
        "via ibmmq",
        "--no-watch",
        DLQ,
        "QM1",
    ]

    assert main(argv) == 6
    assert browse(qm, "APP.Q") == []
    alter(qm, AUDIT, put="ENABLED")
    assert main(argv) == 0

    placed = book.check(["APP.Q"])
    assert {m.md.msg_id for m in placed["APP.Q"]} == {m.md.msg_id for m in full}
    records = browse(qm, AUDIT)
    assert sorted(json.loads(m.body)["msgid"] for m in records) == sorted(
        m.md.msg_id.hex() for m in full
    )
    capsys.readouterr()
    assert main(["audit", "QM1", "--backend", "ibmmq", "--format", "json"]) == 0
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(shown) == 3
    assert {r["mq_user"] for r in shown} == {m.md.user_identifier.strip() for m in records}
    assert all(r["mq_user"] for r in shown)
