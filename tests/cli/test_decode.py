"""`dlqhandler decode FILE`: one line per message, JSON lines, limits, clear errors."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.formats.dump_writer import DumpWriter
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.mq.rfh2 import MQRFH2, encode_rfh2, folders_of

ROOT = Path(__file__).resolve().parents[2]
BACKLOG = ROOT / "samples" / "backlog-small.dmp"
DLQHANDLER = Path(sys.executable).with_name("dlqhandler")


def test_console_script_decodes_the_shipped_backlog() -> None:
    """The installed command prints one line per message (200) and exits 0."""
    result = subprocess.run(
        [str(DLQHANDLER), "decode", str(BACKLOG)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 200
    first = lines[0].split()
    assert first[0] == "1"
    assert len(first[1]) == 48  # MsgId in hex
    assert first[2].startswith(("MQRC_", "MQFB_"))
    assert "@" in first[3]
    assert any("no valid MQDLH: MQMD Format is 'MQSTR'" in line for line in lines)


def test_text_lines_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    """In process: index, MsgId, reason, DestQName@DestQMgrName, Format, persistence, length."""
    assert main(["decode", str(BACKLOG), "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    index, msgid, reason, dest, fmt, persistence, length = lines[0].split()
    assert (index, msgid) == ("1", "414D5120514D31202020202020202020E7AC3686B74C0400")
    assert (reason, dest, fmt) == ("MQRC_UNKNOWN_REMOTE_Q_MGR", "APP.ORDERS@DDDD.QM9", "MQSTR")
    assert persistence in ("PERSISTENT", "NOT_PERSISTENT")
    assert int(length) > 172


def test_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    """--format json prints one object per message; non-DLH messages carry 'error'."""
    assert main(["decode", str(BACKLOG), "--format", "json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["index"] for row in rows] == list(range(1, 201))
    with_dlh = [row for row in rows if "error" not in row]
    assert {row["reason_name"] for row in with_dlh} >= {
        "MQRC_Q_FULL",
        "MQRC_PUT_INHIBITED",
        "MQRC_UNKNOWN_OBJECT_NAME",
        "MQRC_NOT_AUTHORIZED",
        "MQRC_MSG_TOO_BIG_FOR_Q",
        "MQRC_UNKNOWN_REMOTE_Q_MGR",
    }
    assert all(
        set(row) - {"properties", "properties_error"}
        == {
            "index",
            "msg_id",
            "reason",
            "reason_name",
            "dest_q_name",
            "dest_q_mgr_name",
            "format",
            "persistence",
            "length",
        }
        for row in with_dlh
    )
    assert any(row["error"].startswith("MQMD Format is") for row in rows if "error" in row)


def test_bad_file_exits_2_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DumpFormatError prints 'FILE:LINE: what was expected' on stderr and exits 2."""
    bad = tmp_path / "bad.dmp"
    bad.write_text("* DMPMQMSG Version:9.4\n\nA PRI 1\nX 0G\n")
    assert main(["decode", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:4: message 1: badly formed hex data" in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An unreadable file is a usage error (exit 2) with the OS reason."""
    assert main(["decode", str(tmp_path / "nope.dmp")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_console_script_reports_a_bad_file() -> None:
    """End to end: a non-dump file gives exit 2 and the header complaint on stderr."""
    result = subprocess.run(
        [str(DLQHANDLER), "decode", str(ROOT / "samples" / "demo.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert "demo.py:1: not a dmpmqmsg file" in result.stderr


def test_json_shows_the_properties_of_an_mqrfh2_behind_the_mqdlh(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """JMS dead letters (MQDLH Format MQHRF2) show their properties by name, type and
    value, little- and big-endian alike (the generator writes each MQRFH2 in its
    message's Encoding)."""
    assert main(["decode", str(BACKLOG), "--format", "json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    jms = [row for row in rows if row.get("format") == "MQHRF2"]
    assert jms, "the shipped backlog has JMS messages"
    assert [row.get("properties_error") for row in jms] == [None] * len(jms)
    for row in jms:
        props = row["properties"]
        assert props["mcd.Msd"]["type"] == "string"
        assert props["jms.Dst"]["value"].startswith("queue:///")
    assert all("properties" not in row for row in rows if row.get("format") != "MQHRF2")


def test_json_names_what_is_wrong_with_a_damaged_mqrfh2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An MQRFH2 whose StrucLength runs past the data: the message is still described,
    with a properties_error that names the MQRFH2 and where in the message data."""
    rfh2 = struct.pack("<4siiii8sii", b"RFH ", 2, 4000, 546, 1208, b"MQSTR   ", 0, 1208)
    original = MQMD(
        format="MQHRF2",
        encoding=546,
        coded_char_set_id=1208,
        msg_id=b"DAMAGED-RFH2".ljust(24, b"\0"),
    )
    dump = tmp_path / "damaged.dmp"
    with dump.open("wb") as out, DumpWriter(out, qmgr="QM1", queue="DLQ") as writer:
        writer.write(
            Message.dead_letter(
                original, rfh2 + b"{}", reason=2053, dest_q_name="APP.Q", dest_q_mgr_name="QM1"
            )
        )
    assert main(["decode", str(dump), "--format", "json"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["format"] == "MQHRF2"
    assert row["reason_name"] == "MQRC_Q_FULL"
    assert "MQRFH2" in row["properties_error"]
    assert "of the message data" in row["properties_error"]
    assert "properties" not in row


def test_a_dead_letter_with_the_mqrfh2_in_front_shows_its_mqdlh_and_properties(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A message unloaded from a PROPCTL(FORCE) DLQ (MQMD Format MQHRF2, the MQRFH2's
    Format MQDEAD): decode shows the MQDLH behind the header, the header's properties
    and rfh2_in_front; one whose MQRFH2 in front is damaged is an error naming the
    header, the fault and its byte."""
    props = (
        Property("jms.Dst", PropertyType.STRING, "queue:///APP.IN"),
        Property("Items", PropertyType.INT32, 7),
    )
    original = MQMD(
        format="MQSTR", encoding=546, coded_char_set_id=1208, msg_id=b"FORCED".ljust(24, b"\0")
    )
    dead = Message.dead_letter(
        original, b"{}", reason=2053, dest_q_name="APP.IN", dest_q_mgr_name="QM1"
    )
    header = encode_rfh2(
        MQRFH2(546, 1208, "MQDEAD", folders=folders_of(props)), encoding=546, ccsid=1208
    )
    damaged = struct.pack("<4siiii8sii", b"RFH ", 2, 4000, 546, 1208, b"MQDEAD  ", 0, 1208)
    md = dead.md.replace(format="MQHRF2")
    dump = tmp_path / "forced.dmp"
    with dump.open("wb") as out, DumpWriter(out, qmgr="QM1", queue="DLQ") as writer:
        writer.write(Message(md, header + dead.body))
        writer.write(Message(md.replace(msg_id=b"DAMAGED".ljust(24, b"\0")), damaged + dead.body))
    assert main(["decode", str(dump), "--format", "json"]) == 0
    forced, broken = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert (forced["reason_name"], forced["dest_q_name"], forced["format"]) == (
        "MQRC_Q_FULL",
        "APP.IN",
        "MQSTR",
    )
    assert forced["rfh2_in_front"] is True
    assert forced["properties"] == {
        "jms.Dst": {"type": "string", "value": "queue:///APP.IN"},
        "Items": {"type": "i4", "value": 7},
    }
    assert forced["length"] == len(header + dead.body)
    assert "MQMD Format is 'MQHRF2'" in broken["error"]
    assert "bad StrucLength 4000" in broken["error"]
    assert "reason_name" not in broken
    assert main(["decode", str(dump)]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert "MQRC_Q_FULL" in first
    assert "APP.IN@QM1" in first
    assert "no valid MQDLH: MQMD Format is 'MQHRF2'" in second
