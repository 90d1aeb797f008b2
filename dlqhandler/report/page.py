"""``report.html``: one self-contained page from the ``report.json`` object.

No script, no external style, font or image: a Content-Security-Policy of
``default-src 'none'`` makes the browser refuse any request the page might try,
and the charts are inline SVG (:mod:`dlqhandler.report.svg`). Every value from
a message is escaped. Print styles drop the colours of the background and keep
tables from splitting rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from html import escape
from typing import Any

from dlqhandler.report.svg import PALETTE, Bar, bar_chart, column_chart, pair_chart, timeline

__all__ = ["AGE_ORDER", "render_html", "transition_label"]

AGE_ORDER = ("<1h", "1h-1d", "1d-7d", ">7d", "unknown")
CHART_ROWS = 15
_CODES = ("reason", "line")
_ACTION_COLOR = {
    "RETRY": PALETTE[0],
    "FWD": PALETTE[2],
    "DISCARD": PALETTE[3],
    "IGNORE": PALETTE[5],
}

_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #1f2328;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { background: #1f3b57; color: #fff; padding: 22px 32px 18px; }
header h1 { margin: 0 0 4px; font-size: 22px; font-weight: 600; }
header p { margin: 0; color: #c9d6e3; font-size: 13px; }
main { max-width: 1000px; margin: 0 auto; padding: 20px 24px 40px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr));
  gap: 12px; margin-bottom: 18px; }
.card { background: #fff; border-radius: 8px; padding: 12px 14px;
  box-shadow: 0 1px 2px rgba(0,0,0,.08); }
.card b { display: block; font-size: 22px; font-weight: 600; }
.card b.time { font-size: 15px; padding-top: 5px; }
.card span { color: #57606a; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
section { background: #fff; border-radius: 8px; padding: 16px 20px; margin: 0 0 16px;
  box-shadow: 0 1px 2px rgba(0,0,0,.08); break-inside: avoid; }
section h2 { margin: 0 0 2px; font-size: 17px; }
section p.what { margin: 0 0 10px; color: #57606a; font-size: 13px; }
.rows { max-height: 300px; overflow: auto; margin-top: 10px; border: 1px solid #eef0f2;
  border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
thead th { position: sticky; top: 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e6e8eb; }
th { color: #57606a; font-weight: 600; background: #fafbfc; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
tr { break-inside: avoid; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 12px; }
.other td { color: #57606a; font-style: italic; }
.muted { color: #8c959f; }
footer { color: #8c959f; font-size: 12px; text-align: center; padding: 8px; }
@media print {
  body { background: #fff; }
  header { background: #fff; color: #000; border-bottom: 2px solid #000; padding: 0 0 8px; }
  header p { color: #333; }
  main { max-width: none; padding: 8px 0; }
  section, .card { box-shadow: none; border: 1px solid #ccc; }
  .rows { max-height: none; overflow: visible; border: 0; }
}
"""


def _n(value: int) -> str:
    return f"{value:,}"


def _cell(value: Any) -> str:
    if value is None:
        return '<td class="muted">-</td>'
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, int):
        return f'<td class="n">{_n(value)}</td>'
    return f"<td>{escape(str(value))}</td>"


def _row_cell(key: str, value: Any) -> str:
    if key in _CODES and isinstance(value, int):  # reason codes and line numbers: no commas
        return f'<td class="n">{value}</td>'
    if key == "samples" and isinstance(value, list):
        return "<td>" + "<br>".join(f"<code>{escape(v)}</code>" for v in value) + "</td>"
    return _cell(value)


