"""``report.json`` against an independent count of a generated backlog, and the rules
and compare sections against the Python matcher, message by message."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.rules import compile_rules
from dlqhandler.spark.messages import read_messages
from dlqhandler.spark.report import ReportOptions, build_report
from tests.spark.decisions import python_decision, random_tables
from tests.spark.report_counts import expected_transitions, independent_counts, python_rules

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
AS_OF = datetime(2024, 11, 28, 12, 0, 0, tzinfo=UTC)
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _crafted() -> list[Message]:
    """Blank and invalid put dates, reasons without a name, recent puts, NUL-free odd names."""
    out = []
    cases = [
        ("", "", 2053),
        ("20241301", "10000000", 2053),
        ("2024112", "1000", 2085),
        ("20241128", "11300000", 9999),
        ("20241127", "12000000", 2053),
        ("20241121", "00000000", 300),
        ("20240101", "23595999", 2035),
        ("20241128", "99999999", 2051),
        ("        ", "        ", 2087),
    ]
    for i, (date, time, reason) in enumerate(cases):
        md = MQMD(format="MQSTR", msg_id=bytes([0xC0 + i]) * 24, put_appl_name="crafted")
        out.append(
            Message.dead_letter(
                md,
                b"x" * i,
                reason=reason,
                dest_q_name=f"Q.<{i}>&",
                dest_q_mgr_name="QM1" if i % 2 else "",
                put_appl_name="<b>app</b>" if i % 3 else "",
                put_date=date,
                put_time=time,
            )
        )
    return out


@pytest.fixture(scope="module")
def backlog(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Message]]:
    messages = list(generate_backlog(1500, seed=5)) + _crafted()
    path = tmp_path_factory.mktemp("report") / "backlog.dmp"
    write_dump(path, messages)
    return path, messages


def _assert_sorted(rows: list[dict[str, Any]]) -> None:
    counts = [r["count"] for r in rows if not r.get("other")]
    assert counts == sorted(counts, reverse=True)


def test_report_matches_an_independent_count(
    spark: Any, tmp_path: Path, backlog: tuple[Path, list[Message]]
) -> None:
    """`dlqhandler report --input` counts totals, reasons (with their MQRC/MQFB name or
    null), destinations, putting applications, age buckets, hourly arrivals and the
    oldest/newest put time exactly as a plain Python count of the same messages does
    (mixed encodings, blank and invalid put dates, messages without MQDLH)."""
    path, messages = backlog
    out = tmp_path / "out"
    assert (
        cli_main(
            [
                "report",
                "--input",
                str(path),
                "--as-of",
                "2024-11-28T12:00:00Z",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    got = json.loads((out / "report.json").read_text())
    want = independent_counts(messages, AS_OF)
    assert (got["total"], got["no_dlh"], got["unreadable"]) == (
        want["total"],
        want["no_dlh"],
        {"count": 0, "reasons": []},
    )
    assert {(r["reason"], r["name"]): r["count"] for r in got["by_reason"]} == want["by_reason"]
    assert {(r["queue"], r["qmgr"]): r["count"] for r in got["by_destination"]} == want[
        "by_destination"
    ]
    assert {r["name"]: r["count"] for r in got["by_application"]} == want["by_application"]
    assert {r["bucket"]: r["count"] for r in got["age"]} == want["age"]
    assert {r["hour"]: r["count"] for r in got["arrivals"]} == want["arrivals"]
    assert (got["oldest"], got["newest"]) == (want["oldest"], want["newest"])
    assert want["age"]["unknown"] >= 4
    assert want["age"]["<1h"] >= 1
    assert any(name is None for _r, name in want["by_reason"])
    for key in ("by_reason", "by_destination", "by_application", "age", "arrivals"):
        _assert_sorted(got[key])
    assert "rules" not in got
    assert "compare" not in got


def test_long_lists_keep_the_top_values_and_one_other_row(
    spark: Any, backlog: tuple[Path, list[Message]]
) -> None:
    """With top=3 every list holds the 3 biggest values and one `other` row whose count
    is the rest, so the sum is unchanged."""
    path, messages = backlog
    report = build_report(read_messages(spark, [path]), ReportOptions(as_of=AS_OF, top=3))
    want = independent_counts(messages, AS_OF)
    for key in ("by_destination", "by_application", "by_reason", "arrivals"):
        rows = report[key]
        assert len(rows) == 4, key
        assert rows[-1]["other"] is True
        expected = sorted(Counter(want[key]).values(), reverse=True)
        assert [r["count"] for r in rows[:3]] == expected[:3]
        assert rows[-1]["count"] == sum(expected[3:])


def test_rules_section_matches_the_python_matcher(
    spark: Any, backlog: tuple[Path, list[Message]]
) -> None:
    """Per rule, `matched` is how many messages its patterns match and `chosen` how many
    it decides first; by_action and left_on_dlq (IGNORE, no match, no MQDLH) agree with
    the Python matcher on every shipped table."""
    path, messages = backlog
    frame = read_messages(spark, [path]).cache()
    for table in sorted((ROOT / "rules").glob("*.rul")):
        ruleset = compile_rules(table.read_text(encoding="utf-8")).ruleset
        assert ruleset is not None
        got = build_report(frame, ReportOptions(as_of=AS_OF, ruleset=ruleset))["rules"]
        want = python_rules(ruleset, messages)
        assert [(r["line"], r["matched"], r["chosen"]) for r in got["by_rule"]] == want[
            "by_rule"
        ], table.name
        assert {a["action"]: a["count"] for a in got["by_action"]} == want["by_action"]
        assert got["left_on_dlq"] == want["left_on_dlq"]
        assert sum(got["left_on_dlq_by_cause"].values()) == got["left_on_dlq"]
    frame.unpersist()


def test_compare_transitions_match_python_decisions_per_message(
    spark: Any, backlog: tuple[Path, list[Message]]
) -> None:
    """For pairs of tables (random ones from the differential test, and the shipped
    default -> demo), each transition's count is the number of messages whose Python
    decisions (action, target queue and queue manager, rule line, and what comes of its
    group: kept whole when a member is missing or not placed) move that way, and every
    sample MsgId is one of those messages. A change of FWDQM alone moves messages (to
    another queue manager); naming the local queue manager instead of a blank one does
    not (the drain places both on the local queue manager)."""
    path, messages = backlog
    frame = read_messages(spark, [path]).cache()
    tables = random_tables(8, seed=23)
    pairs = [(tables[i], tables[i + 1]) for i in range(0, 8, 2)]
    pairs.append(
        (
            (ROOT / "rules" / "default.rul").read_text(encoding="utf-8"),
            (ROOT / "rules" / "demo.rul").read_text(encoding="utf-8"),
        )
    )
    forward = "REASON(*) ACTION(FWD) FWDQ(HOLD.Q) FWDQM({})\n"
    pairs += [(forward.format("QM2"), forward.format("QM3"))]
    pairs += [(forward.format("QM1"), forward.format("' '"))]
    checked = 0
    for old_text, new_text in pairs:
        old = compile_rules(old_text, input_queue=DLQ).ruleset
        new = compile_rules(new_text, input_queue=DLQ).ruleset
        assert old is not None
        assert new is not None
        report = build_report(
            frame,
            ReportOptions(
                as_of=AS_OF, ruleset=new, old_ruleset=old, input_queue=DLQ, local_qmgr="QM1"
            ),
        )
        want = expected_transitions(old, new, messages)
        got = {
            (
                *(t["old"][k] for k in ("action", "queue", "qmgr", "line", "group")),
                *(t["new"][k] for k in ("action", "queue", "qmgr", "line", "group")),
            ): t
            for t in report["compare"]["transitions"]
        }
        assert {k: t["count"] for k, t in got.items()} == {k: len(v) for k, v in want.items()}
        assert report["compare"]["changed"] == sum(len(v) for v in want.values())
        if old_text == forward.format("QM2"):
            assert report["compare"]["changed"] == sum(
                python_decision(new, m)[1] == "FWD" for m in messages
            )
        if old_text == forward.format("QM1"):
            assert report["compare"]["changed"] == 0
        for key, t in got.items():
            assert 1 <= len(t["samples"]) <= 3
            assert set(t["samples"]) <= set(want[key])
        checked += len(got)
    assert checked >= 10  # the pairs really change something
    frame.unpersist()


def test_unreadable_input_is_counted_not_fatal(
    spark: Any, tmp_path: Path, backlog: tuple[Path, list[Message]]
) -> None:
    """A dump whose record is damaged next to a good one: its records are counted as
    unreadable with the reason, the good file's messages are all counted, exit 0. A file
    that is no dmpmqmsg dump at all is refused up front (exit 2). A second run into the
    same directory needs --overwrite."""
    path, messages = backlog
    bad = tmp_path / "bad.dmp"
    bad.write_text("A VER 2\nthis is not a dump\nX 0G\n\n", encoding="ascii")
    assert cli_main(["report", "--input", str(bad), "--output", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists()
    bad.write_text(
        "* DMPMQMSG Version:9.4 Created:Mon Nov 23 10:00:00 2026\n"
        "A VER 2\nthis is not a dump\nX 0G\n\n",
        encoding="ascii",
    )
    out = tmp_path / "out"
    assert cli_main(["report", "--input", str(path), str(bad), "--output", str(out)]) == 0
    got = json.loads((out / "report.json").read_text())
    assert got["unreadable"]["count"] >= 1
    assert got["total"] - got["unreadable"]["count"] == len(messages)
    assert got["unreadable"]["reasons"][0]["reason"]
    # the drain's output rule: a second run needs --overwrite, which replaces it whole
    assert cli_main(["report", "--input", str(path), "--output", str(out)]) == 2
    assert cli_main(["report", "--input", str(path), "--output", str(out), "--overwrite"]) == 0
    assert json.loads((out / "report.json").read_text())["total"] == len(messages)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.dmp", "out"]
