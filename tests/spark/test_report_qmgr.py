"""`dlqhandler report -m QM1` browses: the queue is exactly as it was afterwards, and
the report works while `dlqhandler run` processes the same queue."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager, connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import PutOptions, browse_all

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
DLQHANDLER = Path(sys.executable).parent / "dlqhandler"


def _contents(qm: EmbeddedQueueManager, queue: str) -> list[tuple[Any, str]]:
    """(MQMD, payload hash) of every message, in queue order. Expiry is left out: a
    browse shows the time left, which counts down (MQ semantics)."""
    handle = qm.open(queue, input=False, browse=True)
    try:
        return [
            (m.md.replace(expiry=0), hashlib.sha256(m.body).hexdigest()) for m in browse_all(handle)
        ]
    finally:
        handle.close()


@pytest.fixture
def qm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    monkeypatch.delenv("DLQHANDLER_QMGR", raising=False)
    create_qmgr(home, "QM1")
    manager = connect("QM1", home=home)
    manager.admin().define_queue("APP.OUT", {"MAXDEPTH": 100000})
    yield manager
    manager.disconnect()


def _load(qm: EmbeddedQueueManager, messages: list[Message]) -> None:
    for m in messages:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))


def test_report_browses_and_leaves_the_queue_exactly_as_it_was(
    spark: Any, qm: EmbeddedQueueManager, tmp_path: Path
) -> None:
    """Same MQMDs (MsgIds included), same order, same payload hashes after the report;
    the report counts every message of the queue manager's DLQ."""
    messages = list(generate_backlog(400, seed=31))
    _load(qm, messages)
    before = _contents(qm, DLQ)
    out = tmp_path / "out"
    assert (
        cli_main(
            [
                "report",
                "-m",
                "QM1",
                "--rules",
                str(ROOT / "rules" / "demo.rul"),
                "--output",
                str(out),
            ]
        )
        == 0
    )
    assert _contents(qm, DLQ) == before
    assert sorted(md.msg_id for md, _h in before) == sorted(m.md.msg_id for m in messages)
    report = json.loads((out / "report.json").read_text())
    assert report["total"] == len(messages)
    assert report["source"] == f"queue {DLQ} on QM1 (browsed)"
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.json"]


def test_report_works_while_a_handler_runs_on_the_queue(
    spark: Any, qm: EmbeddedQueueManager, tmp_path: Path
) -> None:
    """While `dlqhandler run` forwards the MQRC_Q_FULL half of the DLQ (paced by
    --max-rate), the report browses the same queue: it succeeds, sees every message the
    handler leaves alone (but the one it may hold in its unit of work at that moment) and
    no message twice; the handler still moves each message exactly once and the messages it
    leaves are untouched."""
    md = MQMD(format="MQSTR", persistence=1)
    messages = [
        Message.dead_letter(
            md.replace(msg_id=i.to_bytes(24, "big")),
            f"payload {i}".encode(),
            reason=2053 if i % 2 else 2085,
            dest_q_name="APP.ORDERS",
        )
        for i in range(1, 801)
    ]
    _load(qm, messages)
    staying = [m.md.msg_id for m in messages if int.from_bytes(m.md.msg_id, "big") % 2 == 0]
    before = {md.msg_id: h for md, h in _contents(qm, DLQ)}
    rules = tmp_path / "run.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(APP.OUT)\nACTION(IGNORE)\n")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    handler = subprocess.Popen(
        [
            str(DLQHANDLER),
            "run",
            DLQ,
            "QM1",
            "--rules",
            str(rules),
            "--max-rate",
            "50",
            "--batch-size",
            "1",
            "--no-watch",
            "--log-format",
            "json",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while qm.inquire_queue("APP.OUT").curdepth == 0:
            assert handler.poll() is None
            assert time.monotonic() < deadline
            time.sleep(0.05)
        out = tmp_path / "out"
        assert cli_main(["report", "-m", "QM1", "--output", str(out)]) == 0
        assert handler.poll() is None
        while qm.inquire_queue("APP.OUT").curdepth < len(messages) - len(staying):
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        handler.send_signal(signal.SIGTERM)
        handler.wait(timeout=60)
    report = json.loads((out / "report.json").read_text())
    reasons = {r["reason"]: r["count"] for r in report["by_reason"]}
    # Every message the handler leaves was seen, at most once, except the one it may hold
    # in its unit of work (batch size 1) as the browse passes: a held message is invisible
    # to other handles, as in MQ.
    assert len(staying) - 1 <= reasons[2085] <= len(staying)
    # the browse ran while the handler moved messages: it saw some, not all, of the moves
    assert len(staying) < report["total"] < len(messages)
    left = _contents(qm, DLQ)
    assert [m.msg_id for m, _h in left] == staying
    assert all(before[m.msg_id] == h for m, h in left)
    forwarded = [m.md.msg_id for m in browse_all(qm.open("APP.OUT", input=False, browse=True))]
    assert sorted(forwarded) == sorted(set(before) - set(staying))
