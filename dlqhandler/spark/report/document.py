"""``report.json`` from the collected ``(dim, key, count, ...)`` rows of the report job.

Pure Python on the driver, over at most ``top + 1`` rows per dimension. Every count is
a number of messages; lists are sorted by count, descending (ties by key); a list cut
at ``top`` ends with one row whose fields are null and ``other`` is true. With
``--older-than``/``--newer-than``, ``selection`` says which were applied and how many
records they left out (by cause); every other count is of the selected messages.
``properties`` counts the messages with an MQDLH that carry message properties (an
MQRFH2 of property folders in front of the MQDLH or right behind it), by folder, and
those whose MQDLH sits behind an MQRFH2 (``rfh2_in_front``); it is there when the input
was read through the ``dmpmqmsg`` data source.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime
from typing import Any

from dlqhandler.mq.ages import duration_text
from dlqhandler.mq.constants import value_to_name
from dlqhandler.spark.report.options import ReportOptions

__all__ = ["UNREADABLE_REASONS", "assemble", "iso_time", "reason_symbol"]

UNREADABLE_REASONS = 5
_BUCKETS = ("<1h", "1h-1d", "1d-7d", ">7d", "unknown")


def reason_symbol(reason: int) -> str | None:
    """The symbolic MQRC (else MQFB) name of a reason, or None when it has none."""
    return value_to_name("MQRC", reason) or value_to_name("MQFB", reason)


def iso_time(epoch: int | None) -> str | None:
    """Epoch seconds as ISO 8601 UTC (``2024-11-21T06:00:00Z``)."""
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _int(text: str | None) -> int | None:
    return None if text is None else int(text)


def _sorted(items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """By count descending, then by ``key`` (nulls last); the ``other`` row last."""
    return sorted(
        items,
        key=lambda d: (bool(d.get("other")), -d["count"], d.get(key) is None, str(d.get(key))),
    )


def _listing(
    rows: list[dict[str, Any]], fields: tuple[str, ...], convert: tuple[Any, ...] | None = None
) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        if r["other"]:
            out.append({**dict.fromkeys(fields), "count": r["count"], "other": True})
            continue
        values = r["key"]
        if convert:
            values = [f(v) for f, v in zip(convert, values, strict=True)]
        out.append({**dict(zip(fields, values, strict=True)), "count": r["count"]})
    return _sorted(out, fields[0])


def _rules(rows: dict[str, list[dict[str, Any]]], options: ReportOptions) -> dict[str, Any]:
    assert options.ruleset is not None
    matched: Counter[int] = Counter()
    for r in rows["matched"]:
        matched[int(r["key"][0])] += r["count"]
    chosen: Counter[int] = Counter()
    by_action: Counter[str] = Counter()
    left = {"ignore_rule": 0, "no_match": 0, "no_dlh": 0}
    unplaceable = 0
    held: Counter[str] = Counter()  # not placed, past --max-hops: stay, catch-all or not
    groups: Counter[str] = Counter()  # members whose group's fate is theirs
    for r in rows["chosen"]:
        line, action, dlh, bad, group, hops = r["key"]
        n = r["count"]
        by_action[action] += n
        if line is not None:
            chosen[int(line)] += n
        if group is not None:  # kept whole on the DLQ, or whole to the catch-all
            groups[group] += n
        elif bad == "true":
            unplaceable += n
            held["unplaceable"] += n if hops == "true" else 0
        elif action == "IGNORE":
            kind = "no_dlh" if dlh != "true" else ("no_match" if line is None else "ignore_rule")
            left[kind] += n
            held[kind] += n if hops == "true" else 0
    by_rule = []
    for rule in options.ruleset.rules:
        a = rule.action
        target = None
        if a.kind == "FWD":
            target = a.fwdq if not a.fwdqm else f"{a.fwdq}@{a.fwdqm}"
        elif a.kind == "RETRY":
            target = "&DESTQ@&DESTQM"
        by_rule.append(
            {
                "line": rule.line,
                "matched": matched[rule.line],
                "chosen": chosen[rule.line],
                "action": a.kind,
                "target": target,
            }
        )
    caught = None
    if options.catch_all is not None:  # the drain sends what would stay there instead
        by_cause = {**left, "unplaceable": unplaceable, "group": groups["caught"]}
        by_cause = {k: v - held[k] for k, v in by_cause.items()}  # those past --max-hops stay
        caught = {"queue": options.catch_all, "count": sum(by_cause.values()), "by_cause": by_cause}
        left = dict.fromkeys(left, 0)
    # those the catch-all cannot take (without one, each counts under its cause)
    left["max_hops"] = sum(held.values()) if caught is not None else 0
    left["group"] = groups["kept"]  # a group not whole stays, catch-all or not
    return {
        "rules_sha256": options.ruleset.sha256,
        "by_rule": by_rule,
        "left_on_dlq": sum(left.values()),
        "left_on_dlq_by_cause": left,
        "unplaceable": unplaceable,
        "catch_all": caught,
        "by_action": _sorted([{"action": k, "count": v} for k, v in by_action.items()], "action"),
    }


def _compare(rows: list[dict[str, Any]], options: ReportOptions) -> dict[str, Any]:
    assert options.old_ruleset is not None
    transitions = []
    for r in rows:
        entry: dict[str, Any]
        if r["other"]:
            entry = {"old": None, "new": None, "count": r["count"], "other": True, "samples": []}
        else:
            oa, oq, oqm, ol, og, na, nq, nqm, nl, ng = r["key"]
            entry = {
                "old": {"action": oa, "queue": oq, "qmgr": oqm, "line": _int(ol), "group": og},
                "new": {"action": na, "queue": nq, "qmgr": nqm, "line": _int(nl), "group": ng},
                "count": r["count"],
                "samples": r["samples"],
            }
        transitions.append(entry)
    transitions.sort(
        key=lambda d: (bool(d.get("other")), -d["count"], repr(d["old"]), repr(d["new"]))
    )
    return {
        "old_rules_sha256": options.old_ruleset.sha256,
        "changed": sum(t["count"] for t in transitions),
        "transitions": transitions,
    }


def _selection(rows: list[dict[str, Any]], options: ReportOptions) -> dict[str, Any]:
    """Which age selectors were applied, and how many records each cause left out."""
    ages = options.ages
    counts = Counter({r["key"][0]: r["count"] for r in rows})
    left = {
        "too_new": counts["too_new"],
        "too_old": counts["too_old"],
        "no_put_time": counts["no_put_time"],
    }
    return {
        "older_than": None if ages.older_than is None else duration_text(ages.older_than),
        "newer_than": None if ages.newer_than is None else duration_text(ages.newer_than),
        "older_than_seconds": ages.older_than,
        "newer_than_seconds": ages.newer_than,
        "described": ages.describe(),
        "selected": counts["selected"],
        "left_out": sum(left.values()),
        "left_out_by_cause": left,
    }


def _properties(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Messages with an MQDLH with and without properties, by folder, and how many have
    the MQDLH behind an MQRFH2."""
    counts = {(r["key"][0], r["key"][1]): r["count"] for r in rows["properties"]}
    return {
        "with": counts.get(("true", "true"), 0) + counts.get(("true", "false"), 0),
        "without": counts.get(("false", "true"), 0) + counts.get(("false", "false"), 0),
        "by_folder": _listing(rows["folder"], ("folder",)),
        "rfh2_in_front": counts.get(("true", "true"), 0) + counts.get(("false", "true"), 0),
    }


