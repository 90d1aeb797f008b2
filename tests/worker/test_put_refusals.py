"""What ``dlqhandler run`` does when the queue manager refuses a forward's MQPUT because of
the message's length: the message is never lost nor delivered twice."""

from __future__ import annotations

import pytest

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.errors import MQIError
from tests.worker.helpers import DLQ, RunCli, alter, dead_letter, define, load


def test_a_message_too_big_for_the_destination_is_retried_then_falls_through(
    qm, ledger, run_cli: RunCli
) -> None:
    """A forward to a queue whose MAXMSGL is below the message fails with
    MQRC_MSG_TOO_BIG_FOR_Q (2030) at each of its RETRY(2) attempts, the message staying on
    the DLQ meanwhile; the next rule then forwards it to a queue that takes it: it is found
    exactly once, there. IBM, 2030
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041020_.html): "the message was
    too long for the queue"."""
    define(qm, "APP.SMALL", maxmsgl=32768)
    define(qm, "CATCH")
    message = dead_letter("x" * 40_000, reason=2053, destq="APP.SMALL")
    load(qm, [message])
    book = ledger()

    run = run_cli(
        "RETRYINT(0) WAIT(NO)\n"
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\n"
        "ACTION(FWD) FWDQ(CATCH) HEADER(YES)\n"
    )

    assert run.rc == 0, run.err
    assert [e["reason_code"] for e in run.events("put_failed")] == [2030, 2030]
    book.check(["APP.SMALL", "CATCH"])
    assert book.where(message) == "CATCH"


def test_a_message_over_the_queue_managers_maxmsgl_stays_on_the_dlq(
    qm, ledger, run_cli: RunCli
) -> None:
    """With the queue manager's MAXMSGL lowered below a dead letter already on the DLQ,
    every forward of it fails with MQRC_MSG_TOO_BIG_FOR_Q_MGR (2031), whatever the
    destination: it stays on the DLQ, once, and nothing reaches the destination; a smaller
    message in the same run is forwarded. IBM, 2031
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041030_.html): "the message was
    too long for the queue manager"."""
    define(qm, "CATCH", maxmsgl=104_857_600)
    big = dead_letter("x" * 40_000, tag="BIG")
    small = dead_letter("small", tag="SMALL")
    load(qm, [big, small])
    qm.admin().alter_qmgr({"MAXMSGL": 32768})  # type: ignore[attr-defined]
    book = ledger()

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n")

    assert {e["reason_code"] for e in run.events("put_failed")} == {2031}
    placed = book.check(["CATCH"])
    assert book.where(big) == DLQ
    assert book.where(small) == "CATCH"
    assert len(placed["CATCH"]) == 1


def test_a_get_inhibited_dlq_stops_the_run_with_nothing_taken(qm, ledger, run_cli: RunCli) -> None:
    """A DLQ altered GET(DISABLED): the first MQGET fails with MQRC_GET_INHIBITED (2016) and
    the run ends with exit 5 (MQ_ERROR), an error event naming the reason, and the
    message still on the DLQ, once; nothing reached the destination. IBM, InhibitGet
    (a copy at http://setgetweb.com/p/MQ90/ref.dev/q103250_.htm): "MQGET calls fail with
    reason code MQRC_GET_INHIBITED. This includes MQGET calls that specify
    MQGMO_BROWSE_FIRST or MQGMO_BROWSE_NEXT"."""
    define(qm, "CATCH")
    message = dead_letter("held", tag="HELD")
    load(qm, [message])
    book = ledger()
    alter(qm, DLQ, get="DISABLED")

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n")

    assert run.rc == ExitCode.MQ_ERROR
    assert [e["reason"] for e in run.events("handler_mq_error")] == [2016]
    alter(qm, DLQ, get="ENABLED")
    book.check(["CATCH"])
    assert book.where(message) == DLQ


def test_a_run_without_inq_authority_on_the_dlq_still_acts(qm, ledger, run_cli: RunCli) -> None:
    """The handler's user with GET, BROWSE and PUT on the DLQ but not INQ: its inquiries
    (depth for metrics and the summary) are refused with MQRC_NOT_AUTHORIZED (2035), which
    the run survives: it forwards the message, once, and exits 0. IBM, MQOPEN options
    (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q101020_.html), MQOO_INQUIRE: "Open
    the object to query attributes" (needs the inq authority); 2035
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html)."""
    define(qm, "CATCH")
    message = dead_letter("no-inq", tag="NOINQ")
    load(qm, [message])
    book = ledger()
    qm.admin().set_authrec(DLQ, qm.user, add=["GET", "BROWSE", "PUT"])  # type: ignore[attr-defined]
    with pytest.raises(MQIError) as refused:
        qm.inquire_queue(DLQ)
    assert refused.value.reason == 2035

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n")

    assert run.rc == 0, run.err
    assert len(run.events("message_forwarded")) == 1
    book.check(["CATCH"])
    assert book.where(message) == "CATCH"


def test_a_waiting_run_ends_when_the_dlq_is_get_inhibited(home, qm, run_cli: RunCli) -> None:
    """A run with WAIT(YES) waiting on an empty DLQ ends, exit 5 (MQ_ERROR) with the reason
    2016, soon after another connection alters the DLQ GET(DISABLED), instead of waiting
    on. IBM, MQGMO_WAIT (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q096780_.html):
    the wait is canceled when "Get operations are inhibited for the queue"."""
    import threading
    import time

    from dlqhandler.qmgr import connect

    def shut() -> None:
        conn = connect("QM1", home=home, user="operator")
        try:
            alter(conn, DLQ, get="DISABLED")
        finally:
            conn.disconnect()

    timer = threading.Timer(1.0, shut)
    started = time.monotonic()
    timer.start()
    try:
        run = run_cli("WAIT(YES)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n")
    finally:
        timer.join()
    assert run.rc == ExitCode.MQ_ERROR
    assert [e["reason"] for e in run.events("handler_mq_error")] == [2016]
    assert time.monotonic() - started < 30
