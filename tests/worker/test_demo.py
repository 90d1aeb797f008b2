"""`make demo` (samples/demo.py) runs end to end in a private home."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dlqhandler.qmgr import connect, create_qmgr
from tests.worker.helpers import DLQ, dead_letter, load

ROOT = Path(__file__).resolve().parents[2]


def test_demo_replaces_qm1_loads_the_backlog_and_conserves_it(tmp_path: Path) -> None:
    """The demo deletes a previous QM1, loads samples/backlog-small.dmp with the real
    dmpmqmsg command, runs the handler with rules/demo.rul to completion, and prints the
    summary, the queue depths and a conservation line that balances (counting the COA
    reports the queue manager generated during the run)."""
    home = tmp_path / "demo-home"
    create_qmgr(home, "QM1")
    old = connect("QM1", home=home)
    load(old, [dead_letter("left over from an earlier demo")])
    old.disconnect()
    env = {**os.environ, "DLQHANDLER_HOME": str(home)}
    env.pop("DLQHANDLER_QMGR", None)

    done = subprocess.run(
        [sys.executable, "samples/demo.py"],
        cwd=ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Deleted the previous QM1" in out
    assert "$ dlqhandler qm dmpmqmsg -m QM1 -o SYSTEM.DEAD.LETTER.QUEUE" in out
    assert "AMQ8708" in out
    assert "AMQ8709" in out
    assert "Summary for INPUTQ(" in out
    assert f"QUEUE({DLQ})" in out
    assert "CURDEPTH(7)" in out
    # (18: the COAs the queue manager sent for the requests a retry or forward placed on a
    # queue; their reply queues do not exist, so they were dead-lettered and handled too)
    assert (
        "Conservation: 200 in + 18 reports the queue manager generated = 198 on target queues"
        " + 13 discarded + 7 left on the DLQ: OK" in out
    )
    assert (home / "handler.log").stat().st_size > 0
