"""The durable attempt store on the status queue, and its garbage collection."""

from __future__ import annotations

import threading

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import PutOptions, connect
from dlqhandler.qmgr.attempts import group_subject, message_subject
from dlqhandler.rules import compile_rules
from dlqhandler.worker import AttemptStore, Handler, HandlerOptions
from tests.worker.helpers import (
    DLQ,
    STATUS,
    RunCli,
    alter,
    browse,
    dead_letter,
    define,
    depth,
    load,
    mqsc,
)


def test_a_failure_is_visible_at_once_and_a_clear_follows_the_unit_of_work(qm) -> None:
    """record_failure writes outside syncpoint (another handler sees it immediately);
    clear joins the unit of work, so a backout brings the record back."""
    define(qm, STATUS)
    store = AttemptStore(qm, STATUS)
    subject = message_subject(b"M" * 24, b"C" * 24)
    first = store.record_failure(subject, None, 100.0)
    second = store.record_failure(subject, store.lookup(subject), 101.0)
    assert (second.attempts, len(browse(qm, STATUS))) == (2, 1)
    qm.backout()
    record = store.lookup(subject)
    assert record is not None
    assert (record.attempts, record.last_attempt) == (2, 101.0)
    assert first.status_ids != record.status_ids

    store.clear(record)
    qm.backout()
    assert store.lookup(subject) is not None
    store.clear(store.lookup(subject))
    qm.commit()
    assert store.lookup(subject) is None
    store.close()


def test_duplicate_records_read_as_the_highest_and_are_all_replaced(qm) -> None:
    """If a crash left two records for one message (new one put, old one not yet
    removed), the look-up takes the higher count and the next write removes both."""
    define(qm, STATUS)
    store = AttemptStore(qm, STATUS)
    subject = group_subject(b"G" * 24)
    assert subject.key != message_subject(b"G" * 24, b"").key
    for n in (3, 5):
        body = f'{{"n": {n}, "last": 1.0, "groupid": "{"47" * 24}"}}'.encode()
        qm.put1(
            STATUS,
            Message(MQMD(correl_id=subject.key, format="MQSTR"), body),
            PutOptions(syncpoint=False),
        )
    record = store.lookup(subject)
    assert record is not None
    assert record.attempts == 5
    assert len(record.status_ids) == 2
    store.record_failure(subject, record, 2.0)
    assert [m.body for m in browse(qm, STATUS)] == [
        f'{{"n": 6, "last": 2.0, "groupid": "{"47" * 24}"}}'.encode()
    ]
    store.close()


def test_records_of_messages_gone_from_the_dlq_are_collected(qm) -> None:
    """A sweep marks records whose message is no longer on the DLQ; the next sweep
    removes them if the message is still gone. Records of present messages stay."""
    define(qm, STATUS)
    store = AttemptStore(qm, STATUS)
    here, gone = message_subject(b"H" * 24, b"\0" * 24), message_subject(b"X" * 24, b"\0" * 24)
    for subject in (here, gone):
        store.record_failure(subject, None, 1.0)
    present = {here.key}
    assert store.sweep(lambda s: s.key in present) == 0
    assert len(browse(qm, STATUS)) == 2
    assert store.sweep(lambda s: s.key in present) == 1
    assert store.lookup(here) is not None
    assert store.lookup(gone) is None
    store.close()


def test_the_handler_collects_orphan_records_between_passes(qm) -> None:
    """A running handler sweeps the status queue (here every pass): the record of a
    message that left the DLQ by other means goes; a live message's record stays."""
    define(qm, STATUS)
    define(qm, "APP.Q", put="DISABLED")
    orphan = AttemptStore(qm, STATUS)
    orphan.record_failure(message_subject(b"O" * 24, b"\0" * 24), None, 1.0)
    orphan.close()
    [live] = load(qm, [dead_letter("live", destq="APP.Q", reason=2051)])
    ruleset = compile_rules("RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(3)\n").ruleset
    assert ruleset is not None
    handler = Handler(qm, ruleset, HandlerOptions(DLQ, sweep_interval=0), stop=threading.Event())

    stats = handler.run()

    assert stats.status_records_collected == 1
    [record] = browse(qm, STATUS)
    assert live.md.msg_id.hex().encode() in record.body
    assert stats.passes >= 3


