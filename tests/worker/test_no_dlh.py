"""Messages without an MQDLH: left on the DLQ and reported, without flooding the log."""

from __future__ import annotations

from dlqhandler.cli.exitcodes import ExitCode
from tests.worker.helpers import RunCli, dead_letter, define, load, plain


def test_messages_without_dlh_are_left_and_reported_rate_limited(
    qm, ledger, run_cli: RunCli
) -> None:
    """Each message without a valid MQDLH stays on the DLQ untouched. It is reported by
    MsgId once (again only after 10 minutes), with at most 20 such warnings per pass;
    each pass logs the total (at info only when it changed), and the summary counts them."""
    define(qm, "APP.Q", put="DISABLED")
    orphans = [plain(tag=f"ORPHAN{i}") for i in range(30)]
    short = plain(b"DLH too short", tag="SHORT")
    # A RETRY that keeps failing keeps the handler making passes over the orphans.
    stubborn = dead_letter("stubborn", reason=2051, destq="APP.Q")
    load(qm, [*orphans[:15], stubborn, short, *orphans[15:]])
    book = ledger()

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(4)\n")

    assert run.rc == ExitCode.PARTIAL, run.err  # the stubborn RETRY failed
    placed = book.check(["APP.Q"])
    assert len(placed["SYSTEM.DEAD.LETTER.QUEUE"]) == 32
    warnings = run.events("message_without_dlh")
    assert all(w["log_level"] == "warning" and len(w["msgid"]) == 48 for w in warnings)
    # Pass 1 reports the first 20 it meets; pass 2 the 11 it had to hold back; then none.
    reported = [w["msgid"] for w in warnings]
    assert len(reported) == len(set(reported)) == 31
    order = [m.md.msg_id.hex() for m in [*orphans[:15], short, *orphans[15:]]]
    assert reported[:20] == order[:20]
    assert set(reported[20:]) == set(order[20:])
    totals = run.events("pass_messages_without_dlh")
    assert len(totals) >= 4
    assert {t["count"] for t in totals} == {31}
    assert [t["log_level"] for t in totals][:2] == ["info", "debug"]
    assert run.summary("without MQDLH") == 31
    assert len(run.events("put_failed")) == 4
