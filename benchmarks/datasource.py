"""Benchmark: the ``dmpmqmsg`` data source against Spark's own floors, on one dump.

    python benchmarks/datasource.py --copy-floor PATH --decode-floor PATH
                                    [--messages 100000] [--master local[*]] [--dump FILE]

One dump made by ``dlqhandler samples generate`` (``--messages``), then, each in its own
process, one after another in the same run:

* ``copy floor``: the given ``spark_copy_floor.py`` (Spark's text source cuts records at
  blank lines and writes them into four directories; no decoding);
* ``source copy``: the data source reads every message and writes every record into four
  target directories (``partitionBy``), bytes as read;
* ``decode floor``: the given ``spark_decode_floor.py`` (Spark SQL functions decode a few
  MQMD fields, the body and three MQDLH fields; an aggregate);
* ``source decode``: the same aggregate over the source's columns (``has_dlh``,
  ``dlh_reason``, ``dlh_dest_q_name``, the body's length: every message decoded);
* ``source count``: a read-only count through the source (no column selected: the
  splits are cut on message boundaries, nothing is decoded).

Whole-process seconds for every row, and the job's seconds after the session is up for
the source's rows and the decode floor (which prints only that). The floors are given
by path: the repository does not reach outside itself. Compare ratios, not absolute
figures: the machine may be shared.
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


def _child(mode: str, dump: str, out: str | None, master: str) -> None:
    """Run one source job in this process and print its phases as JSON."""
    t0 = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    from pyspark.sql import functions as F  # noqa: N812

    from dlqhandler.spark.session import get_session, stop_session

    spark = get_session(master)
    spark.sparkContext.setLogLevel("ERROR")
    t1 = time.perf_counter()
    df = spark.read.format("dmpmqmsg").load(dump)
    result: Any
    if mode == "count":
        result = df.count()
    elif mode == "decode":
        rows = (
            df.groupBy("has_dlh")
            .agg(
                F.count("*").alias("c"),
                F.sum(F.length("body")).alias("n"),
                F.countDistinct("dlh_dest_q_name").alias("q"),
                F.max("dlh_reason"),
            )
            .collect()
        )
        result = sum(r["c"] for r in rows)
    else:
        assert out is not None
        (
            df.withColumn("target", F.length("record") % 4)
            .write.mode("overwrite")
            .format("dmpmqmsg")
            .partitionBy("target")
            .save(out)
        )
        result = "written"
    t2 = time.perf_counter()
    stop_session(spark)
    t3 = time.perf_counter()
    print(json.dumps({"start": t1 - t0, "job": t2 - t1, "stop": t3 - t2, "result": result}))


def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    t = time.perf_counter()
    done = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )
    took = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed: {done.stderr[-2000:]}")
    return took, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copy-floor", required=True, help="spark_copy_floor.py")
    parser.add_argument("--decode-floor", required=True, help="spark_decode_floor.py")
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--dump", help="an existing dump instead of generating one")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, dump, *out = args.child
        _child(mode, dump, out[0] if out else None, args.master)
        return
    with tempfile.TemporaryDirectory(prefix="dlq-source-bench-") as tmp:
        work = Path(tmp)
        dump = Path(args.dump) if args.dump else work / "backlog.dmp"
        if not args.dump:
            subprocess.run(
                [
                    str(Path(sys.executable).with_name("dlqhandler")),
                    "samples",
                    "generate",
                    "--count",
                    str(args.messages),
                    "--output",
                    str(dump),
                ],
                check=True,
            )
        me = [
            sys.executable,
            __file__,
            "--copy-floor",
            args.copy_floor,
            "--decode-floor",
            args.decode_floor,
            "--master",
            args.master,
            "--child",
        ]
        rows: list[dict[str, Any]] = []
        took, line = _timed(
            [sys.executable, args.copy_floor, str(dump), str(work / "floor-out"), args.master]
        )
        rows.append({"what": "copy floor", "whole": took, "detail": line})
        took, line = _timed([*me, "copy", str(dump), str(work / "source-out")])
        rows.append({"what": "source copy", "whole": took, **json.loads(line)})
        # Spark 4 fails decode() on bytes that are not US-ASCII (the dump's EBCDIC
        # MQDLHs); the legacy coding-error action replaces them, as Spark 3 did.
        took, line = _timed(
            [sys.executable, args.decode_floor, str(dump), args.master],
            {"PYSPARK_SUBMIT_ARGS": "--conf spark.sql.legacy.codingErrorAction=true pyspark-shell"},
        )
        job = re.search(r"in ([0-9.]+) s", line)
        rows.append(
            {
                "what": "decode floor",
                "whole": took,
                "job": float(job.group(1)) if job else None,
                "detail": line,
            }
        )
        took, line = _timed([*me, "decode", str(dump)])
        rows.append({"what": "source decode", "whole": took, **json.loads(line)})
        took, line = _timed([*me, "count", str(dump)])
        rows.append({"what": "source count", "whole": took, **json.loads(line)})
        size = dump.stat().st_size
    print(f"dump: {args.messages} messages, {size / 1e6:.0f} MB, master {args.master}")
    for r in rows:
        job = f"{r['job']:.1f} s" if r.get("job") is not None else "-"
        print(
            f"{r['what']:14} whole {r['whole']:6.1f} s   job {job:>8}   "
            f"{r.get('detail', r.get('result', ''))}"
        )
    copy = {r["what"]: r for r in rows}
    print(
        f"copy: floor / source (whole) = "
        f"{copy['copy floor']['whole'] / copy['source copy']['whole']:.2f}"
    )
    if copy["decode floor"].get("job"):
        print(
            f"decode: floor / source (job) = "
            f"{copy['decode floor']['job'] / copy['source decode']['job']:.2f}"
        )


if __name__ == "__main__":
    main()
