"""A floor for the drain as a whole process: the least a PySpark job costs that starts,
reads every record of a dump, writes every record into four directories and stops.

    python benchmarks/spark_copy_floor.py DUMP OUTDIR [MASTER]

No dlqhandler and no decoding: records cut at blank lines, each written back out as text
under one of four directories (as a drain splits its outputs by target; the directory is
the record's length modulo 4), then the session stops. Prints where the time went:
``start S s, copy S s, stop S s; whole S s`` (the import of pyspark counts as start).

Time it as a whole process beside ``dlqhandler drain`` on the same dump in the same run
(``benchmarks/drain.py`` does): a drain cannot beat it, and one close to it spends little
beyond what Spark itself must.
"""

from __future__ import annotations

import sys
import time

START = time.perf_counter()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402, N812

DIRECTORIES = 4


def main(argv: list[str]) -> int:
    path, out = argv[1], argv[2]
    master = argv[3] if len(argv) > 3 else "local[*]"
    spark = (
        SparkSession.builder.master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    up = time.perf_counter()
    records = spark.read.option("lineSep", "\n\n").text(path)
    (
        records.withColumn("part", F.length("value") % DIRECTORIES)
        .write.mode("overwrite")
        .partitionBy("part")
        .text(out)
    )
    copied = time.perf_counter()
    spark.stop()
    stopped = time.perf_counter()
    print(
        f"start {up - START:.1f} s, copy {copied - up:.1f} s, stop {stopped - copied:.1f} s;"
        f" whole {stopped - START:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
