"""Apply mode: executors carry out the decisions on the queue manager.

Each message is moved in its own unit of work: a destructive get by MsgId and
CorrelId under syncpoint, the put, the commit. A message group (or a segmented
message) moves whole, as ``dlqhandler run`` moves it (:mod:`dlqhandler.mq.groups`):
its rows are brought to one task, every member is got under syncpoint, the
members are put in logical order and committed in one unit of work, with one
attempt count for the group; a group that is not whole on the queue (a member
missing from the snapshot, or taken since) stays where it is, all of it.

Each task has one connection, and on it one :class:`~dlqhandler.acting.UnitOfWork`
(empty before each action: nothing to commit first). A unit that would pass the queue
manager's MaxUncommittedMsgs (MQRC_SYNCPOINT_LIMIT_REACHED on a put or a group member's
get) is a failed attempt, counted while held and backed out, and the task goes on.

A commit whose outcome is unknown (MQCMIT's connection lost: MQRC_CONNECTION_BROKEN or
MQRC_CALL_INTERRUPTED, :data:`dlqhandler.acting.COMMIT_UNKNOWN`) makes its messages
UNKNOWN: logged (``commit_outcome_unknown``), counted neither moved nor failed, named in the
summary; the task connects again for its next message.

A message another process (a running ``dlqhandler run``) already took is not
found and is skipped: never duplicated. A failed put is backed out and counts
one attempt; the rules are asked again with the new count (RETRY totals,
fall-through, implicit IGNORE, spec §5.5) until a put succeeds or nothing is
left to try; then the catch-all queue (if any) takes the message, else it stays
on the DLQ.

Drains do not wait RETRYINT between attempts: a drain runs once, and a message
that still fails after its rules' RETRY counts is left (or sent to the catch-all).

Attempt counts are the handlers' (:mod:`dlqhandler.qmgr.attempts`, the status
queue): a drain starts from the count ``dlqhandler run`` instances left, counts
its own failures there at once, and removes the record in the unit of work that
moves the message, so RETRY(n) holds across handlers and drains alike.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from dlqhandler.acting import (
    COMMIT_UNKNOWN,
    Attempt,
    Outgoing,
    Planner,
    Result,
    UnitOfWork,
    attempt,
    plan,
)
from dlqhandler.acting.plan import Landings, as_is
from dlqhandler.errors import MalformedMessageError, MQIError
from dlqhandler.logs import get_logger
from dlqhandler.mq.constants import (
    MQRC_NO_MSG_AVAILABLE,
    MQRC_SYNCPOINT_LIMIT_REACHED,
    reason_name,
)
from dlqhandler.mq.groups import NO_GROUP, UNIT_FLAGS, in_unit, is_complete, logical_order
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.outcomes import Outcome
from dlqhandler.qmgr.attempts import (
    AttemptRecord,
    AttemptStore,
    group_subject,
    message_subject,
)
from dlqhandler.qmgr.port import GetOptions, Queue, QueueManager
from dlqhandler.rules import Decision, Matcher, RuleSet
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS, header_depth

__all__ = ["Applied", "apply_frame", "apply_group", "apply_message"]

_MAX_STEPS = 10_000
_log = get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Applied:
    """What ``--apply`` did with one message: its :class:`~dlqhandler.outcomes.Outcome`
    (OK, DISCARDED, CATCH_ALL, SKIPPED, REMAINING or FAILED), the line of the rule that
    decided, where it went (queue, queue manager; None when it stayed or was
    discarded) and, FAILED, why."""

    outcome: Outcome
    line: int | None = None
    queue: str | None = None
    qmgr: str | None = None
    error: str | None = None  # FAILED: why the last attempt failed, in words


def _planner(
    qm: QueueManager, input_queue: str, max_hops: int, control_queues: Mapping[str, str] | None
) -> Planner:
    """How this task turns a decision into a put (:func:`dlqhandler.acting.plan`), and
    refuses a local put that lands on the DLQ through an alias, as ``run`` does."""
    landings = Landings(qm)

    def planned(decision: Decision, msg: Message) -> Outgoing | None:
        out = plan(
            decision,
            msg,
            input_queue=input_queue,
            local_qmgr=qm.name,
            max_hops=max_hops,
            control_queues=control_queues,
        )
        landings.refuse_loop(out, input_queue)
        return out

    return planned


def apply_message(
    qm: QueueManager,
    q: Queue,
    matcher: Matcher,
    msg_id: bytes,
    correl_id: bytes,
    *,
    input_queue: str,
    catch_all: str | None,
    max_hops: int = DEFAULT_MAX_HOPS,
    store: AttemptStore | None = None,
    clock: Callable[[], float] = time.time,
    control_queues: Mapping[str, str] | None = None,
    unit: UnitOfWork | None = None,
) -> Applied:
    """Move one message; what came of it.

    Outcomes: OK, DISCARDED, CATCH_ALL, SKIPPED (gone: taken by another process),
    REMAINING (left on the DLQ), FAILED (left, after every allowed attempt failed). With
    a ``store`` the attempt count is read (while the message is held) and kept there,
    shared with the handlers. The message is got under syncpoint, then the decision is
    attempted (:func:`dlqhandler.acting.attempt`): a failed put or a refused target is
    counted while the message is held, then backed out, and the rules are asked again.
    ``unit``: the connection's unit of work (:class:`_Connection`), else one of its own.
    """
    subject = message_subject(msg_id, correl_id)
    unit = unit or UnitOfWork(qm, store, clock)
    planner = _planner(qm, input_queue, max_hops, control_queues)
    why: str | None = None
    for step in range(_MAX_STEPS):
        got = unit.get(q, msg_id, correl_id)
        if got is None:
            return Applied(Outcome.SKIPPED)
        # Read under the get: no other process can change the count of a message held.
        record = unit.lookup(subject)
        # Without a record, every earlier step of this loop was a failed attempt.
        attempts = record.attempts if record is not None else step
        try:
            msg = decode_dead_letter(got.md, got.body, got.properties)
        except MalformedMessageError:
            return _to_catch_all(unit, [got], catch_all, None, record, max_hops=max_hops)
        decision = matcher.decide(msg, attempts)
        line = decision.rule.line if decision.rule is not None else None
        if decision.action.kind == "IGNORE":
            left = _to_catch_all(unit, [got], catch_all, line, record, max_hops=max_hops)
            return _failed_if_left(left, why)
        result = attempt(unit, [(msg, decision)], subject, record, plan=planner, take=None)
        if result.result is not Result.TAKEN:
            why = _failed_why(result)
            continue
        out = result.puts[0]
        if not _committed(unit, [msg_id]):
            return _unknown(line, out)
        if out is None:
            return Applied(Outcome.DISCARDED, line)
        return Applied(Outcome.OK, line, out.queue, out.qmgr)
    qm.backout()
    return Applied(Outcome.FAILED, error=why)


def _failed_if_left(applied: Applied, why: str | None) -> Applied:
    """A message left on the DLQ (REMAINING) after its rules' attempts failed (``why``:
    the last one's reason) is FAILED, as ``dlqhandler run`` counts it ("left because
    their action failed", exit 6): not a message no rule acts on."""
    if applied.outcome is Outcome.REMAINING and why is not None:
        return Applied(Outcome.FAILED, applied.line, error=why)
    return applied


