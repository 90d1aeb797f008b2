"""dmpmqmsg files in IBM's exact layout (dmpmqmsg-format.md sections 2, 3 and 7)."""

from __future__ import annotations

import io
from datetime import datetime
from pathlib import Path

import pytest

from dlqhandler.formats.dmpmqmsg import DumpWriter, format_ctime, read_dump, write_dump
from dlqhandler.mq import MQMD, Message

# Section 7.1, line by line; trailing blanks are built explicitly so no editor eats them.
SPEC_7_1_LINES = [
    "* DMPMQMSG Version:9.4 Created:Thu Nov 21 10:15:40 2024",
    "* Qmgr  = QM1",
    "* Queue = APP.IN",
    "",
    "A VER 2",
    "A RPT 0",
    "A MST 8",
    "A EXP -1",
    "A FDB 0",
    "A ENC 546",
    "A CCS 1208",
    "A FMT " + "MQSTR".ljust(8),
    "A PRI 0",
    "A PER 1",
    "A MSI 414D5120514D312020202020202020206A2F3E6501230040",
    "A COI " + "0" * 48,
    "A BOC 0",
    "A RTQ " + " " * 48,
    "A RTM " + "QM1".ljust(48),
    "A USR " + "mqm".ljust(12),
    "A ACC 16010515" + "0" * 56,
    "A AIX " + "20" * 32,
    "A PAT 13",
    "A PAN " + "amqsput".ljust(28),
    "A PTD 20241121",
    "A PTT 10153412",
    "A AOX 20202020",
    "A GRP " + "0" * 48,
    "A MSQ 1",
    "A OFF 0",
    "A MSF 0",
    "A ORL -1",
    "X 48656C6C6F2066726F6D206120646D706D716D73672D737479",
    "X 6C652064756D702C2074686973206D65737361676520697320",
    "X 36302062797465732E",
    "",
]
SPEC_7_1 = "".join(line + "\n" for line in SPEC_7_1_LINES).encode("ascii")
SPEC_7_1_MD = MQMD(
    version=2,
    msg_type=8,
    expiry=-1,
    encoding=546,
    coded_char_set_id=1208,
    format="MQSTR",
    priority=0,
    persistence=1,
    msg_id=bytes.fromhex("414D5120514D312020202020202020206A2F3E6501230040"),
    reply_to_q_mgr="QM1",
    user_identifier="mqm",
    accounting_token=bytes.fromhex("16010515") + bytes(28),
    put_appl_type=13,
    put_appl_name="amqsput",
    put_date="20241121",
    put_time="10153412",
)
SPEC_7_1_BODY = b"Hello from a dmpmqmsg-style dump, this message is 60 bytes."
CREATED = datetime(2024, 11, 21, 10, 15, 40)

# Section 7.2: the 33-byte message and its body lines in each mode.
MSG_7_2 = b'Hello, "World"!\r\nline two ~ end\x00\x01'
DA_LINES = [
    "X 48656C6C6F2C2022576F726C6422210D0A6C696E652074776F" + "  " + '<Hello, "World"!..line two>',
    "X 207E20656E640001" + "  " * 18 + "< ~ end..>",
]
DCAP_A_LINES = [
    'S "Hello, "',
    "X 22",
    'S "World"',
    "X 22210D0A",
    'S "line two "',
    "X 7E",
    'S " end"',
    "X 0001",
]
DP_LINES = ['S "Hello, ~"World~"!"', "X 0D0A", 'S "line two ~~ end"', "X 0001"]


def _dump(*messages: list[str], header: str = "* DMPMQMSG Version:9.4 Created:x") -> bytes:
    lines = [header, ""]
    for message in messages:
        lines += [*message, ""]
    return "".join(line + "\n" for line in lines).encode("latin-1")


def _read(data: bytes) -> list[Message]:
    return list(read_dump(io.BytesIO(data), name="test.dmp"))


def test_spec_7_1_parses_to_its_fields_and_bytes() -> None:
    """The section 7.1 example reads as one message with the MQMD and 59 data bytes shown."""
    (msg,) = _read(SPEC_7_1)
    assert msg.md == SPEC_7_1_MD
    assert msg.body == SPEC_7_1_BODY
    assert msg.dlh is None


def test_writer_reproduces_spec_7_1_byte_for_byte() -> None:
    """DumpWriter writes the section 7.1 text exactly: header, A lines, 25-byte X lines."""
    out = io.BytesIO()
    with DumpWriter(out, qmgr="QM1", queue="APP.IN", created=CREATED) as writer:
        writer.write(Message(SPEC_7_1_MD, SPEC_7_1_BODY))
    assert out.getvalue() == SPEC_7_1
    assert writer.count == 1
    assert writer.bytes_written == len(SPEC_7_1)