def test_a_message_with_no_history_costs_no_status_read(qm, monkeypatch) -> None:
    """While the status queue holds no record (one MQINQ per unit of work says so), the
    handler reads nothing from it for the messages it handles."""
    import dlqhandler.qmgr.attempts as attempts_module

    reads: list[bytes] = []
    real = attempts_module.read_records

    def counting(q, key, parse, rank):  # type: ignore[no-untyped-def]
        reads.append(key)
        return real(q, key, parse, rank)

    monkeypatch.setattr(attempts_module, "read_records", counting)
    define(qm, STATUS, "CATCH")
    load(qm, [dead_letter(f"m{i}") for i in range(12)])
    ruleset = compile_rules("WAIT(NO)\nACTION(FWD) FWDQ(CATCH)\n").ruleset
    assert ruleset is not None
    handler = Handler(qm, ruleset, HandlerOptions(DLQ, batch_size=5), stop=threading.Event())

    stats = handler.run()

    assert (stats.forwarded, reads) == (12, [])


def test_a_record_written_while_look_ups_were_skipped_invalidates_the_unit(qm) -> None:
    """A unit that skipped look-ups (the status queue was empty) is not valid once another
    handler has written a record meanwhile; one that read, or saw none appear, is."""
    define(qm, STATUS)
    store = AttemptStore(qm, STATUS)
    subject = message_subject(b"M" * 24, b"C" * 24)
    store.new_unit()
    assert store.lookup(subject) is None
    assert store.unit_valid()
    other = AttemptStore(qm, STATUS)
    other.record_failure(subject, None, 100.0)  # another handler's first failure
    assert not store.unit_valid()
    store.new_unit()  # the next unit reads again, and finds it
    record = store.lookup(subject)
    assert record is not None
    assert record.attempts == 1
    assert store.unit_valid()
    other.close()
    store.close()


def test_own_failure_after_skipped_look_ups_keeps_the_unit_valid(qm) -> None:
    """This handler's own first failure makes look-ups read again without invalidating the
    unit (nobody else wrote)."""
    define(qm, STATUS)
    store = AttemptStore(qm, STATUS)
    first, second = (message_subject(bytes([c]) * 24, b"C" * 24) for c in b"AB")
    store.new_unit()
    assert store.lookup(first) is None
    store.record_failure(first, None, 100.0)
    record = store.lookup(first)
    assert record is not None
    assert record.attempts == 1
    assert store.lookup(second) is None
    assert store.unit_valid()
    store.close()


def test_a_failure_after_a_skipped_look_up_does_not_count_over_another_handlers_record(qm) -> None:
    """If another handler counted an attempt after this unit skipped the look-up, a failure
    here reads the record and counts nothing (its decision did not see the count), and the
    unit is not valid: never two records of the same attempt number."""
    define(qm, STATUS)
    store, other = AttemptStore(qm, STATUS), AttemptStore(qm, STATUS)
    subject = message_subject(b"M" * 24, b"C" * 24)
    store.new_unit()
    assert store.lookup(subject) is None
    other.record_failure(subject, None, 100.0)
    record = store.record_failure(subject, None, 101.0)
    assert (record.attempts, record.last_attempt, record.counted) == (1, 100.0, False)
    assert len(browse(qm, STATUS)) == 1
    assert not store.unit_valid()
    other.close()
    store.close()


def test_a_status_queue_the_user_may_not_inquire_still_counts_attempts(
    home, qm, run_cli: RunCli
) -> None:
    """The attempt store asks the status queue's depth only to skip look-ups when it is
    empty; a user with get, browse and put on it but no inq (the MQOPEN for inquiry is
    2035, "On an MQOPEN or MQPUT1 call, the user is not authorized to open the object for
    the options specified", https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html)
    gets a run that reads the records instead: it retries, counts the failed attempt
    on the status queue and ends as usual (exit 6, the message left), not with exit 5
    before touching anything."""
    define(qm, STATUS, "APP.Q")
    alter(qm, "APP.Q", put="DISABLED")
    load(qm, [dead_letter("blocked", reason=2051, destq="APP.Q")])
    conn = connect("QM1", home=home)
    user = conn.user
    conn.disconnect()
    mqsc(
        home,
        f"SET AUTHREC PROFILE({STATUS}) OBJTYPE(QUEUE) PRINCIPAL('{user}')"
        " AUTHADD(GET, BROWSE, PUT)",
    )

    run = run_cli("WAIT(NO) RETRYINT(0)\nREASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(2)\n")

    assert run.rc == ExitCode.PARTIAL
    assert run.events("handler_mq_error") == []
    assert [e["attempts"] for e in run.events("put_failed")] == [1, 2]
    assert depth(qm, DLQ) == 1
