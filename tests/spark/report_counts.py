"""Plain Python counts of what ``report.json`` holds, for the report tests to compare
the Spark report against: the figures from the messages themselves, the rules section
by the Python matcher, the compare section by the Python decisions per message."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from dlqhandler.errors import MalformedMessageError
from dlqhandler.mq import Message, decode_dead_letter
from dlqhandler.mq.constants import PREFERRED
from dlqhandler.mq.groups import in_group, is_complete
from dlqhandler.rules import RuleSet
from tests.spark.decisions import matched_lines, python_decision

__all__ = ["expected_transitions", "group_fates", "independent_counts", "python_rules"]


def _put_epoch(date: str, time: str) -> int | None:
    try:
        stamp = datetime.strptime(date + time[:6], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None
    if not (date.isdigit() and len(date) == 8 and time.isdigit() and len(time) in (6, 8)):
        return None
    return int(stamp.timestamp())


def _bucket(epoch: int | None, as_of: datetime) -> str:
    if epoch is None:
        return "unknown"
    age = as_of - datetime.fromtimestamp(epoch, UTC)
    if age < timedelta(hours=1):
        return "<1h"
    if age < timedelta(days=1):
        return "1h-1d"
    return "1d-7d" if age < timedelta(days=7) else ">7d"


def independent_counts(messages: list[Message], as_of: datetime) -> dict[str, Any]:
    """The report's figures (total, no MQDLH, reasons with their MQRC/MQFB name, destinations,
    applications, age buckets at ``as_of``, hourly arrivals, oldest and newest put time),
    counted in plain Python from the messages themselves."""
    reasons: Counter[int] = Counter()
    dests: Counter[tuple[str, str]] = Counter()
    apps: Counter[str] = Counter()
    ages: Counter[str] = Counter()
    hours: Counter[str] = Counter()
    epochs = []
    no_dlh = 0
    for m in messages:
        try:
            dlh = decode_dead_letter(m.md, m.body).dlh
        except MalformedMessageError:
            no_dlh += 1
            continue
        assert dlh is not None
        reasons[dlh.reason] += 1
        dests[(dlh.dest_q_name, dlh.dest_q_mgr_name)] += 1
        apps[dlh.put_appl_name] += 1
        epoch = _put_epoch(dlh.put_date, dlh.put_time)
        ages[_bucket(epoch, as_of)] += 1
        if epoch is not None:
            epochs.append(epoch)
            hours[datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:00:00Z")] += 1
    iso = "%Y-%m-%dT%H:%M:%SZ"
    return {
        "total": len(messages),
        "no_dlh": no_dlh,
        "by_reason": {
            (r, PREFERRED["MQRC"].get(r) or PREFERRED["MQFB"].get(r)): n for r, n in reasons.items()
        },
        "by_destination": dict(dests),
        "by_application": dict(apps),
        "age": {b: ages.get(b, 0) for b in ("<1h", "1h-1d", "1d-7d", ">7d", "unknown")},
        "arrivals": dict(hours),
        "oldest": datetime.fromtimestamp(min(epochs), UTC).strftime(iso),
        "newest": datetime.fromtimestamp(max(epochs), UTC).strftime(iso),
    }


def python_rules(ruleset: RuleSet, messages: list[Message]) -> dict[str, Any]:
    """The rules section by the Python matcher: per rule (line, matched, chosen: the
    rule `run` carries out, :func:`python_decision`), the count per action, and how many
    are left on the DLQ (IGNORE, no match, no MQDLH, and the members of groups kept
    whole: :func:`group_fates`; not those no rule could place, which the report counts as
    ``unplaceable``)."""
    fates = group_fates(ruleset, messages)
    matched: Counter[int] = Counter()
    chosen: Counter[int] = Counter()
    actions: Counter[str] = Counter()
    left = 0
    for m in messages:
        lines = matched_lines(ruleset, m)
        matched.update(lines)
        line, action, *_target = python_decision(ruleset, m)
        actions[action] += 1
        if line is not None:
            chosen[line] += 1
        if in_group(m.md) and fates[m.md.group_id] == "kept":
            left += 1
        elif line is not None or not lines:  # matched but none placed: unplaceable
            left += action == "IGNORE"
    return {
        "by_rule": [(r.line, matched[r.line], chosen[r.line]) for r in ruleset.rules],
        "by_action": dict(actions),
        "left_on_dlq": left,
    }


def group_fates(
    ruleset: RuleSet, messages: list[Message], catch_all: str | None = None
) -> dict[bytes, str | None]:
    """What comes of each group or segmented message (by GroupId) under ``ruleset``, as
    the drain and ``run`` move them: None when whole (:func:`is_complete`) and every
    member placed, else ``kept`` (on the DLQ) or, whole and with a catch-all, ``caught``."""
    units: dict[bytes, list[Message]] = {}
    for m in messages:
        if in_group(m.md):
            units.setdefault(m.md.group_id, []).append(m)
    fates: dict[bytes, str | None] = {}
    for gid, members in units.items():
        decisions = [python_decision(ruleset, m) for m in members]
        placed = all(
            a == "DISCARD" or (a in ("RETRY", "FWD") and ok) for _l, a, *_t, ok in decisions
        )
        whole = is_complete(members)
        fates[gid] = None if whole and placed else ("caught" if whole and catch_all else "kept")
    return fates


def expected_transitions(
    old: RuleSet, new: RuleSet, messages: list[Message], local_qmgr: str = "QM1"
) -> dict[Any, list[str]]:
    """(old action, queue, qmgr, line, group, new action, queue, qmgr, line, group) -> the
    MsgId of each message that moves that way (one entry per message: copies of a message
    count each). A target on ``local_qmgr`` is placed as the drain places it, with a blank
    qmgr; ``group`` is what comes of the message's group (:func:`group_fates`)."""
    old_fates, new_fates = group_fates(old, messages), group_fates(new, messages)
    out: dict[Any, list[str]] = {}
    for m in messages:
        o_line, o_action, o_queue, o_qm, _ok = python_decision(old, m)
        n_line, n_action, n_queue, n_qm, _ok = python_decision(new, m)
        o_qm, n_qm = ("" if qm == local_qmgr else qm for qm in (o_qm, n_qm))
        o_group = old_fates.get(m.md.group_id) if in_group(m.md) else None
        n_group = new_fates.get(m.md.group_id) if in_group(m.md) else None
        if (o_action, o_queue, o_qm, o_group) != (n_action, n_queue, n_qm, n_group):
            key = (
                o_action,
                o_queue,
                o_qm,
                o_line,
                o_group,
                n_action,
                n_queue,
                n_qm,
                n_line,
                n_group,
            )
            out.setdefault(key, []).append(m.md.msg_id.hex().upper())
    return out