def assemble(
    collected: list[dict[str, Any]], options: ReportOptions, *, properties: bool = False
) -> dict[str, Any]:
    """The report object from the collected rows (see the module docstring); with
    ``properties`` (the input had the data source's property columns) its section."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in collected:
        rows[r["dim"]].append(r)
    states = {r["key"][0]: r["count"] for r in rows["state"]}
    age_rows = {r["key"][0]: r for r in rows["age"]}
    ages = _sorted(
        [{"bucket": b, "count": age_rows[b]["count"] if b in age_rows else 0} for b in _BUCKETS],
        "bucket",
    )
    ages.sort(key=lambda d: (-d["count"], _BUCKETS.index(d["bucket"])))
    epochs = [r for r in rows["age"] if r["min_epoch"] is not None]
    unreadable = _listing(rows["unreadable"], ("reason",))
    report: dict[str, Any] = {
        "as_of": options.as_of.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "total": sum(states.values()),
        "no_dlh": states.get("no_dlh", 0),
        "unreadable": {
            "count": states.get("unreadable", 0),
            "reasons": unreadable[:UNREADABLE_REASONS],
        },
        "by_reason": [
            {
                "reason": d["reason"],
                "name": None if d["reason"] is None else reason_symbol(d["reason"]),
                "count": d["count"],
                **({"other": True} if d.get("other") else {}),
            }
            for d in _listing(rows["reason"], ("reason",), (int,))
        ],
        "by_destination": _listing(rows["destination"], ("queue", "qmgr")),
        "by_application": _listing(rows["application"], ("name",)),
        "age": ages,
        "oldest": iso_time(min((r["min_epoch"] for r in epochs), default=None)),
        "newest": iso_time(max((r["max_epoch"] for r in epochs), default=None)),
        "arrivals": [
            {**d, "hour": iso_time(d["hour"])} for d in _listing(rows["hour"], ("hour",), (_int,))
        ],
    }
    if properties:
        report["properties"] = _properties(rows)
    if options.ages.active:
        report["selection"] = _selection(rows["selection"], options)
    if options.ruleset is not None:
        report["rules"] = _rules(rows, options)
    if options.old_ruleset is not None:
        report["compare"] = _compare(rows["change"], options)
    return report
