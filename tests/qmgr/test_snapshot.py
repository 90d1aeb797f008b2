"""snapshot_queue, what ``report -m`` and ``drain -m`` browse: the queue named, else the
queue manager's DEADQ, and a clear refusal when there is neither."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dlqhandler.errors import ConfigError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import EmbeddedQueueManager, PutOptions
from dlqhandler.qmgr.embedded.runmqsc import run_mqsc
from dlqhandler.qmgr.snapshot import snapshot_queue


def test_no_queue_and_no_deadq_is_refused_by_name(qm: EmbeddedQueueManager, tmp_path: Path) -> None:
    """With DEADQ blank and no queue named there is nothing to browse: a queue manager
    has a dead-letter queue only when told ("by using the DEADQ attribute on the ALTER
    QMGR command to specify one later", IBM MQ, Working with dead-letter queues,
    https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.adm.doc/q020730_.html). The snapshot
    says so (no DEADQ, how to name or set one) instead of browsing a queue named ''
    and failing with a bare MQRC_UNKNOWN_OBJECT_NAME; no file is written. With the queue
    named, the same queue manager is browsed."""
    qm.admin().define_queue("MY.DLQ", {}, replace=True)  # type: ignore[attr-defined]
    qm.put1("MY.DLQ", Message(MQMD(format="MQSTR"), b"x"), PutOptions(syncpoint=False))
    out = io.StringIO()
    assert run_mqsc("ALTER QMGR DEADQ(' ')", qm.admin(), out, qmgr_name="QM1").ok
    path = tmp_path / "snap" / "input.dmp"
    with pytest.raises(ConfigError, match=r"queue manager QM1 has no DEADQ; name the queue"):
        snapshot_queue(qm, None, path)
    assert not path.exists()
    assert snapshot_queue(qm, "MY.DLQ", path).messages == 1
