"""Benchmark: the Spark backlog drain against its floors.

    python benchmarks/drain.py [--messages 1000000] [--master local[*]] [--keep]
                               [--backlog FILE]

Prints, for one generated backlog (dmpmqmsg file, rules/demo.rul):

* the full offline drain (decode, classify, write per-target dumps, audit,
  summary): total seconds and messages/second;
* the I/O floor: reading the same file end to end (Python ``f.read`` in 8 MiB
  chunks, and Spark's ``text().count()``), and the drain's ratio to it;
* the single-process Python path (read_dump -> Matcher -> DumpWriter per
  target, what a non-Spark tool would do) on the same file, and the ratio.

``run(n)`` returns the figures as a dict for ``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dlqhandler.errors import MalformedMessageError  # noqa: E402
from dlqhandler.formats.backlog import write_backlog  # noqa: E402
from dlqhandler.formats.dmpmqmsg import DumpWriter, read_dump  # noqa: E402
from dlqhandler.mq.message import decode_dead_letter  # noqa: E402
from dlqhandler.rules import Matcher, compile_rules, resolve_target  # noqa: E402
from dlqhandler.spark.job import DrainConfig, run_drain  # noqa: E402
from dlqhandler.spark.outputs import target_file_name  # noqa: E402
from dlqhandler.spark.session import get_session  # noqa: E402

RULES = ROOT / "rules" / "demo.rul"


def _python_path(src: Path, out: Path, text: str) -> int:
    """The single-process reference: same decisions, same output files."""
    ruleset = compile_rules(text).ruleset
    assert ruleset is not None
    matcher = Matcher(ruleset)
    writers: dict[str, tuple[Any, DumpWriter]] = {}
    n = 0
    try:
        for raw in read_dump(src):
            n += 1
            try:
                msg = decode_dead_letter(raw.md, raw.body)
            except MalformedMessageError:
                name, out_msg = "remaining.dmp", raw
            else:
                d = matcher.decide(msg, 0)
                if d.action.kind == "DISCARD":
                    continue
                if d.action.kind == "IGNORE":
                    name, out_msg = "remaining.dmp", raw
                else:
                    t = resolve_target(d.rule if d.rule else d.action, msg)
                    strip = d.action.kind == "RETRY" or not d.action.header
                    out_msg = msg.strip_dead_letter_header() if strip else msg
                    name = target_file_name(t.queue, t.qmgr)
            if name not in writers:
                stream = (out / name).open("wb")
                writers[name] = (stream, DumpWriter(stream))
            writers[name][1].write(out_msg)
    finally:
        for stream, writer in writers.values():
            writer.close()
            stream.close()
    return n


def _raw_read(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as f:
        while f.read(8 << 20):
            pass
    return time.perf_counter() - start


def run(n: int = 100_000, *, master: str | None = None, keep: bool = False,
        backlog: Path | None = None) -> dict[str, Any]:
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

        t0 = time.perf_counter()
        result = run_drain(spark, ruleset, DrainConfig(output=work / "out", inputs=(str(src),),
                                                       split_bytes=8 << 20))
        drain_s = time.perf_counter() - t0
        assert result.manifest["totals"]["messages"] == n

        (work / "py").mkdir()
        t0 = time.perf_counter()
        py_n = _python_path(src, work / "py", text)
        py_s = time.perf_counter() - t0
        assert py_n == n
        return {
            "messages": n,
            "file_mb": round(size / 2**20, 1),
            "cores": spark.sparkContext.defaultParallelism,
            "generate_s": round(gen_s, 1),
            "drain_s": round(drain_s, 1),
            "drain_msgs_per_s": round(n / drain_s),
            "io_floor_python_read_s": round(raw_s, 2),
            "io_floor_spark_text_count_s": round(spark_read_s, 2),
            "spark_text_lines": spark_read,
            "drain_vs_spark_read": round(drain_s / spark_read_s, 1),
            "python_single_process_s": round(py_s, 1),
            "python_msgs_per_s": round(n / py_s),
            "speedup_vs_python": round(py_s / drain_s, 2),
        }
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--messages", type=int, default=1_000_000)
    p.add_argument("--master", default=None)
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    p.add_argument("--backlog", type=Path, metavar="FILE",
                   help="reuse this generated backlog if it exists, else write it there")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    r = run(a.messages, master=a.master, keep=a.keep, backlog=a.backlog)
    if a.json:
        print(json.dumps(r, indent=2))
        return 0
    print(f"backlog: {r['messages']} messages, {r['file_mb']} MB, Spark cores {r['cores']}")
    print(f"drain (offline, full outputs): {r['drain_s']} s = {r['drain_msgs_per_s']} msg/s")
    print(f"I/O floor: python read {r['io_floor_python_read_s']} s, "
          f"spark text count {r['io_floor_spark_text_count_s']} s "
          f"-> drain is {r['drain_vs_spark_read']}x the Spark read floor")
    print(f"single-process Python path: {r['python_single_process_s']} s = "
          f"{r['python_msgs_per_s']} msg/s -> Spark drain speed-up {r['speedup_vs_python']}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
