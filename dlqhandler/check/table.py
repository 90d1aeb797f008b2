"""What a rules table needs from the queue manager it runs on.

Every destination the table can name (a literal FWDQ, or a RETRY or ``&DESTQ``/
``&REPLYQ`` whose field an exact pattern pins) exists and is put-enabled, or is
remote and its transmission queue exists; no rule forwards to the DLQ (the
linter's W504, against the real DEADQ and alias definitions); the user has the
authority the puts need (put, by opening each destination for output; passall
and altusr cannot be inquired and are listed as not checked).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dlqhandler.acting import ControlQueues
from dlqhandler.check.findings import Checker, mqsc_name
from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.mq.constants import MQRC_NOT_AUTHORIZED
from dlqhandler.rules import Rule, StringPredicate, compile_rules
from dlqhandler.rules.outgoing import control_queue_targets

__all__ = ["RulesTable", "check_table"]


@dataclass(frozen=True, slots=True)
class RulesTable:
    """A rules table to check against the queue manager: its text and where it came from."""

    text: str | bytes
    source: str


@dataclass(frozen=True, slots=True)
class _Target:
    queue: str
    qmgr: str  # "" = this queue manager
    lines: tuple[int, ...]


_REMOTE_SELECTORS = [
    s.MQCA_REMOTE_Q_NAME,
    s.MQCA_REMOTE_Q_MGR_NAME,
    s.MQCA_XMIT_Q_NAME,
    s.MQIA_INHIBIT_PUT,
]
_TYPES = {
    s.MQQT_LOCAL: "local",
    s.MQQT_MODEL: "model",
    s.MQQT_ALIAS: "alias",
    s.MQQT_REMOTE: "remote",
}


def _exact(rule: Rule, keyword: str) -> str | None:
    for p in rule.predicates:
        if isinstance(p, StringPredicate) and p.keyword == keyword and p.kind == "exact":
            return p.pattern.strip()
    return None


_SUBSTITUTED = {"&DESTQ": "DESTQ", "&REPLYQ": "REPLYQ", "&DESTQM": "DESTQM", "&REPLYQM": "REPLYQM"}


def _named(rule: Rule, value: str | None) -> str | None:
    """A literal name, or the exact pattern a substitution's field is matched with."""
    if value is None or not value.startswith("&"):
        return value
    return _exact(rule, _SUBSTITUTED[value])


def _targets(c: Checker, qmgr: str, rules: Sequence[Rule]) -> list[_Target]:
    found: dict[tuple[str, str], list[int]] = {}
    for rule in rules:
        action = rule.action
        if action.kind == "RETRY":
            queue, qm, text = _exact(rule, "DESTQ"), _exact(rule, "DESTQM"), "RETRY"
        elif action.kind == "FWD":
            queue, qm = _named(rule, action.fwdq), _named(rule, action.fwdqm)
            text = f"FWDQ({action.fwdq})"
        else:
            continue
        if queue is None:
            c.add(
                "rules-target",
                "not checked",
                f"rule at line {rule.line}",
                f"{text} names a queue taken from each message "
                "(no exact DESTQ or REPLYQ pattern pins it)",
            )
            continue
        local = qm is None or qm in ("", qmgr)
        found.setdefault((queue, "" if local else str(qm)), []).append(rule.line)
    return [_Target(q, m, tuple(lines)) for (q, m), lines in found.items()]


