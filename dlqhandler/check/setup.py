"""Checking a queue manager's dead-letter set-up, the way an experienced administrator would.

Everything is asked through the ``QueueManager`` port: MQINQ
(:meth:`~dlqhandler.qmgr.port.QueueManager.inquire_object`) for definitions, and an
MQOPEN for output (opened and closed, nothing put) where only the queue manager's
authority check can tell. What the queue manager does not answer becomes a
``not checked`` finding, never an ``ok``. The order of the findings is the order an
administrator reads them: the DEADQ, the dead-letter queue's attributes, triggering,
the status queue, then what the rules table needs (:mod:`.table`).
"""

from __future__ import annotations

from dlqhandler.acting import DEFAULT_AUDIT_QUEUE, ControlQueues
from dlqhandler.check.findings import Checker, SetupReport, mqsc_name
from dlqhandler.check.status import STATUS_QUEUE_WHY, status_queue_mqsc
from dlqhandler.check.table import RulesTable, check_table
from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.mq.constants import MQRC_NOT_AUTHORIZED
from dlqhandler.mq.names import NAME_RULE, validate_queue_name
from dlqhandler.qmgr.port import Answers, QueueManager

__all__ = ["check_setup"]

_HEADROOM = 0.8  # warn when the DLQ is this full
_TYPES = {
    s.MQQT_LOCAL: "local",
    s.MQQT_MODEL: "model",
    s.MQQT_ALIAS: "alias",
    s.MQQT_REMOTE: "remote",
    s.MQQT_CLUSTER: "cluster",
}
_DLQ_SELECTORS = (
    s.MQIA_MAX_MSG_LENGTH,
    s.MQIA_MAX_Q_DEPTH,
    s.MQIA_CURRENT_Q_DEPTH,
    s.MQIA_INHIBIT_PUT,
    s.MQIA_INHIBIT_GET,
    s.MQIA_PROPERTY_CONTROL,
    s.MQIA_DEF_INPUT_OPEN_OPTION,
    s.MQIA_SHAREABILITY,
    s.MQIA_TRIGGER_CONTROL,
    s.MQIA_TRIGGER_TYPE,
    s.MQIA_TRIGGER_DEPTH,
    s.MQCA_INITIATION_Q_NAME,
    s.MQCA_PROCESS_NAME,
)


def check_setup(
    qm: QueueManager,
    *,
    status_queue: str,
    audit_queue: str = DEFAULT_AUDIT_QUEUE,
    rules: RulesTable | None = None,
    status_queue_defined_at_start: bool = False,
) -> SetupReport:
    """Check the dead-letter set-up of the queue manager ``qm`` is connected to.

    ``status_queue`` is the handler's (``--status-queue``), ``audit_queue`` its audit
    queue (``--audit-queue``): with the DLQ, three different queues no rule forwards to;
    ``status_queue_defined_at_start`` says ``run`` defines it when missing (embedded
    queue managers), which makes a missing one a warning. With ``rules`` the
    destinations, loops and authority the table needs are checked too. MQ errors
    other than "no such object" propagate as :class:`MQIError`.
    """
    try:
        qmgr: Answers | None = qm.inquire_object(
            "qmgr", "", [s.MQCA_Q_MGR_NAME, s.MQCA_DEAD_LETTER_Q_NAME, s.MQIA_MAX_MSG_LENGTH]
        )
    except MQIError as exc:
        if exc.reason != MQRC_NOT_AUTHORIZED:
            raise
        qmgr = None  # the DEADQ is unknown: its checks are skipped, the others run
    answers = qmgr or {}
    name = str(answers.get(s.MQCA_Q_MGR_NAME, qm.name)).strip()
    deadq = str(answers.get(s.MQCA_DEAD_LETTER_Q_NAME, "")).strip()
    report = SetupReport(qmgr=name, dlq=deadq)
    c = Checker(qm, report)
    if qmgr is None:
        c.cannot_inquire_qmgr()
    # Each step on its own: an object this user may not inquire is an auth-inq finding,
    # and the steps that do not need it still run.
    local = c.each(_check_deadq, c, name, deadq, answers) if qmgr is not None else None
    if isinstance(local, tuple):  # the local queue dead letters go to, and its attributes
        c.each(_check_dlq_attributes, c, local[0], qmgr, local[1])
        c.each(_check_triggering, c, local[0], local[1])
    c.each(_check_status_queue, c, status_queue, defined_at_start=status_queue_defined_at_start)
    control = ControlQueues(deadq, status_queue, audit_queue)
    _check_control_queues(c, control)
    if rules is not None:
        check_table(c, name, deadq, rules, control)
    return report


