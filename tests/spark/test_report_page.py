"""`report.html` in a real headless browser (Debian's chromium): the charts render, the
console stays clean, and no request leaves the file. A screenshot is saved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from tests.report.cdp import load_page, require_chromium, save_screenshot

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
# What the page holds once loaded: charts, their labels, and any script at all.
PROBE = (
    "({svgs: document.querySelectorAll('section svg').length,"
    " bars: document.querySelectorAll('svg rect').length,"
    " scripts: document.scripts.length,"
    " sections: [...document.querySelectorAll('h2')].map(h => h.textContent),"
    " width: Math.max(...[...document.querySelectorAll('svg')]"
    "   .map(s => s.getBoundingClientRect().width))})"
)


def test_report_page_renders_offline_in_chromium(spark: Any, tmp_path: Path) -> None:
    """The page of a report with --rules and --compare, over a backlog with hostile
    names (markup in queue and application names): 8 SVG charts with bars, no script,
    no console error or warning, and the only request is the file itself."""
    require_chromium()
    hostile = Message.dead_letter(
        MQMD(format="MQSTR", msg_id=b"\x42" * 24),
        b"x",
        reason=2053,
        dest_q_name="<img src=http://127.0.0.1:9/q>",
        put_appl_name="<script>x</script>",
        put_date="20241121",
        put_time="06300000",
    )
    dump = tmp_path / "in.dmp"
    write_dump(dump, [*generate_backlog(600, seed=13), hostile])
    out = tmp_path / "out"
    assert (
        cli_main(
            [
                "report",
                "--input",
                str(dump),
                "--rules",
                str(ROOT / "rules" / "demo.rul"),
                "--compare",
                str(ROOT / "rules" / "default.rul"),
                "--as-of",
                "2024-11-22T00:00:00Z",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    page = out / "report.html"
    load = load_page(page.as_uri(), PROBE)
    shot = save_screenshot(load, tmp_path / "report.png")
    assert load.requests == [page.as_uri()]
    assert (load.console, load.errors) == ([], [])
    assert load.value["svgs"] == 8
    assert load.value["bars"] > 40
    assert load.value["scripts"] == 0
    assert load.value["sections"] == [
        "Reasons",
        "Age",
        "Arrivals",
        "Destinations",
        "Applications",
        "What the rules table would do",
        "What the change would do",
    ]
    assert load.value["width"] > 600  # the charts scale to the page
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 20000
