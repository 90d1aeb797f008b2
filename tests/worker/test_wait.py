"""WAIT(NO), WAIT(n) and WAIT(YES): when the handler ends."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest

from dlqhandler.qmgr import connect
from tests.worker.helpers import (
    Ledger,
    RunCli,
    dead_letter,
    define,
    depth,
    json_events,
    load,
    plain,
    start_handler,
    terminate,
    until,
)


def test_wait_no_ends_after_a_pass_with_nothing_to_do(qm, ledger, run_cli: RunCli) -> None:
    """WAIT(NO) ends as soon as a full pass found no useful work: ignored messages and
    messages without an MQDLH do not keep it running (and stay where they are). It ends
    after that one pass, for WAIT: a wait for new messages (up to 10 x RETRYINT(60)) would
    be followed by a second pass."""
    load(qm, [dead_letter("ignored", destq="KEEP"), plain()])
    book = ledger()

    run = run_cli("RETRYINT(60) WAIT(NO)\nDESTQ(KEEP) ACTION(IGNORE)\n")

    assert run.rc == 0
    book.check([])
    [ended] = run.events("handler_ended")
    assert (ended["reason"], ended["passes"]) == ("wait_expired", 1)


@pytest.mark.timeout(60)  # a hang guard: WAIT(2) must end it, not the 600 s rescan wait
def test_wait_n_ends_after_n_idle_seconds(home, qm, ledger, run_cli: RunCli) -> None:
    """WAIT(2) keeps the handler waiting for new messages; one that arrives is handled
    at once and restarts the idle clock: the handler ends two idle seconds after it
    arrived, not before, because WAIT expired (well before RETRYINT(60)'s rescan)."""
    define(qm, "CATCH")
    load(qm, [dead_letter("early")])
    book = ledger()
    late = dead_letter("late", priority=0)
    putting: list[float] = []

    def put_late() -> None:
        time.sleep(0.8)
        conn = connect("QM1", home=home, user="tester")
        putting.append(time.monotonic())  # it cannot be handled before this
        load(conn, [late])
        conn.disconnect()

    helper = threading.Thread(target=put_late, daemon=True)
    helper.start()
    run = run_cli("RETRYINT(60) WAIT(2)\nACTION(FWD) FWDQ(CATCH)\n")
    ended = time.monotonic()
    helper.join(timeout=5)

    assert run.rc == 0, run.err
    [put] = putting  # while the handler ran: it forwarded the late message (below)
    # the idle clock restarted when the handler took the late message, after `put`
    # (1.95: the handler's clock is time.time, this one time.monotonic)
    assert ended - put >= 1.95, ended - put
    book.original[late.md.msg_id] = late  # it arrived during the run
    placed = book.check(["CATCH"])
    assert len(placed["CATCH"]) == 2
    assert run.events("handler_ended")[0]["reason"] == "wait_expired"


def test_wait_yes_runs_until_sigterm(home: Path, qm, tmp_path: Path) -> None:
    """WAIT(YES) keeps running on an empty DLQ and handles what arrives; SIGTERM ends
    it cleanly: exit 0, AMQ8709 and the summary printed."""
    define(qm, "CATCH")
    load(qm, [dead_letter(f"m{i}") for i in range(5)])
    book = Ledger.of(qm)
    rules = tmp_path / "wait-yes.rul"
    rules.write_text("RETRYINT(60) WAIT(YES)\nACTION(FWD) FWDQ(CATCH)\n")
    log = tmp_path / "handler.log"
    child = start_handler(home, rules, "--no-watch", log=log)
    try:
        until(lambda: depth(qm, "CATCH") == 5, "the backlog was not handled")
        time.sleep(1.0)
        assert child.poll() is None, "WAIT(YES) ended on its own"
        late = load(qm, [dead_letter("late", priority=0)])[0]
        book.original[late.md.msg_id] = late
        until(lambda: depth(qm, "CATCH") == 6, "a new message was not handled")
    finally:
        out = terminate(child, timeout=20)
    assert child.returncode == 0
    assert "AMQ8709" in out
    assert "forwarded                       6" in out
    book.check(["CATCH"])
    ended = [e for e in json_events(log) if e["event"] == "handler_ended"]
    assert ended[0]["reason"] == "stopped"


def test_ctrl_c_ends_a_table_run_with_exit_130_after_its_summary(
    home: Path, qm, tmp_path: Path
) -> None:
    """Ctrl-C (SIGINT) stops a handler with a rules table cleanly, between units of work,
    with AMQ8709 and the summary printed, and exits 130 as every command does after
    Ctrl-C (README "Exit codes"); SIGTERM, the service manager's stop, exits 0
    (test_wait_yes_runs_until_sigterm)."""
    define(qm, "CATCH")
    load(qm, [dead_letter(f"m{i}") for i in range(3)])
    book = Ledger.of(qm)
    rules = tmp_path / "wait-yes.rul"
    rules.write_text("RETRYINT(60) WAIT(YES)\nACTION(FWD) FWDQ(CATCH)\n")
    child = start_handler(home, rules, "--no-watch")
    try:
        until(lambda: depth(qm, "CATCH") == 3, "the backlog was not handled")
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
    assert child.returncode == 130
    assert "AMQ8709" in out
    assert "forwarded                       3" in out
    book.check(["CATCH"])