def _failed_why(result: Attempt) -> str:
    """Why an attempt was not taken, in words (the summary's reasons for FAILED)."""
    if result.refusal is not None:
        return f"refused ({result.refusal}): {result.detail}"
    if result.error is not None:
        return f"the put failed: {result.error}"
    return f"the attempt came to {result.result.value}"


def apply_group(
    qm: QueueManager,
    q: Queue,
    matcher: Matcher,
    ids: list[tuple[bytes, bytes]],
    *,
    input_queue: str,
    catch_all: str | None,
    max_hops: int = DEFAULT_MAX_HOPS,
    store: AttemptStore | None = None,
    clock: Callable[[], float] = time.time,
    control_queues: Mapping[str, str] | None = None,
    unit: UnitOfWork | None = None,
) -> list[Applied]:
    """Move one group (its members' MsgId/CorrelId) whole; what came of each member.

    Every member is got under syncpoint; a member already gone (taken by a
    handler) leaves the whole group (SKIPPED), a group that is not complete
    stays (REMAINING), an IGNORE or a member without an MQDLH sends the whole
    group to the catch-all or leaves it. Otherwise the members are put in logical
    order and committed together (:func:`dlqhandler.acting.attempt`); a failed
    put (or a refused target) counts one attempt for the group while it is held, backs
    the group out, and the rules are asked again with the new count.

    A group whose gets alone pass the queue manager's MaxUncommittedMsgs (a get refused
    with MQRC_SYNCPOINT_LIMIT_REACHED) can never be held whole (:func:`_too_big`). A put
    refused so is a failed put like any other (:func:`dlqhandler.acting.attempt`).
    """
    n = len(ids)
    unit = unit or UnitOfWork(qm, store, clock)
    planner = _planner(qm, input_queue, max_hops, control_queues)
    why: str | None = None
    for step in range(_MAX_STEPS):
        got: list[Message] = []
        for msg_id, correl_id in ids:
            try:
                held = unit.get(q, msg_id, correl_id)
            except MQIError as exc:
                if exc.reason != MQRC_SYNCPOINT_LIMIT_REACHED or not got:
                    raise
                return _too_big(
                    unit, matcher, ids, got, input_queue=input_queue, catch_all=catch_all, step=step
                )
            if held is None:
                unit.backout()
                return [Applied(Outcome.SKIPPED)] * n
            got.append(held)
        try:
            members = [decode_dead_letter(m.md, m.body, m.properties) for m in got]
        except MalformedMessageError:
            return _group_to_catch_all(unit, got, catch_all, None, max_hops=max_hops)
        if not is_complete(members):
            unit.backout()
            return [Applied(Outcome.REMAINING)] * n
        subject = group_subject(members[0].md.group_id)
        record = unit.lookup(subject)
        attempts = record.attempts if record is not None else step
        decided = [(m, matcher.decide(m, attempts)) for m in members]
        ignored = [d for _m, d in decided if d.action.kind == "IGNORE"]
        if ignored:
            line = ignored[0].rule.line if ignored[0].rule is not None else None
            left = _group_to_catch_all(unit, got, catch_all, line, record, max_hops=max_hops)
            return [_failed_if_left(a, why) for a in left]
        result = attempt(unit, decided, subject, record, plan=planner, take=None, group=True)
        if result.result is not Result.TAKEN:
            why = _failed_why(result)
            continue
        by_member = {
            id(m): (d.rule.line if d.rule is not None else None, out)
            for (m, d), out in zip(result.decided, result.puts, strict=True)
        }
        if not _committed(unit, [msg_id for msg_id, _correl_id in ids]):
            return [_unknown(*by_member[id(m)]) for m in members]
        applied: list[Applied] = []
        for m in members:  # in the order of ``ids``
            line, out = by_member[id(m)]
            applied.append(
                Applied(Outcome.DISCARDED, line)
                if out is None
                else Applied(Outcome.OK, line, out.queue, out.qmgr)
            )
        return applied
    qm.backout()
    return [Applied(Outcome.FAILED, error=why)] * n