def _check_control_queues(c: Checker, control: ControlQueues) -> None:
    """The DLQ, the status queue and the audit queue are three different queues."""
    clashes = control.clashes()
    for queue, clash in clashes:
        c.add(
            "control-queues",
            "error",
            f"QLOCAL({queue})",
            clash,
            "dlqhandler run and drain --apply refuse to start: a dead letter on the status "
            "or audit queue would be read as an attempt or audit record, and a record on "
            "the DLQ as a message without an MQDLH",
            _control_fix(control),
        )
    if not clashes:
        c.add(
            "control-queues",
            "ok",
            f"QLOCAL({control.input or '-'})",
            f"the DLQ, the status queue {control.status} and the audit queue "
            f"{control.audit} are three different queues",
        )


def _control_fix(control: ControlQueues) -> str:
    """MQSC that gives the queue manager a DEADQ of its own, apart from the handler's."""
    if control.input in (control.status, control.audit):
        return "ALTER QMGR DEADQ(SYSTEM.DEAD.LETTER.QUEUE)"
    return "dlqhandler run --status-queue DLQHANDLER.STATUS --audit-queue DLQHANDLER.AUDIT"


# -- the DEADQ -------------------------------------------------------------------------------
def _define(queue: str, maxmsgl: int | str | None) -> str:
    """DEFINE QLOCAL of a dead-letter queue that takes what the queue manager takes."""
    return f"DEFINE QLOCAL({mqsc_name(queue)}) DESCR('Dead-letter queue') MAXDEPTH(100000)" + (
        f" MAXMSGL({maxmsgl})" if maxmsgl is not None else ""
    )


def _system_dlq(c: Checker, maxmsgl: int | str | None) -> str:
    """The MQSC that makes SYSTEM.DEAD.LETTER.QUEUE the DEADQ (defining it if need be)."""
    name = "SYSTEM.DEAD.LETTER.QUEUE"
    exists = (c.ask("queue", name, [s.MQIA_Q_TYPE]) or {}).get(s.MQIA_Q_TYPE) == s.MQQT_LOCAL
    return (
        "" if exists else _define(name, maxmsgl) + "\n"
    ) + f"ALTER QMGR DEADQ({mqsc_name(name)})"


