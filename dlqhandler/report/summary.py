"""The short human summary ``dlqhandler report`` prints on stdout."""

from __future__ import annotations

from typing import Any

from dlqhandler.report.page import transition_label

__all__ = ["summary_lines"]

_TOP = 5


def summary_lines(report: dict[str, Any], *, source: str) -> list[str]:
    """Top reasons, the oldest message, what the table and the change would do."""
    total = report["total"]
    lines = [
        (
            f"Report on {source}: {total:,} messages ({report['no_dlh']:,} without MQDLH, "
            f"{report['unreadable']['count']:,} unreadable) as of {report['as_of']}"
        )
    ]
    props = report.get("properties")
    if props:
        folders = ", ".join(f"{f['folder'] or 'other'} {f['count']:,}" for f in props["by_folder"])
        lines.append(
            f"  message properties: {props['with']:,} with"
            + (f" ({folders})" if folders else "")
            + f", {props['without']:,} without; {props['rfh2_in_front']:,} with an MQRFH2"
            " in front of the MQDLH"
        )
    selection = report.get("selection")
    if selection:
        causes = selection["left_out_by_cause"]
        why = ", ".join(
            f"{n:,} {label}"
            for n, label in (
                (causes["too_new"], f"dead-lettered under {selection['older_than']} ago"),
                (causes["too_old"], f"dead-lettered over {selection['newer_than']} ago"),
                (causes["no_put_time"], "without a readable put time"),
            )
            if n
        )
        lines.append(
            f"  selected: messages {selection['described']} "
            f"({selection['selected']:,}); left out {selection['left_out']:,}"
            + (f": {why}" if why else "")
        )
    if report["by_reason"]:
        lines.append("  top reasons:")
        for r in report["by_reason"][:_TOP]:
            name = "other reasons" if r.get("other") else r["name"] or f"reason {r['reason']}"
            share = f"{100 * r['count'] / total:5.1f}%" if total else ""
            lines.append(f"    {name:<34}{r['count']:>12,}  {share}")
    if report["oldest"]:
        lines.append(f"  oldest put {report['oldest']}, newest put {report['newest']}")
    unknown = next((a["count"] for a in report["age"] if a["bucket"] == "unknown"), 0)
    if unknown:
        lines.append(f"  {unknown:,} messages without a readable put time")
    rules = report.get("rules")
    if rules:
        actions = (
            ", ".join(f"{a['action']} {a['count']:,}" for a in rules["by_action"])
            or "nothing (no message to act on)"
        )
        left = f"{rules['left_on_dlq']:,} left on the DLQ"
        kept = rules["left_on_dlq_by_cause"].get("group", 0)
        if kept:
            left += f" ({kept:,} of them in groups or segmented messages kept whole)"
        if hops := rules["left_on_dlq_by_cause"].get("max_hops", 0):
            # with a catch-all: a put there would carry --max-hops MQDLHs (a forward loop)
            left += f" ({hops:,} of them past --max-hops, which no catch-all takes)"
        caught = rules.get("catch_all")
        if caught:  # the drain sends what would stay there instead
            cause = caught["by_cause"]
            left += (
                f"; {caught['count']:,} to the catch-all {caught['queue']} ({cause['no_dlh']:,}"
                f" without MQDLH, {cause['ignore_rule']:,} by an IGNORE rule,"
                f" {cause['no_match']:,} matching no rule, {cause['unplaceable']:,} whose"
                " target is not a valid queue name or loops back onto the DLQ (or whose"
                " attempts are spent),"
                f" {cause.get('group', 0):,} in whole groups with a member not placed)"
            )
        elif rules.get("unplaceable"):
            # A RETRY/FWD whose target is not a valid name or loops back (or, -m, whose
            # attempts on the status queue are spent): it stays too.
            left += (
                f" and {rules['unplaceable']:,} more that stay: their target is not a valid"
                " queue name or loops back onto the DLQ, or their attempts are spent"
            )
        unreadable = report["unreadable"]["count"]
        if unreadable:
            # A malformed record is in no count above, and the drain leaves it, always.
            left += (
                f"; {unreadable:,} unreadable record(s) stay too (the drain never moves"
                " a malformed record, catch-all or not)"
            )
        lines.append(f"  the table would: {actions}; {left}")
        idle = [str(r["line"]) for r in rules["by_rule"] if r["matched"] == 0]
        if idle:
            lines.append("  rules that match nothing: lines " + ", ".join(idle))
    compare = report.get("compare")
    if compare:
        lines.append(f"  the change would alter {compare['changed']:,} messages:")
        lines.extend(
            f"    {t['count']:>12,}  {transition_label(t)}" for t in compare["transitions"][:_TOP]
        )
    return lines
