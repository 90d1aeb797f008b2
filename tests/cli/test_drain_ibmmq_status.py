"""``dlqhandler drain -m QM1 --backend ibmmq --apply`` when the status queue is missing:
one line with the MQ reason and exit 4, before Spark starts (issue 28).

The command runs through IBM's library on the stand-in ``libmqm_r.so`` (as after
``eval "$(make -s mqi-standin)"``), with an empty SPARK_HOME: had it started Spark it
would die with a launcher error. The dead-letter queue is exactly as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import create_qmgr
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.port import PutOptions
from tests.mqi.build import ROOT, child_env, load
from tests.worker.helpers import browse

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def test_apply_without_the_status_queue_is_a_connection_error(tmp_path: Path) -> None:
    """No DLQHANDLER.STATUS on the IBM MQ queue manager: exit CONNECTION_ERROR naming the
    status queue and MQRC_UNKNOWN_OBJECT_NAME, no traceback nor AssertionError, no
    output, and every message still on the DLQ with its payload."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    md = MQMD(format="MQSTR", persistence=1)
    msgs = [
        Message.dead_letter(
            md.replace(msg_id=f"ST{i:03d}".encode().ljust(24, b"\0")),
            f"m{i}".encode(),
            reason=2053,
            dest_q_name="APP.ORDERS",
        )
        for i in range(5)
    ]
    for m in msgs:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    before = [(m.md.msg_id, m.body) for m in browse(qm, DLQ)]
    standin = load()
    standin.reset(home=home)  # type: ignore[attr-defined]
    rules = tmp_path / "r.rul"
    rules.write_text("ACTION(RETRY)\n", encoding="utf-8")
    (tmp_path / "no-spark").mkdir()
    env = {
        **os.environ,
        **child_env(),
        "DLQHANDLER_HOME": str(home),
        "SPARK_HOME": str(tmp_path / "no-spark"),
        "PYSPARK_PYTHON": sys.executable,
    }
    env.pop("PYSPARK_GATEWAY_PORT", None)
    try:
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
                str(tmp_path / "out"),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == ExitCode.CONNECTION_ERROR, done.stderr[-3000:]
        assert "Traceback" not in done.stderr
        assert "AssertionError" not in done.stderr
        assert "--status-queue DLQHANDLER.STATUS" in done.stderr
        assert "MQRC_UNKNOWN_OBJECT_NAME" in done.stderr or "2085" in done.stderr
        assert not (tmp_path / "out").exists()
        assert [(m.md.msg_id, m.body) for m in browse(qm, DLQ)] == before
    finally:
        qm.disconnect()