def _check_deadq(
    c: Checker, qmgr: str, deadq: str, qm_attrs: Answers
) -> tuple[str, Answers] | None:
    """DEADQ set, existing and local; the local queue (an alias's base) and its
    attributes, or None when there is none to check further."""
    maxmsgl = qm_attrs.get(s.MQIA_MAX_MSG_LENGTH)
    if not deadq:
        c.add(
            "deadq-set",
            "error",
            f"QMGR({qmgr})",
            "the queue manager has no DEADQ",
            "messages that cannot be delivered (unknown queue, queue full, put "
            "inhibited) stop their channel or go back to the putter as errors instead "
            "of waiting on a dead-letter queue",
            _system_dlq(c, maxmsgl),
        )
        return None
    try:
        validate_queue_name(deadq, "DEADQ")
    except ValueError as exc:  # ALTER QMGR DEADQ('my dlq'): no queue can have that name
        c.add(
            "deadq-exists",
            "error",
            f"QMGR({qmgr})",
            f"{exc}: it is not a valid queue name ({NAME_RULE}), so no queue can have it",
            "the queue manager cannot put a dead letter anywhere: channels stop and "
            "puts fail as if there were no DEADQ",
            _system_dlq(c, maxmsgl),
        )
        return None
    attrs = c.ask("queue", deadq, [s.MQIA_Q_TYPE])
    if attrs is None:
        c.add(
            "deadq-exists",
            "error",
            f"QLOCAL({deadq})",
            f"DEADQ names {deadq}, which does not exist (or is an alias to nowhere)",
            "the queue manager cannot put a dead letter anywhere: channels stop and "
            "puts fail as if there were no DEADQ",
            _define(deadq, maxmsgl),
        )
        return None
    c.add("deadq-set", "ok", f"QMGR({qmgr})", f"DEADQ({deadq}) is set and exists")
    kind = attrs.get(s.MQIA_Q_TYPE)
    if kind is None:
        c.unknown("deadq-local", deadq, "whether the DLQ is a local queue", s.MQIA_Q_TYPE)
        return deadq, c.ask("queue", deadq, _DLQ_SELECTORS) or {}
    if kind == s.MQQT_ALIAS:
        return _deadq_alias(c, deadq, maxmsgl)
    if kind != s.MQQT_LOCAL:
        label = _TYPES.get(int(kind), str(kind))
        c.add(
            "deadq-local",
            "error",
            f"QUEUE({deadq})",
            f"DEADQ names a {label} queue, not a local queue",
            "a dead letter must be kept on this queue manager: a remote or model "
            "definition cannot hold messages, and a handler cannot get from it",
            _system_dlq(c, maxmsgl),
        )
        return None
    c.add("deadq-local", "ok", f"QLOCAL({deadq})", "the DLQ is a local queue")
    return deadq, c.ask("queue", deadq, _DLQ_SELECTORS) or {}


def _deadq_alias(c: Checker, deadq: str, maxmsgl: int | str | None) -> tuple[str, Answers] | None:
    """DEADQ names an alias queue: its base must be an existing local queue (then a
    warning: IBM documents DEADQ as a local queue). The base and its attributes, or None."""
    base = str(
        (c.ask("queue", deadq, [s.MQCA_BASE_Q_NAME]) or {}).get(s.MQCA_BASE_Q_NAME, "")
    ).strip()
    base_attrs = c.ask("queue", base, [s.MQIA_Q_TYPE, *_DLQ_SELECTORS]) if base else None
    if base_attrs is None or base_attrs.get(s.MQIA_Q_TYPE) != s.MQQT_LOCAL:
        c.add(
            "deadq-local",
            "error",
            f"QALIAS({deadq})",
            f"DEADQ names an alias queue whose base {base or '(blank)'} is not an "
            "existing local queue",
            "dead letters cannot be put: an alias to nowhere",
            _define(base, maxmsgl) if base else _system_dlq(c, maxmsgl),
        )
        return None
    c.add(
        "deadq-local",
        "warning",
        f"QALIAS({deadq})",
        f"DEADQ names an alias queue (base {base}), not a local queue",
        "runmqdlq and dlqhandler read the queue DEADQ names; IBM documents DEADQ as a "
        "local queue, and tools that inquire its depth see the alias",
        f"ALTER QMGR DEADQ({mqsc_name(base)})",
    )
    return base, base_attrs


