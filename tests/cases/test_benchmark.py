"""benchmarks/test_cases.py runs and reports every figure (a tiny run, not a measurement),
and run_all sets its figure against its floor."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_reports_the_whole_process_against_the_matcher() -> None:
    """run() on 200 cases and a 50-rule table: the case file it builds passes in a
    `dlqhandler test` process (it checks the last line), and every figure is positive,
    the ratio being cases/s over the matcher's decisions/s."""
    result = _load("test_cases").run(cases=200, rules=50)
    assert (result["cases"], result["rules"]) == (200, 50)
    for key in (
        "test_wall_s",
        "test_cpu_s",
        "test_cases_per_s",
        "matcher_decisions_per_s",
        "read_cases_s",
        "cli_start_cpu_s",
    ):
        assert result[key] > 0, key
    assert result["test_vs_matcher"] == (
        result["test_cases_per_s"] / result["matcher_decisions_per_s"]
    )


def test_run_all_sets_test_cases_against_the_matcher() -> None:
    """run_all's table row for test_cases: cases/s of the process over Matcher.decide's."""
    rows = _load("run_all").floor_rows(
        "test_cases",
        {
            "cases": 10_000,
            "rules": 1000,
            "test_cases_per_s": 5000.0,
            "matcher_decisions_per_s": 100_000.0,
            "test_wall_s": 2.0,
            "test_cpu_s": 1.8,
        },
    )
    assert [(r["floor"], r["ratio"], r["unit"]) for r in rows] == [
        ("Matcher.decide alone (test_cases.py)", 0.05, "cases/s")
    ]
