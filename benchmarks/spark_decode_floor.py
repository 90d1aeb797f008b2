"""A floor for the drain and the report: Spark's own SQL functions decoding a dump.

    python benchmarks/spark_decode_floor.py DUMP [MASTER]

No dlqhandler: records cut at blank lines, six MQMD attributes taken from the ``A`` lines,
the body unhexed from the ``X`` lines, three MQDLH fields (StrucId, Reason, DestQName)
read from it; a count per kind is all that is collected. Nothing is classified or written.
Timed after the session is up. Prints ``N messages (M with an MQDLH) in S s: R msg/s``.

A job that decodes and then does more cannot be faster than this; one close to it spends
little beyond decoding. ``benchmarks/report.py`` runs it on the same dump in the same run
as ``dlqhandler report``, with ``spark.sql.legacy.codingErrorAction=true`` (Spark 4's
``decode`` otherwise stops at the dump's EBCDIC headers).
"""

from __future__ import annotations

import sys
import time

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F  # noqa: N812 (the PySpark convention)

ATTRIBUTES = ("MSI", "FMT", "ENC", "CCS", "PER", "EXP")


def decoded(spark: SparkSession, path: str) -> DataFrame:
    """One row per record of the dump: is_dlh, reason, destq and the body's length."""
    records = (
        spark.read.option("lineSep", "\n\n").text(path).filter(F.col("value").contains("A MSI "))
    )
    records = records.select(
        *[F.regexp_extract("value", rf"(?m)^A {key} (.*)$", 1).alias(key) for key in ATTRIBUTES],
        F.unhex(
            F.array_join(F.regexp_extract_all("value", F.lit(r"(?m)^X ([0-9A-F]+)$"), 1), "")
        ).alias("body"),
    )
    reason_hex = F.hex(F.substring("body", 9, 4))  # MQLONG, little-endian in the dump
    reason = F.conv(F.concat(*[F.substring(reason_hex, i, 2) for i in (7, 5, 3, 1)]), 16, 10)
    return records.select(
        (F.substring("body", 1, 4) == F.lit(b"DLH ")).alias("is_dlh"),
        reason.alias("reason"),
        F.rtrim(F.decode(F.substring("body", 13, 48), "US-ASCII")).alias("destq"),
        F.length("body").alias("n"),
    )


def main(argv: list[str]) -> int:
    path, master = argv[1], argv[2] if len(argv) > 2 else "local[*]"
    spark = (
        SparkSession.builder.master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    start = time.perf_counter()
    rows = (
        decoded(spark, path)
        .groupBy("is_dlh")
        .agg(F.count("*").alias("c"), F.sum("n"), F.countDistinct("destq"))
        .collect()
    )
    took = time.perf_counter() - start
    total = sum(r["c"] for r in rows)
    dlh = sum(r["c"] for r in rows if r["is_dlh"])
    print(f"{total} messages ({dlh} with an MQDLH) in {took:.1f} s: {total / took:.0f} msg/s")
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