def _too_big(
    unit: UnitOfWork,
    matcher: Matcher,
    ids: list[tuple[bytes, bytes]],
    got: list[Message],
    *,
    input_queue: str,
    catch_all: str | None,
    step: int,
) -> list[Applied]:
    """A group whose gets alone pass MaxUncommittedMsgs: ``got`` its first members, held.

    The members not yet got are browsed, and the rules decide as ``dlqhandler run``
    decides (on members browsed): an action is one failed attempt, counted while the
    first members are held, then backed out (FAILED, as ``run`` counts it); IGNORE leaves
    the group (REMAINING), or FAILED with a catch-all (it could not hold the group either).
    A member gone since is SKIPPED, an incomplete group or one without an MQDLH stays.
    """
    n = len(ids)
    rest: list[Message] = []
    browser = unit.qmgr.open(input_queue, input=False, browse=True)
    try:
        for msg_id, correl_id in ids[len(got) :]:
            try:
                rest.append(
                    browser.get(GetOptions(browse="first", msg_id=msg_id, correl_id=correl_id))
                )
            except MQIError as exc:
                if exc.reason != MQRC_NO_MSG_AVAILABLE:
                    raise
                unit.backout()
                return [Applied(Outcome.SKIPPED)] * n
    finally:
        browser.close()
    left = Outcome.REMAINING if catch_all is None else Outcome.FAILED
    try:
        members = [decode_dead_letter(m.md, m.body, m.properties) for m in [*got, *rest]]
    except MalformedMessageError:
        unit.backout()
        return [Applied(left)] * n
    if not is_complete(members):
        unit.backout()
        return [Applied(Outcome.REMAINING)] * n
    subject = group_subject(members[0].md.group_id)
    record = unit.lookup(subject)
    attempts = record.attempts if record is not None else step
    decisions = [matcher.decide(m, attempts) for m in members]
    ignored = [d for d in decisions if d.action.kind == "IGNORE"]
    if ignored:
        unit.backout()
        return [Applied(left, ignored[0].rule.line if ignored[0].rule is not None else None)] * n
    unit.fail(subject, record)
    too_big = "the group cannot be held whole in one unit of work (MAXUMSGS)"
    return [
        Applied(Outcome.FAILED, d.rule.line if d.rule is not None else None, error=too_big)
        for d in decisions
    ]


