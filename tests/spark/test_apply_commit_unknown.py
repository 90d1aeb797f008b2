"""`drain --apply` whose MQCMIT loses its connection: the messages of that commit are
named, counted neither moved nor failed, and the drain goes on."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import PutOptions
from tests.spark.drain_helpers import ROOT, audit_rows, browse, drain_env, payload_hash, run_drain

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"

# Loaded by every Python process of the drain (driver, Spark's Python workers): the
# first MQCMIT with a put in it, in whichever process, commits and then answers
# MQRC_CONNECTION_BROKEN (2009), as a client whose connection broke after the queue
# manager committed sees it. The marker file makes it one commit across processes.
_SITECUSTOMIZE = textwrap.dedent(
    """
    import os

    if os.environ.get("DLQ_TEST_BREAK_COMMIT"):
        from dlqhandler.mq.constants import mqi_error
        from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager

        _real = EmbeddedQueueManager.commit

        def _broken(self):
            if not (self._uow.active and self._uow.put):
                return _real(self)
            try:
                marker = os.environ["DLQ_TEST_BREAK_COMMIT"]
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return _real(self)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            _real(self)
            raise mqi_error(2009, "connection broken during MQCMIT")

        EmbeddedQueueManager.commit = _broken

        if os.environ.get("DLQ_TEST_STAY_DOWN"):
            # ... and the queue manager stays out of reach for the process that saw it
            _open = EmbeddedQueueManager.open

            def _down(self, queue, **kw):
                marker = os.environ["DLQ_TEST_BREAK_COMMIT"]
                if os.path.exists(marker) and open(marker).read() == str(os.getpid()):
                    raise mqi_error(2059, "queue manager not available")
                return _open(self, queue, **kw)

            EmbeddedQueueManager.open = _down
    """
)


def _letter(i: int) -> Message:
    md = MQMD(format="MQSTR", msg_id=f"letter-{i}".encode().ljust(24, b"\x00"), persistence=1)
    return Message.dead_letter(md, f"letter {i}".encode(), reason=2053, dest_q_name="APP.Q")


def _six_letters_to_forward(tmp_path: Path) -> tuple[Path, list[Any], Path, list[str]]:
    """QM1 with six dead letters for APP.Q on its DLQ, a sitecustomize that breaks the
    first MQCMIT (``tmp_path/site``), and a table forwarding them: the queue manager's
    home, the letters, the output directory and `drain --apply`'s arguments."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    qm.admin().define_queue("APP.Q", {"MAXDEPTH": 10000})
    letters = [_letter(i) for i in range(6)]
    for m in letters:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    qm.disconnect()
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    rules = tmp_path / "r.rul"
    rules.write_text("DESTQ(APP.Q) ACTION(FWD) FWDQ(APP.Q) HEADER(NO)\n")
    out = tmp_path / "out"
    return home, letters, out, ["--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)]


def test_a_commit_of_unknown_outcome_is_named_and_counted_neither_moved_nor_failed(
    tmp_path: Path,
) -> None:
    """Six dead letters forwarded by `drain --apply`, one task: the MQCMIT of the first
    fails with MQRC_CONNECTION_BROKEN (2009) after the queue manager committed it. That
    message's audit row says ``unknown`` (disposition UNKNOWN, with the rule carried out
    and the target it may be on), summary.json counts it as ``unknown`` and names its
    MsgId (not forwarded, not remaining), stderr names it too, and the drain exits 6;
    the task connects again and forwards the other five. Every message is in exactly
    one place (here all six on APP.Q) with its payload. IBM's 2009 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040830_.html): "it is possible
    that the call did complete successfully, even though this reason code is returned";
    its 2549 page (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q045480_.html):
    "If MQCMIT was interrupted the transaction might or might not have been
    committed"."""
    home, letters, out, args = _six_letters_to_forward(tmp_path)
    env = drain_env(
        DLQHANDLER_HOME=str(home),
        DLQ_TEST_BREAK_COMMIT=str(tmp_path / "broken-once"),
        PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(ROOT)]),
    )
    result = run_drain(*args, "--partitions", "1", cwd=tmp_path, env=env)

    assert result.returncode == 6, result.stderr
    assert (tmp_path / "broken-once").exists()
    rows = {r["msgid"]: r for r in audit_rows(out)}
    unknown = [k for k, r in rows.items() if r["outcome"] == "unknown"]
    assert len(unknown) == 1
    row = rows[unknown[0]]
    assert (row["disposition"], row["out_q"], row["action"], row["chosen_line"]) == (
        "UNKNOWN",
        "APP.Q",
        "FWD",
        1,
    )
    assert sorted(r["outcome"] for k, r in rows.items() if k not in unknown) == ["ok"] * 5
    summary = json.loads((out / "summary.json").read_text())
    totals = summary["totals"]
    assert (totals["unknown"], totals["forwarded"], totals["remaining"]) == (1, 5, 0)
    assert summary["unknown_outcome"] == unknown
    assert f"msgid {unknown[0]}" in result.stderr
    assert "1 message(s) is unknown" in result.stderr
    qm = connect("QM1", home=home)
    target, left = browse(qm, "APP.Q"), browse(qm, DLQ)
    qm.disconnect()
    assert left == []
    assert sorted(m.md.msg_id for m in target) == sorted(m.md.msg_id for m in letters)
    original = {m.md.msg_id: payload_hash(m) for m in letters}
    assert all(payload_hash(m) == original[m.md.msg_id] for m in target)


