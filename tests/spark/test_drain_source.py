"""The drain on the ``dmpmqmsg`` data source (issue 24):

* reading then writing every message unchanged (a FWD-everything table with
  HEADER(YES)) gives a file byte-identical to the input after its header, for the
  mixed backlog, at split sizes from a few bytes upward (every message whole, once,
  in input order);
* the drain's plan has no Python UDF and its scan reads no body;
* a file that is not a dump is a DumpFormatError naming the file and its line, never
  a Spark failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dlqhandler.errors import DumpFormatError
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.rules import compile_rules
from dlqhandler.spark.classify import classify
from dlqhandler.spark.drain.job import DrainConfig, run_drain
from dlqhandler.spark.messages import read_messages

pytestmark = pytest.mark.spark

_FWD_ALL = "ACTION(FWD) FWDQ(ALL.Q) HEADER(YES)\n"


def _after_header(data: bytes) -> bytes:
    return data.split(b"\n\n", 1)[1]


def test_forwarding_everything_copies_the_input_byte_for_byte(spark: Any, tmp_path: Path) -> None:
    """Every message of the mixed backlog (EBCDIC and big-endian headers) forwarded with
    its header, and those without an MQDLH sent to the same queue as the catch-all: the
    output file after its header is the input after its header, byte for byte, at every
    split size tried."""
    messages = list(generate_backlog(120, seed=11))
    src = tmp_path / "in.dmp"
    write_dump(src, messages)
    ruleset = compile_rules(_FWD_ALL).ruleset
    assert ruleset is not None
    for split in (1, 700, 1 << 20):
        out = tmp_path / f"out-{split}"
        result = run_drain(
            spark,
            ruleset,
            DrainConfig(output=out, inputs=(str(src),), split_bytes=split, catch_all="ALL.Q"),
        )
        totals = result.summary["totals"]
        assert totals["forwarded"] + totals["catch_all"] == len(messages), split
        assert totals["catch_all"] == totals["no_dlh"] > 0
        assert result.summary["totals"]["decoded_in_python"] == 0
        written = (out / "q-ALL.Q@LOCAL.dmp").read_bytes()
        assert _after_header(written) == _after_header(src.read_bytes()), split
        assert [m.md.msg_id for m in read_dump(out / "q-ALL.Q@LOCAL.dmp")] == [
            m.md.msg_id for m in messages
        ]


def test_the_drain_plan_has_no_python_udf_and_reads_no_body(spark: Any, tmp_path: Path) -> None:
    """The classified frame the drain writes from: its physical plan holds no Python
    evaluation (no UDF) and the scan's ReadSchema has the record but not the body."""
    src = tmp_path / "in.dmp"
    write_dump(src, list(generate_backlog(20, seed=2)))
    ruleset = compile_rules((Path(__file__).parents[2] / "rules" / "demo.rul").read_text()).ruleset
    assert ruleset is not None
    frame = classify(read_messages(spark, [str(src)], record=True), ruleset, catch_all="CATCH")
    key = "spark.sql.maxMetadataStringLength"  # the plan's ReadSchema in full
    saved = spark.conf.get(key)
    spark.conf.set(key, "100000")
    try:
        plan = frame._jdf.queryExecution().executedPlan().toString()
    finally:
        spark.conf.set(key, saved)
    assert "Python" not in plan
    schema = plan.split("ReadSchema: ", 1)[1].split("\n", 1)[0]
    assert "record:binary" in schema
    assert "body" not in schema


def test_a_file_that_is_not_a_dump_is_a_dump_format_error(spark: Any, tmp_path: Path) -> None:
    """A file without a dmpmqmsg header given to the drain: a DumpFormatError naming the
    file and line 1 (the CLI's exit 2), not a failed Spark job."""
    src = tmp_path / "notes.dmp"
    src.write_bytes(b"hello\nworld\n")
    ruleset = compile_rules(_FWD_ALL).ruleset
    assert ruleset is not None
    with pytest.raises(DumpFormatError) as caught:
        run_drain(spark, ruleset, DrainConfig(output=tmp_path / "out", inputs=(str(src),)))
    assert "notes.dmp" in str(caught.value)
    assert caught.value.line == 1
    assert "not a dmpmqmsg file" in str(caught.value) or "header" in str(caught.value)


def test_a_crlf_dump_is_copied_with_its_line_ends(spark: Any, tmp_path: Path) -> None:
    """A dump with CRLF line ends, every message forwarded as it is: the output file is
    the input byte for byte, its header with CRLF line ends too."""
    plain = tmp_path / "plain.dmp"
    write_dump(plain, list(generate_backlog(40, seed=4)))
    src = tmp_path / "crlf.dmp"
    src.write_bytes(plain.read_bytes().replace(b"\n", b"\r\n"))
    ruleset = compile_rules(_FWD_ALL).ruleset
    assert ruleset is not None
    out = tmp_path / "out"
    run_drain(
        spark,
        ruleset,
        DrainConfig(output=out, inputs=(str(src),), split_bytes=2048, catch_all="ALL.Q"),
    )
    written = (out / "q-ALL.Q@LOCAL.dmp").read_bytes()
    head, body = written.split(b"\r\n\r\n", 1)
    assert b"\n" not in head.replace(b"\r\n", b"")
    assert body == src.read_bytes().split(b"\r\n\r\n", 1)[1]