def _group_to_catch_all(
    unit: UnitOfWork,
    got: list[Message],
    catch_all: str | None,
    line: int | None,
    record: AttemptRecord | None = None,
    *,
    max_hops: int = DEFAULT_MAX_HOPS,
) -> list[Applied]:
    """The whole group, headers and all, to the catch-all in one unit, or left."""
    n = len(got)
    applied = _to_catch_all(unit, logical_order(got), catch_all, line, record, max_hops=max_hops)
    return [applied] * n


def _to_catch_all(
    unit: UnitOfWork,
    got: list[Message],
    catch_all: str | None,
    line: int | None,
    record: AttemptRecord | None = None,
    *,
    max_hops: int = DEFAULT_MAX_HOPS,
) -> Applied:
    """Messages held (one, or a group in logical order) to the catch-all queue unchanged,
    in the unit of work that holds them (their attempt count goes with them), or left:
    without a catch-all, or when one carries ``max_hops`` MQDLHs or more (`run` refuses
    such a put: a forward loop; the offline drain leaves it too)."""
    if catch_all is None or any(header_depth(m) >= max_hops for m in got):
        unit.backout()
        return Applied(Outcome.REMAINING, line)
    try:
        for m in got:
            unit.put(as_is(m, catch_all))
    except MQIError as exc:
        unit.backout()
        return Applied(Outcome.FAILED, line, error=f"the put to the catch-all failed: {exc}")
    try:
        unit.cleared(record)  # a get under syncpoint: it may find the unit full
    except MQIError as exc:
        if exc.reason != MQRC_SYNCPOINT_LIMIT_REACHED:
            raise
        unit.backout()
        return Applied(Outcome.FAILED, line, error=f"the catch-all's unit of work: {exc}")
    if not _committed(unit, [m.md.msg_id for m in got]):
        return Applied(Outcome.UNKNOWN, line, catch_all, "")
    return Applied(Outcome.CATCH_ALL, line, catch_all, "")


def _committed(unit: UnitOfWork, msg_ids: list[bytes]) -> bool:
    """Commit the unit; False (logged) when its outcome is unknown (the connection was
    lost during MQCMIT): its messages may have left the DLQ or not."""
    try:
        unit.commit()
    except MQIError as exc:
        if exc.reason not in COMMIT_UNKNOWN:
            raise
        _log.error(
            "commit_outcome_unknown",
            reason=exc.reason,
            reason_name=reason_name(exc.reason),
            messages=len(msg_ids),
            msgids=[m.hex() for m in msg_ids],
        )
        return False
    return True


