"""The Python side of the differential tests: random rules tables, and the Python
matcher's decision for a message in the columns the Spark classifier produces."""

from __future__ import annotations

import random
from typing import Any

from dlqhandler.errors import MalformedMessageError
from dlqhandler.mq import Message, decode_dead_letter
from dlqhandler.rules import (
    InvalidTargetError,
    Matcher,
    RuleSet,
    compile_rules,
    message_fields,
    resolve_target,
)

__all__ = ["matched_lines", "python_decision", "random_tables"]


def random_tables(n: int, seed: int) -> list[str]:
    """Tables over the values the backlog uses, with wildcards, % and _ in names."""
    rnd = random.Random(seed)
    strings = {
        "DESTQ": [
            "APP.ORDERS",
            "APP.*",
            "*.IN",
            "PAYROLL.?N",
            "A%B_C",
            "A*_*",
            "?*",
            "*",
            "'APP.ORDERS  '",
            "APP.??????",
            "'pay*'",
            "*AUDIT*",
        ],
        "DESTQM": ["QM1", "AAAA.*", "BBBB.1", "?*", "'?*'", "*.QM?", "CCCC.QM2"],
        "REPLYQ": ["?*", "*.REPLY", "'?*'", "APP.NOTIFY.REPLY"],
        "REPLYQM": ["?*", "QM1", "AAAA.*"],
        "USERID": ["app1", "'app1'", "'ordersvc'", "b*", "'svc_ship'", "'?uest'"],
        "APPLNAME": ["'OrderService'", "'com.acme*'", "*", "'amqsput'"],
        "FORMAT": ["MQSTR", "MQHRF2", "' '", "MQ*", "'MQSTR   '"],
    }
    ints = {
        "REASON": [
            "MQRC_Q_FULL",
            "2051",
            "MQRC_UNKNOWN_OBJECT_NAME",
            "MQRC_NOT_AUTHORIZED",
            "MQFB_EXPIRATION",
            "2087",
            "*",
        ],
        "PERSIST": ["MQPER_PERSISTENT", "0"],
        "MSGTYPE": ["MQMT_REPORT", "8", "1"],
        "FEEDBACK": ["MQFB_COA", "0"],
        "APPLTYPE": ["MQAT_JAVA", "6"],
    }
    actions = [
        "ACTION(DISCARD)",
        "ACTION(IGNORE)",
        "ACTION(RETRY) RETRY(2)",
        "ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM)",
        "ACTION(FWD) FWDQ(&REPLYQ)",
        "ACTION(FWD) FWDQ(FWD.A) HEADER(NO)",
        "ACTION(FWD) FWDQ(FWD%B_1) FWDQM(AAAA.QM1)",
        "ACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)",
        "ACTION(FWD) FWDQ(X) FWDQM(&REPLYQM)",
    ]
    tables = []
    for _ in range(n):
        lines = []
        for _ in range(rnd.randint(1, 8)):
            parts = []
            for kw in rnd.sample(list(strings) + list(ints), rnd.randint(0, 3)):
                values = strings.get(kw) or ints[kw]
                parts.append(f"{kw}({rnd.choice(values)})")
            parts.append(rnd.choice(actions))
            lines.append(" ".join(parts))
        if rnd.random() < 0.5:
            lines.append("ACTION(FWD) FWDQ(CATCH.ALL)")
        tables.append("\n".join(lines) + "\n")
    return [t for t in tables if compile_rules(t).ruleset is not None]


_REFUSED = ("SYSTEM.DEAD.LETTER.QUEUE", "DLQHANDLER.STATUS", "DLQHANDLER.AUDIT")
_MATCHERS: dict[int, tuple[RuleSet, Matcher]] = {}


def _matcher(ruleset: RuleSet) -> Matcher:
    """One Matcher per table (the differential tests ask thousands of messages)."""
    kept = _MATCHERS.get(id(ruleset))
    if kept is None or kept[0] is not ruleset:
        kept = _MATCHERS[id(ruleset)] = (ruleset, Matcher(ruleset))
    return kept[1]


def python_decision(ruleset: RuleSet, msg: Message) -> tuple[Any, ...]:
    """What `run` ends up doing with ``msg`` (on QM1, input queue the DLQ), in the Spark
    classifier's columns: (chosen line, action, target queue, target qmgr, target valid).

    The first matching rule that can be carried out: a RETRY or FWD whose target is not
    a valid name, or is the DLQ or a control queue on QM1 (a loop, refused), fails every
    attempt, and `run` then takes the next matching rule (IBM's "Processing the rules
    table", https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table:
    "If all attempts fail, the DLQ handler searches for the next matching rule"); none
    left: the implicit IGNORE.

    A message with no MQDLH (``decode_dead_letter`` raises MalformedMessageError, the
    one error it documents) matches no rule on the Spark side either (every rule's
    condition starts with ``has_dlh``): the implicit IGNORE. Any other exception is a
    bug in the decoder, the matcher or the target resolution, and propagates, so it
    fails the comparison instead of reading as agreement."""
    try:
        m = decode_dead_letter(msg.md, msg.body)
    except MalformedMessageError:
        return (None, "IGNORE", None, None, None)
    for rule in _matcher(ruleset).matching_rules(message_fields(m)):
        kind = rule.action.kind
        if kind not in ("RETRY", "FWD"):
            return (rule.line, kind, None, None, None)
        try:
            t = resolve_target(rule, m)
        except InvalidTargetError:
            continue
        if t.queue in _REFUSED and t.qmgr in ("", "QM1"):
            continue  # a loop: refused by both
        return (rule.line, kind, t.queue, t.qmgr, True)
    return (None, "IGNORE", None, None, None)


def matched_lines(ruleset: RuleSet, msg: Message) -> list[int]:
    """The lines of the rules whose patterns match ``msg`` (none without an MQDLH)."""
    try:
        m = decode_dead_letter(msg.md, msg.body)
    except MalformedMessageError:
        return []
    return [r.line for r in _matcher(ruleset).matching_rules(message_fields(m))]
