"""The browser probe can fail: a page that fetches, logs and throws is caught."""

from __future__ import annotations

from pathlib import Path

from tests.report.cdp import load_page, require_chromium


def test_probe_sees_requests_console_errors_and_exceptions(tmp_path: Path) -> None:
    """An external image, console.error and an uncaught exception are all reported, so
    a clean result on the report page means something."""
    require_chromium()
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><body><img src='http://127.0.0.1:9/x.png'>"
        "<script>console.error('boom'); throw new Error('bad');</script>"
        "<svg></svg></body></html>",
        encoding="utf-8",
    )
    load = load_page(page.as_uri(), "document.querySelectorAll('svg').length")
    assert load.value == 1
    assert "http://127.0.0.1:9/x.png" in load.requests
    assert load.console == ["boom"]
    assert any("bad" in e for e in load.errors)