def check_table(
    c: Checker,
    qmgr: str,
    deadq: str,
    table: RulesTable,
    handler_queues: ControlQueues | None = None,
) -> None:
    """The rules table's findings, added to ``c`` (``handler_queues``: the handler's
    control queues, which no rule may forward to)."""
    result = compile_rules(table.text, source=table.source, deadq=deadq or None)
    ruleset = result.ruleset
    if ruleset is None:  # the caller compiles first and stops on errors
        return
    control = ruleset.control
    dlq = control.inputq or deadq
    if control.inputq and deadq and control.inputq != deadq:
        c.add(
            "rules-inputq",
            "warning",
            f"INPUTQ({control.inputq})",
            f"the table reads INPUTQ({control.inputq}), not the DEADQ {deadq}",
            f"dead letters the queue manager puts on {deadq} are not handled by this table",
            f"INPUTQ({deadq}) in the table, or ALTER QMGR DEADQ({mqsc_name(control.inputq)})",
        )
    elif control.inputq:
        c.add("rules-inputq", "ok", f"INPUTQ({control.inputq})", "INPUTQ is the DEADQ")
    if control.inputqm and control.inputqm != qmgr:
        c.add(
            "rules-inputqm",
            "warning",
            f"INPUTQM({control.inputqm})",
            f"the table names queue manager {control.inputqm}, not {qmgr}",
            "the handler connects to INPUTQM when no queue manager is named",
            f"INPUTQM({qmgr}) in the table",
        )
    for d in result.diagnostics:
        if d.code == "W504":
            c.add(
                "rules-loop",
                "error",
                f"{table.source}:{d.line}",
                d.message,
                "a dead letter forwarded to the queue it came from is handled again "
                "and again: a forwarding loop",
                "FWDQ(<another queue>) in that rule",
            )
    if handler_queues is not None:
        roles = handler_queues.roles()
        for t in control_queue_targets(ruleset.rules, roles):
            c.add(
                "rules-control-queue",
                "error",
                f"{table.source}:{t.line}",
                f"ACTION(FWD) FWDQ({t.queue}) forwards to the handler's {t.role}",
                "a dead letter put there would be read as one of its records: dlqhandler "
                "run and drain --apply refuse the table before anything moves",
                "FWDQ(<another queue>) in that rule",
            )
    for target in _targets(c, qmgr, ruleset.rules):
        if target.qmgr:
            c.each(_check_remote_target, c, target, qmgr, dlq)
        else:
            c.each(_check_local_target, c, target, dlq)
    _check_authority(c, ruleset.rules)


def _where(target: _Target) -> str:
    lines = ", ".join(str(n) for n in target.lines)
    return f"(rules at lines {lines})" if len(target.lines) > 1 else f"(rule at line {lines})"


def _check_local_target(c: Checker, target: _Target, dlq: str) -> None:
    q = target.queue
    attrs = c.ask("queue", q, [s.MQIA_Q_TYPE, s.MQIA_INHIBIT_PUT])
    why = "the rule's put fails (MQRC_UNKNOWN_OBJECT_NAME): the dead letter stays and is retried"
    if attrs is None:
        c.add(
            "rules-target",
            "error",
            f"QLOCAL({q})",
            f"{q} does not exist {_where(target)}",
            why,
            f"DEFINE QLOCAL({mqsc_name(q)})",
        )
        return
    kind = attrs.get(s.MQIA_Q_TYPE)
    if kind == s.MQQT_ALIAS:
        base = str(
            (c.ask("queue", q, [s.MQCA_BASE_Q_NAME]) or {}).get(s.MQCA_BASE_Q_NAME, "")
        ).strip()
        if base and dlq and base == dlq:
            c.add(
                "rules-loop",
                "error",
                f"QALIAS({q})",
                f"{q} is an alias of the DLQ {dlq} {_where(target)}",
                "a dead letter forwarded there comes back to the handler: a loop",
                "FWDQ(<another queue>) in that rule",
            )
            return
        base_attrs = c.ask("queue", base, [s.MQIA_Q_TYPE, s.MQIA_INHIBIT_PUT]) if base else None
        if base_attrs is None:
            c.add(
                "rules-target",
                "error",
                f"QALIAS({q})",
                f"{q} is an alias of {base or '(blank)'}, which does not exist {_where(target)}",
                why,
                f"DEFINE QLOCAL({mqsc_name(base or q)})",
            )
            return
        if base_attrs.get(s.MQIA_Q_TYPE) == s.MQQT_REMOTE:  # an alias of a remote queue
            if attrs.get(s.MQIA_INHIBIT_PUT) == s.MQQA_PUT_INHIBITED:
                c.add(
                    "rules-target",
                    "error",
                    f"QALIAS({q})",
                    f"{q} is PUT(DISABLED) {_where(target)}",
                    "the rule's put fails with MQRC_PUT_INHIBITED: the dead letter stays",
                    f"ALTER QALIAS({mqsc_name(q)}) PUT(ENABLED)",
                )
                return
            _check_remote_definition(c, _Target(base, "", target.lines), c.qm.name)
            return
    if kind == s.MQQT_REMOTE:
        _check_remote_definition(c, target, c.qm.name)
        return
    put = attrs.get(s.MQIA_INHIBIT_PUT)
    if put is None:
        c.unknown("rules-target", q, "PUT enabled", s.MQIA_INHIBIT_PUT)
    elif int(put) == s.MQQA_PUT_INHIBITED:
        c.add(
            "rules-target",
            "error",
            f"QUEUE({q})",
            f"{q} is PUT(DISABLED) {_where(target)}",
            "the rule's put fails with MQRC_PUT_INHIBITED: the dead letter stays",
            f"ALTER QLOCAL({mqsc_name(q)}) PUT(ENABLED)",
        )
    else:
        c.add("rules-target", "ok", f"QUEUE({q})", f"exists and is put-enabled {_where(target)}")
    _probe_put(c, q, target)


