"""``qm dmpmqmsg -I`` whose commit the queue manager backs out: the file holds exactly
what left the queue."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions, connect
from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager
from tests.qmgr.contract.conftest import collect


@pytest.fixture
def home(empty_home: Path) -> Path:
    """An empty home: the test creates its queue manager."""
    return empty_home


BODIES = [f"message {i}".encode() for i in range(5)]


def _unload_failing_the_second_commit(
    fail: Callable[[EmbeddedQueueManager], None],
    out: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str]:
    """Create QM1 with BODIES on APP.IN, then ``qm dmpmqmsg -I APP.IN -t 2 -f OUT`` with
    the second MQCMIT of a unit of work going through ``fail`` first: (exit code, stderr)."""
    assert main(["qm", "create", "QM1"]) == 0
    with connect("QM1") as qm:
        qm.admin().define_queue("APP.IN", {})
        for body in BODIES:
            qm.put1("APP.IN", Message(MQMD(format="MQSTR"), body), PutOptions(syncpoint=False))
    real = EmbeddedQueueManager.commit
    commits = 0

    def second_fails(self: EmbeddedQueueManager) -> None:
        nonlocal commits
        if self._uow.active:
            commits += 1
            if commits == 2:
                fail(self)
        real(self)

    capsys.readouterr()
    with monkeypatch.context() as m:
        m.setattr(EmbeddedQueueManager, "commit", second_fails)
        rc = main(["qm", "dmpmqmsg", "-m", "QM1", "-I", "APP.IN", "-t", "2", "-f", str(out)])
    return rc, capsys.readouterr().err


def test_a_destructive_unload_whose_commit_is_backed_out_cuts_the_file(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """-I with -t 2 of five messages: the first unit of work commits, the second MQCMIT
    is backed out by the queue manager (MQRC_BACKED_OUT). The unload stops with the
    reason's exit code and says so; the file holds the two messages that left the queue
    and not the two backed out (which are back on the queue, with the fifth), and the
    Written count is 2, not 4: a failed commit is never taken as done. IBM's 2003 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040770_.html): "when the commit
    operation fails and the unit of work is backed out. All resources that participated
    in the unit of work are returned to their state at the start of the unit of work"."""

    def lost(qm: EmbeddedQueueManager) -> None:
        qm.store.losses += 1  # (the disk-full path: MQCMIT backs out, 2003)

    out = tmp_path / "got.dmp"
    rc, err = _unload_failing_the_second_commit(lost, out, monkeypatch, capsys)

    assert rc != 0
    assert "MQRC_BACKED_OUT (2003)" in err
    assert "2 message(s) are in the file and were removed from the queue" in err
    assert "Messages:     2" in err.split("Written")[1]
    assert [m.body for m in read_dump(out)] == BODIES[:2]
    with connect("QM1") as qm:
        q = qm.open("APP.IN", input=False, browse=True)
        first, after = GetOptions(browse="first"), GetOptions(browse="next")
        left = [m.body for m in collect(q, first, after)]
    assert left == BODIES[2:]


def test_a_destructive_unload_whose_commit_outcome_is_unknown_says_so(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """-I with -t 2 of five messages whose second MQCMIT fails with MQRC_CONNECTION_BROKEN
    (2009), an outcome IBM leaves unknown: the file is left whole (its last two messages
    may or may not have left the queue) and the error says how many of its last messages
    may still be on the queue, so nobody loads it back unawares; the Written count is the
    two committed. IBM's MQCMIT page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q101750_.html) lists
    MQRC_CONNECTION_BROKEN "(2009, X'7D9') Connection to queue manager lost" among its
    failures."""
    from dlqhandler.mq.constants import mqi_error

    def broken(qm: EmbeddedQueueManager) -> None:
        raise mqi_error(2009, "connection broken during MQCMIT")

    out = tmp_path / "got.dmp"
    rc, err = _unload_failing_the_second_commit(broken, out, monkeypatch, capsys)

    assert rc != 0
    assert "MQRC_CONNECTION_BROKEN (2009)" in err
    assert "the file's last 2 message(s) were not committed as got" in err
    assert "Messages:     2" in err.split("Written")[1]
    assert [m.body for m in read_dump(out)] == BODIES[:4]
