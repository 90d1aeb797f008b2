"""Run every benchmark at a size that fits 2 cores and a few minutes; record and compare.

    python benchmarks/run_all.py [--only codec,matcher,qmgr,drain,handler,lint]
                                 [--output benchmarks/results.json] [--markdown] [--show]
                                 [--page docs/performance-results.md] [--page-only]

Each ``benchmarks/<name>.py`` is imported on its own (a missing dependency, such
as pyspark for the drain, or an error in one benchmark is recorded and the rest
still run) and its ``run(...)`` called with the sizes in :data:`PLAN`. The figures
go to ``results.json`` with the machine they were measured on (cores, Python,
platform, date, git commit) and a table of each figure next to its floor:

* bare decode: the matcher's decisions/s against plain MQDLH decoding of the
  same messages (``decode_dead_letter``);
* raw SQLite move: the embedded queue manager's put/get/move rates against a
  bare SQLite table doing the same inserts and deletes with the same durability;
  and the handler (``dlqhandler run``) against the raw queue manager doing only
  its unit of work (get, put1, commit per batch);
* raw file read: dmpmqmsg reading against ``f.read()`` and line iteration of the
  same file; the Spark drain against Spark's ``text().count()`` of its input;
* our own floor scripts, no dlqhandler in them: the handler against
  ``sqlite_move_floor.py`` (a durable move in bare SQLite), ``dlqhandler drain`` against
  ``spark_copy_floor.py`` (a PySpark process copying every record into four
  directories) and ``plain_drain.py`` (the plain single-process script);
* python read + regex tokenize: ``dlqhandler lint`` of 2,500 and 10,000 wildcard rules
  (its own process) against a fresh Python reading the same file and splitting it into
  tokens with one regex (``benchmarks/lint.py``);
* the matcher's own decisions/s: ``dlqhandler test`` of 10,000 cases against a 1,000-rule
  table as its own process (``benchmarks/test_cases.py``);
* what a user waits for around a small Spark job: ``dlqhandler drain`` and ``report`` of
  2,000 messages, whole processes, with and without the Spark class-data archive, against
  ``spark_copy_floor.py`` and ``spark_decode_floor.py``; ``dlqhandler --help`` and ``lint``
  against a bare ``python -c 'import pydantic'`` (``benchmarks/startup.py``).

``ratio`` is figure / floor as rates: 1.0 is as fast as the floor, 0.25 four
times slower (above 1 for the matcher means deciding beats decoding). The exit
status is 1 if any benchmark failed. Every run also writes the table, with the
machine and date it was measured on, as ``docs/performance-results.md``
(``--page-only`` rewrites that page from the results file without running).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PAGE = ROOT / "docs" / "performance-results.md"
sys.path.insert(0, str(ROOT))

# name -> keyword arguments for its run(); sized for 2 cores and a few minutes in all.
PLAN: dict[str, dict[str, Any]] = {
    "codec": {"n": 20_000, "repeat": 3},
    "matcher": {},
    "qmgr": {"messages": 1000, "batch_messages": 5000, "rounds": 2},
    "handler": {
        "messages": 10_000,
        "ignore_depths": (5000,),
        "rss_messages": 2000,
        "properties": 10,
        "properties_messages": 3000,
    },
    "drain": {"n": 50_000, "master": "local[2]"},
    "lint": {"sizes": (2500, 10_000)},
    "test_cases": {"cases": 10_000, "rules": 1000},
    "startup": {"messages": 2000, "repeat": 3, "master": "local[2]"},
}
ORDER = ("codec", "matcher", "qmgr", "handler", "drain", "lint", "test_cases", "startup")
Row = dict[str, Any]


def _load(name: str) -> ModuleType | None:
    """``benchmarks/<name>.py`` as a module, or None if there is no such benchmark."""
    path = HERE / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"dlqhandler_bench_{name}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _call_run(run: Callable[..., Any], wanted: dict[str, Any]) -> Any:
    """``run(**wanted)`` keeping only the keywords its signature takes."""
    params = inspect.signature(run).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return run(**{k: v for k, v in wanted.items() if takes_any or k in params})


def _prepare_spark(master: str) -> None:
    """Start the session the drain benchmark will reuse, without console progress bars."""
    from dlqhandler.spark.session import get_session

    spark = get_session(master, extra={"spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")


def machine_facts() -> dict[str, Any]:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = None
    affinity = getattr(os, "sched_getaffinity", None)
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "cores_available": len(affinity(0)) if affinity else os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "git_commit": commit,
    }


def _row(bench: str, figure: str, value: float, floor: str, floor_value: float, unit: str) -> Row:
    return {
        "benchmark": bench,
        "figure": figure,
        "value": value,
        "floor": floor,
        "floor_value": floor_value,
        "unit": unit,
        "ratio": value / floor_value if floor_value else None,
    }


def floor_rows(name: str, r: dict[str, Any]) -> list[Row]:
    """The figures of benchmark ``name`` next to their floors (missing keys: no row)."""
    rows: list[Row] = []
    try:
        if name == "codec":
            read = r["dump_read_mb_per_s"]
            rows.append(
                _row(
                    name,
                    "dmpmqmsg read",
                    read,
                    "raw file read (f.read)",
                    r["raw_read_mb_per_s"],
                    "MB/s",
                )
            )
            rows.append(
                _row(
                    name,
                    "dmpmqmsg read",
                    read,
                    "raw file read (line iteration)",
                    r["line_iteration_mb_per_s"],
                    "MB/s",
                )
            )
        elif name == "matcher":
            for size in (10, 100, 1000):
                for mode in ("cached", "uncached"):
                    rows.append(
                        _row(
                            name,
                            f"decide, {size} rules, {mode}",
                            r[f"rules{size}_{mode}_per_s"],
                            "bare MQDLH decode",
                            r["decode_per_s"],
                            "msg/s",
                        )
                    )
        elif name == "qmgr":
            for op in ("put", "get", "move_1", "move_100"):
                rows.append(
                    _row(name, op, r["qmgr"][op], f"raw SQLite {op}", r["sqlite"][op], "msg/s")
                )
        elif name == "handler":
            size = f"{r['messages']:,}, " if "messages" in r else ""
            label = f"dlqhandler run, {size}batch {r['batch_size']}"
            rows.append(
                _row(
                    name,
                    label,
                    r["handler"]["rate"],
                    "raw queue manager: get + put1 + commit per batch",
                    r["ceiling_rate"],
                    "msg/s",
                )
            )
            if r.get("sqlite_floor_rate"):
                rows.append(
                    _row(
                        name,
                        label,
                        r["handler"]["rate"],
                        "sqlite_move_floor.py",
                        r["sqlite_floor_rate"],
                        "msg/s",
                    )
                )
                if r.get("deep"):
                    rows.append(
                        _row(
                            name,
                            f"dlqhandler run, {r['deep']['messages']:,}",
                            r["deep"]["rate"],
                            "sqlite_move_floor.py",
                            r["sqlite_floor_rate"],
                            "msg/s",
                        )
                    )
            if r.get("parallel"):
                par = r["parallel"]
                rows.append(
                    _row(
                        name,
                        f"{par['handlers']} handlers, one DLQ",
                        par["rate"],
                        "one handler, same DLQ",
                        r["parallel_single"]["rate"],
                        "msg/s",
                    )
                )
            if r.get("properties"):
                p = r["properties"]
                rows.append(
                    _row(
                        name,
                        f"dlqhandler run, {p['messages']:,}, {p['properties']} properties each",
                        p["with"]["rate"],
                        "the same without properties",
                        p["without"]["rate"],
                        "msg/s",
                    )
                )
            if r.get("rss_ratio") is not None:
                rows.append(
                    _row(
                        name,
                        f"peak RSS, {r['deep']['messages']:,} deep",
                        r["deep"]["peak_rss_mb"],
                        f"peak RSS, {r['rss_small']['messages']:,} deep",
                        r["rss_small"]["peak_rss_mb"],
                        "MB",
                    )
                )
        elif name == "drain":
            n, mb = r["messages"], r["file_mb"]
            drain_rate = n / r["drain_s"]
            # (Python's f.read of the input is in results.json but no floor here: at this
            # size it is the page cache's speed, thousands of times the drain's.)
            label = f"`dlqhandler drain`, {n:,}, own process"
            rows.append(
                _row(
                    name,
                    label,
                    drain_rate,
                    "Spark text().count() of input",
                    n / r["io_floor_spark_text_count_s"],
                    "msg/s",
                )
            )
            if "copy_floor_s" in r:  # a whole PySpark process copying the same records
                rows.append(
                    _row(
                        name,
                        label,
                        drain_rate,
                        "Spark copy (spark_copy_floor.py)",
                        n / r["copy_floor_s"],
                        "msg/s",
                    )
                )
            rows.append(
                _row(
                    name,
                    label,
                    drain_rate,
                    "plain script (plain_drain.py)",
                    n / r["python_single_process_s"],
                    "msg/s",
                )
            )
            rows[-1]["note"] = f"{mb} MB input, {r.get('cores')} Spark cores"
            if "warm_drain_s" in r:  # the same work in a running session
                rows.append(
                    _row(
                        name,
                        "the same, warm session",
                        n / r["warm_drain_s"],
                        "plain script (plain_drain.py)",
                        n / r["python_single_process_s"],
                        "msg/s",
                    )
                )
        elif name == "lint":
            for size in (2500, 10_000):
                rows.append(
                    _row(
                        name,
                        f"`dlqhandler lint`, {size:,} wildcard rules",
                        size / r[f"rules{size}_lint_s"],
                        "python start + read + regex tokenize (lint.py)",
                        size / r[f"rules{size}_floor_s"],
                        "rules/s",
                    )
                )
        elif name == "startup":
            startup = _load("startup")
            assert startup is not None
            for figure, value, floor, floor_value, unit in startup.rows(r):
                rows.append(_row(name, figure, value, floor, floor_value, unit))
        elif name == "test_cases":
            rows.append(
                _row(
                    name,
                    f"`dlqhandler test`, {r['cases']:,} cases, {r['rules']:,} rules, own process",
                    r["test_cases_per_s"],
                    "Matcher.decide alone (test_cases.py)",
                    r["matcher_decisions_per_s"],
                    "cases/s",
                )
            )
            rows[-1]["note"] = f"{r['test_wall_s']:.2f} s wall, {r['test_cpu_s']:.2f} s CPU"
    except (KeyError, TypeError, ZeroDivisionError):
        pass
    if not rows:
        # A benchmark (or a result shape) this script does not know: its own ratios.
        for key, value in _flatten(r).items():
            if isinstance(value, int | float) and ("ratio" in key or "_vs_" in key):
                rows.append(_row(name, key, float(value), "(ratio the benchmark reports)", 1.0, ""))
    return rows


def _flatten(r: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in r.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    return f"{value:.3g}"


def render(rows: list[Row], *, markdown: bool = False) -> str:
    head = ["benchmark", "figure", "value", "unit", "floor", "floor value", "ratio"]
    body = [
        [
            r["benchmark"],
            r["figure"],
            _fmt(r["value"]),
            r["unit"],
            r["floor"],
            _fmt(r["floor_value"]),
            _fmt(r["ratio"]),
        ]
        for r in rows
    ]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    numeric = {2, 5, 6}
    out = []
    for cells in [head, *body]:
        out.append(
            "  ".join(
                c.rjust(w) if i in numeric else c.ljust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            )
        )
    return "\n".join(out)


def page(report: dict[str, Any]) -> str:
    """The results as a Markdown page: where and when they were measured, the sizes, the
    table of figures against floors, and the benchmarks that failed."""
    m = report["machine"]
    lines = [
        "# Benchmark results",
        "",
        "Generated by `benchmarks/run_all.py` (`make bench`) from `benchmarks/results.json`;",
        "do not edit. [performance.md](performance.md) explains the benchmarks and floors.",
        "",
        f"Measured {m['date']} on {m['cores']} cores ({m['cores_available']} available),",
        (
            f"{m.get('implementation', 'Python')} {m['python']}, {m['platform']}, commit "
            f"{m['git_commit']}; {m['total_seconds']} s in all."
        ),
        "",
        "| benchmark | sizes | seconds |",
        "|---|---|---|",
    ]
    for name, entry in report["benchmarks"].items():
        sizes = ", ".join(f"{k}={v}" for k, v in entry.get("params", {}).items()) or "-"
        status = f" (failed: {entry['error']})" if "error" in entry else ""
        lines.append(f"| {name} | {sizes} | {entry['seconds']}{status} |")
    lines += ["", render(report["table"], markdown=True), ""]
    return "\n".join(lines)


def run_all(names: list[str]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    rows: list[Row] = []
    started = time.perf_counter()
    for name in names:
        entry: dict[str, Any] = {"params": PLAN.get(name, {})}
        t0 = time.perf_counter()
        try:
            module = _load(name)
            if module is None:
                continue
            if name == "drain":
                _prepare_spark(PLAN["drain"]["master"])
            print(f"running {name} ...", file=sys.stderr, flush=True)
            result = _call_run(module.run, PLAN.get(name, {}))
            entry["result"] = result
            rows += floor_rows(name, result) if isinstance(result, dict) else []
        except Exception as exc:  # one failing benchmark must not stop the rest
            entry["error"] = f"{type(exc).__name__}: {exc}"
            entry["traceback"] = traceback.format_exc(limit=5)
            print(f"{name} failed: {entry['error']}", file=sys.stderr)
        entry["seconds"] = round(time.perf_counter() - t0, 1)
        results[name] = entry
    return {
        "machine": {**machine_facts(), "total_seconds": round(time.perf_counter() - started, 1)},
        "benchmarks": results,
        "table": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="comma-separated benchmark names")
    parser.add_argument("--output", type=Path, default=HERE / "results.json")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument(
        "--show", action="store_true", help="print the table of the results file; run nothing"
    )
    parser.add_argument(
        "--page",
        type=Path,
        default=PAGE,
        help="the Markdown page of the results (default docs/performance-results.md)",
    )
    parser.add_argument(
        "--page-only",
        action="store_true",
        help="rewrite the page from the results file; run nothing",
    )
    args = parser.parse_args(argv)
    if args.show or args.page_only:
        saved = json.loads(args.output.read_text(encoding="utf-8"))
        if args.page_only:
            args.page.write_text(page(saved), encoding="utf-8")
            print(f"written to {args.page}")
        else:
            print(render(saved["table"], markdown=args.markdown))
        return 0
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(ORDER)
    unknown = sorted(set(names) - set(ORDER))
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    report = run_all(names)
    args.output.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    m = report["machine"]
    print(
        f"{m['date']}  {m['cores']} cores ({m['cores_available']} available), Python "
        f"{m['python']}, {m['platform']}, commit {m['git_commit']}; "
        f"{m['total_seconds']} s in all"
    )
    for name, entry in report["benchmarks"].items():
        status = "FAILED: " + entry["error"] if "error" in entry else "ok"
        print(f"  {name:<8} {entry['seconds']:>7.1f} s  {status}")
    print()
    print(render(report["table"], markdown=args.markdown))
    args.page.write_text(page(report), encoding="utf-8")
    print(f"\nwritten to {args.output} and {args.page}")
    failed = [n for n, e in report["benchmarks"].items() if "error" in e]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