def _check_remote_definition(c: Checker, target: _Target, qmgr: str) -> None:
    """A destination that is a local definition of a remote queue (QREMOTE): resolved as
    IBM's "Name resolution" describes, each way it cannot resolve being the reason the
    rule's put would fail with."""
    q = target.queue
    obj = f"QREMOTE({q})"
    a = c.ask("queue", q, _REMOTE_SELECTORS) or {}
    rname, rqmname = a.get(s.MQCA_REMOTE_Q_NAME), a.get(s.MQCA_REMOTE_Q_MGR_NAME)
    why = "the rule's put fails with {}: the dead letter stays and is retried"
    if a.get(s.MQIA_INHIBIT_PUT) == s.MQQA_PUT_INHIBITED:
        c.add(
            "rules-target",
            "error",
            obj,
            f"{q} is PUT(DISABLED) {_where(target)}",
            why.format("MQRC_PUT_INHIBITED"),
            f"ALTER QREMOTE({mqsc_name(q)}) PUT(ENABLED)",
        )
        return
    if rname is not None and not str(rname).strip():
        c.add(
            "rules-target",
            "error",
            obj,
            f"{q} has no RNAME: it is a queue manager alias, not a queue {_where(target)}",
            why.format("MQRC_REMOTE_Q_NAME_ERROR"),
            f"ALTER QREMOTE({mqsc_name(q)}) RNAME(<the queue at the other queue manager>)",
        )
        return
    if rqmname is not None and str(rqmname).strip() in ("", qmgr):
        c.add(
            "rules-target",
            "error",
            obj,
            f"{q} has RQMNAME({str(rqmname).strip()}): not another queue manager {_where(target)}",
            why.format("MQRC_UNKNOWN_REMOTE_Q_MGR"),
            f"ALTER QREMOTE({mqsc_name(q)}) RQMNAME(<the other queue manager>)",
        )
        return
    xmitq = str(a.get(s.MQCA_XMIT_Q_NAME, "") or "").strip()
    if xmitq:
        ok = _check_xmitq(c, xmitq, target, obj, unknown="MQRC_UNKNOWN_XMIT_Q", probe=False)
    elif rqmname is None:
        c.add(
            "rules-target",
            "not checked",
            obj,
            "the remote queue's transmission queue: MQINQ did not tell its RQMNAME",
        )
        return
    else:
        ok = _check_xmitq_of(c, str(rqmname).strip(), target, obj, probe=False)
    if ok:  # the put opens the remote definition: its authority is the one checked
        _probe_put(c, q, target)