# -- the DLQ's attributes --------------------------------------------------------------------
def _check_dlq_attributes(c: Checker, dlq: str, qm_attrs: Answers, a: Answers) -> None:
    """The DLQ can take every dead letter (MAXMSGL, headroom under MAXDEPTH, PUT), the
    handler can get them (GET) and read their MQDLH first (PROPCTL), and its input opens
    are shared."""
    obj = f"QLOCAL({dlq})"
    _check_dlq_maxmsgl(c, dlq, qm_attrs, a)
    _check_dlq_headroom(c, dlq, a)
    for check, selector, inhibited, word, why in (
        (
            "dlq-put",
            s.MQIA_INHIBIT_PUT,
            s.MQQA_PUT_INHIBITED,
            "PUT",
            "the queue manager and channels cannot put dead letters on it",
        ),
        (
            "dlq-get",
            s.MQIA_INHIBIT_GET,
            s.MQQA_GET_INHIBITED,
            "GET",
            "the handler cannot get dead letters from it (MQRC_GET_INHIBITED)",
        ),
    ):
        value = a.get(selector)
        if value is None:
            c.unknown(check, obj, f"{word} enabled", selector)
        elif int(value) == inhibited:
            c.add(
                check,
                "error",
                obj,
                f"{word}(DISABLED)",
                why,
                f"ALTER QLOCAL({mqsc_name(dlq)}) {word}(ENABLED)",
            )
        else:
            c.add(check, "ok", obj, f"{word}(ENABLED)")
    propctl = a.get(s.MQIA_PROPERTY_CONTROL)
    if propctl is None:
        c.unknown("dlq-propctl", obj, "PROPCTL is not FORCE", s.MQIA_PROPERTY_CONTROL)
    elif int(propctl) == s.MQPROP_FORCE_MQRFH2:
        c.add(
            "dlq-propctl",
            "error",
            obj,
            "PROPCTL(FORCE)",
            "message properties then come first in the message data as an MQRFH2, "
            "before the MQDLH: the handler reads them as a message without an MQDLH",
            f"ALTER QLOCAL({mqsc_name(dlq)}) PROPCTL(COMPAT)",
        )
    else:
        c.add("dlq-propctl", "ok", obj, "PROPCTL is not FORCE")
    _check_sharing(c, dlq, a)


def _check_dlq_maxmsgl(c: Checker, dlq: str, qm_attrs: Answers, a: Answers) -> None:
    """The DLQ's MAXMSGL is at least the queue manager's (the channels' cannot be asked)."""
    obj = f"QLOCAL({dlq})"
    maxmsgl, qm_maxmsgl = a.get(s.MQIA_MAX_MSG_LENGTH), qm_attrs.get(s.MQIA_MAX_MSG_LENGTH)
    if maxmsgl is None or qm_maxmsgl is None:
        c.unknown(
            "dlq-maxmsgl",
            obj,
            "the DLQ's MAXMSGL against the queue manager's",
            s.MQIA_MAX_MSG_LENGTH,
        )
    elif int(maxmsgl) < int(qm_maxmsgl):
        c.add(
            "dlq-maxmsgl",
            "error",
            obj,
            f"MAXMSGL({maxmsgl}) is less than the queue manager's MAXMSGL({qm_maxmsgl})",
            "a message too long for the DLQ cannot become a dead letter: its channel "
            "stops or its putter gets MQRC_MSG_TOO_BIG_FOR_Q",
            f"ALTER QLOCAL({mqsc_name(dlq)}) MAXMSGL({qm_maxmsgl})",
        )
    else:
        c.add(
            "dlq-maxmsgl",
            "ok",
            obj,
            f"MAXMSGL({maxmsgl}) is at least the queue manager's ({qm_maxmsgl})",
        )
    c.add(
        "dlq-channel-maxmsgl",
        "not checked",
        "CHANNEL(*)",
        "the channels' MAXMSGL: MQINQ cannot inquire channels",
        "a message as long as a receiver channel's MAXMSGL must fit on the DLQ",
        f"DISPLAY CHANNEL(*) MAXMSGL\nALTER QLOCAL({mqsc_name(dlq)}) MAXMSGL(<the largest>)",
    )


