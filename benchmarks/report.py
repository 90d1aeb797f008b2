"""Benchmark: ``dlqhandler report --rules --compare`` against Spark's own decode floor.

    python benchmarks/report.py [--messages 1000000] [--small 300000] [--master local[*]]
                                [--floor PATH] [--backlog-dir DIR] [--inputs BIG SMALL]

For one generated backlog of ``--messages`` messages (a directory of dmpmqmsg files of
100,000 messages each, seeds 5, 6, ...; or ``--inputs`` directories), in one run:

* the floor: ``benchmarks/spark_decode_floor.py`` on the same dump (Spark SQL functions
  cut the records and decode a few fields; nothing is classified or aggregated), msg/s
  after its session is up (with ``spark.sql.legacy.codingErrorAction=true``: Spark 4's
  ``decode`` would otherwise stop at the dump's EBCDIC headers);
* the report: ``dlqhandler report --input DUMP --rules rules/demo.rul --compare
  rules/default.rul`` in a fresh process, timed after its session is up, msg/s (the
  session built with the settings the command builds its own with);
* the ratio report / floor (as rates: 1.0 is as fast as the floor);
* the driver's peak RSS for the report at ``--messages`` and at ``--small`` messages: the
  Python driver (``ru_maxrss``) and the JVM (``VmHWM``). The report collects at most
  ``top + 1`` rows per list, so both stay flat as the backlog grows.

Each step runs in its own process, one after another; the machine may be shared, so
compare the ratio, not the absolute figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dlqhandler.formats.backlog import write_backlog  # noqa: E402

FLOOR = Path(__file__).with_name("spark_decode_floor.py")

# Runs in a child process: session up (untimed), then the report command (timed).
_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from dlqhandler.cli import main
from dlqhandler.spark.session import get_session, local_cores
dump, out, master, rules, old = sys.argv[1:6]
spark = get_session(master, app_name="dlqhandler-report",  # as the CLI builds it
                    partitions=local_cores(master))
spark.sparkContext.setLogLevel("ERROR")
spark.range(10).count()
t0 = time.perf_counter()
code = main(["report", "--input", dump, "--rules", rules, "--compare", old,
             "--output", out])
took = time.perf_counter() - t0
jvm = spark.sparkContext._gateway.proc.pid  # spark-submit execs java: the JVM driver
status = Path(f"/proc/{jvm}/status").read_text()
hwm = int(status.split("VmHWM:")[1].split()[0])
print(json.dumps({"code": code, "seconds": took,
                  "python_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "jvm_rss_mb": hwm / 1024}))
"""


_PART = 100_000  # messages per generated file; part i uses seed 5 + i


def _backlog(directory: Path, n: int) -> Path:
    """A directory of dmpmqmsg files holding ``n`` generated messages (parts of 100,000
    with their own seeds, shared between sizes through symbolic links)."""
    parts = directory / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    target = directory / f"n{n}"
    target.mkdir(exist_ok=True)
    for i, start in enumerate(range(0, n, _PART)):
        count = min(_PART, n - start)
        path = parts / f"part-{i:03d}-{count}.dmp"
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            with tmp.open("wb") as f:
                write_backlog(f, count, seed=5 + i)
            tmp.rename(path)
        link = target / path.name
        if not link.exists():
            link.symlink_to(path)
    return target


def _count_size(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.iterdir())


def _env() -> dict[str, str]:
    return {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}


