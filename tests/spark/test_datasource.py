"""The ``dmpmqmsg`` Spark data source (``dlqhandler/spark/jvm/DmpmqmsgFileFormat.java``).

* reading then writing every row unchanged gives the input's bytes (mixed backlog in
  every data mode, EBCDIC and big-endian headers, CRLF, cut-off files without their
  cut-off message, which is reported);
* every column equals the Python reader's decode (``read_dump`` + ``decode_dead_letter``;
  test_datasource_properties.py has the MQRFH2-in-front cases),
  on the mixed backlog and on every byte 1-255 in MQDLH text in every EBCDIC code page;
* at split sizes from a few bytes up every message is read once and whole;
* a query of header columns does not read the record or the body (ReadSchema);
* ``partitionBy("target")`` writes one loadable dump per target, in input order, and
  ``strip_dlh`` writes a message without its MQDLH, under dmpmqmsg's header;
* reading and writing through a Hadoop filesystem (viewfs:); several files, numbered
  each from 1; a message over maxRecordBytes is a row, the rest is read;
* bad input: a file that is not a dump is an error naming it; bad hex is a row naming
  file, line and message.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.errors import DumpFormatError, MalformedMessageError
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq.message import decode_dead_letter
from dlqhandler.mq.mqdlh import MQDLH
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.spark import jvm_tables
from dlqhandler.spark.messages import balanced_split, load_source
from tests.spark.ebcdic import ebcdic_letters

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "backlog-small.dmp"
MD_NAMES = [f.name for f in dataclasses.fields(MQMD)]
DLH_NAMES = [f.name for f in dataclasses.fields(MQDLH) if f.name != "version"]


def _read(spark: Any, *paths: Path) -> Any:
    return spark.read.format("dmpmqmsg").load([str(p) for p in paths])


def _header(data: bytes, first_offset: int) -> str:
    return data[:first_offset].decode("latin-1")


def _write_back(spark: Any, path: Path, out: Path) -> bytes:
    """Read ``path`` and write every row unchanged into one target; the file written."""
    from pyspark.sql import functions as F

    df = _read(spark, path)
    first = df.agg(F.min("offset")).first()[0]
    header = _header(path.read_bytes(), first)
    (
        df.withColumn("target", F.lit("ALL"))
        .coalesce(1)
        .write.format("dmpmqmsg")
        .option("header", header)
        .partitionBy("target")
        .save(str(out))
    )
    parts = sorted((out / "target=ALL").glob("part-*.dmp"))
    assert len(parts) == 1
    return parts[0].read_bytes()


def _mixed(tmp_path: Path) -> list[Path]:
    """The generated mixed backlog in every data mode, and with -dc context lines."""
    messages = list(generate_backlog(300, seed=24))
    files = []
    for mode in ("hex", "A", "t"):
        path = tmp_path / f"mixed-{mode}.dmp"
        write_dump(path, messages, qmgr="QM1", queue="DLQ", mode=mode)  # type: ignore[arg-type]
        files.append(path)
    path = tmp_path / "mixed-dc.dmp"
    write_dump(path, messages, ctx_chars=True, width=16)
    files.append(path)
    return files


def _python_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for m in read_dump(path):
        row: dict[str, Any] = {f"md_{n}": getattr(m.md, n) for n in MD_NAMES}
        row["body"] = m.body
        row["body_length"] = len(m.body)
        try:
            dlh = decode_dead_letter(m.md, m.body).dlh
        except MalformedMessageError as exc:
            row.update(
                {"has_dlh": False, "dlh_error": str(exc)} | {f"dlh_{n}": None for n in DLH_NAMES}
            )
        else:
            assert dlh is not None
            row.update(
                {"has_dlh": True, "dlh_error": None}
                | {f"dlh_{n}": getattr(dlh, n) for n in DLH_NAMES}
            )
        row["malformed"] = None
        rows.append(row)
    return rows


def _spark_rows(spark: Any, path: Path) -> list[dict[str, Any]]:
    columns = [
        *[f"md_{n}" for n in MD_NAMES],
        "body",
        "body_length",
        "has_dlh",
        "dlh_error",
        *[f"dlh_{n}" for n in DLH_NAMES],
        "malformed",
    ]
    rows = _read(spark, path).orderBy("offset").select(*columns).collect()
    return [
        {k: bytes(v) if isinstance(v, bytearray) else v for k, v in r.asDict().items()}
        for r in rows
    ]


def test_generated_tables_are_current() -> None:
    """DumpTables.java is what jvm_tables renders from the Python reference today."""
    java = ROOT / "dlqhandler" / "spark" / "jvm" / "DumpTables.java"
    assert java.read_text() == jvm_tables.render()


def test_read_then_write_gives_the_input_bytes(spark: Any, tmp_path: Path) -> None:
    """Every row written unchanged gives back the file byte for byte: the sample backlog,
    the mixed backlog (EBCDIC and big-endian MQDLHs) in hex, S and T data lines and -dc,
    and the sample with CRLF line ends."""
    crlf = tmp_path / "crlf.dmp"
    crlf.write_bytes(SAMPLE.read_bytes().replace(b"\n", b"\r\n"))
    for i, path in enumerate([SAMPLE, crlf, *_mixed(tmp_path)]):
        written = _write_back(spark, path, tmp_path / f"out{i}")
        assert written == path.read_bytes(), path.name


def test_cut_off_message_is_reported_and_not_written(spark: Any, tmp_path: Path) -> None:
    """A file cut inside its last message: that message is a malformed row naming file,
    line and message, with no record; writing every row gives the file without it."""
    data = SAMPLE.read_bytes()
    last = data.rstrip(b"\n").rfind(b"\n\nA VER") + 2
    for name, cut in (("after-line", data[:-1]), ("mid-line", data[:-30])):
        path = tmp_path / f"cut-{name}.dmp"
        path.write_bytes(cut)
        rows = _read(spark, path).orderBy("offset").collect()
        assert len(rows) == 200
        bad = rows[-1]
        assert bad["record"] is None
        assert bad["md_msg_id"] is None
        with pytest.raises(DumpFormatError) as reference:
            list(read_dump(path))
        assert bad["malformed"].endswith(str(reference.value).split(":", 1)[1]), name
        assert ":" + str(reference.value.line) + ": message 200: " in bad["malformed"]
        assert _write_back(spark, path, tmp_path / f"out-{name}") == data[:last]


def test_every_column_equals_the_python_reader(spark: Any, tmp_path: Path) -> None:
    """MQMD, body, MQDLH, has_dlh and dlh_error of every message equal the Python
    reader's decode, for the sample and the mixed backlog in every data mode."""
    for path in [SAMPLE, *_mixed(tmp_path)]:
        assert _spark_rows(spark, path) == _python_rows(path), path.name