def _check_dlq_headroom(c: Checker, dlq: str, a: Answers) -> None:
    """CURDEPTH leaves room under MAXDEPTH: full is an error, over _HEADROOM a warning."""
    obj = f"QLOCAL({dlq})"
    depth, maxdepth = a.get(s.MQIA_CURRENT_Q_DEPTH), a.get(s.MQIA_MAX_Q_DEPTH)
    if depth is None or maxdepth is None:
        c.unknown("dlq-headroom", obj, "CURDEPTH against MAXDEPTH", s.MQIA_MAX_Q_DEPTH)
    else:
        depth, maxdepth = int(depth), int(maxdepth)
        bigger = min(999_999_999, max(maxdepth * 2, 100_000))
        fix = f"ALTER QLOCAL({mqsc_name(dlq)}) MAXDEPTH({bigger})"
        why = (
            "a full DLQ cannot take dead letters: channels stop and puts fail with "
            "MQRC_Q_FULL on their way to it"
        )
        if depth >= maxdepth:
            c.add(
                "dlq-headroom",
                "error",
                obj,
                f"the DLQ is full: CURDEPTH({depth}) of MAXDEPTH({maxdepth})",
                why,
                fix,
            )
        elif depth >= _HEADROOM * maxdepth:
            c.add(
                "dlq-headroom",
                "warning",
                obj,
                f"CURDEPTH({depth}) is over {int(_HEADROOM * 100)}% of MAXDEPTH({maxdepth})",
                why,
                fix,
            )
        else:
            c.add(
                "dlq-headroom",
                "ok",
                obj,
                f"CURDEPTH({depth}) leaves headroom under MAXDEPTH({maxdepth})",
            )


def _check_sharing(c: Checker, dlq: str, a: Answers) -> None:
    obj = f"QLOCAL({dlq})"
    why = (
        "every input open of the DLQ is exclusive: one dlqhandler run works alone (its only "
        "reader, as runmqdlq is), but a second handler (several for throughput, or a "
        "triggered one while another runs), drain --apply's tasks and any other reader get "
        "MQRC_OBJECT_IN_USE (2042) while it runs"
    )
    defsopt, share = a.get(s.MQIA_DEF_INPUT_OPEN_OPTION), a.get(s.MQIA_SHAREABILITY)
    if defsopt is None:
        c.unknown(
            "dlq-defsopt", obj, "DEFSOPT(SHARED) for several handlers", s.MQIA_DEF_INPUT_OPEN_OPTION
        )
    elif int(defsopt) == s.MQOO_INPUT_EXCLUSIVE:
        c.add(
            "dlq-defsopt",
            "warning",
            obj,
            "DEFSOPT(EXCL)",
            why,
            f"ALTER QLOCAL({mqsc_name(dlq)}) DEFSOPT(SHARED) SHARE",
        )
    else:
        c.add("dlq-defsopt", "ok", obj, "DEFSOPT(SHARED)")
    if share is None:
        c.unknown("dlq-share", obj, "SHARE for several handlers", s.MQIA_SHAREABILITY)
    elif int(share) == s.MQQA_NOT_SHAREABLE:
        c.add("dlq-share", "warning", obj, "NOSHARE", why, f"ALTER QLOCAL({mqsc_name(dlq)}) SHARE")
    else:
        c.add("dlq-share", "ok", obj, "SHARE")


