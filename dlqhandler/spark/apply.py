"""Apply mode: executors carry out the decisions on the queue manager.

Each message is moved in its own unit of work: a destructive get by MsgId and
CorrelId under syncpoint, the put, the commit. A message group (or a segmented
message) moves whole, as ``dlqhandler run`` moves it (:mod:`dlqhandler.mq.groups`):
its rows are brought to one task, every member is got under syncpoint, the
members are put in logical order and committed in one unit of work, with one
attempt count for the group; a group that is not whole on the queue (a member
missing from the snapshot, or taken since) stays where it is, all of it.

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

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dlqhandler.acting import PLAN_ERRORS, UnitOfWork, act_on_group, act_on_message, plan
from dlqhandler.acting.plan import as_is
from dlqhandler.errors import MalformedMessageError, MQIError
from dlqhandler.mq.groups import UNIT_FLAGS, is_complete, logical_order
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.qmgr.attempts import (
    AttemptRecord,
    AttemptStore,
    group_subject,
    message_subject,
)
from dlqhandler.qmgr.port import Queue, QueueManager
from dlqhandler.rules import Matcher, RuleSet

__all__ = ["apply_frame", "apply_group", "apply_message"]

_MAX_STEPS = 10_000
_NO_GROUP = bytes(24)
Outcome = tuple[str, int | None, str | None, str | None]


def apply_message(
    qm: QueueManager,
    q: Queue,
    matcher: Matcher,
    msg_id: bytes,
    correl_id: bytes,
    *,
    input_queue: str,
    catch_all: str | None,
    max_hops: int = 5,
    store: AttemptStore | None = None,
    clock: Callable[[], float] = time.time,
    control_queues: Mapping[str, str] | None = None,
) -> tuple[str, int | None, str | None, str | None]:
    """Move one message; returns (outcome, rule line, queue, qmgr).

    Outcomes: ``ok``, ``discarded``, ``catch_all``, ``skipped`` (gone: taken
    by another process), ``remaining`` (left on the DLQ), ``failed`` (left,
    after every allowed attempt failed). With a ``store`` the attempt count is
    read (while the message is held) and kept there, shared with the handlers.
    The message is got under syncpoint, then acted on (:mod:`dlqhandler.acting`):
    a failed put is counted while it is held, then backed out.
    """
    subject = message_subject(msg_id, correl_id)
    unit = UnitOfWork(qm, store, clock)
    for step in range(_MAX_STEPS):
        got = unit.get(q, msg_id, correl_id)
        if got is None:
            return "skipped", None, None, None
        # Read under the get: no other process can change the count of a message held.
        record = unit.lookup(subject)
        # Without a record, every earlier step of this loop was a failed put.
        attempts = record.attempts if record is not None else step
        try:
            msg = decode_dead_letter(got.md, got.body, got.properties)
        except MalformedMessageError:
            return _to_catch_all(unit, [got], catch_all, None, record)
        decision = matcher.decide(msg, attempts)
        line = decision.rule.line if decision.rule is not None else None
        if decision.action.kind == "IGNORE":
            return _to_catch_all(unit, [got], catch_all, line, record)
        try:
            out = plan(
                decision,
                msg,
                input_queue=input_queue,
                local_qmgr=qm.name,
                max_hops=max_hops,
                control_queues=control_queues,
            )
        except PLAN_ERRORS:
            unit.fail(subject, record)
            continue
        if act_on_message(unit, out, subject, record, take=None).outcome == "failed":
            continue
        unit.commit()
        if out is None:
            return "discarded", line, None, None
        return "ok", line, out.queue, out.qmgr
    qm.backout()
    return "failed", None, None, None


def apply_group(
    qm: QueueManager,
    q: Queue,
    matcher: Matcher,
    ids: list[tuple[bytes, bytes]],
    *,
    input_queue: str,
    catch_all: str | None,
    max_hops: int = 5,
    store: AttemptStore | None = None,
    clock: Callable[[], float] = time.time,
    control_queues: Mapping[str, str] | None = None,
) -> list[Outcome]:
    """Move one group (its members' MsgId/CorrelId) whole; an outcome per member.

    Every member is got under syncpoint; a member already gone (taken by a
    handler) leaves the whole group (``skipped``), a group that is not complete
    stays (``remaining``), an IGNORE or a member without an MQDLH sends the whole
    group to the catch-all or leaves it. Otherwise the members are put in logical
    order and committed together (:func:`dlqhandler.acting.act_on_group`); a failed
    put counts one attempt for the group while it is held, backs the group out, and
    the rules are asked again with the new count.
    """
    n = len(ids)
    unit = UnitOfWork(qm, store, clock)
    for step in range(_MAX_STEPS):
        got: list[Message] = []
        for msg_id, correl_id in ids:
            held = unit.get(q, msg_id, correl_id)
            if held is None:
                unit.backout()
                return [("skipped", None, None, None)] * n
            got.append(held)
        try:
            members = [decode_dead_letter(m.md, m.body, m.properties) for m in got]
        except MalformedMessageError:
            return _group_to_catch_all(unit, got, catch_all, None)
        if not is_complete(members):
            unit.backout()
            return [("remaining", None, None, None)] * n
        subject = group_subject(members[0].md.group_id)
        record = unit.lookup(subject)
        attempts = record.attempts if record is not None else step
        decisions = [matcher.decide(m, attempts) for m in members]
        ignored = [d for d in decisions if d.action.kind == "IGNORE"]
        if ignored:
            line = ignored[0].rule.line if ignored[0].rule is not None else None
            return _group_to_catch_all(unit, got, catch_all, line, record)
        try:
            outs = [
                plan(
                    d,
                    m,
                    input_queue=input_queue,
                    local_qmgr=qm.name,
                    max_hops=max_hops,
                    control_queues=control_queues,
                )
                for m, d in zip(members, decisions, strict=True)
            ]
        except PLAN_ERRORS:
            unit.fail(subject, record)
            continue
        if (
            act_on_group(unit, list(zip(members, outs, strict=True)), subject, record).outcome
            == "failed"
        ):
            continue
        unit.commit()
        results: list[Outcome] = []
        for d, out in zip(decisions, outs, strict=True):
            line = d.rule.line if d.rule is not None else None
            results.append(
                ("discarded", line, None, None)
                if out is None
                else ("ok", line, out.queue, out.qmgr)
            )
        return results
    qm.backout()
    return [("failed", None, None, None)] * n


def _group_to_catch_all(
    unit: UnitOfWork,
    got: list[Message],
    catch_all: str | None,
    line: int | None,
    record: AttemptRecord | None = None,
) -> list[Outcome]:
    """The whole group, headers and all, to the catch-all in one unit, or left."""
    n = len(got)
    outcome = _to_catch_all(unit, logical_order(got), catch_all, line, record)
    return [outcome] * n


def _to_catch_all(
    unit: UnitOfWork,
    got: list[Message],
    catch_all: str | None,
    line: int | None,
    record: AttemptRecord | None = None,
) -> Outcome:
    """Messages held (one, or a group in logical order) to the catch-all queue unchanged,
    in the unit of work that holds them (their attempt count goes with them), or left."""
    if catch_all is None:
        unit.backout()
        return "remaining", line, None, None
    try:
        for m in got:
            unit.put(as_is(m, catch_all))
    except MQIError:
        unit.backout()
        return "failed", line, None, None
    unit.cleared(record)
    unit.commit()
    return "catch_all", line, catch_all, ""


def _row_in_group(row: dict[str, Any]) -> bool:
    """:func:`dlqhandler.mq.groups.in_group` on a row's MQMD columns."""
    return row["md_group_id"] not in (None, _NO_GROUP) and bool(
        (row["md_msg_flags"] or 0) & UNIT_FLAGS
    )


class _Connection:
    """A task's queue manager connection, opened at its first row (group partitions
    after the shuffle are mostly empty: they never connect)."""

    def __init__(
        self, connect: Callable[[], QueueManager], input_queue: str, status_queue: str | None
    ) -> None:
        self._connect, self._input_queue, self._status_queue = connect, input_queue, status_queue
        self.qm: QueueManager | None = None
        self.q: Queue | None = None
        self.store: AttemptStore | None = None

    def open(self) -> tuple[QueueManager, Queue, AttemptStore | None]:
        if self.qm is None or self.q is None:
            self.qm = self._connect()
            self.q = self.qm.open(self._input_queue, input=True, browse=False)
            self.store = AttemptStore(self.qm, self._status_queue) if self._status_queue else None
        return self.qm, self.q, self.store

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        if self.q is not None:
            self.q.close()
        if self.qm is not None:
            self.qm.disconnect()


def apply_partition(
    ruleset_json: str,
    connect: Callable[[], QueueManager],
    input_queue: str,
    catch_all: str | None,
    names: list[str],
    *,
    status_queue: str | None = None,
    control_queues: Mapping[str, str] | None = None,
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

        def settle(rows: list[dict[str, Any]], outcomes: list[Outcome]) -> None:
            for row, (outcome, line, queue, qmgr) in zip(rows, outcomes, strict=True):
                row["outcome"] = outcome
                row["applied_line"] = line
                if outcome in ("ok", "catch_all"):
                    row["out_q"], row["out_qm"] = queue, qmgr
                done.append(row)

        def flush_group() -> None:
            if group:
                qm, q, store = conn.open()
                settle(
                    group,
                    apply_group(
                        qm,
                        q,
                        matcher,
                        [(r["md_msg_id"], r["md_correl_id"]) for r in group],
                        input_queue=input_queue,
                        catch_all=catch_all,
                        store=store,
                        control_queues=control_queues,
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
                    schema = batch.schema.append(pa.field("outcome", pa.string())).append(
                        pa.field("applied_line", pa.int32())
                    )
                for row in batch.to_pylist():
                    if _row_in_group(row):
                        if group and group[0]["md_group_id"] != row["md_group_id"]:
                            flush_group()
                        group.append(row)
                        continue
                    qm, q, store = conn.open()
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
                                store=store,
                                control_queues=control_queues,
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
) -> Any:
    """The classified frame with ``outcome`` and ``applied_line`` after applying
    (attempt counts on ``status_queue``, shared with the handlers, when given; no put
    to one of ``control_queues``, name -> role: refused as ``dlqhandler run`` refuses it)."""
    names = [*frame.columns, "outcome", "applied_line"]
    out_schema = ", ".join(
        [f"`{f.name}` {f.dataType.simpleString()}" for f in frame.schema]
        + ["outcome string", "applied_line int"]
    )
    fn = apply_partition(
        ruleset.to_json(),
        connect,
        input_queue,
        catch_all,
        names,
        status_queue=status_queue,
        control_queues=dict(control_queues or {}),
    )
    from pyspark.sql import functions as F

    grouped = F.coalesce(
        (F.col("md_group_id") != F.lit(_NO_GROUP))
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
