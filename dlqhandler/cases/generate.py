"""Cases from a backlog: today's decisions of a table as a case file (a snapshot).

One case per dead letter (or, ``distinct``, one per distinct decision path: the rules the
message matches, the deciding rule and the target), named by its MsgId in hex, with
every pattern field the message has (blank character fields left out: blank is MQ's
default), the MQDLHs it carries when more than one (``HOPS``) and the decision at
attempt count 0 as the expectation. Numbers are written as their MQ names where they
have one. The text is YAML that :func:`~dlqhandler.cases.
read_cases` reads back into the same messages: strings that YAML could read as something
else are double-quoted with escapes, so a message's bytes never shape the file.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from dlqhandler.cases.messages import GOT_PERSISTENCE, MAX_HOPS_IN_A_CASE, families, text
from dlqhandler.cases.model import RunSetup
from dlqhandler.cases.runner import Outcome, RunAs, outcome, run_as
from dlqhandler.mq import Message
from dlqhandler.mq.constants import value_to_name
from dlqhandler.mq.groups import in_group, is_complete, logical_order
from dlqhandler.rules import Matcher, message_fields
from dlqhandler.rules.outgoing import header_depth

__all__ = ["LEFT_WHOLE", "Generated", "generate_cases"]

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/%-]*")
_NULLS = frozenset({"null", "Null", "NULL", "none", "None", "NONE"})


def _scalar(value: str) -> str:
    """``value`` as a YAML scalar whose text is exactly ``value``."""
    if _PLAIN.fullmatch(value) and value not in _NULLS:
        return value
    return json.dumps(value)  # a JSON string is a YAML double-quoted scalar


def _printable(value: str) -> str:
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in value)


@dataclass(frozen=True, slots=True)
class Generated:
    """The case file's text, how many cases it holds, and the messages left out (no
    MQDLH, or a field no case can hold) with why, by count."""

    text: str
    cases: int
    messages: int
    skipped: dict[str, int]


def _number(keyword: str, value: int) -> str:
    for family in families(keyword):
        name = value_to_name(family, value)
        if name is not None:
            return name
    return str(value)


def _fields(message: Message) -> list[tuple[str, str]] | None:
    out: list[tuple[str, str]] = []
    for keyword, value in message_fields(message).items():
        if keyword == "PERSIST" and value not in GOT_PERSISTENCE:
            return None  # not a message got from a queue: run never sees one
        if isinstance(value, int):
            out.append((keyword, _number(keyword, value)))
            continue
        value = value.rstrip(" ")
        if not value:
            continue
        try:
            text(keyword, value)
        except ValueError:
            return None
        out.append((keyword, _scalar(value)))
    return out


def _expect(o: Outcome) -> list[str]:
    action = o.decision.action
    lines = [f"      action: {action.kind}"]
    lines.append(f"      rule: {o.rule_line if o.rule_line is not None else 'none'}")
    if action.kind in ("RETRY", "FWD") and action.putaut == "CTX":
        lines.append("      putaut: CTX")
    if o.refusal is not None:
        lines.append(f"      refused: {o.refusal}")
        lines.append(f"      # {_printable(o.target_problem or '')}")
    if action.kind == "FWD":
        if o.target is not None:
            lines.append(f"      fwdq: {_scalar(o.target.queue)}")
            if o.target.qmgr:
                lines.append(f"      fwdqm: {_scalar(o.target.qmgr)}")
        lines.append(f'      header: "{"YES" if action.header else "NO"}"')
    return lines


# Why the members of a group are left out: run leaves the group on the DLQ, whole.
LEFT_WHOLE = "in a group run leaves whole"


def _moves(members: list[Message], matcher: Matcher, run: RunAs) -> bool:
    """Whether ``run`` moves this group (or segmented message) at attempt count 0: every
    member is there (:func:`~dlqhandler.mq.groups.is_complete`) with an MQDLH, and each
    one's decision is a RETRY, FWD or DISCARD ``run`` does not refuse. Otherwise it
    leaves every member on the DLQ (an IGNORE, explicit or implicit, or a refused put of
    one member holds them all), whatever the decisions of the others."""
    if any(m.dlh is None for m in members) or not is_complete(members):
        return False
    for message in members:
        o = outcome(matcher, message, 0, run)
        if o.decision.action.kind == "IGNORE" or o.refusal is not None:
            return False
    return True


def generate_cases(
    matcher: Matcher,
    messages: Iterable[Message],
    *,
    rules: str | None,
    source: str,
    table: str,
    distinct: bool = False,
    setup: RunSetup | None = None,
) -> Generated:
    """The case file for ``messages`` (dead letters, MQDLH decoded; those without one are
    skipped) under ``matcher``'s table. ``rules`` is the ``rules:`` key to write (the
    table's path relative to the case file, None to leave it out); ``source`` and
    ``table`` name the dump and the table in the heading comment; ``setup`` is how
    ``run`` is started (written as the ``run:`` key, and what the decisions are made for;
    None: run's defaults)."""
    setup = setup if setup is not None else RunSetup()
    started = run_as(setup, matcher.ruleset.control)
    body: list[tuple[list[str], int | None]] = []  # a case's lines, its path's count index
    names: dict[str, int] = {}
    paths: dict[tuple[object, ...], int] = {}  # decision path -> index of its count line
    counts: list[int] = []
    skipped: dict[str, int] = {}
    seen = 0

    def add(message: Message) -> None:
        if message.dlh is None:
            skipped["no MQDLH"] = skipped.get("no MQDLH", 0) + 1
            return
        fields = _fields(message)
        hops = header_depth(message)
        if fields is None or hops > MAX_HOPS_IN_A_CASE:
            skipped["a field no case can hold"] = skipped.get("a field no case can hold", 0) + 1
            return
        o = outcome(matcher, message, 0, started)
        if distinct:
            key = (o.decision.matched_lines, o.rule_line, o.decision.action, o.target, o.refusal)
            if key in paths:
                counts[paths[key]] += 1
                return
            paths[key] = len(counts)
            counts.append(1)
        name = message.md.msg_id.hex()
        names[name] = names.get(name, 0) + 1
        if names[name] > 1:
            name = f"{name}-{names[name]}"
        case = [f"  - name: {name}", "    message:"]
        case += [f"      {k}: {v}" for k, v in fields]
        if hops > 1:
            case.append(f"      HOPS: {hops}")
        case.append("    expect:")
        case += _expect(o)
        body.append((case, len(counts) - 1 if distinct else None))

    # A group (or segmented message) moves whole or stays whole: its members are held
    # back until the dump is read, and a group run leaves whole has no case.
    groups: dict[bytes, list[Message]] = {}
    for message in messages:
        seen += 1
        if in_group(message.md):
            groups.setdefault(message.md.group_id, []).append(message)
        else:
            add(message)
    for members in groups.values():
        if _moves(members, matcher, started):
            for message in logical_order(members):
                add(message)
            continue
        for message in members:
            why = "no MQDLH" if message.dlh is None else LEFT_WHOLE
            skipped[why] = skipped.get(why, 0) + 1
    lines: list[str] = []
    for case, index in body:
        if index is not None:
            n = counts[index]
            took = "message took" if n == 1 else "messages took"
            case = [case[0], f"    # {n} {took} this decision path", *case[1:]]
        lines += case
    how = "one case per distinct decision path" if distinct else "one case per message"
    head = [
        f"# Generated by dlqhandler test --generate from {_printable(source)}:",
        f"# what {_printable(table)} does with each dead letter today:",
        f"# {how}, at attempts 0, named by MsgId. Keep it beside the",
        "# table: dlqhandler test then fails when a change of the table changes",
        "# one of these decisions.",
    ]
    if rules is not None:
        head.append(f"rules: {_scalar(rules)}")
    given = [(f.name, getattr(setup, f.name)) for f in dataclasses.fields(setup)]
    if any(v is not None for _, v in given):
        head.append("run:")
        head += [f"  {k}: {_scalar(str(v))}" for k, v in given if v is not None]
    head.append("tests:" if body else "tests: []")
    out = "\n".join([*head, *lines]) + "\n"
    return Generated(out, len(body), seen, skipped)