def _check_remote_target(c: Checker, target: _Target, qmgr: str, dlq: str) -> None:
    """A destination at another queue manager (FWDQM, DESTQM): ObjectQMgrName is resolved
    first - a local queue (a transmission queue), a queue manager alias, else DEFXMITQ."""
    attrs = c.ask("queue", target.qmgr, [s.MQIA_Q_TYPE])
    obj = f"{target.queue}@{target.qmgr}"
    kind = None if attrs is None else attrs.get(s.MQIA_Q_TYPE)
    if kind == s.MQQT_REMOTE:  # a queue manager alias
        a = c.ask("queue", target.qmgr, _REMOTE_SELECTORS) or {}
        rname, rqmname = a.get(s.MQCA_REMOTE_Q_NAME), a.get(s.MQCA_REMOTE_Q_MGR_NAME)
        if rname is not None and str(rname).strip():
            c.add(
                "rules-target",
                "error",
                f"QREMOTE({target.qmgr})",
                f"{target.qmgr} is a remote queue definition (RNAME({str(rname).strip()})), "
                f"not a queue manager alias {_where(target)}",
                "the rule's put fails with MQRC_UNKNOWN_REMOTE_Q_MGR: the dead letter stays",
                f"ALTER QREMOTE({mqsc_name(target.qmgr)}) RNAME(' ')",
            )
            return
        if a.get(s.MQIA_INHIBIT_PUT) == s.MQQA_PUT_INHIBITED:
            c.add(
                "rules-target",
                "error",
                f"QREMOTE({target.qmgr})",
                f"the queue manager alias {target.qmgr} is PUT(DISABLED) {_where(target)}",
                "the rule's put fails with MQRC_PUT_INHIBITED: the dead letter stays",
                f"ALTER QREMOTE({mqsc_name(target.qmgr)}) PUT(ENABLED)",
            )
            return
        if rqmname is not None and str(rqmname).strip() == qmgr:  # an alias of this qmgr
            _check_local_target(c, _Target(target.queue, "", target.lines), dlq)
            return
        xmitq = str(a.get(s.MQCA_XMIT_Q_NAME, "") or "").strip()
        alias = f"QREMOTE({target.qmgr})"
        if xmitq:
            _check_xmitq(c, xmitq, target, alias, unknown="MQRC_UNKNOWN_XMIT_Q")
        elif rqmname is not None and str(rqmname).strip():
            _check_xmitq_of(c, str(rqmname).strip(), target, alias)
        else:
            c.add(
                "rules-target",
                "not checked",
                alias,
                "the queue manager alias's transmission queue: MQINQ did not tell it",
            )
        return
    if kind is not None:  # a local queue: it must be a transmission queue
        _check_xmitq(c, target.qmgr, target, obj)
        return
    _check_default_xmitq(c, target.qmgr, target, obj)


def _check_xmitq_of(
    c: Checker, rqmname: str, target: _Target, obj: str, *, probe: bool = True
) -> bool:
    """XMITQ blank: the queue named like the queue manager, else DEFXMITQ (IBM's
    XmitQName: "If there is no queue with the name RemoteQMgrName, the queue identified
    by the DefXmitQName queue manager attribute is used")."""
    if c.ask("queue", rqmname, [s.MQIA_Q_TYPE]) is not None:
        return _check_xmitq(c, rqmname, target, obj, probe=probe)
    return _check_default_xmitq(c, rqmname, target, obj, probe=probe)


def _check_default_xmitq(
    c: Checker, rqmname: str, target: _Target, obj: str, *, probe: bool = True
) -> bool:
    answers = c.ask_qmgr([s.MQCA_DEF_XMIT_Q_NAME])
    defxmitq = answers.get(s.MQCA_DEF_XMIT_Q_NAME)
    if defxmitq is not None and str(defxmitq).strip():
        return _check_xmitq(
            c, str(defxmitq).strip(), target, obj, unknown="MQRC_UNKNOWN_DEF_XMIT_Q", probe=probe
        )
    c.add(
        "rules-xmitq",
        "error",
        obj,
        f"no transmission queue {rqmname}"
        + (" and no DEFXMITQ" if defxmitq is not None else "")
        + f" {_where(target)}",
        "the put to the other queue manager fails (MQRC_UNKNOWN_REMOTE_Q_MGR): the dead "
        "letter stays (the transmission queue also needs its sender channel)",
        f"DEFINE QLOCAL({mqsc_name(rqmname)}) USAGE(XMITQ)",
    )
    return False