def _unknown(line: int | None, out: Outgoing | None) -> Applied:
    """A message whose commit's outcome is unknown, with where it may have gone."""
    if out is None:
        return Applied(Outcome.UNKNOWN, line)
    return Applied(Outcome.UNKNOWN, line, out.queue, out.qmgr)


def _connect_failed(exc: MQIError, queue: str) -> str:
    """Log that a task could not connect (or open ``queue``); why, in words. (Module
    level: the task's closure must not carry the logger.)"""
    _log.error(
        "apply_connect_failed",
        reason=exc.reason,
        reason_name=reason_name(exc.reason),
        queue=queue,
    )
    return f"cannot connect to the queue manager or open {queue}: {exc}"


class _Connection:
    """A task's queue manager connection, opened at its first row (group partitions
    after the shuffle are mostly empty: they never connect)."""

    def __init__(
        self, connect: Callable[[], QueueManager], input_queue: str, status_queue: str | None
    ) -> None:
        self._connect, self._input_queue, self._status_queue = connect, input_queue, status_queue
        self.qm: QueueManager | None = None
        self.q: Queue | None = None
        self.unit: UnitOfWork | None = None

    def open(self) -> tuple[QueueManager, Queue, UnitOfWork]:
        """The connection, its DLQ handle and its unit of work (one per connection: the
        queue manager's MaxUncommittedMsgs is asked at most once per connection)."""
        if self.qm is None or self.q is None or self.unit is None:
            self.qm = self._connect()
            self.q = self.qm.open(self._input_queue, input=True, browse=False)
            store = AttemptStore(self.qm, self._status_queue) if self._status_queue else None
            self.unit = UnitOfWork(self.qm, store, time.time)
        return self.qm, self.q, self.unit

    def close(self) -> None:
        if self.unit is not None and self.unit.store is not None:
            self.unit.store.close()
        if self.q is not None:
            self.q.close()
        if self.qm is not None:
            self.qm.disconnect()

    def lost(self) -> None:
        """A commit's outcome was unknown (the connection was lost): let it go, whatever
        its handles say now; the next row connects again."""
        store = self.unit.store if self.unit is not None else None
        for release in (
            store.close if store is not None else None,
            self.q.close if self.q is not None else None,
            self.qm.disconnect if self.qm is not None else None,
        ):
            if release is not None:
                with contextlib.suppress(MQIError):
                    release()
        self.qm = self.q = self.unit = None


