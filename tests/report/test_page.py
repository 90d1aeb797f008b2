"""report.html and the stdout summary from a report object: escaping of untrusted
values, the `other` rows, the sections present only with --rules/--compare."""

from __future__ import annotations

from typing import Any

from dlqhandler.report import render_html, summary_lines


def _report(**extra: Any) -> dict[str, Any]:
    return {
        "as_of": "2024-11-25T00:00:00Z",
        "total": 12,
        "no_dlh": 1,
        "unreadable": {"count": 1, "reasons": [{"reason": "bad <record>", "count": 1}]},
        "by_reason": [
            {"reason": 2053, "name": "MQRC_Q_FULL", "count": 7},
            {"reason": 9999, "name": None, "count": 3},
            {"reason": None, "name": None, "count": 1, "other": True},
        ],
        "by_destination": [{"queue": "<script>alert(1)</script>", "qmgr": "QM1", "count": 11}],
        "by_application": [{"name": 'a&b "x"', "count": 11}],
        "age": [
            {"bucket": "1d-7d", "count": 10},
            {"bucket": "unknown", "count": 1},
            {"bucket": "<1h", "count": 0},
            {"bucket": "1h-1d", "count": 0},
            {"bucket": ">7d", "count": 0},
        ],
        "oldest": "2024-11-21T06:00:10Z",
        "newest": "2024-11-21T15:33:02Z",
        "arrivals": [
            {"hour": "2024-11-21T06:00:00Z", "count": 6},
            {"hour": "2024-11-21T15:00:00Z", "count": 4},
            {"hour": None, "count": 1, "other": True},
        ],
        **extra,
    }


RULES = {
    "rules_sha256": "0" * 64,
    "left_on_dlq": 2,
    "unplaceable": 0,
    "left_on_dlq_by_cause": {"ignore_rule": 0, "no_match": 1, "no_dlh": 1},
    "by_rule": [
        {"line": 3, "matched": 9, "chosen": 7, "action": "RETRY", "target": "&DESTQ@&DESTQM"},
        {"line": 5, "matched": 0, "chosen": 0, "action": "DISCARD", "target": None},
    ],
    "by_action": [{"action": "RETRY", "count": 7}, {"action": "IGNORE", "count": 2}],
}
COMPARE = {
    "old_rules_sha256": "1" * 64,
    "changed": 7,
    "transitions": [
        {
            "old": {"action": "IGNORE", "queue": None, "line": None},
            "new": {"action": "RETRY", "queue": "APP.<Q>", "line": 3},
            "count": 7,
            "samples": ["41" * 24],
        }
    ],
}


def test_summary_says_that_unplaceable_messages_stay_too() -> None:
    """A RETRY or FWD whose target is not a valid name or loops back onto the DLQ leaves
    the message where it is (as `run` and the drain do): the summary's "left on the DLQ"
    does not count it (report.json keeps the two apart), so the line says how many more
    stay, rather than claiming only the IGNOREs are left."""
    rules = {**RULES, "unplaceable": 3}
    text = "\n".join(summary_lines(_report(rules=rules), source="in.dmp"))
    assert (
        "RETRY 7, IGNORE 2; 2 left on the DLQ and 3 more that stay: their target is not a "
        "valid queue name or loops back onto the DLQ" in text
    )
    plain = "\n".join(summary_lines(_report(rules=RULES), source="in.dmp"))
    assert "more that stay" not in plain


def test_untrusted_values_are_escaped_and_nothing_is_fetched() -> None:
    """Markup in queue and application names is shown as text; the page has no script,
    a default-src 'none' CSP and no URL but the SVG namespace."""
    page = render_html(_report(), source="in.dmp")
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a&amp;b &quot;x&quot;" in page
    assert "default-src 'none'" in page
    assert "bad &lt;record&gt;" in page
    urls = {part.split('"')[0] for part in page.split("http:")[1:]}
    assert urls == {"//www.w3.org/2000/svg"}


def test_sections_follow_the_options() -> None:
    """Rules and change sections appear only when the report has them; reason codes and
    rule lines are shown without thousands separators; `other` rows are labelled."""
    plain = render_html(_report(), source="in.dmp")
    assert "What the rules table would do" not in plain
    assert "all other values" in plain
    assert '<td class="n">2053</td>' in plain
    full = render_html(_report(rules=RULES, compare=COMPARE), source="in.dmp")
    assert "What the rules table would do" in full
    assert "What the change would do" in full
    assert "IGNORE (no rule) \u2192 RETRY APP.&lt;Q&gt; (line 3)" in full
    assert full.count("<svg") == plain.count("<svg") + 3


def test_summary_names_top_reasons_oldest_table_and_change() -> None:
    """The stdout summary: totals, top reasons by name (or number), the oldest put,
    what the table would do, rules that match nothing and the biggest transitions."""
    text = "\n".join(summary_lines(_report(rules=RULES, compare=COMPARE), source="in.dmp"))
    assert "12 messages (1 without MQDLH, 1 unreadable)" in text
    assert "MQRC_Q_FULL" in text
    assert "reason 9999" in text
    assert "oldest put 2024-11-21T06:00:10Z" in text
    assert "RETRY 7, IGNORE 2; 2 left on the DLQ" in text
    assert "rules that match nothing: lines 5" in text
    assert "7  IGNORE (no rule) \u2192 RETRY APP.<Q> (line 3)" in text


def test_summary_says_that_unreadable_records_stay() -> None:
    """An unreadable (malformed) record is in none of the rules' counts, and the drain
    leaves it on the DLQ, catch-all or not (docs/drain.md): a truncated dump's report said
    "0 left on the DLQ" where the drain then left its cut-off message. The line now says
    how many unreadable records stay; without any, it says nothing of them."""
    text = "\n".join(summary_lines(_report(rules=RULES), source="in.dmp"))
    assert (
        "2 left on the DLQ; 1 unreadable record(s) stay too (the drain never moves a "
        "malformed record, catch-all or not)" in text
    )
    clean = _report(rules=RULES, unreadable={"count": 0, "reasons": []})
    assert "unreadable record" not in "\n".join(summary_lines(clean, source="in.dmp"))
