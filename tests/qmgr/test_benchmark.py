"""benchmarks/qmgr.py runs and reports every figure (a tiny run, not a measurement)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "qmgr.py"


def test_benchmark_reports_rates_and_ratios(tmp_path: Path) -> None:
    """run() returns put/get/move rates for the queue manager and SQLite, and ratios."""
    spec = importlib.util.spec_from_file_location("bench_qmgr", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run(messages=20, batch_messages=200, folder=tmp_path, rounds=1)
    for side in ("qmgr", "sqlite", "ratio"):
        assert set(result[side]) == {"put", "get", "move_1", "move_100"}
        assert all(value > 0 for value in result[side].values())
    assert list(tmp_path.iterdir()) == []