def _table(headers: Sequence[str], rows: Iterable[dict[str, Any]], keys: Sequence[str]) -> str:
    head = "".join(
        f'<th class="n">{escape(h)}</th>'
        if h in ("count", "line", "matched", "chosen", "reason")
        else f"<th>{escape(h)}</th>"
        for h in headers
    )
    body = []
    for r in rows:
        if r.get("other"):
            cells = [
                _cell(r["count"])
                if k == "count"
                else "<td>all other values</td>"
                if i == 0
                else "<td></td>"
                for i, k in enumerate(keys)
            ]
            body.append(f'<tr class="other">{"".join(cells)}</tr>')
        else:
            body.append("<tr>" + "".join(_row_cell(k, r.get(k)) for k in keys) + "</tr>")
    return (
        f'<div class="rows"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _section(title: str, what: str, *parts: str) -> str:
    return (
        f'<section><h2>{escape(title)}</h2><p class="what">{escape(what)}</p>'
        f"{''.join(parts)}</section>"
    )


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else ""


def _reason_label(r: dict[str, Any]) -> str:
    if r.get("other"):
        return "other reasons"
    return r["name"] or f"reason {r['reason']}"


def transition_label(t: dict[str, Any]) -> str:
    """``FWD X (line 2) -> RETRY APP.ORDERS (line 9)`` for one compare transition."""
    if t.get("other"):
        return "other changes"
    return f"{_side(t['old'])} \u2192 {_side(t['new'])}"


_GROUP_FATES = {"kept": ", group kept on the DLQ", "caught": ", group to the catch-all"}


def _side(d: dict[str, Any]) -> str:
    where = f" {d['queue']}" if d.get("queue") else ""
    where += f"@{d['qmgr']}" if where and d.get("qmgr") else ""
    line = f"line {d['line']}" if d.get("line") is not None else "no rule"
    return f"{d['action']}{where} ({line}{_GROUP_FATES.get(d.get('group') or '', '')})"


def _overview(report: dict[str, Any]) -> str:
    cards = [
        ("messages", _n(report["total"])),
        ("without MQDLH", _n(report["no_dlh"])),
        ("unreadable", _n(report["unreadable"]["count"])),
        ("oldest put", (report["oldest"] or "-").replace("T", " ")),
        ("newest put", (report["newest"] or "-").replace("T", " ")),
    ]
    if "selection" in report:
        cards.append(
            (
                f"left out (not {report['selection']['described']})",
                _n(report["selection"]["left_out"]),
            )
        )
    if "rules" in report:
        cards.append(("left on the DLQ", _n(report["rules"]["left_on_dlq"])))
        caught = report["rules"].get("catch_all")
        if caught:
            cards.append((f"to the catch-all {caught['queue']}", _n(caught["count"])))
    if "compare" in report:
        cards.append(("changed by the new table", _n(report["compare"]["changed"])))
    return (
        '<div class="cards">'
        + "".join(
            f'<div class="card"><span>{escape(k)}</span>'
            f'<b class="{"time" if "put" in k else "n"}">{escape(v)}</b></div>'
            for k, v in cards
        )
        + "</div>"
    )


def _content(report: dict[str, Any]) -> list[str]:
    """The page's sections, in order: what is on the DLQ, then what the table would do."""
    parts = [
        _reasons_section(report),
        _age_section(report),
        _arrivals_section(report),
        _destinations_section(report),
        _applications_section(report),
    ]
    if report["unreadable"]["count"]:
        parts.append(
            _section(
                "Unreadable records",
                "Records of the input that could not be decoded.",
                _table(["reason", "count"], report["unreadable"]["reasons"], ["reason", "count"]),
            )
        )
    if "rules" in report:
        parts.append(_rules(report["rules"]))
    if "compare" in report:
        parts.append(_compare(report["compare"]))
    return parts


def _reasons_section(report: dict[str, Any]) -> str:
    """Why the messages were dead-lettered: a chart and the table by reason."""
    total = report["total"]
    reasons = report["by_reason"]
    return _section(
        "Reasons",
        "Why the messages were dead-lettered (MQDLH Reason), by number of messages.",
        bar_chart(
            "Messages by reason",
            [
                Bar(_reason_label(r), r["count"], _share(r["count"], total))
                for r in reasons[:CHART_ROWS]
            ],
        ),
        _table(["reason", "name", "count"], reasons, ["reason", "name", "count"]),
    )


def _age_section(report: dict[str, Any]) -> str:
    """How old the messages are, by age bucket."""
    age = {a["bucket"]: a["count"] for a in report["age"]}
    return _section(
        "Age",
        f"Time from the MQDLH put time (GMT; the MQMD's when the MQDLH's is blank) "
        f"to {report['as_of']}; unknown when the put date or time is unreadable.",
        column_chart(
            "Messages by age",
            [
                Bar(b, age.get(b, 0), color=PALETTE[5] if b == "unknown" else PALETTE[1])
                for b in AGE_ORDER
            ],
        ),
        _table(["bucket", "count"], report["age"], ["bucket", "count"]),
    )


def _arrivals_section(report: dict[str, Any]) -> str:
    """Messages put on the DLQ per hour."""
    points = [
        (int(datetime.fromisoformat(a["hour"]).timestamp()), a["count"])
        for a in report["arrivals"]
        if not a.get("other")
    ]
    return _section(
        "Arrivals",
        "Messages put on the dead-letter queue per hour (MQDLH put time).",
        timeline("Arrivals per hour", points),
        _table(["hour", "count"], report["arrivals"], ["hour", "count"]),
    )


def _destinations_section(report: dict[str, Any]) -> str:
    """Where the messages were going."""
    total = report["total"]
    return _section(
        "Destinations",
        "Where the messages were going (MQDLH DestQName, DestQMgrName).",
        bar_chart(
            "Messages by destination",
            [
                Bar(
                    "other destinations"
                    if d.get("other")
                    else f"{d['queue']}@{d['qmgr']}"
                    if d["qmgr"]
                    else d["queue"] or "(blank)",
                    d["count"],
                    _share(d["count"], total),
                    PALETTE[2],
                )
                for d in report["by_destination"][:CHART_ROWS]
            ],
            label_chars=40,
        ),
        _table(["queue", "qmgr", "count"], report["by_destination"], ["queue", "qmgr", "count"]),
    )


def _applications_section(report: dict[str, Any]) -> str:
    """Who put the messages on the DLQ."""
    total = report["total"]
    return _section(
        "Applications",
        "Who put the message on the dead-letter queue (MQDLH PutApplName).",
        bar_chart(
            "Messages by putting application",
            [
                Bar(
                    "other applications" if a.get("other") else a["name"] or "(blank)",
                    a["count"],
                    _share(a["count"], total),
                    PALETTE[4],
                )
                for a in report["by_application"][:CHART_ROWS]
            ],
        ),
        _table(["name", "count"], report["by_application"], ["name", "count"]),
    )


def _rules(rules: dict[str, Any]) -> str:
    by_rule = rules["by_rule"]
    cause = rules["left_on_dlq_by_cause"]
    what = (
        f"matched: messages the rule's patterns match; chosen: messages it decides first "
        f"(the first matching rule that can be carried out, every put assumed to succeed). "
        f"{_n(rules['left_on_dlq'])} would "
        f"stay on the DLQ ({_n(cause['ignore_rule'])} by an IGNORE rule, "
        f"{_n(cause['no_match'])} matching no rule, {_n(cause['no_dlh'])} without MQDLH, "
        f"{_n(cause.get('group', 0))} in groups or segmented messages kept whole"
        + (f", {_n(cause['max_hops'])} past --max-hops" if cause.get("max_hops") else "")
        + ")."
    )
    caught = rules.get("catch_all")
    if caught:
        by = caught["by_cause"]
        what += (
            f" The drain sends {_n(caught['count'])} to the catch-all {caught['queue']}"
            f" instead ({_n(by['ignore_rule'])} by an IGNORE rule, {_n(by['no_match'])}"
            f" matching no rule, {_n(by['no_dlh'])} without MQDLH, {_n(by['unplaceable'])}"
            " whose target is not a valid queue name or loops back (or, with -m, whose"
            " attempts are spent),"
            f" {_n(by.get('group', 0))} in whole groups with a member not placed)."
        )
    return _section(
        "What the rules table would do",
        what,
        pair_chart(
            "Messages per rule",
            [
                (
                    f"line {r['line']}: {r['action']}" + (f" {r['target']}" if r["target"] else ""),
                    r["matched"],
                    r["chosen"],
                )
                for r in by_rule
            ],
            ("matched", "chosen"),
        ),
        bar_chart(
            "Messages by action",
            [
                Bar(a["action"], a["count"], "", _ACTION_COLOR.get(a["action"], PALETTE[0]))
                for a in rules["by_action"]
            ],
        ),
        _table(
            ["line", "action", "target", "matched", "chosen"],
            by_rule,
            ["line", "action", "target", "matched", "chosen"],
        ),
    )


def _compare(compare: dict[str, Any]) -> str:
    transitions = compare["transitions"]
    rows = [
        {
            "from": None if t.get("other") else _side(t["old"]),
            "to": None if t.get("other") else _side(t["new"]),
            "count": t["count"],
            "other": t.get("other", False),
            "samples": t["samples"],
        }
        for t in transitions
    ]
    return _section(
        "What the change would do",
        f"{_n(compare['changed'])} messages get another action or target queue under the new "
        "table. Sample MsgIds (hex) per change.",
        bar_chart(
            "Changed messages by transition",
            [
                Bar(transition_label(t), t["count"], color=PALETTE[3])
                for t in transitions[:CHART_ROWS]
            ],
            label_chars=110,
            width=900,
        ),
        _table(["old", "new", "count", "sample MsgIds"], rows, ["from", "to", "count", "samples"]),
    )


def render_html(report: dict[str, Any], *, source: str) -> str:
    """The whole page for ``report``; ``source`` says what was read (files, queue)."""
    head = (
        '<meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Dead-letter queue report</title>"
        f"<style>{_CSS}</style>"
    )
    header = (
        f"<header><h1>Dead-letter queue report</h1><p>{escape(source)} &middot; "
        f"{_n(report['total'])} messages &middot; as of "
        f"{escape(report['as_of'])}</p></header>"
    )
    body = _overview(report) + "".join(_content(report))
    return (
        f'<!DOCTYPE html><html lang="en"><head>{head}</head><body>{header}'
        f"<main>{body}</main><footer>dlqhandler report &middot; read-only: no message "
        "was moved</footer></body></html>\n"
    )
