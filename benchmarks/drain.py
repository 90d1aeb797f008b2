"""Benchmark: the Spark backlog drain against its floors.

    python benchmarks/drain.py [--messages 300000,1000000] [--master local[*]] [--keep]
                               [--backlog FILE | --backlog-dir DIR]

Prints, for each generated backlog (dmpmqmsg file, seed 5, rules/demo.rul), in one
column per size, all measured in the same run:

* the full offline drain (decode, classify, write per-target dumps, audit,
  summary) as a user runs it: ``dlqhandler drain`` in its own process, Spark's
  start-up included; and the same work in this process's warm session (the better
  of two runs), without it;
* the I/O floor: reading the same file end to end (Python ``f.read`` in 8 MiB
  chunks, and Spark's ``text().count()``), and the drain's ratio to it;
* the plain script (benchmarks/plain_drain.py: no dlqhandler, what a user would
  write) on the same file, and the ratio;
* the copy floor (benchmarks/spark_copy_floor.py: no dlqhandler; a PySpark process that
  starts, writes every record into four directories and stops) as a whole process, the
  floor of ``dlqhandler drain`` in its own process;
* ``--master local[1]`` and ``local[2]``, whole processes, and their ratio (how much of
  the run uses a second core), beside the copy floor's own ratio (what a second core gives
  a Spark job that only copies, on this machine);
* the fixed cost: the ``dlqhandler drain`` process's time outside its Spark stages (the
  seconds of its ``drain_stage`` events taken from the whole: start, planning, joining,
  manifest, stop), against the copy floor's own start + stop;
* the driver's peak RSS during the ``dlqhandler drain`` process, Python and JVM
  separately (compare the sizes: flat means within 1.1x).

``run(n)`` returns the figures as a dict for ``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dlqhandler.formats.backlog import write_backlog  # noqa: E402
from dlqhandler.rules import compile_rules  # noqa: E402
from dlqhandler.spark.drain.job import DrainConfig, run_drain  # noqa: E402
from dlqhandler.spark.session import get_session  # noqa: E402

RULES = ROOT / "rules" / "demo.rul"


def _copy_floor(src: Path, out: Path, master: str) -> tuple[float, float]:
    """benchmarks/spark_copy_floor.py as a whole process (no dlqhandler imports): its
    seconds, and its own start + stop (what it prints), the floor of the fixed cost."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).with_name("spark_copy_floor.py")),
            str(src),
            str(out),
            master,
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    whole = time.perf_counter() - start
    said = re.search(r"start ([0-9.]+) s, copy [0-9.]+ s, stop ([0-9.]+) s", done.stdout)
    fixed = float(said.group(1)) + float(said.group(2)) if said else float("nan")
    return whole, fixed


def _cli_drain(src: Path, out: Path, master: str) -> tuple[float, float, _PeakRSS]:
    """``dlqhandler drain`` in a process of its own (Spark's start, the jar and the first
    plans included): its seconds, the seconds its Spark stages ran (from its
    ``drain_stage`` events; the rest is its fixed cost: before the first job, between
    jobs, after the last), and its driver's peak RSS."""
    t0 = time.perf_counter()
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dlqhandler",
            "drain",
            "--rules",
            str(RULES),
            "--input",
            str(src),
            "--output",
            str(out),
            "--master",
            master,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with _PeakRSS(child.pid) as rss:
        cli_out, cli_err = child.communicate()
    whole = time.perf_counter() - t0
    assert child.returncode == 0, (cli_out + cli_err)[-2000:]
    stages = 0.0
    for line in cli_err.splitlines():
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if event.get("event") == "drain_stage":
                    stages += float(event.get("seconds") or 0)
    return whole, stages, rss