def test_spec_7_1_line_lengths() -> None:
    """RTQ lines are 54 characters, ACC lines 70, full X lines 52, as the spec's table says."""
    lines = SPEC_7_1.decode().splitlines()
    assert len(next(x for x in lines if x.startswith("A RTQ"))) == 54
    assert len(next(x for x in lines if x.startswith("A ACC"))) == 70
    assert len(next(x for x in lines if x.startswith("X "))) == 52


@pytest.mark.parametrize(
    "body_lines", [DA_LINES, DCAP_A_LINES, DP_LINES], ids=["-da", "-dA", "-dp"]
)
def test_spec_7_2_body_lines_read_back_the_33_byte_message(body_lines: list[str]) -> None:
    """Each section 7.2 rendering (-da ASCII columns, -dA, -dp) reads as the same 33 bytes."""
    (msg,) = _read(_dump(["A FMT MQSTR", *body_lines]))
    assert msg.body == MSG_7_2
    assert len(msg.body) == 33


@pytest.mark.parametrize(("mode", "expected"), [("A", DCAP_A_LINES), ("p", DP_LINES)])
def test_writer_string_modes_match_spec_7_2(mode: str, expected: list[str]) -> None:
    """The -dA and -dp writers split the 7.2 message into exactly the spec's S/X runs."""
    out = io.BytesIO()
    DumpWriter(out, mode=mode, created=CREATED).write(Message(MQMD(), MSG_7_2))  # type: ignore[arg-type]
    lines = out.getvalue().decode("latin-1").split("\n")
    body = lines[lines.index("A ORL -1") + 1 : -2]
    assert body == expected


def test_s_lines_carry_at_most_two_width_minus_two_bytes() -> None:
    """In -dp mode a long printable run is cut into S lines of 2*w-2 bytes (48 by default)."""
    out = io.BytesIO()
    DumpWriter(out, mode="p", created=CREATED).write(Message(MQMD(), b"a" * 100))
    s_lines = [x for x in out.getvalue().split(b"\n") if x.startswith(b"S ")]
    assert [len(x) - 4 for x in s_lines] == [48, 48, 4]


def test_empty_message_lines_in_each_mode() -> None:
    """An empty body is 'X ' in hex mode, 'S ""' in -dA/-dp, 'T ' in -dt; all read back."""
    expected = {"hex": b"X \n", "A": b'S ""\n', "p": b'S ""\n', "t": b"T \n"}
    for mode, line in expected.items():
        out = io.BytesIO()
        DumpWriter(out, mode=mode, created=CREATED).write(Message(MQMD(), b""))  # type: ignore[arg-type]
        assert out.getvalue().endswith(b"A ORL -1\n" + line + b"\n")
        (msg,) = _read(out.getvalue())
        assert msg.body == (b"\n" if mode == "t" else b"")


def test_text_mode_is_lossy_as_documented() -> None:
    """-dt: LF-terminated text round-trips; CRLF comes back as LF; a final newline is added."""
    cases = {
        b"line one\nline two\n": b"line one\nline two\n",
        b"a\r\nb\n\rc": b"a\nb\nc\n",
        b"no newline": b"no newline\n",
        b"a\x01b\n": b"a\n\x01b\n",
    }
    for body, back in cases.items():
        out = io.BytesIO()
        DumpWriter(out, mode="t", created=CREATED).write(Message(MQMD(), body))
        (msg,) = _read(out.getvalue())
        assert msg.body == back, body


def test_text_mode_lines() -> None:
    """-dt writes one T line per text line and X lines for unprintable runs."""
    out = io.BytesIO()
    DumpWriter(out, mode="t", created=CREATED).write(Message(MQMD(), b"one\n\ntwo\x00\x01"))
    text = out.getvalue().decode()
    assert text.endswith("A ORL -1\nT one\nT \nT two\nX 0001\n\n")


def test_version_1_mqmd_omits_ver_and_group_lines() -> None:
    """A version-1 MQMD is written without VER, GRP, MSQ, OFF, MSF, ORL (reads back as v2)."""
    out = io.BytesIO()
    DumpWriter(out, created=CREATED).write(Message(MQMD(version=1, format="MQSTR"), b"x"))
    codes = [x[2:5] for x in out.getvalue().decode().splitlines() if x.startswith("A ")]
    assert codes == [
        "RPT",
        "MST",
        "EXP",
        "FDB",
        "ENC",
        "CCS",
        "FMT",
        "PRI",
        "PER",
        "MSI",
        "COI",
        "BOC",
        "RTQ",
        "RTM",
        "USR",
        "ACC",
        "AIX",
        "PAT",
        "PAN",
        "PTD",
        "PTT",
        "AOX",
    ]
    (msg,) = _read(out.getvalue())
    assert msg.md == MQMD(version=2, format="MQSTR")


