"""The drain's JVM side around the data source (``dlqhandler/spark/jvm``):

* ``NioLocalFileSystem`` sets the permission bits Hadoop asks for;
* a task past Spark's open-writer limit is written again in input order;
* ``strip_dlh`` writes what ``mq.message.stripped_data`` gives, however the record's data
  lines are spelt (the writer copies X lines' hex, else decodes the data), with or without
  the MQDLH columns the reader gave.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq.message import stripped_data
from dlqhandler.rules import compile_rules
from dlqhandler.spark.drain.job import DrainConfig, run_drain

pytestmark = pytest.mark.spark


def test_local_file_system_sets_the_permissions_hadoop_asks_for(spark: Any, tmp_path: Path) -> None:
    """NioLocalFileSystem (the drain's file: filesystem on local masters) creates
    directories and sets files' permission bits as Hadoop asks, without forking chmod."""
    from dlqhandler.spark.jar import LOCAL_FS_CLASS

    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.FileSystem.get(jvm.java.net.URI("file:///"), conf)
    assert fs.getClass().getName() == LOCAL_FS_CLASS
    perm = jvm.org.apache.hadoop.fs.permission.FsPermission.valueOf
    folder = tmp_path / "d"
    assert fs.mkdirs(jvm.org.apache.hadoop.fs.Path(str(folder)), perm("drwxr-x---"))
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o750
    target = folder / "f"
    target.write_bytes(b"x")
    for mode, symbolic in ((0o600, "-rw-------"), (0o644, "-rw-r--r--"), (0o711, "-rwx--x--x")):
        fs.setPermission(jvm.org.apache.hadoop.fs.Path(str(target)), perm(symbolic))
        assert stat.S_IMODE(os.stat(target).st_mode) == mode


def test_a_task_past_the_writer_limit_is_written_again_in_input_order(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When a task wrote into more directories than Spark keeps writers open for, Spark
    sorted its remaining rows by directory only: the drain sees it from the part files
    and writes again, sorted; the files are those of a run within the limit."""
    from dlqhandler.spark.drain import outputs

    messages = list(generate_backlog(200, seed=6))
    src = tmp_path / "in.dmp"
    write_dump(src, messages)
    ruleset = compile_rules((Path(__file__).parents[2] / "rules" / "demo.rul").read_text()).ruleset
    assert ruleset is not None
    sorts: list[bool] = []
    write_parts = outputs._write_parts

    def spy(rows: Any, uri: str, *, sort: bool, **options: Any) -> None:
        sorts.append(sort)
        write_parts(rows, uri, sort=sort, **options)

    def drain(out: Path) -> dict[str, bytes]:
        run_drain(spark, ruleset, DrainConfig(output=out, inputs=(str(src),)))
        return {p.name: p.read_bytes().split(b"\n", 1)[1] for p in sorted(out.glob("*.dmp"))}

    monkeypatch.setattr(outputs, "_write_parts", spy)
    within = drain(tmp_path / "within")
    assert sorts == [False]
    monkeypatch.setattr(outputs, "_MAX_WRITERS", 2)
    past = drain(tmp_path / "past")
    assert sorts == [False, False, True]
    assert past == within


def _respelt(record: str, spell: Any) -> str:
    """A dump record whose X lines' hex digits (joined) are laid out again by ``spell``
    (the hex text of the data -> its data lines)."""
    head, _, rest = record.partition("\nX ")
    digits = "".join(line[2:] for line in ("X " + rest).splitlines() if line.startswith("X "))
    return head + "\n" + spell(digits) + "\n"


def _x_lines(digits: str, width: int) -> str:
    return "\n".join(f"X {digits[i : i + width]}" for i in range(0, len(digits), width)) or "X "


def test_stripped_records_equal_pythons_however_the_data_is_spelt(
    spark: Any, tmp_path: Path
) -> None:
    """A dead letter written with strip_dlh reads back as ``stripped_data`` of the
    original, whether its data is in X lines of 25 bytes, of 7 or 40, in lower-case hex,
    with blanks after the X, with comment lines between, with S or T lines (decoded
    instead), or with no data after the MQDLH; the X lines written are dmpmqmsg's:
    25 bytes of upper-case hex. Rows with the MQDLH columns as read (which the writer
    then uses) and rows of the record alone (decoded again) give the same bytes."""
    from pyspark.sql import functions as F

    dead = [
        m for m in generate_backlog(60, seed=9) if m.md.format == "MQDEAD" and len(m.body) > 260
    ][:2]
    assert len(dead) == 2
    short = dead[1]
    short = dataclasses.replace(short, body=short.body[:172])  # nothing after the MQDLH
    base = tmp_path / "base.dmp"
    write_dump(base, [dead[0], short])
    text = base.read_text("latin-1")
    header, _, records = text.partition("\n\n")
    first, second = records.split("\n\n")[:2]
    variants = [
        first,
        _respelt(first, lambda d: _x_lines(d, 14)),
        _respelt(first, lambda d: _x_lines(d, 80)),
        _respelt(first, lambda d: _x_lines(d.lower(), 50)),
        _respelt(first, lambda d: _x_lines(d, 50).replace("X ", "X    ")),
        _respelt(first, lambda d: _x_lines(d, 50).replace("\nX ", "\n* a comment\nX ", 3)),
        _respelt(first, lambda d: _x_lines(d, 50) + '\nS "tail ~"quoted~""'),
        _respelt(
            first, lambda d: _x_lines(d[:400], 50) + "\nT some text\n" + _x_lines(d[400:], 50)
        ),
        second,
    ]
    src = tmp_path / "variants.dmp"
    src.write_text(
        header + "\n\n" + "\n\n".join(v.rstrip("\n") for v in variants) + "\n\n", "latin-1"
    )
    originals = list(read_dump(src))
    assert len(originals) == len(variants)
    rows = (
        spark.read.format("dmpmqmsg")
        .load(str(src))
        .withColumn("strip_dlh", F.lit(True))
        .repartition(1)
        .sortWithinPartitions("offset")
    )
    out = tmp_path / "out"
    rows.write.format("dmpmqmsg").save(str(out))  # with the MQDLH columns as read
    alone = tmp_path / "alone"
    rows.select("record", "strip_dlh").write.format("dmpmqmsg").save(str(alone))
    (part,) = out.glob("part-*.dmp")
    (part_alone,) = alone.glob("part-*.dmp")
    assert part.read_bytes().split(b"\n", 1)[1] == part_alone.read_bytes().split(b"\n", 1)[1]
    got = list(read_dump(part))
    assert len(got) == len(originals)
    for original, written in zip(originals, got, strict=True):
        md, data = stripped_data(original.md, original.body)
        assert (written.md, written.body) == (md, data)
    for record in part.read_text("latin-1").split("\n\n")[1:]:
        lines = [line for line in record.splitlines() if line.startswith("X ")]
        assert all(len(line) == 52 for line in lines[:-1]), lines
        assert all(line[2:] == line[2:].upper() for line in lines)
