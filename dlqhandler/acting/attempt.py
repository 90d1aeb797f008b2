"""One attempt to carry out the decisions on a dead letter, or on a whole group.

:func:`attempt` is the one decide-plan-refuse-act step: the handler (``dlqhandler run``,
:mod:`dlqhandler.worker.actor`) and ``drain --apply`` (:mod:`dlqhandler.spark.drain.apply`)
both call it with what they decided, and read what came of it from the frozen
:class:`Attempt` it returns. What differs between them is how the message is *held*
while it is acted on (:mod:`.unit`): *locked* by the handler's browse (``take`` gets it
once its put is done), or already *got* under syncpoint by the drain (``take`` is None).

* Planning (:func:`.plan.plan`) may refuse a decision (a loop, a control queue, an
  unusable target or user id): one attempt is counted while the message is held, and no
  put is made (``REFUSED``).
* A single message: its put, then (locked) its destructive get. A failed put counts one
  attempt while the message is held (``FAILED``); a got message's unit of work is then
  backed out, a locked one's stays open (it may hold other messages of a batch). Gone
  when it was to be taken, the unit is backed out: the put must not stand alone
  (``VANISHED``).
* A group (or a segmented message): every member is got first (a member gone backs the
  unit out, ``VANISHED``), then the members are put in logical order; a failed put counts
  one attempt for the group while all of it is held, then the unit is backed out.
* A get the queue manager refuses because the unit of work is full (MaxUncommittedMsgs,
  MQRC_SYNCPOINT_LIMIT_REACHED), a member's or the attempt record's being cleared, is a
  failed attempt like a failed put: counted while the
  message (group) is held, then the unit is backed out (a put already made must not
  stand alone). A caller that batches keeps each action's unit small enough
  (:meth:`.unit.UnitOfWork.cost`), so only an action too big for MAXUMSGS on its own
  meets it, and it can never succeed: it fails until its rules give up on it.
* The audit records of an audited run go last, in the same unit of work: one that cannot
  be put backs the unit out (``UNAUDITED``): no action without its record.
* A success (``TAKEN``) removes the attempt record in the same unit of work; the caller
  commits (the handler batches several messages per unit of work, the drain one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from dlqhandler.acting.plan import PLAN_ERRORS, Outgoing, refusal
from dlqhandler.acting.unit import UnitOfWork
from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import MQRC_SYNCPOINT_LIMIT_REACHED
from dlqhandler.mq.groups import logical_order
from dlqhandler.mq.message import Message
from dlqhandler.qmgr.attempts import AttemptRecord, Subject
from dlqhandler.rules import Decision

__all__ = ["Attempt", "Planner", "Result", "attempt"]

# How a decision becomes a put (None: a DISCARD): :func:`dlqhandler.acting.plan.plan`
# with the caller's input queue, queue manager, hop limit and control queues.
Planner = Callable[[Decision, Message], Outgoing | None]
# The audit record of one action (None: the run is not audited).
Auditor = Callable[[Message, Decision, Outgoing | None], Message | None]


class Result(StrEnum):
    """What one attempt came to (the handler books it as an :class:`Outcome`)."""

    TAKEN = "taken"  # in the unit of work: the message leaves the DLQ when it commits
    FAILED = "failed"  # a put failed: one attempt counted, the unit backed out (if got)
    REFUSED = "refused"  # the decision cannot be carried out: one attempt counted, no put
    VANISHED = "vanished"  # a message (member) was gone when it was to be taken: backed out
    UNAUDITED = "unaudited"  # an audit record could not be put: the action backed out


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one attempt on a message (or a group) came to.

    ``decided``: each member with its decision, in logical order (one pair for a single
    message); ``puts``: each member's put (None: a DISCARD), in the same order (empty
    when REFUSED). ``error``: the put's MQ error (FAILED) or the audit record's
    (UNAUDITED); ``refusal`` and ``detail``: why a decision was REFUSED (``FORWARD_LOOP``,
    ``CONTROL_QUEUE``, ...). ``record``: the new attempt count (FAILED, REFUSED).
    ``member``: the member whose put failed, that was refused, or that vanished.
    """

    result: Result
    decided: tuple[tuple[Message, Decision], ...]
    puts: tuple[Outgoing | None, ...] = ()
    error: MQIError | None = None
    refusal: str | None = None
    detail: str = ""
    record: AttemptRecord | None = None
    member: Message | None = None
    backed_out: bool = False  # a FAILED attempt's unit of work was backed out


