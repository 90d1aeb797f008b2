"""benchmarks/run_all.py: runs what exists, survives failures, compares with floors.

Fake benchmarks in a temporary folder stand in for the real ones (which take
minutes); the real ones each have their own tiny-run test.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

RUN_ALL = Path(__file__).resolve().parents[1] / "benchmarks" / "run_all.py"


@pytest.fixture
def run_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """run_all loaded with its benchmark folder pointed at ``tmp_path``."""
    spec = importlib.util.spec_from_file_location("run_all_under_test", RUN_ALL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    monkeypatch.setattr(module, "PAGE", tmp_path / "performance-results.md")
    return module


def test_runs_present_benchmarks_with_their_sizes_and_records_failures(
    run_all: ModuleType, tmp_path: Path
) -> None:
    """Each run() gets only the keywords it takes; an error is recorded, the others still
    run, a missing benchmark is skipped, and the exit status says something failed."""
    (tmp_path / "codec.py").write_text(
        "def run(n, *, repeat=1):\n"
        "    assert (n, repeat) == (20_000, 3)\n"
        "    return {'dump_read_mb_per_s': 10.0, 'raw_read_mb_per_s': 1000.0,\n"
        "            'line_iteration_mb_per_s': 100.0}\n",
        encoding="utf-8",
    )
    (tmp_path / "matcher.py").write_text(
        "def run():\n    raise RuntimeError('boom')\n", encoding="utf-8"
    )
    (tmp_path / "handler.py").write_text(
        "def run(messages):\n    return {'messages': messages, 'ratio': {'move': 0.5}}\n",
        encoding="utf-8",
    )
    out = tmp_path / "results.json"
    status = run_all.main(["--only", "codec,matcher,qmgr,handler", "--output", str(out)])
    assert status == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report["benchmarks"]) == {"codec", "matcher", "handler"}
    assert "RuntimeError: boom" in report["benchmarks"]["matcher"]["error"]
    assert report["benchmarks"]["handler"]["result"]["messages"] == 10_000
    assert {"cores", "python", "date", "platform"} <= set(report["machine"])
    ratios = {(r["benchmark"], r["floor"]): r["ratio"] for r in report["table"]}
    assert ratios[("codec", "raw file read (f.read)")] == pytest.approx(0.01)
    assert ratios[("codec", "raw file read (line iteration)")] == pytest.approx(0.1)
    assert ratios[("handler", "(ratio the benchmark reports)")] == pytest.approx(0.5)


def test_floor_rows_for_the_queue_manager_the_handler_and_the_drain(run_all: ModuleType) -> None:
    """qmgr compares with raw SQLite per operation; the handler with the raw queue manager
    doing its unit of work; the drain with Spark's read of its input and with the plain
    single-process script (not with Python's f.read: at these sizes, the page cache)."""
    qmgr = {
        "qmgr": {"put": 50.0, "get": 40.0, "move_1": 20.0, "move_100": 500.0},
        "sqlite": {"put": 100.0, "get": 100.0, "move_1": 100.0, "move_100": 1000.0},
    }
    rows = run_all.floor_rows("qmgr", qmgr)
    assert [(r["figure"], r["ratio"]) for r in rows] == [
        ("put", 0.5),
        ("get", 0.4),
        ("move_1", 0.2),
        ("move_100", 0.5),
    ]
    drain = {
        "messages": 1000,
        "file_mb": 1.0,
        "cores": 2,
        "drain_s": 10.0,
        "io_floor_spark_text_count_s": 1.0,
        "io_floor_python_read_s": 0.1,
        "python_single_process_s": 5.0,
    }
    rows = run_all.floor_rows("drain", drain)
    assert [r["floor"] for r in rows] == [
        "Spark text().count() of input",
        "plain script (plain_drain.py)",
    ]
    assert [r["ratio"] for r in rows] == pytest.approx([0.1, 0.5])
    assert rows[0]["figure"] == "`dlqhandler drain`, 1,000, own process"
    rows = run_all.floor_rows("drain", {**drain, "copy_floor_s": 4.0})
    assert rows[1]["floor"] == "Spark copy (spark_copy_floor.py)"
    assert rows[1]["ratio"] == pytest.approx(0.4)
    handler = {"batch_size": 50, "handler": {"rate": 1000.0}, "ceiling_rate": 2000.0}
    (row,) = run_all.floor_rows("handler", handler)
    assert (row["floor_value"], row["ratio"]) == (2000.0, 0.5)
    handler.update(
        messages=50_000,
        sqlite_floor_rate=10_000.0,
        deep={"messages": 1_000_000, "rate": 500.0, "peak_rss_mb": 60.0},
        rss_small={"messages": 10_000, "peak_rss_mb": 50.0},
        rss_ratio=1.2,
        parallel={"handlers": 4, "rate": 1100.0},
        parallel_single={"rate": 1000.0},
    )
    rows = run_all.floor_rows("handler", handler)
    assert [r["floor"] for r in rows] == [
        "raw queue manager: get + put1 + commit per batch",
        "sqlite_move_floor.py",
        "sqlite_move_floor.py",
        "one handler, same DLQ",
        "peak RSS, 10,000 deep",
    ]
    assert [r["ratio"] for r in rows] == pytest.approx([0.5, 0.1, 0.05, 1.1, 1.2])
    handler["properties"] = {
        "messages": 3000,
        "properties": 10,
        "with": {"rate": 800.0},
        "without": {"rate": 1000.0},
    }
    row = run_all.floor_rows("handler", handler)[-2]  # (before the RSS row)
    assert (row["figure"], row["floor"], row["ratio"]) == (
        "dlqhandler run, 3,000, 10 properties each",
        "the same without properties",
        pytest.approx(0.8),
    )


def test_unknown_benchmark_names_are_refused(run_all: ModuleType) -> None:
    """--only with a name that is not a benchmark is a usage error."""
    with pytest.raises(SystemExit):
        run_all.main(["--only", "nosuch"])


def test_table_renders_as_text_and_markdown(run_all: ModuleType) -> None:
    """Both renderings carry every row and the ratio."""
    rows = [run_all._row("codec", "dmpmqmsg read", 40.0, "raw file read", 4000.0, "MB/s")]
    text = run_all.render(rows)
    markdown = run_all.render(rows, markdown=True)
    assert "0.01" in text.splitlines()[1].split()
    assert "| codec | dmpmqmsg read | 40.00 | MB/s | raw file read | 4,000 | 0.01 |" in markdown


def test_page_is_written_from_the_results_file(run_all: ModuleType, tmp_path: Path) -> None:
    """--page-only turns a results file into the Markdown page: the machine and date it
    was measured on, the sizes, and every row of the table; nothing is run."""
    results = tmp_path / "results.json"
    results.write_text(
        json.dumps(
            {
                "machine": {
                    "date": "2026-11-25T15:58:03+00:00",
                    "cores": 2,
                    "cores_available": 2,
                    "python": "3.11.7",
                    "platform": "Linux-x86_64",
                    "git_commit": "6ecb9db",
                    "total_seconds": 57.1,
                },
                "benchmarks": {
                    "codec": {"params": {"n": 20000}, "seconds": 4.3},
                    "drain": {"params": {}, "seconds": 1.0, "error": "ImportError: x"},
                },
                "table": [
                    run_all._row("codec", "dmpmqmsg read", 40.0, "raw file read", 4000.0, "MB/s")
                ],
            }
        )
    )
    page = tmp_path / "page.md"
    assert run_all.main(["--output", str(results), "--page", str(page), "--page-only"]) == 0
    text = page.read_text()
    assert "2026-11-25T15:58:03+00:00 on 2 cores" in text
    assert "| codec | n=20000 | 4.3 |" in text
    assert "| drain | - | 1.0 (failed: ImportError: x) |" in text
    assert "| codec | dmpmqmsg read | 40.00 | MB/s | raw file read | 4,000 | 0.01 |" in text


@pytest.mark.parametrize(
    "floor",
    ["sqlite_move_floor.py", "spark_decode_floor.py", "spark_copy_floor.py", "plain_drain.py"],
)
def test_floors_are_from_outside_the_product(floor: str) -> None:
    """A floor script imports nothing of dlqhandler: it is what the product is compared
    with, not a part of it."""
    tree = ast.parse((RUN_ALL.parent / floor).read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported
    assert not any(name.split(".")[0] == "dlqhandler" for name in imported)