def _check_xmitq(
    c: Checker, xmitq: str, target: _Target, obj: str, *, unknown: str = "", probe: bool = True
) -> bool:
    """The transmission queue exists, is local, USAGE(XMITQ) and put-enabled (True);
    ``probe``: then open it for output (the put authority check)."""
    attrs = c.ask("queue", xmitq, [s.MQIA_Q_TYPE, s.MQIA_USAGE, s.MQIA_INHIBIT_PUT])
    if attrs is None:
        c.add(
            "rules-xmitq",
            "error",
            obj,
            f"no transmission queue {xmitq} {_where(target)}",
            "the put to the other queue manager fails ("
            + (unknown or "MQRC_UNKNOWN_REMOTE_Q_MGR")
            + "): the dead letter stays (the transmission queue also needs its sender channel)",
            f"DEFINE QLOCAL({mqsc_name(xmitq)}) USAGE(XMITQ)",
        )
        return False
    kind = attrs.get(s.MQIA_Q_TYPE)
    if kind is not None and int(kind) != s.MQQT_LOCAL:
        c.add(
            "rules-xmitq",
            "error",
            f"QUEUE({xmitq})",
            f"{xmitq} is a {_TYPES.get(int(kind), str(kind))} queue, not a local "
            f"transmission queue {_where(target)}",
            "the put fails with MQRC_XMIT_Q_TYPE_ERROR (MQRC_DEF_XMIT_Q_TYPE_ERROR for DEFXMITQ)",
            f"DEFINE QLOCAL({mqsc_name(xmitq)}) USAGE(XMITQ)",
        )
        return False
    usage = attrs.get(s.MQIA_USAGE)
    if usage is not None and int(usage) != s.MQUS_TRANSMISSION:
        c.add(
            "rules-xmitq",
            "error",
            f"QLOCAL({xmitq})",
            f"{xmitq} is not a transmission queue (USAGE(NORMAL)) {_where(target)}",
            "the put fails with MQRC_XMIT_Q_USAGE_ERROR (MQRC_DEF_XMIT_Q_USAGE_ERROR for DEFXMITQ)",
            f"ALTER QLOCAL({mqsc_name(xmitq)}) USAGE(XMITQ)",
        )
        return False
    if attrs.get(s.MQIA_INHIBIT_PUT) == s.MQQA_PUT_INHIBITED:
        c.add(
            "rules-xmitq",
            "error",
            f"QLOCAL({xmitq})",
            f"the transmission queue {xmitq} is PUT(DISABLED) {_where(target)}",
            "the put to the other queue manager fails with MQRC_PUT_INHIBITED: the dead "
            "letter stays",
            f"ALTER QLOCAL({mqsc_name(xmitq)}) PUT(ENABLED)",
        )
        return False
    c.add(
        "rules-xmitq",
        "ok",
        f"QLOCAL({xmitq})",
        f"the transmission queue for {obj} exists {_where(target)}",
    )
    if probe:
        _probe_put(c, xmitq, target)
    return True


def _probe_put(c: Checker, queue: str, target: _Target) -> None:
    """MQOPEN for output and MQCLOSE, nothing put: the queue manager's own check of this
    user's put authority."""
    try:
        c.qm.open(queue, input=False, browse=False, output=True).close()
    except MQIError as exc:
        if exc.reason != MQRC_NOT_AUTHORIZED:
            raise
        c.add(
            "auth-put",
            "error",
            f"QUEUE({queue})",
            f"this user has no put authority on {queue} {_where(target)}",
            "the rule's put fails with MQRC_NOT_AUTHORIZED: the dead letter stays",
            f"SET AUTHREC PROFILE({mqsc_name(queue)}) OBJTYPE(QUEUE) PRINCIPAL('<handler user>') "
            "AUTHADD(PUT,PASSALL)",
        )


def _check_authority(c: Checker, rules: Sequence[Rule]) -> None:
    puts = [r for r in rules if r.action.kind in ("FWD", "RETRY")]
    if not puts:
        return
    c.add(
        "auth-passall",
        "not checked",
        "QUEUE(*)",
        "passall authority on the rules' destinations: MQINQ cannot tell authority",
        "the handler puts with MQPMO_PASS_ALL_CONTEXT (the dead letter keeps its "
        "context): without passall the put fails with MQRC_NOT_AUTHORIZED",
        f"dspmqaut -m {c.report.qmgr} -t queue -n <destination> -p <handler user>; grant with "
        "SET AUTHREC PROFILE(<destination>) OBJTYPE(QUEUE) PRINCIPAL('<handler user>') "
        "AUTHADD(PASSALL)",
    )
    ctx = [r.line for r in puts if r.action.putaut == "CTX"]
    if ctx:
        c.add(
            "auth-altusr",
            "not checked",
            "QMGR",
            f"altusr authority for PUTAUT(CTX) (rules at lines "
            f"{', '.join(map(str, ctx))}): MQINQ cannot tell authority",
            "PUTAUT(CTX) puts with the message's user id as alternate user: the handler "
            "needs altusr, and each such user put authority on the destination",
            "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('<handler user>') AUTHADD(ALTUSR)",
        )