def test_ctx_chars_and_index_options() -> None:
    """ctx_chars writes AID/AOD as text (-dc); index writes '* Index n' lines (-di)."""
    md = MQMD(appl_identity_data="ident", appl_origin_data="org")
    out = io.BytesIO()
    with DumpWriter(out, ctx_chars=True, index=True, created=CREATED) as writer:
        writer.write(Message(md, b"1"))
        writer.write(Message(md, b"2"))
    text = out.getvalue().decode()
    assert "A AID " + "ident".ljust(32) + "\n" in text
    assert "A AOD org \n" in text
    assert "AIX" not in text
    assert "AOX" not in text
    assert "* Index 1\n" in text
    assert "* Index 2\n" in text
    assert [m.md for m in _read(out.getvalue())] == [md, md]


def test_width_follows_dmpmqmsg_rules() -> None:
    """-dw: width <= 0 means 25 and widths below 10 become 10."""
    for width, expected in ((0, 25), (-3, 25), (5, 10), (40, 40)):
        out = io.BytesIO()
        writer = DumpWriter(out, width=width, created=CREATED)
        writer.write(Message(MQMD(), bytes(100)))
        x_line = next(x for x in out.getvalue().split(b"\n") if x.startswith(b"X "))
        assert writer.width == expected
        assert len(x_line) == 2 + 2 * expected


def test_header_ctime_is_space_padded_and_names_are_cut() -> None:
    """Created: is C ctime text; the Qmgr line keeps the name up to the first blank."""
    assert format_ctime(datetime(2024, 11, 1, 9, 5, 3)) == "Fri Nov  1 09:05:03 2024"
    out = io.BytesIO()
    DumpWriter(out, qmgr="QM1 extra", queue="Q" * 60, created=CREATED)
    lines = out.getvalue().decode().split("\n")
    assert lines[1] == "* Qmgr  = QM1"
    assert lines[2] == "* Queue = " + "Q" * 48
    assert lines[3] == ""


def test_reader_features_ibm_writes_or_accepts() -> None:
    """N lines, A lines after N, value-less A lines, partial hex, lowercase hex, S forms, T."""
    data = _dump(
        [
            "N",
            "A PRI 7",
            "A EXP",
            "A RTQ ",
            "A MSI 4142",
            "A COI 6162",
            "T text line",
            "S unquoted text   ",
            "S",
            'S "q"  ignored after the quote',
            "X 6869",
        ],
        header="* QLOAD Version:8.0 Created:Mon Jan  5 10:00:00 2015",
    )
    (msg,) = _read(data)
    assert msg.md == MQMD(priority=7, msg_id=b"AB", correl_id=b"ab")
    assert msg.body == b"text line\nunquoted textqhi"


def test_aix_hex_partial_value_fills_leading_bytes_only() -> None:
    """A short AIX/AOX value overwrites the leading bytes of ApplIdentityData only."""
    (msg,) = _read(_dump(["A AID abcdef", "A AIX 5859", "A AOX 41", "X "]))
    assert msg.md.appl_identity_data == "XYcdef"
    assert msg.md.appl_origin_data == "A"


def test_crlf_comments_blank_lines_and_index_lines_are_tolerated() -> None:
    """CRLF line ends, '*' comments, '* Index' lines and blank lines anywhere are skipped."""
    data = _dump(
        ["* Index 1", "A FMT MQSTR", "", "* a comment", "X 4142", "", "X 43"], ["A PER 1", "X 44"]
    ).replace(b"\n", b"\r\n")
    first, second = _read(data)
    assert (first.md.format, first.body) == ("MQSTR", b"ABC")
    assert (second.md.persistence, second.body) == (1, b"D")


def test_message_ends_at_the_next_attribute_line_without_a_blank() -> None:
    """The blank separator is conventional: an A line right after data starts a new message."""
    data = b"* DMPMQMSG\nA PRI 1\nX 01\nA PRI 2\nX 02\n\n"
    assert [(m.md.priority, m.body) for m in _read(data)] == [(1, b"\x01"), (2, b"\x02")]


def test_write_dump_and_read_dump_by_path(tmp_path: Path) -> None:
    """write_dump writes a file read_dump reads back; the count is returned."""
    path = tmp_path / "out.dmp"
    messages = [Message(MQMD(priority=i), bytes([i]) * i) for i in range(5)]
    assert write_dump(path, messages, qmgr="QM1", created=CREATED) == 5
    assert list(read_dump(path)) == messages
    assert list(read_dump(str(path))) == messages
