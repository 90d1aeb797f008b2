"""The reliability figures: merged into the results file, rendered as the docs page."""

from __future__ import annotations

import json
from pathlib import Path

from tests.reliability.results import main, merge, page


def test_a_run_replaces_only_its_own_entries_and_the_page_shows_each(tmp_path: Path) -> None:
    """A second run replaces the entries of the tests it ran, keeps the others with their
    dates, and the page has one row per test with its date, knobs and figures."""
    results = tmp_path / "results.json"
    merge(
        results,
        {"test_a": {"kills": 5}, "test_b": {"messages": 1000}},
        date="2026-11-25T17:08:39Z",
        knobs={},
    )
    report = merge(
        results,
        {"test_b": {"messages": 20000, "placed": {"Q": 3}}},
        date="2026-11-26T09:00:00Z",
        knobs={"DLQ_REL_MESSAGES": "20000"},
    )
    assert json.loads(results.read_text()) == report
    assert report["tests"]["test_a"] == {"date": "2026-11-25T17:08:39Z", "knobs": {}, "kills": 5}
    text = page(report)
    assert "| `test_a` | 2026-11-25T17:08:39Z | defaults | - | kills: 5 |" in text
    assert (
        "| `test_b` | 2026-11-26T09:00:00Z | DLQ_REL_MESSAGES=20000 | - | "
        "messages: 20,000; placed: Q 3 |"
    ) in text
    target = tmp_path / "page.md"
    assert main(["results", str(results), str(target)]) == 0
    assert target.read_text() == text
