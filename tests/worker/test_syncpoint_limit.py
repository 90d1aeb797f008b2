"""The handler on a queue manager whose MaxUncommittedMsgs (MAXUMSGS) is smaller than
the units of work it would make: it commits before an action that might not fit, and an
action too big on its own is a failed attempt, backed out, with nothing lost."""

from __future__ import annotations

from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from tests.worker.helpers import DLQ, RunCli, dead_letter, define, load, mqsc


def test_the_handler_keeps_its_units_of_work_within_maxumsgs(
    qm, home, ledger, run_cli: RunCli
) -> None:
    """With MAXUMSGS(7) twelve single dead letters are all retried (the handler commits
    before each action that might not fit, instead of meeting MQRC_SYNCPOINT_LIMIT_REACHED
    in a batch), while a group of five, whose gets and puts alone pass 7, fails with 2024
    at each attempt: counted, backed out and left whole on the DLQ until its RETRY(2) is
    spent. Nothing is lost or duplicated, and the run ends as a partial one (6), not on
    an MQ error. IBM's 2024 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040970_.html): "An MQGET,
    MQPUT, or MQPUT1 call failed because it would have caused the number of uncommitted
    messages in the current unit of work to exceed the limit"."""
    define(qm, "APP.Q")
    singles = [dead_letter(f"single {i}", destq="APP.Q", tag=f"S{i}") for i in range(12)]
    gid = b"BIG GROUP".ljust(24, b"\x00")
    members = [
        dead_letter(
            f"member {seq}",
            destq="APP.Q",
            tag=f"G{seq}",
            group_id=gid,
            msg_seq_number=seq,
            msg_flags=MQMF_LAST_MSG_IN_GROUP if seq == 5 else MQMF_MSG_IN_GROUP,
        )
        for seq in range(1, 6)
    ]
    load(qm, singles + members)
    mqsc(home, "ALTER QMGR MAXUMSGS(7)")
    book = ledger()

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(2)\n")

    assert run.rc == 6, run.err
    assert run.events("handler_mq_error") == []
    placed = book.check(["APP.Q"])
    assert sorted(m.md.msg_id for m in placed["APP.Q"]) == sorted(m.md.msg_id for m in singles)
    assert sorted(m.md.msg_id for m in placed[DLQ]) == sorted(m.md.msg_id for m in members)
    failed = run.events("group_failed")
    assert [(e["attempts"], e["reason_name"]) for e in failed] == [
        (1, "MQRC_SYNCPOINT_LIMIT_REACHED"),
        (2, "MQRC_SYNCPOINT_LIMIT_REACHED"),
    ]


def test_a_message_too_big_for_maxumsgs_is_a_failed_attempt_backed_out(
    qm, home, ledger, run_cli: RunCli
) -> None:
    """With MAXUMSGS(1) a retry's put fills the unit of work and the destructive get of
    the locked dead letter fails with MQRC_SYNCPOINT_LIMIT_REACHED (2024): the attempt is
    counted while the message is still locked and the put is backed out (it must not
    stand without its get), so the target gets nothing, the dead letter stays, and the
    handler goes on to its next attempt instead of stopping. IBM's 2024 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040970_.html): "it would have
    caused the number of uncommitted messages in the current unit of work to exceed the
    limit defined for the queue manager"."""
    define(qm, "APP.Q")
    letters = [dead_letter(f"single {i}", destq="APP.Q", tag=f"T{i}") for i in range(2)]
    load(qm, letters)
    mqsc(home, "ALTER QMGR MAXUMSGS(1)")
    book = ledger()

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(2)\n")

    assert run.rc == 6, run.err
    assert run.events("handler_mq_error") == []
    placed = book.check(["APP.Q"])
    assert placed.get("APP.Q", []) == []
    assert sorted(m.md.msg_id for m in placed[DLQ]) == sorted(m.md.msg_id for m in letters)
    failed = [(e["reason_code"], e["attempts"]) for e in run.events("put_failed")]
    assert failed == [(2024, 1), (2024, 1), (2024, 2), (2024, 2)]