def _plain_script(src: Path, out: Path) -> float:
    """benchmarks/plain_drain.py in its own process (no dlqhandler imports): seconds."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(Path(__file__).with_name("plain_drain.py")), str(src), str(out)],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


class _PeakRSS:
    """Peak resident set size of a driver process (this one, or ``pid``) and of its JVM
    child, sampled."""

    def __init__(self, pid: int | None = None) -> None:
        import psutil

        self.proc = psutil.Process(pid)
        self.python = self.jvm = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.wait(0.2):
            try:
                self.python = max(self.python, self.proc.memory_info().rss)
                jvm = sum(
                    c.memory_info().rss
                    for c in self.proc.children(recursive=True)
                    if "java" in c.name()
                )
            except psutil.Error:  # the process ended between two samples
                continue
            self.jvm = max(self.jvm, jvm)

    def __enter__(self) -> _PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _raw_read(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as f:
        while f.read(8 << 20):
            pass
    return time.perf_counter() - start


def run(
    n: int = 100_000, *, master: str | None = None, keep: bool = False, backlog: Path | None = None
) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="dlq-drain-bench-"))
    try:
        src = work / "backlog.dmp"
        t0 = time.perf_counter()
        if backlog is not None and backlog.exists():
            src = backlog  # reuse a backlog written by an earlier run (same n, seed 5)
        else:
            with src.open("wb") as f:
                write_backlog(f, n, seed=5)
            if backlog is not None:
                shutil.copyfile(src, backlog)
        gen_s = time.perf_counter() - t0
        size = src.stat().st_size
        text = RULES.read_text(encoding="utf-8")
        ruleset = compile_rules(text).ruleset
        assert ruleset is not None
        spark = get_session(master or "local[*]")
        spark.sparkContext.setLogLevel("ERROR")
        spark.range(10).count()  # JVM and Python workers warm

        t0 = time.perf_counter()
        spark_read = spark.read.text(str(src)).count()
        spark_read_s = time.perf_counter() - t0
        raw_s = _raw_read(src)

        # What a user runs: `dlqhandler drain` in a process of its own, on every core
        # and on one (the share of the run that is serial), with its driver's peak RSS.
        cli_s, stages_s, rss = _cli_drain(src, work / "cli", master or "local[*]")
        summary = json.loads((work / "cli" / "summary.json").read_text())
        assert summary["totals"]["messages"] == n
        shutil.rmtree(work / "cli")
        one_s, _one_stages, _ = _cli_drain(src, work / "cli1", "local[1]")
        shutil.rmtree(work / "cli1")
        two_s, _two_stages, _ = _cli_drain(src, work / "cli2", "local[2]")
        shutil.rmtree(work / "cli2")
        copy_s, copy_fixed_s = _copy_floor(src, work / "copy", master or "local[*]")
        shutil.rmtree(work / "copy")
        # The floor's own second core: what local[2] can give at most on this machine.
        copy1_s, _ = _copy_floor(src, work / "copy1", "local[1]")
        shutil.rmtree(work / "copy1")
        copy2_s, _ = _copy_floor(src, work / "copy2", "local[2]")
        shutil.rmtree(work / "copy2")
        # The same drain in this (warm) session: the work without Spark's start-up.
        t0 = time.perf_counter()
        run_drain(spark, ruleset, DrainConfig(output=work / "out", inputs=(str(src),)))
        drain_s = time.perf_counter() - t0
        result = run_drain(spark, ruleset, DrainConfig(output=work / "out2", inputs=(str(src),)))
        warm_s = time.perf_counter() - t0 - drain_s
        assert result.manifest["totals"]["messages"] == n

        py_s = _plain_script(src, work / "plain")
        return {
            "messages": n,
            "file_mb": round(size / 2**20, 1),
            "cores": spark.sparkContext.defaultParallelism,
            "generate_s": round(gen_s, 1),
            "drain_s": round(cli_s, 1),
            "drain_msgs_per_s": round(n / cli_s),
            "warm_drain_s": round(min(drain_s, warm_s), 1),
            "warm_drain_msgs_per_s": round(n / min(drain_s, warm_s)),
            "io_floor_python_read_s": round(raw_s, 2),
            "io_floor_spark_text_count_s": round(spark_read_s, 2),
            "spark_text_lines": spark_read,
            "drain_vs_spark_read": round(cli_s / spark_read_s, 1),
            "read_floor_ratio": round(spark_read_s / cli_s, 3),
            "warm_read_floor_ratio": round(spark_read_s / min(drain_s, warm_s), 3),
            "copy_floor_s": round(copy_s, 1),
            "copy_floor_ratio": round(copy_s / cli_s, 3),
            "drain_local1_s": round(one_s, 1),
            "drain_local2_s": round(two_s, 1),
            "local2_speedup": round(one_s / two_s, 2),
            "copy_floor_local1_s": round(copy1_s, 1),
            "copy_floor_local2_s": round(copy2_s, 1),
            "copy_floor_local2_speedup": round(copy1_s / copy2_s, 2),
            "drain_fixed_s": round(cli_s - stages_s, 1),
            "copy_floor_fixed_s": round(copy_fixed_s, 1),
            "fixed_over_floor_s": round(cli_s - stages_s - copy_fixed_s, 1),
            "python_single_process_s": round(py_s, 1),
            "python_msgs_per_s": round(n / py_s),
            "speedup_vs_python": round(py_s / cli_s, 2),
            "warm_speedup_vs_python": round(py_s / min(drain_s, warm_s), 2),
            "decoded_in_python": summary["totals"]["decoded_in_python"],
            "decoder": summary["decoder"],
            "driver_python_peak_rss_mb": round(rss.python / 2**20),
            "driver_jvm_peak_rss_mb": round(rss.jvm / 2**20),
        }
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def _table(results: list[dict[str, Any]]) -> None:
    """The figures of every size side by side, one column per backlog."""
    rows = [
        ("messages", "messages", "{:,}"),
        ("dmpmqmsg MB", "file_mb", "{}"),
        ("Spark cores", "cores", "{}"),
        ("dlqhandler drain (own process) s", "drain_s", "{}"),
        ("dlqhandler drain msg/s", "drain_msgs_per_s", "{:,}"),
        ("run_drain, warm session s", "warm_drain_s", "{}"),
        ("run_drain, warm session msg/s", "warm_drain_msgs_per_s", "{:,}"),
        ("Spark copy floor (own process) s", "copy_floor_s", "{}"),
        ("copy floor / drain (target >= 1.0)", "copy_floor_ratio", "{}"),
        ("drain --master local[1] s", "drain_local1_s", "{}"),
        ("drain --master local[2] s", "drain_local2_s", "{}"),
        ("local[1] / local[2] (target >= 1.8)", "local2_speedup", "{}"),
        ("copy floor local[1] s", "copy_floor_local1_s", "{}"),
        ("copy floor local[2] s", "copy_floor_local2_s", "{}"),
        ("copy floor local[1] / local[2]", "copy_floor_local2_speedup", "{}"),
        ("drain fixed cost (outside stages) s", "drain_fixed_s", "{}"),
        ("copy floor start + stop s", "copy_floor_fixed_s", "{}"),
        ("fixed cost - floor's (target <= 1.5)", "fixed_over_floor_s", "{}"),
        ("plain script s", "python_single_process_s", "{}"),
        ("plain script msg/s", "python_msgs_per_s", "{:,}"),
        ("plain script / drain (target > 1)", "speedup_vs_python", "{}"),
        ("warm drain / plain script", "warm_speedup_vs_python", "{}"),
        ("Spark text().count() s", "io_floor_spark_text_count_s", "{}"),
        ("read floor / drain (target >= 0.25)", "read_floor_ratio", "{}"),
        ("read floor / warm drain", "warm_read_floor_ratio", "{}"),
        ("Python f.read s", "io_floor_python_read_s", "{}"),
        ("decoded in Python (rows)", "decoded_in_python", "{:,}"),
        ("decoder", "decoder", "{}"),
        ("driver peak RSS, Python MB", "driver_python_peak_rss_mb", "{}"),
        ("driver peak RSS, JVM MB", "driver_jvm_peak_rss_mb", "{}"),
    ]
    width = max(len(label) for label, _, _ in rows)
    for label, key, fmt in rows:
        cells = "".join(f"{fmt.format(r[key]):>14}" for r in results)
        print(f"{label:<{width}}{cells}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument(
        "--messages",
        default="1000000",
        help="backlog size, or several comma-separated (300000,1000000)",
    )
    p.add_argument("--master", default=None)
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    p.add_argument(
        "--backlog",
        type=Path,
        metavar="FILE",
        help="one size: reuse this generated backlog if it exists, else write it",
    )
    p.add_argument(
        "--backlog-dir",
        type=Path,
        metavar="DIR",
        help="reuse (or write) DIR/backlog-N.dmp for each size N",
    )
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    sizes = [int(x) for x in a.messages.split(",")]
    if a.backlog is not None and len(sizes) > 1:
        p.error("--backlog takes one size; use --backlog-dir for several")
    results = []
    for n in sizes:
        backlog = a.backlog if a.backlog_dir is None else a.backlog_dir / f"backlog-{n}.dmp"
        results.append(run(n, master=a.master, keep=a.keep, backlog=backlog))
    if a.json:
        print(json.dumps(results if len(results) > 1 else results[0], indent=2))
        return 0
    _table(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