def _floor(script: Path, dump: Path, master: str) -> dict[str, Any]:
    # Spark 4 fails decode() on bytes that are not US-ASCII (the dump's EBCDIC MQDLHs);
    # the legacy coding-error action replaces them instead, as Spark 3 did.
    env = {
        **_env(),
        "PYSPARK_SUBMIT_ARGS": "--conf spark.sql.legacy.codingErrorAction=true pyspark-shell",
    }
    proc = subprocess.run(
        [sys.executable, str(script), str(dump), master],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    m = re.search(r"(\d+) messages .* in ([\d.]+) s: (\d+) msg/s", proc.stdout)
    assert m is not None, proc.stdout
    return {
        "messages": int(m.group(1)),
        "seconds": float(m.group(2)),
        "msgs_per_s": int(m.group(3)),
    }


def _report(dump: Path, master: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="dlq-report-bench-") as tmp:
        out = Path(tmp) / "out"
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                _CHILD,
                str(dump),
                str(out),
                master,
                str(ROOT / "rules" / "demo.rul"),
                str(ROOT / "rules" / "default.rul"),
            ],
            env=_env(),
            capture_output=True,
            text=True,
            check=True,
        )
        result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
        assert result["code"] == 0, proc.stderr[-2000:]
        report = json.loads((out / "report.json").read_text())
        result["total"] = report["total"]
        result["changed"] = report["compare"]["changed"]
    return result


def run(
    n: int = 1_000_000,
    *,
    small: int = 300_000,
    master: str = "local[*]",
    floor: str | None = None,
    backlog_dir: Path | None = None,
    inputs: tuple[Path, Path] | None = None,
) -> dict[str, Any]:
    """The figures as a dict (also for ``benchmarks/run_all.py``). ``inputs``: existing
    directories of dumps (big, small) to use instead of generating."""
    script = Path(floor) if floor else FLOOR
    work = backlog_dir or Path(tempfile.mkdtemp(prefix="dlq-report-backlog-"))
    t0 = time.perf_counter()
    big, little = inputs or (_backlog(work, n), _backlog(work, small))
    generate_s = time.perf_counter() - t0
    floor_r = _floor(script, big, master)
    report_r = _report(big, master)
    small_r = _report(little, master)
    n = floor_r["messages"]
    assert report_r["total"] == n
    small = small_r["total"]
    rate = n / report_r["seconds"]
    return {
        "messages": n,
        "input_mb": round(_count_size(big) / 2**20, 1),
        "generate_s": round(generate_s, 1),
        "floor_s": floor_r["seconds"],
        "floor_msgs_per_s": floor_r["msgs_per_s"],
        "report_s": round(report_r["seconds"], 1),
        "report_msgs_per_s": round(rate),
        "report_vs_floor": round(rate / floor_r["msgs_per_s"], 2),
        "changed": report_r["changed"],
        "python_rss_mb": round(report_r["python_rss_mb"]),
        "jvm_rss_mb": round(report_r["jvm_rss_mb"]),
        "small_messages": small,
        "small_report_s": round(small_r["seconds"], 1),
        "small_python_rss_mb": round(small_r["python_rss_mb"]),
        "small_jvm_rss_mb": round(small_r["jvm_rss_mb"]),
    }


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--messages", type=int, default=1_000_000)
    p.add_argument(
        "--small", type=int, default=300_000, help="second backlog size for the peak-RSS comparison"
    )
    p.add_argument("--master", default="local[*]")
    p.add_argument(
        "--floor", help="another floor script (default: benchmarks/spark_decode_floor.py)"
    )
    p.add_argument("--backlog-dir", type=Path, help="keep (and reuse) the generated dumps here")
    p.add_argument(
        "--inputs",
        type=Path,
        nargs=2,
        metavar=("BIG_DIR", "SMALL_DIR"),
        help="directories of dumps to use instead of generating",
    )
    args = p.parse_args()
    r = run(
        args.messages,
        small=args.small,
        master=args.master,
        floor=args.floor,
        backlog_dir=args.backlog_dir,
        inputs=tuple(args.inputs) if args.inputs else None,
    )
    print(json.dumps(r, indent=2))
    print(
        f"report --rules --compare: {r['messages']:,} messages in {r['report_s']} s = "
        f"{r['report_msgs_per_s']:,} msg/s; floor (spark_decode_floor.py, same dump, same "
        f"run): {r['floor_msgs_per_s']:,} msg/s -> ratio {r['report_vs_floor']}"
    )
    print(
        f"driver peak RSS: python {r['small_python_rss_mb']} MB at {r['small_messages']:,}"
        f" vs {r['python_rss_mb']} MB at {r['messages']:,}; JVM {r['small_jvm_rss_mb']} MB"
        f" vs {r['jvm_rss_mb']} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
