"""The closed-loop guard of a triggered handler (``dlqhandler.worker.backoff``).

A DLQ triggered FIRST is triggered again whenever the handler closes it with
messages left; a table that leaves messages would restart the handler for
ever. A triggered run that made no progress holds the queue open (watching
it) for a doubling time before it ends. These tests use holds of a fraction
of a second and assert on the recorded state and events, never on timings.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import MQRC_UNKNOWN_OBJECT_NAME
from dlqhandler.mq.mqtm import MQTM
from dlqhandler.qmgr import connect
from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager
from dlqhandler.worker.backoff import BackoffPolicy, TriggerRecords, hold_seconds
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

IGNORE_ALL = "WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(CATCH)\nACTION(IGNORE)\n"
FAST = ("--trigger-backoff-base", "0.05", "--trigger-backoff", "0.2")


def trigger_argument(queue: str = DLQ) -> str:
    """The MQTMC2 a trigger monitor passes for ``queue`` on QM1."""
    return (
        MQTM(q_name=queue, process_name="DLQ.HANDLER", appl_type=6, appl_id="dlqhandler run")
        .to_mqtmc2("QM1")
        .to_argv()
    )


def trigger_records(qm: EmbeddedQueueManager) -> list[dict[str, object]]:
    """The backoff records on the status queue (attempt records have no 'trigger'); none
    while the handler has not defined the status queue yet."""
    try:
        bodies = [json.loads(m.body) for m in browse(qm, STATUS)]
    except MQIError as exc:
        if exc.reason != MQRC_UNKNOWN_OBJECT_NAME:
            raise
        return []
    return [b for b in bodies if "trigger" in b]


def test_hold_doubles_from_base_up_to_the_cap_and_zero_turns_it_off() -> None:
    """10, 20, 40 ... seconds, never above the cap; a cap or base of 0 means no hold."""
    policy = BackoffPolicy(base=10, cap=600)
    assert [hold_seconds(n, policy) for n in range(8)] == [10, 20, 40, 80, 160, 320, 600, 600]
    assert hold_seconds(10_000, policy) == 600
    assert hold_seconds(3, BackoffPolicy(base=10, cap=0)) == 0
    assert hold_seconds(3, BackoffPolicy(base=0, cap=600)) == 0


def test_triggered_runs_without_progress_hold_longer_each_time(
    qm: EmbeddedQueueManager, run_cli: RunCli
) -> None:
    """Each triggered run that leaves the same messages holds the DLQ open for twice the
    previous time (capped), records the count on the status queue, and leaves the
    messages untouched."""
    define(qm, "CATCH")
    originals = load(qm, [dead_letter(f"stuck {i}", reason=2035) for i in range(3)])

    holds = []
    for _ in range(4):
        run = run_cli(IGNORE_ALL, trigger_argument(), *FAST)
        assert run.rc == ExitCode.OK
        [event] = run.events("trigger_loop_backoff")
        holds.append((event["idle_runs"], event["hold_seconds"]))
        assert event["left_on_queue"] == 3

    assert holds == [(1, 0.05), (2, 0.1), (3, 0.2), (4, 0.2)]
    [record] = trigger_records(qm)
    assert (record["trigger"], record["idle_runs"], record["left"]) == (DLQ, 4, 3)
    assert [m.body for m in browse(qm, DLQ)] == [m.body for m in originals]


def test_a_triggered_run_that_may_not_inquire_the_dlq_holds_and_ends_normally(
    home: Path, qm: EmbeddedQueueManager, run_cli: RunCli
) -> None:
    """A triggered run whose user may get from the DLQ but not inquire it (no INQ: the
    MQOPEN for inquiry is 2035, "On an MQOPEN or MQPUT1 call, the user is not authorized
    to open the object for the options specified",
    https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html) cannot tell whether
    it left messages: it holds as if it did (the closed-loop guard), says why
    (trigger_depth_unknown), and ends with exit 0 as the same run with +inq does, not
    with an MQ error; the messages stay."""
    define(qm, "CATCH")
    define(qm, STATUS)
    originals = load(qm, [dead_letter(f"stuck {i}", reason=2035) for i in range(3)])
    conn = connect("QM1", home=home)
    user = conn.user
    conn.disconnect()
    mqsc(
        home, f"SET AUTHREC PROFILE({DLQ}) OBJTYPE(QUEUE) PRINCIPAL('{user}') AUTHADD(GET, BROWSE)"
    )

    run = run_cli(IGNORE_ALL, trigger_argument(), *FAST)

    assert run.rc == ExitCode.OK
    assert run.events("handler_mq_error") == []
    assert [e["reason"] for e in run.events("trigger_depth_unknown")] == [2035]
    [event] = run.events("trigger_loop_backoff")
    assert (event["idle_runs"], event["left_on_queue"]) == (1, None)
    assert [m.body for m in browse(qm, DLQ)] == [m.body for m in originals]


def test_progress_resets_the_count(qm: EmbeddedQueueManager, run_cli: RunCli) -> None:
    """A triggered run that forwards something ends at once (no hold) and removes the
    record, so the next run without progress starts again from the base hold."""
    define(qm, "CATCH")
    load(qm, [dead_letter("stuck", reason=2035)])
    for _ in range(2):
        run_cli(IGNORE_ALL, trigger_argument(), *FAST)
    assert trigger_records(qm)[0]["idle_runs"] == 2

    load(qm, [dead_letter("movable", reason=2053)])
    run = run_cli(IGNORE_ALL, trigger_argument(), *FAST)
    assert run.events("trigger_loop_backoff") == []
    [reset] = run.events("trigger_backoff_reset")
    assert reset["previous_idle_runs"] == 2
    assert trigger_records(qm) == []
    assert (depth(qm, DLQ), depth(qm, "CATCH")) == (1, 1)

    run = run_cli(IGNORE_ALL, trigger_argument(), *FAST)
    assert run.events("trigger_loop_backoff")[0]["hold_seconds"] == 0.05


def test_a_message_arriving_during_the_hold_is_processed_and_ends_the_hold(
    qm: EmbeddedQueueManager, home: Path, run_cli: RunCli
) -> None:
    """During the hold the handler still watches the DLQ: a new message it can act on is
    forwarded at once, which is progress, so the run ends well before the (long) hold is
    over and the count is reset."""
    define(qm, "CATCH")
    load(qm, [dead_letter("stuck", reason=2035)])
    done = threading.Event()

    def put_when_holding() -> None:
        conn = connect("QM1", home=home, user="tester", appl_name="arrival")
        try:
            while not done.wait(0.05):
                try:
                    held = trigger_records(conn)
                except MQIError:  # the handler has not defined the status queue yet
                    continue
                if held:
                    load(conn, [dead_letter("arrives during the hold", reason=2053)])
                    return
        finally:
            conn.disconnect()

    putter = threading.Thread(target=put_when_holding)
    putter.start()
    try:
        run = run_cli(IGNORE_ALL, trigger_argument(), "--trigger-backoff-base", "60")
    finally:
        done.set()
        putter.join()
    assert run.rc == ExitCode.OK
    assert run.events("trigger_loop_backoff")[0]["hold_seconds"] == 60
    assert run.summary("forwarded") == 1
    assert run.events("trigger_backoff_reset")[0]["previous_idle_runs"] == 1
    assert trigger_records(qm) == []
    assert (depth(qm, DLQ), depth(qm, "CATCH")) == (1, 1)


def test_a_triggered_run_that_fails_holds_before_it_closes_the_dlq(
    qm: EmbeddedQueueManager, run_cli: RunCli
) -> None:
    """GET(DISABLED) makes the handler fail (exit 5); closing the DLQ would trigger it
    again at once (the abend of condition 12, note 2), so it too holds and counts."""
    load(qm, [dead_letter("stays", reason=2053)])
    define(qm, "CATCH")
    alter(qm, DLQ, get="DISABLED")
    for expected in (0.05, 0.1):
        run = run_cli(IGNORE_ALL, trigger_argument(), *FAST)
        assert run.rc == ExitCode.MQ_ERROR
        assert run.events("trigger_loop_backoff")[0]["hold_seconds"] == expected
    alter(qm, DLQ, get="ENABLED")
    assert depth(qm, DLQ) == 1


def test_no_hold_when_not_triggered_or_turned_off_or_the_queue_is_empty(
    qm: EmbeddedQueueManager, run_cli: RunCli
) -> None:
    """Only a triggered run holds: a run started by hand, a triggered run with
    --trigger-backoff 0, and a triggered run that empties the DLQ all end at once."""
    define(qm, "CATCH")
    load(qm, [dead_letter("stuck", reason=2035)])
    assert run_cli(IGNORE_ALL).events("trigger_loop_backoff") == []
    off = run_cli(IGNORE_ALL, trigger_argument(), "--trigger-backoff", "0")
    assert off.events("trigger_loop_backoff") == []
    qm.admin().clear_queue(DLQ)
    empty = run_cli(IGNORE_ALL, trigger_argument(), *FAST)
    assert empty.events("trigger_loop_backoff") == []
    assert trigger_records(qm) == []


def test_the_attempt_sweep_leaves_the_backoff_record_alone(qm: EmbeddedQueueManager) -> None:
    """The record shares the status queue with the attempt counts; their sweep only
    removes records it can read as its own, and the reader takes the highest count."""
    from dlqhandler.qmgr.attempts import AttemptStore

    define(qm, STATUS)
    records = TriggerRecords(qm, STATUS, DLQ)
    first = records.write(1, now=1.0, left=1, hold=10, previous=None)
    records.write(2, now=2.0, left=1, hold=20, previous=None)  # a concurrent writer
    store = AttemptStore(qm, STATUS)
    for _ in range(2):
        assert store.sweep(lambda _subject: False) == 0
    record = records.read()
    assert record is not None
    assert record.idle_runs == 2
    assert first.status_ids[0] in record.status_ids
    assert len(record.status_ids) == 2
    store.close()
    records.close()
