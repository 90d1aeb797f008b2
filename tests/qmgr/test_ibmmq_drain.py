"""``dlqhandler drain -m QMGR --backend ibmmq --apply`` through IBM's library on the stand-in.

The command runs as its own process with the stand-in's variables (as after
``eval "$(make -s mqi-standin)"``), so the driver's snapshot and every Spark
executor's apply go through ``ibmmq.ibmmqc`` and the stand-in ``libmqm_r.so``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import create_qmgr
from dlqhandler.qmgr.attempts import AttemptStore, message_subject
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.ibmmq.adapter import IBMMQQueueManager
from dlqhandler.qmgr.ibmmq.config import IBMMQSettings
from dlqhandler.qmgr.port import PutOptions
from tests.mqi.build import ROOT, child_env, load
from tests.worker.helpers import browse

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
STATUS = "DLQHANDLER.STATUS"
TABLE = "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\nACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)\n"


def _h(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_drain_snapshots_and_applies_through_ibmmq_with_shared_attempt_counts(
    tmp_path: Path,
) -> None:
    """The snapshot browses the DLQ through IBM's library; --apply retries, forwards and
    continues the attempt count a handler recorded through the same adapter (two failed
    RETRYs: the drain's third fails too, so the message falls through to the catch-all
    rule). Every message is in exactly one place with its payload."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    admin = qm.admin()
    for name, attrs in (
        ("APP.ORDERS", {}),
        ("APP.STUCK", {"PUT": "DISABLED"}),
        ("DLQ.CATCHALL", {}),
        (STATUS, {}),
    ):
        admin.define_queue(name, attrs)
    md = MQMD(format="MQSTR", persistence=1)
    msgs = [
        Message.dead_letter(
            md.replace(msg_id=f"DRAIN{i:03d}".encode().ljust(24, b"\0")),
            f"m{i}".encode(),
            reason=2085 if i % 3 == 0 else 2053,
            dest_q_name="APP.ORDERS",
        )
        for i in range(1, 31)
    ]
    stuck = Message.dead_letter(
        md.replace(msg_id=b"STUCK".ljust(24, b"\0")), b"stuck", reason=2053, dest_q_name="APP.STUCK"
    )
    for m in [*msgs, stuck]:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))

    standin = load()
    standin.reset(home=home)  # type: ignore[attr-defined]
    handler = IBMMQQueueManager(IBMMQSettings(qmgr="QM1"))  # a handler's two failures
    store = AttemptStore(handler, STATUS)
    subject = message_subject(stuck.md.msg_id, stuck.md.correl_id)
    store.record_failure(subject, store.record_failure(subject, None, 100.0), 101.0)
    store.close()
    handler.disconnect()

    rules = tmp_path / "r.rul"
    rules.write_text(TABLE, encoding="utf-8")
    out = tmp_path / "out"
    env = {
        **os.environ,
        **child_env(),
        "DLQHANDLER_HOME": str(home),
        "DLQHANDLER_LOG_LEVEL": "INFO",
        "PYSPARK_PYTHON": sys.executable,
    }
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "dlqhandler"),
            "drain",
            "--rules",
            str(rules),
            "-m",
            "QM1",
            "--backend",
            "ibmmq",
            "--apply",
            "--output",
            str(out),
            "--partitions",
            "2",
            "--master",
            "local[1]",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "mq_connected" in done.stderr  # the IBM MQ adapter did the MQCONNX

    # The snapshot (browsed through IBM's library) is gone after a complete run; the
    # audit has one row per message it held.
    import pyarrow.parquet as pq

    audited = pq.read_table(out / "audit").column("msgid").to_pylist()
    assert sorted(audited) == sorted(m.md.msg_id.hex().upper() for m in [*msgs, stuck])
    assert not (out / "_snapshot").exists()
    placed = {q: browse(qm, q) for q in (DLQ, "APP.ORDERS", "DLQ.CATCHALL", STATUS)}
    assert placed[DLQ] == []
    assert placed[STATUS] == []  # the record went with the message
    retried = {m.md.msg_id: _h(m.body) for m in placed["APP.ORDERS"]}
    assert retried == {m.md.msg_id: _h(m.body[172:]) for m in msgs if int(m.body[173:]) % 3}
    caught = {m.md.msg_id: _h(m.body) for m in placed["DLQ.CATCHALL"]}
    assert caught == {m.md.msg_id: _h(m.body) for m in [*msgs, stuck] if m.md.msg_id not in retried}
    assert stuck.md.msg_id in caught
    qm.disconnect()