def attempt(
    unit: UnitOfWork,
    decided: Sequence[tuple[Message, Decision]],
    subject: Subject,
    record: AttemptRecord | None,
    *,
    plan: Planner,
    take: Callable[[Message], bool] | None,
    group: bool = False,
    audit: Auditor | None = None,
) -> Attempt:
    """Carry out the decisions on a message or a group (see the module docstring).

    ``decided``: the message and its decision, or every member of a group with its
    own; ``record``: the subject's attempt record as read while it was held; ``take``:
    the destructive get under syncpoint of a *locked* message (False: gone), None when
    it was already *got*. The caller commits a TAKEN attempt.
    """
    pairs = tuple(decided)
    puts: list[Outgoing | None] = []
    for m, d in pairs:
        try:
            puts.append(plan(d, m))
        except PLAN_ERRORS as exc:
            new = (
                unit.fail(subject, record) if take is None else unit.count_failure(subject, record)
            )
            return Attempt(
                Result.REFUSED, pairs, refusal=refusal(exc), detail=str(exc), record=new, member=m
            )
    done = tuple(puts)
    records = [
        r
        for (m, d), out in zip(pairs, done, strict=True)
        if audit is not None and (r := audit(m, d, out)) is not None
    ]
    return _carry_out(unit, pairs, done, subject, record, take=take, group=group, records=records)


def _carry_out(
    unit: UnitOfWork,
    pairs: tuple[tuple[Message, Decision], ...],
    puts: tuple[Outgoing | None, ...],
    subject: Subject,
    record: AttemptRecord | None,
    *,
    take: Callable[[Message], bool] | None,
    group: bool,
    records: Sequence[Message],
) -> Attempt:
    """The puts and the gets: a group's members all got first (when not yet) and put in
    logical order; a single message put, then (locked) got."""
    if group and take is not None:
        for m, _d in pairs:
            try:
                if not take(m):
                    unit.backout()
                    return Attempt(Result.VANISHED, pairs, puts, member=m)
            except MQIError as exc:
                return _unit_full(
                    unit, exc, pairs=pairs, puts=puts, subject=subject, record=record, member=m
                )
    # Held by a get (the drain's, or every member of a group) a failed put's count is
    # followed by a back-out; a locked single message's unit stays open (its batch).
    held = take is None or group
    outgoing = {id(m): out for (m, _d), out in zip(pairs, puts, strict=True)}
    for m in logical_order([m for m, _d in pairs]) if group else [pairs[0][0]]:
        out = outgoing[id(m)]
        if out is None:
            continue
        try:
            unit.put(out)
        except MQIError as exc:
            unit.failed_put(exc)
            new = unit.fail(subject, record) if held else unit.count_failure(subject, record)
            return Attempt(Result.FAILED, pairs, puts, exc, record=new, member=m, backed_out=held)
    msg = pairs[0][0]
    if not group and take is not None:
        try:
            taken = take(msg)
        except MQIError as exc:
            return _unit_full(
                unit, exc, pairs=pairs, puts=puts, subject=subject, record=record, member=msg
            )
        if not taken:
            unit.backout()
            return Attempt(Result.VANISHED, pairs, puts, member=msg)
    return _audited_and_cleared(unit, pairs, puts, subject, record=record, records=records)


def _unit_full(
    unit: UnitOfWork,
    exc: MQIError,
    *,
    pairs: tuple[tuple[Message, Decision], ...],
    puts: tuple[Outgoing | None, ...],
    subject: Subject,
    record: AttemptRecord | None,
    member: Message,
) -> Attempt:
    """A get refused with MQRC_SYNCPOINT_LIMIT_REACHED: one attempt counted while the
    message (group) is held, then the unit backed out. Any other error is re-raised."""
    if exc.reason != MQRC_SYNCPOINT_LIMIT_REACHED:
        raise exc
    new = unit.fail(subject, record)
    return Attempt(Result.FAILED, pairs, puts, exc, record=new, member=member, backed_out=True)


def _audited_and_cleared(
    unit: UnitOfWork,
    pairs: tuple[tuple[Message, Decision], ...],
    puts: tuple[Outgoing | None, ...],
    subject: Subject,
    *,
    record: AttemptRecord | None,
    records: Sequence[Message],
) -> Attempt:
    """The audit records last (none put: the unit is backed out), then the attempt
    record cleared in the same unit of work (a get under syncpoint: one the unit of work
    has no room for is a failed attempt, as a get of a member is)."""
    error = unit.audited(records)
    if error is not None:
        return Attempt(Result.UNAUDITED, pairs, puts, error)
    try:
        unit.cleared(record)
    except MQIError as exc:
        member = pairs[0][0]
        return _unit_full(
            unit, exc, pairs=pairs, puts=puts, subject=subject, record=record, member=member
        )
    return Attempt(Result.TAKEN, pairs, puts)
