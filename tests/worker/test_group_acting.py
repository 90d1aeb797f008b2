"""The handler's group path under :mod:`dlqhandler.acting`: a failure is counted while
the whole group is held."""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_MSG_IN_GROUP,
    MQRC_NO_MSG_AVAILABLE,
)
from dlqhandler.qmgr import GetOptions
from dlqhandler.qmgr.attempts import AttemptStore, group_subject
from tests.worker.helpers import DLQ, STATUS, RunCli, browse, dead_letter, define, load


def test_the_handler_counts_a_group_failure_while_it_still_holds_the_group(
    qm, ledger, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When a member's put fails, the group's attempt is written before the group is
    given back: at that moment another connection sees none of its members. (Given back
    first, another handler could take the group, move it and clear the records it read
    before this count landed, leaving an orphan attempt record: the race the drain had,
    commit 78a5a02.) The group stays whole on the DLQ, with its count."""
    define(qm, "APP.GRP")
    define(qm, "APP.BAD", put="DISABLED")
    gid = b"GROUP HELD".ljust(24, b"\x00")
    members = [
        dead_letter(
            f"member {seq}",
            destq=destq,
            tag=f"HELD{seq}",
            group_id=gid,
            msg_seq_number=seq,
            msg_flags=MQMF_LAST_MSG_IN_GROUP if seq == 3 else MQMF_MSG_IN_GROUP,
        )
        for seq, destq in enumerate(["APP.GRP", "APP.BAD", "APP.GRP"], start=1)
    ]
    load(qm, members)
    book = ledger()
    watcher = qm.open(DLQ, input=False)
    seen: list[list[bool]] = []
    real = AttemptStore.record_failure

    def visible(msg_id: bytes) -> bool:
        try:
            watcher.get(GetOptions(browse="first", msg_id=msg_id, syncpoint=False))
        except MQIError as exc:
            if exc.reason == MQRC_NO_MSG_AVAILABLE:
                return False
            raise
        return True

    def watched(self: AttemptStore, *args: object) -> object:
        seen.append([visible(m.md.msg_id) for m in members])
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(AttemptStore, "record_failure", watched)

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(2)\n")

    assert run.rc == 6, run.err  # partial: the group is left, its action failed
    assert seen == [[False, False, False]] * 2  # both attempts counted while held
    placed = book.check(["APP.GRP", "APP.BAD"])
    assert {m.md.msg_id for m in placed[DLQ]} == {m.md.msg_id for m in members}
    assert placed.get("APP.GRP", []) == []
    assert placed.get("APP.BAD", []) == []
    assert [e["attempts"] for e in run.events("group_failed")] == [1, 2]
    monkeypatch.undo()
    store = AttemptStore(qm, STATUS, readonly=True)
    record = store.lookup(group_subject(members[0].md.group_id))
    assert record is not None
    assert record.attempts == 2
    assert len(browse(qm, STATUS)) == 1
    store.close()
    watcher.close()


def test_a_failed_group_counts_every_member_left(qm, ledger, run_cli: RunCli) -> None:
    """A group whose action failed is left whole, every member on the DLQ: the summary's
    "failed, left", the run's ``failed`` and its last line ("N message(s) left on the DLQ
    because their action failed") count each member, as "left on the queue" and the
    action rows count messages. (Before, a group counted once: a three-member group and
    one message left said "2 message(s) left" beside "left on the queue 4".) A group is
    acted on whole: IBM's "Grouping logical messages"
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html):
    "retrieve the entire group with the same getting application instance"."""
    define(qm, "APP.GRP")
    define(qm, "APP.BAD", put="DISABLED")
    gid = b"GROUP LEFT".ljust(24, b"\x00")
    members = [
        dead_letter(
            f"member {seq}",
            destq=destq,
            tag=f"LEFT{seq}",
            group_id=gid,
            msg_seq_number=seq,
            msg_flags=MQMF_LAST_MSG_IN_GROUP if seq == 3 else MQMF_MSG_IN_GROUP,
        )
        for seq, destq in enumerate(["APP.GRP", "APP.BAD", "APP.GRP"], start=1)
    ]
    load(qm, [*members, dead_letter("single", destq="APP.BAD", tag="SINGLE")])
    book = ledger()

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY)\n", rendered=True)

    assert run.rc == 6, run.err
    placed = book.check(["APP.GRP", "APP.BAD"])
    assert len(placed[DLQ]) == 4
    assert run.summary("failed, left") == run.summary("left on the queue") == 4
    assert f"4 message(s) left on {DLQ} because their action failed" in run.err


def test_a_group_waiting_to_retry_counts_every_member(qm, ledger, run_cli: RunCli) -> None:
    """A group whose last attempt failed under RETRYINT ago waits whole: the summary's
    "waiting to retry" counts each of its members, as every other row counts messages
    (before, the group counted once). Two runs with a selector (one pass each): the first
    fails the group's RETRY, the second finds it waiting. A group waits whole: IBM's
    "Grouping logical messages"
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html):
    "retrieve the entire group with the same getting application instance"."""
    define(qm, "APP.GRP")
    define(qm, "APP.BAD", put="DISABLED")
    gid = b"GROUP WAITS".ljust(24, b"\x00")
    load(
        qm,
        [
            dead_letter(
                f"member {seq}",
                destq=destq,
                tag=f"WAIT{seq}",
                group_id=gid,
                msg_seq_number=seq,
                msg_flags=MQMF_LAST_MSG_IN_GROUP if seq == 3 else MQMF_MSG_IN_GROUP,
            )
            for seq, destq in enumerate(["APP.GRP", "APP.BAD", "APP.GRP"], start=1)
        ],
    )
    book = ledger()
    table = "RETRYINT(600) WAIT(NO)\nACTION(RETRY) RETRY(3)\n"
    first = run_cli(table, "--match", "DESTQ(APP.*)", rendered=True)
    assert first.rc == 6, first.err
    assert first.summary("failed, left") == 3
    second = run_cli(table, "--match", "DESTQ(APP.*)", rendered=True)
    assert second.summary("waiting to retry") == 3
    assert len(book.check(["APP.GRP", "APP.BAD"])[DLQ]) == 3
