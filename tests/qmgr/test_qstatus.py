"""DISPLAY QSTATUS in `qm mqsc` and a real STATUS in `qm list`: what an administrator checks
first to see which handlers hold the dead-letter queue."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import PutOptions, connect

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / ".venv" / "bin" / "dlqhandler"


def _mqsc(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str
) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    capsys.readouterr()
    rc = main(["qm", "mqsc", "QM1"])
    return rc, capsys.readouterr().out


def _blocks(out: str) -> list[str]:
    """The AMQ8450I blocks of a DISPLAY QSTATUS, as single strings."""
    return out.split("AMQ8450I: Display queue status details.\n")[1:]


def _list(capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["qm", "list"]) == 0
    return capsys.readouterr().out


@pytest.fixture
def qm1(home: Path) -> Path:
    assert main(["qm", "create", "QM1"]) == 0
    return home


def test_qstatus_queue_counts_open_handles_uncommitted_work_and_age(
    qm1: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reader (input handle) and a writer (output handle, one uncommitted put) on the
    DLQ: IPPROCS(1), OPPROCS(1), UNCOM(1), CURDEPTH counts the put, MSGAGE is a number;
    once both disconnect: IPPROCS(0), OPPROCS(0), UNCOM(NO) (the put backed out)."""
    reader = connect("QM1", appl_name="runmqdlq")
    writer = connect("QM1", appl_name="loader")
    try:
        reader.open(DLQ, input=True, browse=True)
        out_q = writer.open(DLQ, input=False, browse=False, output=True)
        writer.put1(DLQ, Message(MQMD(), b"committed"), PutOptions(syncpoint=False))
        out_q.put(Message(MQMD(), b"pending"), PutOptions(syncpoint=True))
        # An MQI call on another connection of this process ends the writer's hold on
        # the database (qmgr/embedded/hold.py): others then see its uncommitted put.
        reader.inquire_queue(DLQ)
        rc, out = _mqsc(monkeypatch, capsys, f"DISPLAY QSTATUS({DLQ}) TYPE(QUEUE)\n")
    finally:
        reader.disconnect()
        writer.disconnect()
    assert rc == 0, out
    [block] = _blocks(out)
    for item in (
        f"QUEUE({DLQ})",
        "TYPE(QUEUE)",
        "CURDEPTH(2)",
        "IPPROCS(1)",
        "OPPROCS(1)",
        "UNCOM(1)",
    ):
        assert item in block, block
    assert re.search(r"MSGAGE\(\d+\)", block), block
    rc, out = _mqsc(monkeypatch, capsys, f"DIS QS({DLQ})\n")
    [block] = _blocks(out)
    for item in ("CURDEPTH(1)", "IPPROCS(0)", "OPPROCS(0)", "UNCOM(NO)"):
        assert item in block, block


