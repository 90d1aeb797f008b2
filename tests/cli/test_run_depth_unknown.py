"""`dlqhandler run` when its end-of-run depth inquiry is refused."""

from __future__ import annotations

from pathlib import Path

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.qmgr.embedded import EmbeddedQueueManager, connect
from tests.worker.helpers import DLQ, RunCli, dead_letter, depth, load, mqsc


def _user(home: Path) -> str:
    """The user a run connects as (the fixture's own connection may carry another)."""
    qm = connect("QM1", home=home)
    try:
        return qm.user
    finally:
        qm.disconnect()


def test_a_refused_depth_inquiry_is_said_not_counted_as_empty(
    home: Path, qm: EmbeddedQueueManager, run_cli: RunCli
) -> None:
    """The user may get from the DLQ but not inquire it (an authority record without INQ:
    the MQOPEN for inquiry is refused with 2035: "On an MQOPEN or MQPUT1 call, the user is not
    authorized to open the object for the options specified",
    https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html). The run still
    processes the queue, and its end says the depth is unknown and why (summary, stderr with
    the grant, a depth_unknown event, handler_ended's depth_unknown) instead of counting the
    message it left as if nothing were left; the exit code stays 0."""
    load(qm, [dead_letter("goes", reason=2053), dead_letter("stays", reason=2085)])
    user = _user(home)
    mqsc(
        home,
        f"SET AUTHREC PROFILE({DLQ}) OBJTYPE(QUEUE) PRINCIPAL('{user}') AUTHADD(GET, BROWSE)",
    )

    run = run_cli("WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(DISCARD)\n")

    assert run.rc == ExitCode.OK
    assert depth(qm, DLQ) == 1
    [left] = [line for line in run.out.splitlines() if "left on the queue" in line]
    assert "unknown" in left
    assert "MQRC_NOT_AUTHORIZED (2035)" in left
    assert "AUTHADD(INQ)" in left
    [seen] = [line for line in run.out.splitlines() if "messages seen" in line]
    assert seen.split()[2:4] == ["2", "(at"]  # the one discarded and the one left
    assert f"-n {DLQ} -t queue -p <user> +inq" in run.err
    [event] = run.events("depth_unknown", reason=2035)
    assert event["queue"] == DLQ
    [ended] = run.events("handler_ended")
    assert ended["left_on_queue"] is None
    assert "2035" in ended["depth_unknown"]
    assert ended["discarded"] == 1
