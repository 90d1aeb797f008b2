"""The drain's JVM code (``dlqhandler/spark/jvm``) against the Python reference.

* ``DumpRecordDecoder`` gives the same message columns as the fallback (Spark's column
  expressions, with the Python reader for the rare rows) for every message of a mixed
  backlog and for MQDLH text in every byte value of every Latin EBCDIC code page it
  takes, and it takes exactly the rows whose text all those code pages read alike;
* without the jar (no JDK) the drain runs on the fallback and writes the same files;
* ``StrippedRecord`` writes a HEADER(NO) message as DumpWriter does;
* ``NioLocalFileSystem`` sets the permission bits Hadoop asks for.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import DumpWriter, write_dump
from dlqhandler.rules import compile_rules
from dlqhandler.spark import extract
from dlqhandler.spark.job import DrainConfig, run_drain
from tests.spark.ebcdic import APPL_NAME, LATIN_EBCDIC, ebcdic_letters, same_everywhere

pytestmark = pytest.mark.spark


def _rows(frame: Any) -> dict[bytes, dict[str, Any]]:
    columns = [c for c in extract.MESSAGE_COLUMNS if c not in ("split_start", "seq")]
    return {bytes(r["md_msg_id"]): r.asDict() for r in frame.select(*columns).collect()}


def _no_jvm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "register_decoder", lambda spark, ddl: False)


def test_jvm_decode_equals_the_fallback_for_every_row(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backlog = list(generate_backlog(300, seed=21))
    ebcdic = ebcdic_letters()
    src = tmp_path / "in.dmp"
    write_dump(src, backlog + ebcdic)

    loaded = extract.load_messages(spark, [str(src)])
    assert loaded.decoder == "jvm"
    jvm = _rows(loaded.frame)
    took_python = {
        bytes(r["md_msg_id"])
        for r in loaded.frame.filter("decoded_in_python").select("md_msg_id").collect()
    }
    with monkeypatch.context() as m:
        _no_jvm(m)
        fallback = extract.load_messages(spark, [str(src)])
        assert fallback.decoder == "expressions"
        reference = _rows(fallback.frame)

    assert len(jvm) == len(backlog) + len(ebcdic)
    assert jvm.keys() == reference.keys()
    for msg_id, row in jvm.items():
        assert row == reference[msg_id], msg_id
    # The JVM took every EBCDIC header whose name bytes all code pages read alike, and
    # only those; among the generated backlog only the messages without an MQDLH remain.
    for msg in ebcdic:
        alike = all(same_everywhere(b) for b in msg.body[APPL_NAME])
        assert (msg.md.msg_id in took_python) == (not alike), msg.body[APPL_NAME]
    assert sum(1 for m in ebcdic if m.md.msg_id not in took_python) >= len(LATIN_EBCDIC) * 2
    no_dlh = {m.md.msg_id for m in backlog if not m.body.startswith((b"DLH ", b"\xc4\xd3\xc8\x40"))}
    assert took_python - {m.md.msg_id for m in ebcdic} == no_dlh


def test_without_a_jdk_the_drain_writes_the_same_files(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = list(generate_backlog(200, seed=5))
    src = tmp_path / "in.dmp"
    write_dump(src, messages)
    table = (
        "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(NOHDR.Q) HEADER(NO)\n"
        "ACTION(FWD) FWDQ(ALL.Q) HEADER(YES)\n"
    )
    ruleset = compile_rules(table).ruleset
    assert ruleset is not None

    def drain(out: Path) -> dict[str, bytes]:
        result = run_drain(
            spark, ruleset, DrainConfig(output=out, inputs=(str(src),), catch_all="CATCH")
        )
        # The files without their first line (its Created: time differs).
        files = {p.name: p.read_bytes().split(b"\n", 1)[1] for p in sorted(out.glob("*.dmp"))}
        return {"decoder": result.summary["decoder"].encode(), **files}

    with_jvm = drain(tmp_path / "jvm")
    with monkeypatch.context() as m:
        _no_jvm(m)
        without = drain(tmp_path / "expr")
    assert with_jvm.pop("decoder") == b"jvm"
    assert without.pop("decoder") == b"expressions"
    assert "q-NOHDR.Q@LOCAL.dmp" in with_jvm
    assert with_jvm == without


def test_stripped_record_is_what_dumpwriter_writes_without_the_header(spark: Any) -> None:
    from pyspark.sql import functions as F

    from dlqhandler.spark.jar import STRIP_FUNCTION, register_decoder

    assert register_decoder(spark, extract._JVM_DDL)
    messages = [m for m in generate_backlog(120, seed=8) if m.dlh is not None]
    records, expected = [], []
    for msg in messages:
        for text, want in ((msg, msg.strip_dead_letter_header()),):
            buf = io.BytesIO()
            DumpWriter(buf, header=False).write(text)
            records.append(
                (
                    buf.getvalue().decode("latin-1").rstrip("\n") + "\n",
                    text.dlh.format,
                    text.dlh.encoding,
                    text.dlh.coded_char_set_id,
                )
            )
            out = io.BytesIO()
            DumpWriter(out, header=False).write(want)
            expected.append(out.getvalue().decode("latin-1").rstrip("\n") + "\n")
    frame = spark.createDataFrame(records, "record string, fmt string, enc int, ccs int")
    got = [
        r[0]
        for r in frame.select(
            F.call_function(STRIP_FUNCTION, "record", "fmt", "enc", "ccs")
        ).collect()
    ]
    assert got == expected


def test_local_file_system_sets_the_permissions_hadoop_asks_for(spark: Any, tmp_path: Path) -> None:
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
    from dlqhandler.spark import outputs

    messages = list(generate_backlog(200, seed=6))
    src = tmp_path / "in.dmp"
    write_dump(src, messages)
    ruleset = compile_rules((Path(__file__).parents[2] / "rules" / "demo.rul").read_text()).ruleset
    assert ruleset is not None
    sorts: list[bool] = []
    write_parts = outputs._write_parts

    def spy(rows: Any, uri: str, *, sort: bool) -> None:
        sorts.append(sort)
        write_parts(rows, uri, sort=sort)

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