def test_lines_longer_than_the_read_buffer(spark: Any, tmp_path: Path) -> None:
    """Data lines longer than the reader's 64 KiB buffer (X lines of 150,000 hex digits,
    the file with LF and with CRLF line ends) and messages whose lines straddle the
    buffer's end: every column equals the Python reader's, and writing every row back
    gives the file byte for byte (the reader looks at lines inside its buffer there and
    reads a line across the buffer's end on its own)."""
    messages = [
        dataclasses.replace(m, body=m.body + bytes(range(256)) * (i * 150))
        for i, m in enumerate(generate_backlog(12, seed=8))
    ]
    lf = tmp_path / "long-lines.dmp"
    write_dump(lf, messages, qmgr="QM1", queue="DLQ", width=75_000)
    crlf = tmp_path / "long-lines-crlf.dmp"
    crlf.write_bytes(lf.read_bytes().replace(b"\n", b"\r\n"))
    assert max(len(line) for line in lf.read_bytes().split(b"\n")) > 1 << 17
    for i, path in enumerate((lf, crlf)):
        assert _spark_rows(spark, path) == _python_rows(path), path.name
        assert _write_back(spark, path, tmp_path / f"out{i}") == path.read_bytes(), path.name


def test_every_ebcdic_byte_decodes_as_python(spark: Any, tmp_path: Path) -> None:
    """MQDLH PutApplName holding every byte 1-255, in every Latin EBCDIC code page and
    both byte orders: the same text, or the same reason it is not an MQDLH."""
    path = tmp_path / "ebcdic.dmp"
    write_dump(path, ebcdic_letters())
    assert _spark_rows(spark, path) == _python_rows(path)


