"""Apply mode: executors carry out the decisions on the queue manager.

Each message is moved in its own unit of work: a destructive get by MsgId and
CorrelId under syncpoint, the put, the commit. A message another process (a
running ``dlqhandler run``) already took is not found and is skipped: never
duplicated. A failed put is backed out and counts one attempt; the rules are
asked again with the new count (RETRY totals, fall-through, implicit IGNORE,
spec §5.5) until a put succeeds or nothing is left to try; then the catch-all
queue (if any) takes the message, else it stays on the DLQ.

Drains do not wait RETRYINT between attempts: a drain runs once, and a message
that still fails after its rules' RETRY counts is left (or sent to the catch-all).

Attempt counts are the handlers' (:mod:`dlqhandler.qmgr.attempts`, the status
queue): a drain starts from the count ``dlqhandler run`` instances left, counts
its own failures there at once, and removes the record in the unit of work that
moves the message, so RETRY(n) holds across handlers and drains alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from dlqhandler.errors import DLQHandlerError, MalformedMessageError, MQIError
from dlqhandler.mq.constants import MQRC_NO_MSG_AVAILABLE
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.qmgr.attempts import AttemptRecord, AttemptStore, message_subject
from dlqhandler.qmgr.port import GetOptions, PutOptions, Queue, QueueManager
from dlqhandler.rules import Matcher, RuleSet
from dlqhandler.rules.outgoing import plan_outgoing

__all__ = ["apply_frame", "apply_message"]

_MAX_STEPS = 10_000


def apply_message(qm: QueueManager, q: Queue, matcher: Matcher, msg_id: bytes,
                  correl_id: bytes, *, input_queue: str, catch_all: str | None,
                  max_hops: int = 5, store: AttemptStore | None = None,
                  clock: Callable[[], float] = time.time,
                  ) -> tuple[str, int | None, str | None, str | None]:
    """Move one message; returns (outcome, rule line, queue, qmgr).

    Outcomes: ``ok``, ``discarded``, ``catch_all``, ``skipped`` (gone: taken
    by another process), ``remaining`` (left on the DLQ), ``failed`` (left,
    after every allowed attempt failed). With a ``store`` the attempt count is
    read (while the message is held) and kept there, shared with the handlers.
    """
    local = qm.name
    subject = message_subject(msg_id, correl_id)
    for step in range(_MAX_STEPS):
        try:
            got = q.get(GetOptions(msg_id=msg_id, correl_id=correl_id, syncpoint=True))
        except MQIError as exc:
            if exc.reason == MQRC_NO_MSG_AVAILABLE:
                return "skipped", None, None, None
            raise
        # Read under the get: no other process can change the count of a message held.
        record: AttemptRecord | None = store.lookup(subject) if store is not None else None
        # Without a record, every earlier step of this loop was a failed put.
        attempts = record.attempts if record is not None else step
        try:
            msg = decode_dead_letter(got.md, got.body)
        except MalformedMessageError:
            return _to_catch_all(qm, got, catch_all, None, store=store, record=record)
        decision = matcher.decide(msg, attempts)
        line = decision.rule.line if decision.rule is not None else None
        kind = decision.action.kind
        if kind == "IGNORE":
            return _to_catch_all(qm, got, catch_all, line, store=store, record=record)
        if kind == "DISCARD":
            if store is not None:
                store.clear(record)
            qm.commit()
            return "discarded", line, None, None
        try:
            out, target = plan_outgoing(decision, msg, input_queue=input_queue,
                                        local_qmgr=local, max_hops=max_hops)
            qmgr = "" if target.qmgr == local else target.qmgr
            qm.put1(target.queue, out, PutOptions(
                syncpoint=True, context="pass_all",
                alternate_user=msg.md.user_identifier if decision.action.putaut == "CTX"
                else None), qmgr=qmgr)
        except (MQIError, DLQHandlerError):
            qm.backout()
            if store is not None:
                store.record_failure(subject, record, clock())
            continue
        if store is not None:
            store.clear(record)
        qm.commit()
        return "ok", line, target.queue, qmgr
    qm.backout()
    return "failed", None, None, None


def _to_catch_all(qm: QueueManager, got: Message, catch_all: str | None,
                  line: int | None, *, store: AttemptStore | None = None,
                  record: AttemptRecord | None = None,
                  ) -> tuple[str, int | None, str | None, str | None]:
    if catch_all is None:
        qm.backout()
        return "remaining", line, None, None
    try:
        qm.put1(catch_all, got, PutOptions(syncpoint=True, context="pass_all"))
    except MQIError:
        qm.backout()
        return "failed", line, None, None
    if store is not None:
        store.clear(record)
    qm.commit()
    return "catch_all", line, catch_all, ""


def apply_partition(ruleset_json: str, connect: Callable[[], QueueManager], input_queue: str,
                    catch_all: str | None, names: list[str], *,
                    status_queue: str | None = None) -> Callable[[Iterator[Any]],
                                                                 Iterator[Any]]:
    """The mapInArrow function: one connection per task, one UOW per message."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        matcher = Matcher(RuleSet.from_json(ruleset_json))
        qm = connect()
        q = qm.open(input_queue, input=True, browse=False)
        store = AttemptStore(qm, status_queue) if status_queue else None
        try:
            for batch in batches:
                rows = batch.to_pylist()
                for row in rows:
                    outcome, line, queue, qmgr = apply_message(
                        qm, q, matcher, row["md_msg_id"], row["md_correl_id"],
                        input_queue=input_queue, catch_all=catch_all, store=store)
                    row["outcome"] = outcome
                    if outcome in ("ok", "catch_all"):
                        row["out_q"], row["out_qm"] = queue, qmgr
                        row["applied_line"] = line
                    else:
                        row["applied_line"] = line
                yield pa.RecordBatch.from_pylist([{n: r.get(n) for n in names} for r in rows],
                                                 schema=batch.schema.append(
                                                     pa.field("outcome", pa.string())).append(
                                                     pa.field("applied_line", pa.int32())))
        finally:
            if store is not None:
                store.close()
            q.close()
            qm.disconnect()

    return run


def apply_frame(frame: Any, ruleset: RuleSet, input_queue: str, catch_all: str | None,
                connect: Callable[[], QueueManager], *, status_queue: str | None = None
                ) -> Any:
    """The classified frame with ``outcome`` and ``applied_line`` after applying
    (attempt counts on ``status_queue``, shared with the handlers, when given)."""
    names = [*frame.columns, "outcome", "applied_line"]
    out_schema = ", ".join([f"`{f.name}` {f.dataType.simpleString()}" for f in frame.schema]
                           + ["outcome string", "applied_line int"])
    fn = apply_partition(ruleset.to_json(), connect, input_queue, catch_all, names,
                         status_queue=status_queue)
    return frame.mapInArrow(fn, out_schema)
