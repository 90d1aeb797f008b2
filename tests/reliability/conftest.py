"""Fixtures of the reliability suite: the handler tests' fixtures (one definition, in
:mod:`tests.worker.fixtures`), the size knobs, and the figures every run records for
docs/reliability-results.md.

Figures (kills survived, messages checked, fuzz cases, soak drift...) are written at
the end of the session to ``$DLQ_REL_RESULTS`` if set, else - when any test marked
``reliability`` ran - to ``benchmarks/reliability-results.json``, one entry per test
(with its date and knobs): a test run again replaces its own entry only; that run also
rewrites ``docs/reliability-results.md`` (:mod:`tests.reliability.results`). The fast
subset run by ``make test`` writes nothing unless asked.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.knobs import Figures
from tests.reliability.results import DEFAULT_RESULTS, PAGE, merge, page
from tests.worker.fixtures import empty_home, fresh_structlog, home, ledger, qm, run_cli

__all__ = ["empty_home", "figures", "fresh_structlog", "home", "ledger", "qm", "run_cli"]


@pytest.fixture(scope="session")
def _session_figures(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    store: dict[str, Any] = {}
    started = time.time()
    yield store
    wanted = os.environ.get("DLQ_REL_RESULTS")
    ran_long = any(
        item.get_closest_marker("reliability") is not None for item in request.session.items
    )
    if not store or (not wanted and not ran_long):
        return
    path = Path(wanted) if wanted else DEFAULT_RESULTS
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))
    knobs = {
        k: v
        for k, v in sorted(os.environ.items())
        if k.startswith("DLQ_REL_") and k != "DLQ_REL_RESULTS"
    }
    report = merge(path, store, date=date, knobs=knobs)
    if path == DEFAULT_RESULTS:
        PAGE.write_text(page(report), encoding="utf-8")


@pytest.fixture
def figures(request: pytest.FixtureRequest, _session_figures: dict[str, Any]) -> Iterator[Figures]:
    """Where a test records the figures of its run (one entry per test)."""
    started = time.monotonic()
    entry: dict[str, Any] = {}
    _session_figures[request.node.name] = entry
    yield Figures(entry)
    entry.setdefault("seconds", round(time.monotonic() - started, 1))