# -- the status queue ------------------------------------------------------------------------
def _check_status_queue(c: Checker, name: str, *, defined_at_start: bool) -> None:
    attrs = c.ask(
        "queue",
        name,
        [s.MQIA_Q_TYPE, s.MQIA_HARDEN_GET_BACKOUT, s.MQIA_INHIBIT_PUT, s.MQIA_INHIBIT_GET],
    )
    if attrs is None:
        if defined_at_start:
            c.add(
                "status-exists",
                "warning",
                f"QLOCAL({name})",
                f"the handler's status queue {name} does not exist yet (dlqhandler run "
                "defines it at start on this embedded queue manager)",
                STATUS_QUEUE_WHY,
                status_queue_mqsc(name),
            )
        else:
            c.add(
                "status-exists",
                "error",
                f"QLOCAL({name})",
                f"the handler's status queue {name} does not exist (dlqhandler run "
                "refuses to start)",
                STATUS_QUEUE_WHY,
                status_queue_mqsc(name),
            )
        return
    c.add("status-exists", "ok", f"QLOCAL({name})", "the status queue exists")
    kind = attrs.get(s.MQIA_Q_TYPE)
    if kind is None:
        c.unknown("status-local", name, "the status queue is local", s.MQIA_Q_TYPE)
    elif kind != s.MQQT_LOCAL:
        c.add(
            "status-local",
            "error",
            f"QUEUE({name})",
            f"the status queue is a {_TYPES.get(int(kind), str(kind))} queue",
            "the handler browses, gets and puts its records there under one unit of "
            f"work with the dead letter: it must be a local queue. {STATUS_QUEUE_WHY}",
            f"DELETE {'QALIAS' if kind == s.MQQT_ALIAS else 'QREMOTE'}({mqsc_name(name)})\n"
            f"{status_queue_mqsc(name)}",
        )
        return
    else:
        c.add("status-local", "ok", f"QLOCAL({name})", "the status queue is local")
    for selector, inhibited, word in (
        (s.MQIA_INHIBIT_PUT, s.MQQA_PUT_INHIBITED, "PUT"),
        (s.MQIA_INHIBIT_GET, s.MQQA_GET_INHIBITED, "GET"),
    ):
        value = attrs.get(selector)
        if value is not None and int(value) == inhibited:
            c.add(
                f"status-{word.lower()}",
                "error",
                f"QLOCAL({name})",
                f"{word}(DISABLED)",
                f"the handler cannot keep attempt counts: {STATUS_QUEUE_WHY}",
                f"ALTER QLOCAL({mqsc_name(name)}) {word}(ENABLED)",
            )
    hardenbo = attrs.get(s.MQIA_HARDEN_GET_BACKOUT)
    if hardenbo is None:
        c.unknown("status-hardenbo", name, "NOHARDENBO", s.MQIA_HARDEN_GET_BACKOUT)
    elif int(hardenbo) == s.MQQA_BACKOUT_HARDENED:
        c.add(
            "status-hardenbo",
            "warning",
            f"QLOCAL({name})",
            "HARDENBO",
            "the handler never reads BackoutCount (it keeps its own counts here); "
            "HARDENBO only costs a forced write per get under syncpoint",
            f"ALTER QLOCAL({mqsc_name(name)}) NOHARDENBO",
        )
    else:
        c.add("status-hardenbo", "ok", f"QLOCAL({name})", "NOHARDENBO")


# -- triggered start -------------------------------------------------------------------------
def _check_triggering(c: Checker, dlq: str, a: Answers) -> None:
    """As ops/mqsc/dlq-triggered.mqsc sets them: TRIGGER TRIGTYPE(FIRST), INITQ and
    PROCESS existing, the process starting dlqhandler run."""
    obj = f"QLOCAL({dlq})"
    control = a.get(s.MQIA_TRIGGER_CONTROL)
    if control is None:
        c.unknown("trigger", obj, "whether the DLQ is triggered", s.MQIA_TRIGGER_CONTROL)
        return
    if int(control) != s.MQTC_ON:
        c.add(
            "trigger",
            "ok",
            obj,
            "NOTRIGGER: a resident handler (dlqhandler run as a service) is expected",
        )
        return
    initq = str(a.get(s.MQCA_INITIATION_Q_NAME, "")).strip()
    process = str(a.get(s.MQCA_PROCESS_NAME, "")).strip()
    fix = (
        f"ALTER QLOCAL({mqsc_name(dlq)}) TRIGGER TRIGTYPE(FIRST) "
        f"INITQ({mqsc_name(initq or 'DLQ.INITQ')}) PROCESS({mqsc_name(process or 'DLQ.HANDLER')})"
    )
    _check_trigger_type(c, obj, a, fix)
    _check_initiation_queue(c, obj, initq, fix)
    _check_process(c, obj, process, fix)


