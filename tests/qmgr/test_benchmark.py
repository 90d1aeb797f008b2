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


def test_handler_benchmark_prices_ten_properties(tmp_path: Path) -> None:
    """benchmarks/handler.py's properties pair (a tiny run): the handler forwards every
    dead letter with ten properties, then the same backlog without, and reports both
    rates and their ratio; its temporary queue managers are removed."""
    spec = importlib.util.spec_from_file_location("bench_handler", BENCH.with_name("handler.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.bench_properties(10)) == 10
    assert len({p.name for p in module.bench_properties(12)}) == 12
    result = module.properties_pair(tmp_path, count=30, batch=10, properties=10)
    assert (result["messages"], result["properties"]) == (30, 10)
    assert result["with"]["forwarded"] == result["without"]["forwarded"] == 30
    assert result["ratio"] > 0
    assert list(tmp_path.iterdir()) == []
