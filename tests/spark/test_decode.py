"""The JVM decode and the malformed-record path of the drain: bad records stay with a
located reason and never crash the job; rows without an MQDLH are decoded in the JVM
too; records written by Spark are byte-identical to DumpWriter's."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import DumpWriter, read_dump, write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.rules import compile_rules
from dlqhandler.spark.drain.job import DrainConfig, run_drain

pytestmark = pytest.mark.spark


def _record(msg: Message) -> bytes:
    buf = io.BytesIO()
    DumpWriter(buf, header=False).write(msg)
    return buf.getvalue()


def _dl(i: int, payload: bytes = b"payload") -> Message:
    md = MQMD(format="MQSTR", msg_id=i.to_bytes(24, "big"))
    return Message.dead_letter(md, payload, reason=2053, dest_q_name="APP.X")


def test_malformed_records_stay_with_a_located_reason(spark: Any, tmp_path: Path) -> None:
    """Bad hex, a missing data line and a file cut mid-record: those three stay
    (remaining, counted as malformed, reason with file, line and message number), the
    good messages are all delivered, and nothing of the cut-off message is."""
    good = [_dl(i) for i in range(1, 5)]
    bad_hex = _record(_dl(90)).replace(b"X 444C48", b"X 4Z4C48")
    no_data = b"".join(
        line for line in _record(_dl(91)).splitlines(keepends=True) if not line.startswith(b"X ")
    )
    head = io.BytesIO()
    DumpWriter(head).close()
    text = (
        head.getvalue()
        + _record(good[0])
        + bad_hex
        + _record(good[1])
        + no_data
        + _record(good[2])
        + _record(good[3])
        + _record(_dl(92))[:-40]
    )
    src = tmp_path / "in.dmp"
    src.write_bytes(text)
    ruleset = compile_rules("ACTION(FWD) FWDQ(OUT.Q) HEADER(YES)\n").ruleset
    assert ruleset is not None
    out = tmp_path / "out"
    result = run_drain(
        spark, ruleset, DrainConfig(output=out, inputs=(str(src),), split_bytes=1 << 10)
    )
    totals = result.summary["totals"]
    assert (totals["messages"], totals["malformed"], totals["remaining"], totals["forwarded"]) == (
        7,
        3,
        3,
        4,
    )
    delivered = list(read_dump(out / "q-OUT.Q@LOCAL.dmp"))
    assert [m.md.msg_id for m in delivered] == [m.md.msg_id for m in good]
    assert [m.body for m in delivered] == [m.body for m in good]
    audit = spark.read.parquet(str(out / "audit")).filter("error IS NOT NULL").collect()
    reasons = sorted(r["error"] for r in audit)
    lines = text.decode("latin-1").split("\n")
    assert len(reasons) == 3
    for reason in reasons:
        assert reason.startswith(f"{src}, line ")
    by_number = {int(r.split("message ")[1].split(":")[0]): r for r in reasons}
    assert set(by_number) == {2, 4, 7}
    bad_line = int(by_number[2].split("line ")[1].split(",")[0])
    assert lines[bad_line - 1].startswith("X 4Z4C48")
    assert "cut off" in by_number[7]
    cut_line = int(by_number[7].split("line ")[1].split(",")[0])
    assert lines[cut_line - 1].startswith("A VER 2")
    assert not (out / "remaining.dmp").exists() or not list(read_dump(out / "remaining.dmp"))


def test_no_row_takes_a_python_path_and_outputs_match_dumpwriter(
    spark: Any, tmp_path: Path
) -> None:
    """A generated backlog (EBCDIC, big-endian and no-MQDLH messages among them): the
    data source decodes every record in the JVM, those without an MQDLH too (none is
    decoded in Python); every output message written by Spark is byte-identical to
    what DumpWriter writes for it."""
    messages = list(generate_backlog(400, seed=3))
    src = tmp_path / "in.dmp"
    write_dump(src, messages)
    ruleset = compile_rules("ACTION(FWD) FWDQ(ALL.Q) HEADER(YES)\n").ruleset
    assert ruleset is not None
    out = tmp_path / "out"
    result = run_drain(
        spark, ruleset, DrainConfig(output=out, inputs=(str(src),), catch_all="CATCH")
    )
    python_rows = result.summary["totals"]["decoded_in_python"]
    ebcdic = sum(1 for m in messages if m.md.coded_char_set_id in (37, 500, 1047))
    no_dlh = sum(1 for m in messages if not m.body.startswith((b"DLH ", b"\xc4\xd3\xc8\x40")))
    assert ebcdic > 0
    assert no_dlh > 0
    assert result.summary["decoder"] == "jvm"
    assert python_rows == 0
    assert result.summary["totals"]["no_dlh"] == no_dlh
    written = (out / "q-ALL.Q@LOCAL.dmp").read_bytes()
    catch = out / "q-CATCH@LOCAL.dmp"
    body = written.split(b"\n\n", 1)[1]
    if catch.exists():
        body += catch.read_bytes().split(b"\n\n", 1)[1]
    expected = {m.md.msg_id: _record(m) for m in messages}
    records = [r + b"\n\n" for r in body.split(b"\n\n") if r]
    assert len(records) == len(messages)
    for rec in records:
        msg = next(read_dump(io.BytesIO(b"* DMPMQMSG\n" + rec)))
        assert rec == expected[msg.md.msg_id]
    assert json.loads((out / "summary.json").read_text())["totals"]["malformed"] == 0


def test_cli_drain_of_a_cut_off_dump_names_the_message_and_exits_partial(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dlqhandler drain` of the shipped sample cut off mid-line (`head -c 20010`): exit 6
    (PARTIAL), stderr names the file, the line and the message number of the cut-off
    message, and no output file holds any of it - only the 14 whole messages before it."""
    from dlqhandler.cli import main as cli_main

    root = Path(__file__).resolve().parents[2]
    sample = root / "samples" / "backlog-small.dmp"
    whole = list(read_dump(sample))
    src = tmp_path / "t.dmp"
    src.write_bytes(sample.read_bytes()[:20010])
    rules = tmp_path / "r.rul"
    rules.write_text("ACTION(FWD) FWDQ(ALL.Q) HEADER(YES)\n", encoding="utf-8")
    out = tmp_path / "out"
    code = cli_main(
        [
            "drain",
            "--rules",
            str(rules),
            "--input",
            str(src),
            "--output",
            str(out),
            "--catch-all",
            "CATCH",
        ]
    )
    err = capsys.readouterr().err
    assert code == 6
    assert str(src) in err
    assert ", line " in err
    assert "message 15" in err
    delivered = [m for f in sorted(out.glob("q-*.dmp")) for m in read_dump(f)]
    assert sorted(m.md.msg_id for m in delivered) == sorted(m.md.msg_id for m in whole[:14])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["totals"]["malformed"] == 1
