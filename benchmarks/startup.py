"""Benchmark: what a user waits for around the work, whole processes against floors.

    python benchmarks/startup.py [--messages 2000] [--repeat 3] [--master local[2]] [--json]

On one generated backlog (dmpmqmsg, seed 5, ``--messages``), every command as its own
process, the runs of each kind interleaved ``--repeat`` times and the median kept, all in
the same run:

* ``dlqhandler drain --rules rules/demo.rul`` against ``spark_copy_floor.py`` (a PySpark
  process that starts, copies every record into four directories and stops), with the
  Spark class-data archive ``make install`` makes (:mod:`dlqhandler.spark.cds`) and
  without it (``DLQHANDLER_SPARK_CDS=off``); the floor runs as a plain PySpark script does,
  without one;
* ``dlqhandler report --rules rules/demo.rul --compare rules/default.rul`` against
  ``spark_decode_floor.py`` (Spark's own SQL functions decoding the same dump), whole
  processes, with and without the archive;
* the driver's peak RSS (Python and its JVM) of the drain with and without the archive;
* ``dlqhandler --help`` and ``dlqhandler lint rules/demo.rul`` against a bare ``python -c
  'import pydantic'`` (the least a command of a pydantic application costs to start); the
  target is within 0.25 s of it.

At a few thousand messages a Spark command is almost all start and stop: these figures
are the fixed cost. ``benchmarks/drain.py`` and ``report.py`` measure the large sizes.
``run(...)`` returns the figures as a dict for ``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from drain import _PeakRSS  # noqa: E402

from dlqhandler.formats.backlog import write_backlog  # noqa: E402
from dlqhandler.spark.cds import ENV, java_options  # noqa: E402

RULES = ROOT / "rules" / "demo.rul"
# As benchmarks/report.py runs the decode floor: Spark 4's decode() stops at the dump's
# EBCDIC MQDLHs unless the legacy coding-error action replaces them.
_LEGACY = {"PYSPARK_SUBMIT_ARGS": "--conf spark.sql.legacy.codingErrorAction=true pyspark-shell"}
OLD_RULES = ROOT / "rules" / "default.rul"


def _timed(argv: list[str], *, env: dict[str, str] | None = None) -> tuple[float, _PeakRSS]:
    """Seconds of a whole process (and its peak RSS, Python and JVM)."""
    t0 = time.perf_counter()
    child = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    with _PeakRSS(child.pid) as rss:
        out, err = child.communicate()
    took = time.perf_counter() - t0
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} exited {child.returncode}: {(out + err)[-1500:]}")
    return took, rss


def run(messages: int = 2000, *, repeat: int = 3, master: str = "local[2]") -> dict[str, Any]:
    py = sys.executable
    archive = bool(java_options())
    with tempfile.TemporaryDirectory(prefix="dlq-startup-bench-") as tmp:
        work = Path(tmp)
        dump = work / "backlog.dmp"
        with dump.open("wb") as stream:
            write_backlog(stream, messages, seed=5)
        off = {ENV: "off"}
        n = 0

        def out() -> str:
            nonlocal n
            n += 1
            return str(work / f"out{n}")

        kinds: dict[str, Any] = {
            "copy_floor": lambda: _timed(
                [py, str(HERE / "spark_copy_floor.py"), str(dump), out(), master]
            ),
            "decode_floor": lambda: _timed(
                [py, str(HERE / "spark_decode_floor.py"), str(dump), master], env=_LEGACY
            ),
            "bare_python": lambda: _timed([py, "-c", "import pydantic"]),
            "help": lambda: _timed([py, "-m", "dlqhandler", "--help"]),
            "lint": lambda: _timed([py, "-m", "dlqhandler", "lint", str(RULES)]),
        }
        drain = [py, "-m", "dlqhandler", "drain", "--rules", str(RULES), "--input", str(dump)]
        report = [py, "-m", "dlqhandler", "report", "--input", str(dump), "--rules", str(RULES)]
        report += ["--compare", str(OLD_RULES)]
        variants = {"archive": {}, "no_archive": off} if archive else {"no_archive": off}
        for name, env in variants.items():
            kinds[f"drain_{name}"] = lambda env=env: _timed(
                [*drain, "--output", out(), "--master", master], env=env
            )
            kinds[f"report_{name}"] = lambda env=env: _timed(
                [*report, "--output", out(), "--master", master], env=env
            )
        seconds: dict[str, list[float]] = {k: [] for k in kinds}
        rss: dict[str, list[tuple[int, int]]] = {k: [] for k in kinds}
        for _ in range(repeat):
            for kind, call in kinds.items():
                took, peak = call()
                seconds[kind].append(took)
                rss[kind].append((peak.python, peak.jvm))
    result: dict[str, Any] = {"messages": messages, "master": master, "archive": archive}
    for kind, values in seconds.items():
        result[f"{kind}_s"] = statistics.median(values)
    for kind in ("drain_archive", "drain_no_archive"):
        if rss.get(kind):
            result[f"{kind}_rss_mb"] = round(max(p + j for p, j in rss[kind]) / 2**20, 1)
    return result


def rows(r: dict[str, Any]) -> list[tuple[str, float, str, float, str]]:
    """(figure, value, floor, floor value, unit) rows: rates, 1.0 = as fast as the floor."""
    n = r["messages"]
    found = []
    for name, said in (("archive", "with the class-data archive"), ("no_archive", "without")):
        if f"drain_{name}_s" in r:
            found.append(
                (
                    f"`dlqhandler drain`, {n:,}, {said}",
                    n / r[f"drain_{name}_s"],
                    "Spark copy (spark_copy_floor.py)",
                    n / r["copy_floor_s"],
                    "msg/s",
                )
            )
            found.append(
                (
                    f"`dlqhandler report --rules --compare`, {n:,}, {said}",
                    n / r[f"report_{name}_s"],
                    "Spark decode (spark_decode_floor.py)",
                    n / r["decode_floor_s"],
                    "msg/s",
                )
            )
    for kind, label in (("help", "`dlqhandler --help`"), ("lint", "`dlqhandler lint` demo.rul")):
        found.append(
            (
                label,
                1 / r[f"{kind}_s"],
                "python -c 'import pydantic'",
                1 / r["bare_python_s"],
                "starts/s",
            )
        )
    if "drain_archive_rss_mb" in r:
        found.append(
            (
                f"drain's driver peak RSS, {n:,}, with the archive",
                r["drain_archive_rss_mb"],
                "the same without",
                r["drain_no_archive_rss_mb"],
                "MB",
            )
        )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    r = run(args.messages, repeat=args.repeat, master=args.master)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    for kind in sorted(k for k in r if k.endswith("_s")):
        print(f"{kind:28} {r[kind]:8.2f} s")
    for figure, value, floor, floor_value, unit in rows(r):
        print(
            f"{figure}: {value:,.1f} {unit}; {floor}: {floor_value:,.1f};"
            f" ratio {value / floor_value:.3f}"
        )
    print(
        f"CLI start over bare python + pydantic: --help {r['help_s'] - r['bare_python_s']:+.3f} s,"
        f" lint {r['lint_s'] - r['bare_python_s']:+.3f} s (target within 0.25 s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