def _check_trigger_type(c: Checker, obj: str, a: Answers, fix: str) -> None:
    """TRIGTYPE(FIRST): NONE never starts a handler, EVERY starts one per dead letter,
    DEPTH turns triggering off after it fires."""
    ttype = a.get(s.MQIA_TRIGGER_TYPE)
    if ttype is None:
        c.unknown("trigger-type", obj, "TRIGTYPE", s.MQIA_TRIGGER_TYPE)
    elif int(ttype) == s.MQTT_NONE:
        c.add(
            "trigger-type",
            "error",
            obj,
            "TRIGGER with TRIGTYPE(NONE)",
            "the DLQ is never triggered: no handler starts",
            fix,
        )
    elif int(ttype) == s.MQTT_EVERY:
        c.add(
            "trigger-type",
            "warning",
            obj,
            "TRIGTYPE(EVERY)",
            "every dead letter starts another handler",
            fix,
        )
    elif int(ttype) == s.MQTT_DEPTH:
        depth = a.get(s.MQIA_TRIGGER_DEPTH)
        c.add(
            "trigger-type",
            "warning",
            obj,
            f"TRIGTYPE(DEPTH) TRIGDPTH({depth})",
            "the queue manager turns triggering off (NOTRIGGER) after it fires, and "
            "dead letters wait until TRIGDPTH of them arrive",
            fix,
        )
    else:
        c.add("trigger-type", "ok", obj, "TRIGGER TRIGTYPE(FIRST)")


def _check_initiation_queue(c: Checker, obj: str, initq: str, fix: str) -> None:
    """The INITQ exists, and a trigger monitor has it open (IPPROCS > 0)."""
    why_initq = "the trigger message has nowhere to go: the handler is never started"
    if not initq:
        c.add("trigger-initq", "error", obj, "TRIGGER without INITQ", why_initq, fix)
    else:
        found = c.ask("queue", initq, [s.MQIA_Q_TYPE, s.MQIA_OPEN_INPUT_COUNT])
        if found is None:
            c.add(
                "trigger-initq",
                "error",
                f"QLOCAL({initq})",
                f"the initiation queue {initq} does not exist",
                why_initq,
                f"DEFINE QLOCAL({mqsc_name(initq)}) "
                "DESCR('Initiation queue for the triggered DLQ handler')",
            )
        else:
            c.add("trigger-initq", "ok", f"QLOCAL({initq})", "the initiation queue exists")
            ipprocs = found.get(s.MQIA_OPEN_INPUT_COUNT)
            if ipprocs is not None and int(ipprocs) == 0:
                c.add(
                    "trigger-monitor",
                    "warning",
                    f"QLOCAL({initq})",
                    "no trigger monitor has the initiation queue open (IPPROCS 0)",
                    "trigger messages wait there and no handler starts",
                    f"start one: runmqtrm -m {c.report.qmgr} -q {initq}  (embedded: "
                    f"dlqhandler qm runmqtrm -m {c.report.qmgr} -q {initq})",
                )


def _check_process(c: Checker, obj: str, process: str, fix: str) -> None:
    """The PROCESS exists and its APPLICID starts dlqhandler run (or runmqdlq)."""
    if not process:
        c.add(
            "trigger-process",
            "error",
            obj,
            "TRIGGER without PROCESS",
            "the trigger monitor does not know what to start",
            fix,
        )
        return
    found = c.ask("process", process, [s.MQCA_APPL_ID])
    if found is None:
        c.add(
            "trigger-process",
            "error",
            f"PROCESS({process})",
            f"the process {process} does not exist",
            "the queue manager puts no trigger message for a missing process: the "
            "handler is never started",
            f"DEFINE PROCESS({mqsc_name(process)}) APPLTYPE(UNIX) "
            "APPLICID('dlqhandler run --rules /etc/dlqhandler/rules.rul')",
        )
        return
    applicid = found.get(s.MQCA_APPL_ID)
    if applicid is None:
        c.unknown("trigger-process", process, "the process's APPLICID", s.MQCA_APPL_ID)
    elif "dlqhandler" not in str(applicid) and "runmqdlq" not in str(applicid):
        c.add(
            "trigger-process",
            "warning",
            f"PROCESS({process})",
            f"APPLICID('{applicid}') does not start dlqhandler run",
            "the trigger monitor starts something other than the DLQ handler",
            f"ALTER PROCESS({mqsc_name(process)}) "
            "APPLICID('dlqhandler run --rules /etc/dlqhandler/rules.rul')",
        )
    else:
        c.add(
            "trigger-process",
            "ok",
            f"PROCESS({process})",
            f"the process exists and starts {applicid}",
        )
