"""Every way a dmpmqmsg file can be wrong gives a DumpFormatError naming file and line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dlqhandler.errors import DumpFormatError
from dlqhandler.formats.dmpmqmsg import DumpWriter, read_dump
from dlqhandler.mq import MQMD, Message

HEADER = "* DMPMQMSG Version:9.4 Created:Thu Nov 21 10:15:40 2024"
GOOD = ["A FMT MQSTR", "X 4142", ""]  # a valid message (3 lines)


def _error(lines: list[str], **kw: int) -> DumpFormatError:
    data = "".join(line + "\n" for line in lines).encode("latin-1")
    with pytest.raises(DumpFormatError) as info:
        list(read_dump(io.BytesIO(data), name="bad.dmp", **kw))
    assert info.value.path == "bad.dmp"
    return info.value


# (lines after the header, the 1-based line of the problem, words the message must contain)
CASES = {
    "unknown attribute": (["A XYZ 1", "X 00"], 3, "unrecognised attribute code 'XYZ'"),
    "short attribute line": (["A VE", "X 00"], 3, "too short"),
    "no blank after the code": (["A VERX2", "X 00"], 3, "blanks in columns 2 and 6"),
    "no blank after A": (["AXVER 2", "X 00"], 3, "blanks in columns 2 and 6"),
    "integer garbage": (["A EXP 12ab", "X 00"], 3, "signed 32-bit decimal integer"),
    "integer overflow": (["A EXP 2147483648", "X 00"], 3, "signed 32-bit"),
    "bad version": (["A VER 3", "X 00"], 3, "version must be 1 or 2"),
    "char value too long": (["A FMT MQSTRINGX", "X 00"], 3, "longer than the 8-byte field"),
    "bad hex attribute": (["A MSI 41ZZ", "X 00"], 3, "unexpected character 'Z' in column 9"),
    "odd hex attribute": (["A MSI 414", "X 00"], 3, "odd number of hex digits"),
    "hex attribute too long": (["A AOX 4142434445", "X 00"], 3, "more than the 4-byte field"),
    "bad hex data": ([*GOOD, "A PRI 1", "X 48656Z", ""], 7, "non-hex character 'Z' in column 8"),
    "odd hex data": (["A PRI 1", "X 486", ""], 4, "odd number of hex digits"),
    "unterminated S": (["A PRI 1", 'S "abc', ""], 4, "unterminated S line"),
    "bad escape": (["A PRI 1", 'S "a~b"', ""], 4, "unexpected escape sequence"),
    "escape at end": (["A PRI 1", 'S "a~', ""], 4, "found end of line"),
    "missing data line": (["A PRI 1", "", "N", "X 00"], 5, "found an 'N' line"),
    "missing data line before garbage": (["A PRI 1", "hello"], 4, "found 'hello'"),
    "missing data at end of file": ([*GOOD, "A PRI 1", "A PER 1"], 8, "found end of file"),
    "data before any message": (["X 00", *GOOD], 3, "expected a message ('A' or 'N' line)"),
    "garbage between messages": ([*GOOD, "Q what", *GOOD], 6, "found 'Q what'"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_names_the_line_and_what_was_expected(case: str) -> None:
    """Each malformed line raises DumpFormatError with its line number and the expectation."""
    lines, line, words = CASES[case]
    error = _error([HEADER, "", *lines])
    assert error.line == line, str(error)
    assert words in error.detail
    assert str(error).startswith(f"bad.dmp:{line}: ")


def test_missing_header() -> None:
    """A file that does not start with the header (a -dH file) is rejected at line 1."""
    error = _error(["A PRI 1", "X 00"])
    assert error.line == 1
    assert "expected a '* DMPMQMSG' or '* QLOAD' header line" in error.detail
    assert "-dH" in error.detail


def test_leading_comment_is_not_a_header() -> None:
    """The first non-empty line must be the header itself, not any comment."""
    error = _error(["", "* just a comment", "A PRI 1", "X 00"])
    assert error.line == 2


def test_empty_file() -> None:
    """An empty file (or only blank lines) has no header."""
    error = _error(["", ""])
    assert error.line == 1
    assert "empty file" in error.detail


def test_amqsbcg_output_is_named() -> None:
    """amqsbcg browse output (which IBM's loader also accepts) is refused with advice."""
    error = _error(["AMQSBCG0 - starts here", "****Message descriptor****"])
    assert "amqsbcg browse output is not supported" in error.detail


def test_error_line_is_absolute_when_reading_a_byte_range() -> None:
    """A reader started mid-file still reports the line number counted from the file start."""
    lines = [HEADER, ""] + GOOD * 10 + ["A PRI 1", "X 0G", ""]
    data = "".join(line + "\n" for line in lines).encode()
    start = data.index(b"A FMT", 100)
    with pytest.raises(DumpFormatError) as info:
        list(read_dump(io.BytesIO(data), name="bad.dmp", start=start))
    assert info.value.line == 2 + 30 + 2


def test_file_path_is_named(tmp_path: Path) -> None:
    """Reading by path names the path in the error."""
    path = tmp_path / "x.dmp"
    path.write_bytes(b"hello\n")
    with pytest.raises(DumpFormatError, match=r"x\.dmp:1: "):
        list(read_dump(path))


def test_bad_byte_range_is_a_value_error() -> None:
    """A negative start or an end before start is a programming error (ValueError)."""
    with pytest.raises(ValueError, match="byte range"):
        read_dump(io.BytesIO(b""), start=-1)
    with pytest.raises(ValueError, match="byte range"):
        read_dump(io.BytesIO(b""), start=10, end=5)


@pytest.mark.parametrize(
    ("md", "words"),
    [
        (MQMD(user_identifier="a\nb"), "A USR: 'a\\nb' contains a line break"),
        (MQMD(put_appl_name="€uro"), "A PAN: '€uro' has characters outside ISO-8859-1"),
        (MQMD(format="MQSTRINGS"), "A FMT: 'MQSTRINGS' is longer than 8 bytes"),
        (MQMD(expiry=2**31), "A EXP: 2147483648 is not a 32-bit integer"),
        (MQMD(version=3), "A VER: MQMD version must be 1 or 2, not 3"),
    ],
)
def test_writer_refuses_what_the_format_cannot_carry(md: MQMD, words: str) -> None:
    """The writer raises DumpFormatError (message number, line) rather than write a bad file."""
    out = io.BytesIO()
    writer = DumpWriter(out)
    with pytest.raises(DumpFormatError) as info:
        writer.write(Message(md, b""))
    assert words in info.value.detail
    assert info.value.detail.startswith("message 1: ")
    assert info.value.line > 2
    assert writer.count == 0


def test_writer_rejects_unknown_modes() -> None:
    """Only the dmpmqmsg modes hex, A, p and t exist."""
    with pytest.raises(ValueError, match="mode"):
        DumpWriter(io.BytesIO(), mode="x")  # type: ignore[arg-type]