def test_splits_of_any_size_keep_every_message_once(spark: Any, tmp_path: Path) -> None:
    """Split sizes from 3 bytes up: every message read once, whole (the records joined
    are the file after its header), numbered 1..n in order."""
    small = tmp_path / "small.dmp"
    write_dump(small, list(generate_backlog(6, seed=3)), mode="A")
    crlf = tmp_path / "small-crlf.dmp"
    crlf.write_bytes(small.read_bytes().replace(b"\n", b"\r\n"))
    try:
        for path, sizes in ((small, (3, 17, 101, 999)), (crlf, (5, 333)), (SAMPLE, (4096, 50_000))):
            data = path.read_bytes()
            for size in sizes:
                spark.conf.set("spark.sql.files.maxPartitionBytes", str(size))
                df = _read(spark, path)
                assert df.rdd.getNumPartitions() >= len(data) // size
                rows = df.select("offset", "message_number", "record").collect()
                rows.sort(key=lambda r: r["offset"])
                assert [r["message_number"] for r in rows] == list(range(1, len(rows) + 1))
                joined = b"".join(bytes(r["record"]) for r in rows)
                assert data[rows[0]["offset"] :] == joined, (path.name, size)
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")


def test_balanced_split_gives_every_core_a_split_in_the_last_wave() -> None:
    """A split size at most the largest given, making a multiple of the cores in splits
    when there are more splits than cores (13 of 128 MiB on 2 cores become 14), and left
    alone when there are no more splits than cores (Spark shares a small input itself)."""
    mib = 1 << 20
    for sizes, largest, cores in (
        ([1660 * mib], 128 * mib, 2),
        ([1660 * mib], 128 * mib, 4),
        ([300 * mib, 10 * mib, 77], 128 * mib, 2),
        ([1000], 3, 8),
        ([10_007], 1000, 3),
    ):
        split = balanced_split(sizes, largest, cores)
        count = sum(-(-size // split) for size in sizes)
        assert 1 <= split <= largest
        assert count % cores == 0 or count > sum(-(-size // largest) for size in sizes), sizes
    assert balanced_split([3 * mib], 128 * mib, 2) == 128 * mib
    assert balanced_split([1660 * mib], 128 * mib, 1) == 128 * mib


def test_load_source_reads_a_balanced_number_of_splits(spark: Any) -> None:
    """Three splits' worth of a dump on local[2] is read in four splits (every core busy
    to the end), every message once."""
    third = -(-SAMPLE.stat().st_size // 3)
    try:
        df = load_source(spark, [str(SAMPLE)], split_bytes=third)
        assert df.rdd.getNumPartitions() == 4
        assert df.count() == sum(1 for _ in read_dump(SAMPLE))
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")


def test_split_start_and_file_index_without_spark_metadata(spark: Any, tmp_path: Path) -> None:
    """The source's ``split_start`` is Spark's ``_metadata.file_block_start`` and its
    ``input_file`` names one file as ``_metadata.file_path`` does, for every row at any
    split size; the message frame's ``file_index`` (from ``input_file``) is each file's
    place in the input list, also for a name that needs %-escapes. The drain orders and
    joins its outputs by them, and takes them from the source to spare Spark a copy of
    every row."""
    from dlqhandler.spark.messages import read_messages

    odd = tmp_path / "a dir%20x" / "backlog #1.dmp"
    odd.parent.mkdir()
    odd.write_bytes(SAMPLE.read_bytes())
    try:
        for size in (7_000, 50_000, 10 << 20):
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(size))
            rows = (
                _read(spark, SAMPLE, odd)
                .selectExpr(
                    "input_file",
                    "_metadata.file_path AS path",
                    "split_start = _metadata.file_block_start AS same_split",
                    "split_start",
                )
                .collect()
            )
            assert len(rows) == 400
            assert all(r["same_split"] for r in rows), size
            assert len({(r["input_file"], r["path"]) for r in rows}) == 2
            assert len({r["split_start"] for r in rows}) > (1 if size < 1 << 20 else 0)
            for files in ([SAMPLE, odd], [odd, SAMPLE]):
                frame = read_messages(spark, [str(f) for f in files])
                got = frame.groupBy("file_index").count().orderBy("file_index").collect()
                assert [(r["file_index"], r["count"]) for r in got] == [(0, 200), (1, 200)]
                first = frame.where("file_index = 0").selectExpr("min(seq)").first()[0]
                assert first == files[0].read_bytes().index(b"\nA VER") + 1
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")


def test_header_columns_do_not_read_the_record(spark: Any) -> None:
    """A query of header columns scans only those: its ReadSchema has no record or body."""
    df = _read(spark, SAMPLE).groupBy("dlh_reason", "md_format").count()
    plan = df._jdf.queryExecution().executedPlan().toString()
    schema = plan[plan.index("ReadSchema:") :].split("\n")[0]
    assert "dlh_reason" in schema
    assert "md_format" in schema
    assert "record" not in schema
    assert "body" not in schema
    assert sum(r["count"] for r in df.collect()) == 200


def test_body_length_alone_reads_no_body(spark: Any, tmp_path: Path) -> None:
    """``body_length`` selected without ``body`` is every message's whole data length (the
    report reads segments' lengths this way), and the scan reads no body nor record."""
    for path in [SAMPLE, *_mixed(tmp_path)]:
        df = _read(spark, path).orderBy("offset").select("body_length")
        plan = df._jdf.queryExecution().executedPlan().toString()
        schema = plan[plan.index("ReadSchema:") :].split("\n")[0]
        assert "body_length" in schema
        assert "body:" not in schema
        assert "record" not in schema
        lengths = [r["body_length"] for r in df.collect()]
        assert lengths == [len(m.body) for m in read_dump(path)], path.name


def test_msg_id_longs_are_the_msg_id_in_three_big_endian_thirds(spark: Any, tmp_path: Path) -> None:
    """``msg_id_0``, ``msg_id_1`` and ``msg_id_2`` are every readable message's MsgId as
    three signed big-endian longs (packed back, the MsgId the Python reader gives); a
    scan of them reads no body nor record."""
    import struct

    for path in [SAMPLE, *_mixed(tmp_path)]:
        df = (
            _read(spark, path)
            .orderBy("offset")
            .select("malformed", "msg_id_0", "msg_id_1", "msg_id_2")
        )
        plan = df._jdf.queryExecution().executedPlan().toString()
        schema = plan[plan.index("ReadSchema:") :].split("\n")[0]
        assert "body:" not in schema
        assert "record" not in schema
        rows = df.collect()
        readable = [r for r in rows if r["malformed"] is None]
        ids = [struct.pack(">3q", r["msg_id_0"], r["msg_id_1"], r["msg_id_2"]) for r in readable]
        assert ids == [m.md.msg_id for m in read_dump(path)], path.name


def test_partitioned_write_one_loadable_dump_per_target(spark: Any, tmp_path: Path) -> None:
    """partitionBy("target"): a directory per target whose dump the Python reader loads,
    holding that target's messages in input order; strip_dlh writes the message without
    its MQDLH, with the MQDLH's Format, Encoding and CCSID in the MQMD."""
    from pyspark.sql import functions as F

    df = _read(spark, SAMPLE).filter(F.col("malformed").isNull())
    target = F.when(
        F.col("has_dlh"), F.concat(F.lit("R"), F.col("dlh_reason").cast("string"))
    ).otherwise(F.lit("NODLH"))
    out = tmp_path / "targets"
    (
        df.withColumn("target", target)
        .withColumn("strip_dlh", F.col("dlh_reason") == 2053)
        .repartition(1)
        .sortWithinPartitions("target", "offset")
        .write.format("dmpmqmsg")
        .partitionBy("target")
        .save(str(out))
    )
    headers = {p.read_bytes().split(b"\n\n", 1)[0] for p in out.glob("target=*/part-*.dmp")}
    for header in headers:  # dmpmqmsg's own: its ctime() text
        assert re.fullmatch(
            rb"\* DMPMQMSG Version:9\.4 Created:[A-Z][a-z]{2} [A-Z][a-z]{2} "
            rb"[ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}",
            header,
        ), header
    originals = list(read_dump(SAMPLE))
    expected: dict[str, list[Any]] = {}
    for m in originals:
        try:
            dlh = decode_dead_letter(m.md, m.body).dlh
        except MalformedMessageError:
            expected.setdefault("NODLH", []).append(m)
            continue
        assert dlh is not None
        expected.setdefault(f"R{dlh.reason}", []).append((m, dlh))
    assert {p.name for p in out.iterdir() if p.is_dir()} == {f"target={t}" for t in expected}
    for name, items in expected.items():
        (part,) = (out / f"target={name}").glob("part-*.dmp")
        got = list(read_dump(part))
        assert len(got) == len(items)
        for m, item in zip(got, items, strict=True):
            if name == "NODLH":
                assert m == item
                continue
            original, dlh = item
            if name == "R2053":
                assert m.body == original.body[172:]
                assert (m.md.format, m.md.encoding, m.md.coded_char_set_id) == (
                    dlh.format,
                    dlh.encoding,
                    dlh.coded_char_set_id,
                )
                assert m.md.msg_id == original.md.msg_id
            else:
                assert m == original


def test_bad_input(spark: Any, tmp_path: Path) -> None:
    """A file that is not a dump fails the read naming the file and line 1; bad hex is a
    malformed row naming file, line and message, as the Python reader does; the rest
    of the file is read."""
    from py4j.protocol import Py4JJavaError

    not_dump = tmp_path / "notes.txt"
    not_dump.write_bytes(b"hello\nworld\n")
    with pytest.raises(Py4JJavaError) as failed:
        _read(spark, not_dump).count()
    assert "notes.txt:1: not a dmpmqmsg file" in str(failed.value)
    data = SAMPLE.read_bytes()
    at = data.index(b"\nX ", len(data) // 2) + 3
    bad = tmp_path / "bad-hex.dmp"
    bad.write_bytes(data[:at] + b"ZZ" + data[at + 2 :])
    rows = _read(spark, bad).filter("malformed is not null").collect()
    with pytest.raises(DumpFormatError) as reference:
        list(read_dump(bad))
    assert len(rows) == 1
    assert rows[0]["malformed"].endswith(str(reference.value).split(":", 1)[1])
    assert _read(spark, bad).count() == 200


def test_over_long_message_is_a_row_and_the_rest_is_read(spark: Any) -> None:
    """A message longer than maxRecordBytes is a malformed row (no record) naming file,
    line and message; every other message of the file is read as usual."""
    full = {
        r["offset"]: len(r["record"])
        for r in _read(spark, SAMPLE).select("offset", "record").collect()
    }
    limit = sorted(full.values())[len(full) // 2]
    rows = (
        spark.read.format("dmpmqmsg")
        .option("maxRecordBytes", str(limit))
        .load(str(SAMPLE))
        .select("offset", "message_number", "line", "record", "malformed", "md_msg_id")
        .collect()
    )
    assert {r["offset"] for r in rows} == set(full)
    for r in rows:
        if full[r["offset"]] > limit:
            assert r["record"] is None
            assert r["md_msg_id"] is None
            assert r["malformed"].endswith(
                f":{r['line']}: message {r['message_number']}: the message is "
                f"{full[r['offset']]} bytes, longer than maxRecordBytes ({limit}): it was "
                "not read; raise the option to read it"
            )
        else:
            assert r["malformed"] is None
            assert len(r["record"]) == full[r["offset"]]


def test_several_files_are_numbered_each_from_one(spark: Any, tmp_path: Path) -> None:
    """Two files in one read: each file's messages are numbered from 1, with the lines
    the Python reader's errors would name, and each keeps its own count."""
    (mixed, *_rest) = _mixed(tmp_path)
    rows = _read(spark, SAMPLE, mixed).select("input_file", "message_number", "line").collect()
    for path in (SAMPLE, mixed):
        mine = sorted(
            (r["message_number"], r["line"]) for r in rows if r["input_file"].endswith(path.name)
        )
        assert [n for n, _line in mine] == list(range(1, len(list(read_dump(path))) + 1))
        lines = path.read_bytes().split(b"\n")
        assert all(lines[line - 1][:1] in (b"A", b"N") for _n, line in mine)


def test_read_and_write_through_a_hadoop_filesystem(spark: Any, tmp_path: Path) -> None:
    """viewfs: (Hadoop's mount table, standing for hdfs:/s3a:) for reading and writing:
    the rows name the viewfs file, and the written dump is the input's bytes."""
    from pyspark.sql import functions as F

    data = tmp_path / "data"
    data.mkdir()
    (data / "in.dmp").write_bytes(SAMPLE.read_bytes())
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    conf.set("fs.viewfs.mounttable.i24.link./data", f"file://{data}")
    df = spark.read.format("dmpmqmsg").load("viewfs://i24/data/in.dmp")
    assert {r["input_file"] for r in df.select("input_file").distinct().collect()} == {
        "viewfs://i24/data/in.dmp"
    }
    first = df.agg(F.min("offset")).first()[0]
    (
        df.withColumn("target", F.lit("Q1"))
        .coalesce(1)
        .write.format("dmpmqmsg")
        .option("header", _header(SAMPLE.read_bytes(), first))
        .partitionBy("target")
        .save("viewfs://i24/data/out")
    )
    (part,) = (data / "out" / "target=Q1").glob("part-*.dmp")
    assert part.read_bytes() == SAMPLE.read_bytes()


def test_junk_after_data_lines_is_a_row_after_its_message(spark: Any, tmp_path: Path) -> None:
    """A line that cannot follow a message's data lines: the message is read (as the
    Python reader yields it), and the junk is a malformed row naming its file, line and
    that message, as the Python reader's error does; the messages after it are read;
    at any split size; writing every row back gives the file."""
    data = SAMPLE.read_bytes()
    cases = {
        "blank-first": (b"\n\nA VER", b"\n\nthis is not a dump line\n\nA VER"),
        "right-after": (b"\n\nA VER", b"\njunk, no blank line\nX 00\n\nA VER"),
    }
    for name, (old, new) in cases.items():
        at = data.index(old, len(data) // 2)
        path = tmp_path / f"junk-{name}.dmp"
        path.write_bytes(data[:at] + new + data[at + len(old) :])
        python = []
        with pytest.raises(DumpFormatError) as reference:
            python.extend(read_dump(path))
        for size in (64, 4096, 1 << 20):
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(size))
            try:
                rows = _read(spark, path).orderBy("offset").collect()
            finally:
                spark.conf.unset("spark.sql.files.maxPartitionBytes")
            assert len(rows) == 201, (name, size)
            bad = [r for r in rows if r["malformed"] is not None]
            assert len(bad) == 1
            (junk,) = bad
            assert junk["malformed"].endswith(str(reference.value).split(":", 1)[1]), name
            assert f":{reference.value.line}: after message {len(python)}: " in junk["malformed"]
            assert junk["message_number"] == len(python)
            good = [r for r in rows if r["malformed"] is None]
            assert [r["message_number"] for r in good] == list(range(1, 201))
            assert [bytes(r["md_msg_id"]) for r in good[: len(python)]] == [
                m.md.msg_id for m in python
            ]
            assert bytes(good[len(python) - 1]["body"]) == python[-1].body
        # a message written ends with an empty line (the writer's rule), junk or not
        back = path.read_bytes().replace(b"\njunk, no", b"\n\njunk, no")
        assert _write_back(spark, path, tmp_path / f"out-{name}") == back