def apply_partition(
    ruleset_json: str,
    connect: Callable[[], QueueManager],
    input_queue: str,
    catch_all: str | None,
    names: list[str],
    *,
    status_queue: str | None = None,
    control_queues: Mapping[str, str] | None = None,
    max_hops: int = DEFAULT_MAX_HOPS,
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The mapInArrow function: one connection per task, one UOW per message or group.

    Group members arrive together, sorted by GroupId (see :func:`apply_frame`); a
    group may span Arrow batches, so rows are buffered until the group ends.
    """

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        matcher = Matcher(RuleSet.from_json(ruleset_json))
        conn = _Connection(connect, input_queue, status_queue)
        schema: Any = None
        group: list[dict[str, Any]] = []
        done: list[dict[str, Any]] = []
        cannot: list[str] = []  # why the task could not connect: its rows are left

        def opened() -> tuple[QueueManager, Queue, UnitOfWork] | None:
            """The task's connection, or None once it could not be made (the rest of
            the task's rows stay on the DLQ, each saying why: not a failed task, whose
            rows acted on before would then be in no audit)."""
            if cannot:
                return None
            try:
                return conn.open()
            except MQIError as exc:
                conn.lost()
                cannot.append(_connect_failed(exc, input_queue))
                return None

        def left(rows: list[dict[str, Any]]) -> None:
            for row in rows:
                row["outcome"], row["applied_line"] = Outcome.NOT_CONNECTED.value, None
                row["apply_error"] = cannot[0]
                done.append(row)

        def settle(rows: list[dict[str, Any]], outcomes: list[Applied]) -> None:
            for row, applied in zip(rows, outcomes, strict=True):
                row["outcome"] = applied.outcome.value
                row["applied_line"] = applied.line
                row["apply_error"] = applied.error
                if applied.outcome in (Outcome.OK, Outcome.CATCH_ALL, Outcome.UNKNOWN):
                    row["out_q"], row["out_qm"] = applied.queue, applied.qmgr
                done.append(row)
            if any(a.outcome is Outcome.UNKNOWN for a in outcomes):
                conn.lost()

        def flush_group() -> None:
            if not group:
                return
            handles = opened()
            if handles is None:
                left(group)
                group.clear()
            else:
                qm, q, unit = handles
                settle(
                    group,
                    apply_group(
                        qm,
                        q,
                        matcher,
                        [(r["md_msg_id"], r["md_correl_id"]) for r in group],
                        input_queue=input_queue,
                        catch_all=catch_all,
                        max_hops=max_hops,
                        control_queues=control_queues,
                        unit=unit,
                    ),
                )
                group.clear()

        def emit() -> Any:
            out = pa.RecordBatch.from_pylist(
                [{n: r.get(n) for n in names} for r in done], schema=schema
            )
            done.clear()
            return out

        try:
            for batch in batches:
                if schema is None:
                    schema = (
                        batch.schema.append(pa.field("outcome", pa.string()))
                        .append(pa.field("applied_line", pa.int32()))
                        .append(pa.field("apply_error", pa.string()))
                    )
                for row in batch.to_pylist():
                    if in_unit(row["md_group_id"], row["md_msg_flags"]):
                        if group and group[0]["md_group_id"] != row["md_group_id"]:
                            flush_group()
                        group.append(row)
                        continue
                    if (handles := opened()) is None:
                        left([row])
                        continue
                    qm, q, unit = handles
                    settle(
                        [row],
                        [
                            apply_message(
                                qm,
                                q,
                                matcher,
                                row["md_msg_id"],
                                row["md_correl_id"],
                                input_queue=input_queue,
                                catch_all=catch_all,
                                max_hops=max_hops,
                                control_queues=control_queues,
                                unit=unit,
                            )
                        ],
                    )
                if done:
                    yield emit()
            flush_group()
            if done:
                yield emit()
        finally:
            conn.close()

    return run


def apply_frame(
    frame: Any,
    ruleset: RuleSet,
    input_queue: str,
    catch_all: str | None,
    connect: Callable[[], QueueManager],
    *,
    status_queue: str | None = None,
    control_queues: Mapping[str, str] | None = None,
    max_hops: int = DEFAULT_MAX_HOPS,
) -> Any:
    """The classified frame with ``outcome``, ``applied_line`` and ``apply_error`` (why
    a row was not acted on: its task could not connect, Outcome.NOT_CONNECTED) after applying
    (attempt counts on ``status_queue``, shared with the handlers, when given; no put
    to one of ``control_queues``, name -> role, nor of a message carrying ``max_hops``
    MQDLHs or more: refused as ``dlqhandler run`` refuses it)."""
    names = [*frame.columns, "outcome", "applied_line", "apply_error"]
    out_schema = ", ".join(
        [f"`{f.name}` {f.dataType.simpleString()}" for f in frame.schema]
        + ["outcome string", "applied_line int", "apply_error string"]
    )
    fn = apply_partition(
        ruleset.to_json(),
        connect,
        input_queue,
        catch_all,
        names,
        status_queue=status_queue,
        control_queues=dict(control_queues or {}),
        max_hops=max_hops,
    )
    from pyspark.sql import functions as F

    grouped = F.coalesce(  # mq.groups.in_unit as a column
        (F.col("md_group_id") != F.lit(NO_GROUP))
        & (F.col("md_msg_flags").bitwiseAND(F.lit(UNIT_FLAGS)) != 0),
        F.lit(False),
    )
    singles = frame.filter(~grouped)
    # Every member of a group in one task, contiguous (a group is rare: the shuffle
    # carries only its rows).
    groups = (
        frame.filter(grouped)
        .repartition("md_group_id")
        .sortWithinPartitions("md_group_id", "md_msg_seq_number", "md_offset")
    )
    return singles.mapInArrow(fn, out_schema).unionByName(groups.mapInArrow(fn, out_schema))
