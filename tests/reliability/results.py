"""The reliability suite's figures: the results file and the page generated from it.

``benchmarks/reliability-results.json`` holds one entry per long test (its date, the knobs
it ran with and its figures); a test run again replaces its own entry only.
``docs/reliability-results.md`` is generated from it. To rewrite the page from the file
without running anything: ``python -m tests.reliability.results``.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_RESULTS = ROOT / "benchmarks" / "reliability-results.json"
PAGE = ROOT / "docs" / "reliability-results.md"

__all__ = ["DEFAULT_RESULTS", "PAGE", "merge", "page"]


def merge(
    path: Path, entries: dict[str, dict[str, Any]], *, date: str, knobs: dict[str, str]
) -> dict[str, Any]:
    """Write ``entries`` (test name -> figures) into the results file at ``path``, keeping
    the other tests' entries (and their dates); return the whole report."""
    old = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    tests = old.get("tests", {})
    tests.update({name: {"date": date, "knobs": knobs, **entry} for name, entry in entries.items()})
    report = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "tests": dict(sorted(tests.items())),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _figure(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_figure(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "/".join(_figure(v) for v in value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def page(report: dict[str, Any]) -> str:
    """The results as a Markdown page: one row per test, with the date it ran, its knobs
    (the defaults when empty), its seconds and every figure it recorded."""
    m = report["machine"]
    lines = [
        "# Reliability results",
        "",
        "Generated from `benchmarks/reliability-results.json` by the reliability suite (`make",
        "reliability`); do not edit. [reliability.md](reliability.md) explains each test.",
        "",
        f"Machine: {m['cores']} cores, Python {m['python']}. Each test's row is from its latest",
        "run; `knobs` lists the `DLQ_REL_*` sizes that differed from the defaults.",
        "",
        "| test | date (UTC) | knobs | seconds | figures |",
        "|---|---|---|---|---|",
    ]
    for name, entry in report["tests"].items():
        figures = {k: v for k, v in entry.items() if k not in {"date", "knobs", "seconds"}}
        knobs = ", ".join(f"{k}={v}" for k, v in entry.get("knobs", {}).items()) or "defaults"
        cells = "; ".join(f"{k}: {_figure(v)}" for k, v in figures.items())
        lines.append(
            f"| `{name}` | {entry.get('date', '-')} | {knobs} | "
            f"{entry.get('seconds', '-')} | {cells} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    results = Path(argv[1]) if len(argv) > 1 else DEFAULT_RESULTS
    target = Path(argv[2]) if len(argv) > 2 else PAGE
    target.write_text(page(json.loads(results.read_text(encoding="utf-8"))), encoding="utf-8")
    print(f"written to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