def test_a_task_that_cannot_connect_again_leaves_its_messages_and_says_so(
    tmp_path: Path,
) -> None:
    """As above, but the queue manager stays out of reach for the task after the commit
    of unknown outcome (MQRC_Q_MGR_NOT_AVAILABLE, 2059, on the next connection). The
    task does not fail (the drain would then lose the audit of what it did): the five
    messages it could not act on stay on the DLQ with outcome ``not_connected``
    (disposition REMAIN, no attempt counted), summary.json counts them
    (``totals.not_connected``, the reason in ``not_connected``), the printed summary and
    stderr say so with the reason, and the drain exits 6. IBM's 2059 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040850_.html): "the queue
    manager ... is not available"; 2009's: the committed call "did complete" or not."""
    home, letters, out, args = _six_letters_to_forward(tmp_path)
    env = drain_env(
        DLQHANDLER_HOME=str(home),
        DLQ_TEST_BREAK_COMMIT=str(tmp_path / "broken-once"),
        DLQ_TEST_STAY_DOWN="1",
        PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(ROOT)]),
    )
    result = run_drain(*args, "--partitions", "1", cwd=tmp_path, env=env)

    assert result.returncode == 6, result.stderr
    rows = audit_rows(out)
    assert sorted(r["outcome"] for r in rows) == ["not_connected"] * 5 + ["unknown"]
    assert {r["disposition"] for r in rows if r["outcome"] == "not_connected"} == {"REMAIN"}
    summary = json.loads((out / "summary.json").read_text())
    totals = summary["totals"]
    assert (totals["unknown"], totals["not_connected"], totals["remaining"]) == (1, 5, 5)
    [why] = summary["not_connected"]
    assert (why["messages"], "2059" in why["reason"]) == (5, True)
    assert "5 message(s) were not acted on" in result.stderr
    assert ["not", "connected", "5"] in [line.split() for line in result.stdout.splitlines()]
    qm = connect("QM1", home=home)
    target, left = browse(qm, "APP.Q"), browse(qm, DLQ)
    qm.disconnect()
    assert (len(target), len(left)) == (1, 5)  # the unknown one did commit; none lost
    assert sorted(m.md.msg_id for m in target + left) == sorted(m.md.msg_id for m in letters)
