"""The handler's group path: a message group (or a segmented message) moved whole.

The scan's anchor member is locked; the other members are browsed on the second
handle (:func:`dlqhandler.worker.groups.browse_group`). A group is selected when any
member is; one attempt count covers the group; its decisions are all made before
anything moves (an IGNORE leaves it whole). Then, in a unit of work of its own,
:mod:`dlqhandler.acting.group` gets every member, puts them in logical order and
counts a failed put while the whole group is still held, before backing out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol

from dlqhandler.acting import (
    PLAN_ERRORS,
    Acted,
    Outgoing,
    UnitOfWork,
    act_on_group,
    refusal,
    take_group,
)
from dlqhandler.mq.constants import reason_name
from dlqhandler.mq.message import Message
from dlqhandler.qmgr.attempts import AttemptRecord, Subject, group_subject
from dlqhandler.qmgr.port import Queue
from dlqhandler.rules import Decision, Matcher
from dlqhandler.worker.groups import browse_group, is_complete, logical_order
from dlqhandler.worker.options import HandlerOptions
from dlqhandler.worker.passes import PassState
from dlqhandler.worker.selection import Selector
from dlqhandler.worker.stats import RunStats

__all__ = ["handle_group"]


class Actor(Protocol):
    """What the group path uses of :class:`dlqhandler.worker.acting.Actor` (the unit of
    work it shares with single messages, its decisions, counts and logs)."""

    options: HandlerOptions
    stats: RunStats
    _log: Any
    _selector: Selector
    _matcher: Matcher
    _unit: UnitOfWork
    _dlq: Queue
    _other: Queue
    _unresolved: dict[bytes, Subject]

    def commit(self) -> None: ...
    def _lookup(self, subject: Subject) -> AttemptRecord | None: ...
    def _attempts(self, subject: Subject, record: AttemptRecord | None) -> int: ...
    def _due(self, subject: Subject, record: AttemptRecord | None, p: PassState) -> bool: ...
    def _dry_run(self, msg: Message, decision: Decision, log: Any) -> bool: ...
    def _pace(self, n: int) -> bool: ...
    def _plan(self, decision: Decision, msg: Message) -> Outgoing | None: ...
    def _where(self, out: Outgoing | None) -> str | None: ...
    def _count(self, line: int | None, action: str, outcome: str) -> None: ...
    def _backed_out(self) -> None: ...
    def _audit_record(self, msg: Message, kind: str, target: str | None) -> Message | None: ...
    def _unaudited(
        self, acted: Acted, subject: Subject, actions: list[tuple[int | None, str]], log: Any
    ) -> None: ...
    def _taken(self, n: int, effects: list[Callable[[], None]]) -> None: ...
    def _done(self, line: int | None, kind: str, log: Any, target: str | None) -> None: ...
    def _failed(
        self,
        subject: Subject,
        new: AttemptRecord,
        *,
        line: int | None,
        action: str,
        reason: str,
        detail: str,
        log: Any,
        quiet: bool = False,
        target: str | None = None,
        code: int | None = None,
    ) -> AttemptRecord: ...


def handle_group(actor: Actor, first: Message, p: PassState) -> bool:
    """Move a whole group in logical order in one unit of work, or leave it.

    True when the group was moved (or at least is not left by this handler)."""
    gid = first.md.group_id
    if not p.groups.add(gid):
        return False
    log = actor._log.bind(groupid=gid.hex())
    members = _members(actor, first, p, log)
    if members is None:
        return False
    if not any(actor._selector.selects(m) for m in members):
        p.not_selected += len(members)
        return False
    subject = group_subject(gid)
    record = actor._lookup(subject)
    attempts = actor._attempts(subject, record)
    decisions = [actor._matcher.decide(m, attempts) for m in members]
    ignore = any(d.action.kind == "IGNORE" for d in decisions)
    if not ignore and not actor._due(subject, record, p):
        return False
    log = log.bind(members=len(members), attempts=attempts)
    if ignore:
        p.ignored += len(members)
        log.debug("group_ignored", outcome="left")
        return False
    if actor.options.dry_run:
        for m, d in zip(members, decisions, strict=True):
            if not actor._dry_run(m, d, _member_log(log, m, d)):
                actor._unresolved[subject.key] = subject
        return False
    p.useful = True
    actor.commit()  # a group has a unit of work of its own
    if not actor._pace(len(members)):
        return False
    plans: list[tuple[Message, Decision, Outgoing | None]] = []
    for m, d in zip(members, decisions, strict=True):
        try:
            plans.append((m, d, actor._plan(d, m)))
        except PLAN_ERRORS as exc:  # nothing got yet: the scan's lock holds the group
            _group_failed(
                actor,
                subject,
                actor._unit.count_failure(subject, record),
                member=m,
                decision=d,
                reason=refusal(exc),
                detail=str(exc),
                target=None,
                log=log,
            )
            return False
    gone = take_group(
        actor._unit,
        members,
        lambda m: actor._unit.take(
            actor._dlq if m is first else actor._other, m, under_cursor=m is first
        ),
    )
    if gone is not None and gone.member is not None:
        actor.stats.vanished += 1
        for _m, d, _o in plans:
            actor._count(d.rule.line if d.rule else None, d.action.kind, "backed_out")
        log.warning(
            "group_member_vanished", msgid=gone.member.md.msg_id.hex(), outcome="backed_out"
        )
        actor._backed_out()
        return False
    acted = act_on_group(
        actor._unit,
        [(m, out) for m, _d, out in plans],
        subject,
        record,
        [
            r
            for m, d, out in plans
            if (r := actor._audit_record(m, d.action.kind, actor._where(out))) is not None
        ],
    )
    if acted.outcome == "unaudited":
        actor._unaudited(
            acted,
            subject,
            [(d.rule.line if d.rule else None, d.action.kind) for _m, d, _o in plans],
            log,
        )
        return False
    if acted.error is not None and acted.record is not None:
        # The put failed: counted while the group was held, then backed out.
        actor._backed_out()
        m, d, out = next(plan for plan in plans if plan[0] is acted.member)
        _group_failed(
            actor,
            subject,
            acted.record,
            member=m,
            decision=d,
            reason=reason_name(acted.error.reason),
            detail=acted.error.detail,
            target=actor._where(out),
            log=log,
            code=acted.error.reason,
        )
        return False
    actor._unresolved.pop(subject.key, None)
    effects: list[Callable[[], None]] = [
        functools.partial(
            actor._done,
            d.rule.line if d.rule else None,
            d.action.kind,
            _member_log(log, m, d),
            actor._where(out),
        )
        for m, d, out in plans
    ]
    effects.append(functools.partial(_group_done, actor, log))
    actor._taken(len(plans), effects)
    actor.commit()
    return True


def _members(actor: Actor, first: Message, p: PassState, log: Any) -> list[Message] | None:
    """The whole group in logical order, or None (counted and logged) to leave it
    (:func:`dlqhandler.worker.groups.browse_group`)."""
    members, bad = browse_group(actor._other, first)
    if bad is not None:
        p.no_dlh += 1
        p.ignored += len(members)
        log.warning("group_member_without_dlh", msgid=bad.hex(), outcome="left")
        return None
    if not is_complete(members):
        p.ignored += len(members)
        log.info("group_incomplete", present=len(members), outcome="left")
        return None
    return logical_order(members)


def _member_log(log: Any, m: Message, d: Decision) -> Any:
    return log.bind(
        msgid=m.md.msg_id.hex(),
        reason=m.dlh.reason if m.dlh else None,
        destq=m.dlh.dest_q_name if m.dlh else None,
        rule_line=d.rule.line if d.rule else None,
        action=d.action.kind,
    )


def _group_done(actor: Actor, log: Any) -> None:
    actor.stats.groups_moved += 1
    log.info("group_moved", outcome="ok")


def _group_failed(
    actor: Actor,
    subject: Subject,
    new: AttemptRecord,
    *,
    member: Message,
    decision: Decision,
    reason: str,
    detail: str,
    target: str | None,
    log: Any,
    code: int | None = None,
) -> None:
    line = decision.rule.line if decision.rule else None
    actor._failed(
        subject,
        new,
        line=line,
        action=decision.action.kind,
        reason=reason,
        detail=detail,
        log=_member_log(log, member, decision),
        target=target,
        code=code,
    )
    log.warning(
        "group_failed",
        failed_msgid=member.md.msg_id.hex(),
        reason_name=reason,
        attempts=new.attempts,
        outcome="left",
    )