def test_qstatus_handle_lists_who_holds_the_queue(
    qm1: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """TYPE(HANDLE): one block per open handle with APPLTAG, PID, USERID, INPUT, OUTPUT;
    an empty queue with no handle gives no block; a generic name covers several queues."""
    holder = connect("QM1", appl_name="runmqdlq", user="mqm")
    try:
        holder.open(DLQ, input=True, browse=True)
        holder.open("SYSTEM.DEFAULT.INITIATION.QUEUE", input=False, browse=False, output=True)
        rc, out = _mqsc(monkeypatch, capsys, "DISPLAY QSTATUS(SYSTEM.*) TYPE(HANDLE)\n")
    finally:
        holder.disconnect()
    assert rc == 0, out
    blocks = _blocks(out)
    assert len(blocks) == 2
    dlq = next(b for b in blocks if f"QUEUE({DLQ})" in b)
    for item in (
        "TYPE(HANDLE)",
        "APPLTAG(runmqdlq)",
        "APPLTYPE(USER)",
        f"PID({os.getpid()})",
        "USERID(mqm)",
        "INPUT(SHARED)",
        "OUTPUT(NO)",
    ):
        assert item in dlq, dlq
    initq = next(b for b in blocks if "INITIATION" in b)
    assert "INPUT(NO)" in initq
    assert "OUTPUT(YES)" in initq
    rc, out = _mqsc(monkeypatch, capsys, f"DISPLAY QSTATUS({DLQ}) TYPE(HANDLE)\n")
    assert (rc, _blocks(out)) == (0, [])


def test_handle_status_shows_exclusive_input_as_excl(
    qm1: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """TYPE(HANDLE) shows INPUT(EXCL) for an input handle that is exclusive, whether the
    open asked for it (MQOO_INPUT_EXCLUSIVE) or the queue's DEFSOPT(EXCL) made it so, and
    INPUT(SHARED) for a shared one.

    IBM, MQQSO_* queue status open options
    (https://www.ibm.com/docs/zh/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q092450_.html):
    "MQQSO_SHARED | 1" and "MQQSO_EXCLUSIVE | 2", the INPUT of DISPLAY QSTATUS
    (https://ibm.com/docs/en/SSFKSJ_7.5.0/com.ibm.mq.ref.adm.doc/q086260_.htm) "Handle
    status ... INPUT"."""
    holder = connect("QM1", appl_name="app", user="mqm")
    try:
        holder.admin().define_queue("APP.EXCL", {"DEFSOPT": "EXCL"})
        holder.admin().define_queue("APP.SHARED", {})
        holder.open(DLQ, exclusive=True)
        holder.open("APP.EXCL")
        holder.open("APP.SHARED")
        rc, out = _mqsc(monkeypatch, capsys, "DISPLAY QSTATUS(*) TYPE(HANDLE)\n")
    finally:
        holder.disconnect()
    assert rc == 0, out
    found = {
        name: block
        for block in _blocks(out)
        for name in (DLQ, "APP.EXCL", "APP.SHARED")
        if f"QUEUE({name})" in block
    }
    assert "INPUT(EXCL)" in found[DLQ]
    assert "INPUT(EXCL)" in found["APP.EXCL"]
    assert "INPUT(SHARED)" in found["APP.SHARED"]


def test_qstatus_shows_a_running_handler_process_by_pid(
    qm1: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real `dlqhandler run` (WAIT(YES)) holding the DLQ shows as handles with its PID
    and IPPROCS > 0, and qm list says Running; once it is stopped, no handle is left,
    IPPROCS(0) and qm list says Ended normally."""
    rules = tmp_path / "wait.rul"
    rules.write_text("WAIT(YES)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n")
    command = [str(CLI)] if CLI.exists() else [sys.executable, "-m", "dlqhandler"]
    child = subprocess.Popen(
        [*command, "run", "--rules", str(rules), "--no-watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "DLQHANDLER_HOME": str(qm1)},
    )
    try:
        assert child.stdout is not None
        assert "AMQ8708" in child.stdout.readline()  # started: the DLQ is open
        _rc, out = _mqsc(monkeypatch, capsys, f"DISPLAY QSTATUS({DLQ}) TYPE(HANDLE)\n")
        blocks = _blocks(out)
        assert blocks, out
        assert all(f"PID({child.pid})" in b for b in blocks)
        _rc, out = _mqsc(monkeypatch, capsys, f"DISPLAY QSTATUS({DLQ}) TYPE(QUEUE)\n")
        assert re.search(r"IPPROCS\([1-9]", out), out
        assert "STATUS(Running)" in _list(capsys)
    finally:
        child.send_signal(signal.SIGTERM)
        child.communicate(timeout=60)
    _rc, out = _mqsc(monkeypatch, capsys, f"DISPLAY QSTATUS({DLQ}) TYPE(HANDLE)\n")
    assert _blocks(out) == []
    _rc, out = _mqsc(monkeypatch, capsys, f"DISPLAY QSTATUS({DLQ})\n")
    assert "IPPROCS(0)" in out
    assert "STATUS(Ended normally)" in _list(capsys)


def test_qm_list_shows_a_crashed_connection_as_ended_unexpectedly(
    qm1: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No connection: Ended normally. A process that connects and is killed (SIGKILL)
    leaves its lock file: Ended unexpectedly, until the next connection recovers it."""
    assert re.fullmatch(r"QMNAME\(QM1\) +STATUS\(Ended normally\)\n", _list(capsys))
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import time\nfrom dlqhandler.qmgr import connect\n"
                "qm = connect('QM1')\nprint('up', flush=True)\n"
                "time.sleep(120)\n"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "DLQHANDLER_HOME": str(qm1)},
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "up\n"
    assert "STATUS(Running)" in _list(capsys)
    child.kill()
    child.communicate(timeout=30)
    assert "STATUS(Ended unexpectedly)" in _list(capsys)
    connect("QM1").disconnect()  # connecting recovers the dead connection
    assert "STATUS(Ended normally)" in _list(capsys)


def test_qstatus_errors(
    qm1: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """TYPE(OTHER) and an unknown attribute are syntax errors; an unknown queue is
    AMQ8147E; the command fails (exit 1) naming the line."""
    rc, out = _mqsc(
        monkeypatch,
        capsys,
        f"DISPLAY QSTATUS({DLQ}) TYPE(OTHER)\n"
        f"DISPLAY QSTATUS({DLQ}) COLOUR\n"
        "DISPLAY QSTATUS(NO.SUCH.Q)\n",
    )
    assert rc == 1
    assert "TYPE must be QUEUE or HANDLE" in out
    assert "COLOUR is not a QSTATUS attribute" in out
    assert "AMQ8147E: IBM MQ object NO.SUCH.Q not found." in out
