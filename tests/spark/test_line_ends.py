"""Line ends in dmpmqmsg files: the Python reader (``dlqhandler/formats``) and the Spark
data source (``dlqhandler/spark/jvm``) read every variant alike, and what the data source
writes the Python reader reads (issue 33, class 4).

The rule both follow (README, "dmpmqmsg files"): IBM's dmpmqmsg writes its file with C
stdio in text mode, so its lines end with LF on UNIX and CR LF on Windows (and ``-a b``
opens it in binary mode). So a line ends at LF; a CR just before the LF is part of the
line end, and so is a CR that is the very last byte of the file (a CR LF file cut before
its last LF). A CR anywhere else is a byte of its line, as IBM's UNIX reader takes it: a
file whose lines end with a CR alone is one line, refused at its header by both readers
with words that name CR-only line ends.

* a differential test over line-end variants (LF, CR LF, mixed, a lone CR at the end,
  lone-CR lines, CR CR LF, CR-only, a file cut with and without a final CR, a stray CR in
  a value or in the header), in every data mode, at two split sizes and through a pipe:
  the same messages, and the same first error (line, message and words), or the same
  refusal of the whole file; each variant also has its expected outcome by the rule;
* each variant the readers accept, written back through the data source's writer: the
  Python reader reads the file written, and it holds the same messages.
"""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.errors import DumpFormatError
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import connect

pytestmark = pytest.mark.spark

MD_NAMES = [f.name for f in dataclasses.fields(MQMD)]
HEADER = "* DMPMQMSG Version:9.4 Created:Thu Nov 21 10:15:34 2024\n"
CUT = "the file is cut off"
CR_ONLY = "this line holds a CR that is not a line end: the lines of this file end with a CR alone"
ALL = "all"  # every message of the base file, unchanged
REFUSED_WHOLE = {
    "cr-only",
    "cr-only-after-lf-header",
    "stray-cr-in-header",
    "cr-cr-lf-everywhere",
}


def _messages() -> list[Message]:
    return [
        Message(
            MQMD(
                msg_id=f"LINEEND{i:02d}".encode().ljust(24, b"\0"),
                format="MQSTR",
                put_appl_name=f"app{i}",
            ),
            b"".join(f"line {k} of message {i}\n".encode() for k in range(i + 1)) + b"end",
        )
        for i in range(4)
    ]


def _last(data: bytes) -> int:
    """Where the base file's last message begins."""
    return data.rindex(b"\n\nA VER") + 2


def _start(data: bytes, n: int) -> int:
    """Where the base file's message ``n`` (from 1) begins."""
    at = 0
    for _ in range(n):
        at = data.index(b"\n\nA VER", at) + 2
    return at


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def _mixed(data: bytes) -> bytes:
    lines = data.split(b"\n")
    return (
        b"".join(line + (b"\r\n" if i % 2 else b"\n") for i, line in enumerate(lines[:-1]))
        + lines[-1]
    )


# name -> (transform of the base file's bytes, expected outcome by the rule: ALL, or the
# words of the first error, or (n, words): n messages, then that error)
VARIANTS: dict[str, tuple[Any, Any]] = {
    "lf": (lambda b: b, ALL),
    "crlf": (_crlf, ALL),
    "crlf-then-lone-cr": (lambda b: _crlf(b) + b"\r", ALL),
    "lf-then-lone-cr": (lambda b: b + b"\r", ALL),
    "crlf-last-lf-missing": (lambda b: _crlf(b)[:-1], ALL),
    "mixed-lf-and-crlf": (_mixed, ALL),
    "lone-cr-empty-lines": (lambda b: b.replace(b"\n\n", b"\n\r\n\r\n"), ALL),
    "cr-inside-a-value": (lambda b: b.replace(b"A PAN app1", b"A PAN a\rp1", 1), "cr-value"),
    "cr-cr-lf-on-a-value": (lambda b: b.replace(b"A PAN app1", b"A PAN app1\r", 1), "cr-value"),
    "cr-cr-lf-everywhere": (lambda b: b.replace(b"\n", b"\r\r\n"), CR_ONLY),
    "cr-only": (lambda b: b.replace(b"\n", b"\r"), CR_ONLY),
    "cr-only-after-lf-header": (
        lambda b: b[: b.index(b"\n") + 1] + b[b.index(b"\n") + 1 :].replace(b"\n", b"\r"),
        CR_ONLY,
    ),
    "cr-only-last-message": (
        lambda b: b[: _last(b)] + b[_last(b) :].replace(b"\n", b"\r"),
        (3, "A VER: expected a signed 32-bit decimal integer, found '2\\rA RPT"),
    ),
    "comment-holding-a-cr": (  # after message 2's data lines: message 2 is not read
        lambda b: b[: _start(b, 3)] + b"* a note\rand more\n" + b[_start(b, 3) :],
        (1, CR_ONLY),
    ),
    "stray-cr-in-header": (lambda b: b.replace(b"\n", b"\r\r\n", 1), CR_ONLY),
    "cut-no-line-end": (lambda b: b.rstrip(b"\n"), (3, f"{CUT} in the middle of this line")),
    "cut-lone-cr": (lambda b: b.rstrip(b"\n") + b"\r", (3, f"{CUT} after this data line")),
    "cut-crlf": (lambda b: _crlf(b.rstrip(b"\n")) + b"\r\n", (3, f"{CUT} after this data line")),
}


class _Pipe(io.RawIOBase):
    """The bytes as a stream that cannot seek (a pipe): the reader counts as it goes."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _key(md: Any) -> tuple[Any, ...]:
    return tuple(bytes(v) if isinstance(v, bytearray) else v for v in md)


def _python(path: Path, *, pipe: bool) -> tuple[list[tuple[Any, ...]], str | None]:
    """The messages the Python reader yields and its error after the file name (None)."""
    source: Any = io.BufferedReader(_Pipe(path.read_bytes())) if pipe else path
    got: list[tuple[Any, ...]] = []
    try:
        for m in read_dump(source, name=str(path)):
            got.append((*_key(getattr(m.md, n) for n in MD_NAMES), m.body))
    except DumpFormatError as exc:
        return got, str(exc)[len(str(path)) :]
    return got, None


def _java(spark: Any, paths: list[Path]) -> dict[str, tuple[list[tuple[Any, ...]], list[str]]]:
    """Per file: its good messages before the first malformed row, and the malformed rows'
    texts after the file name."""
    rows = (
        spark.read.format("dmpmqmsg")
        .load([str(p) for p in paths])
        .orderBy("input_file", "offset")
        .select("input_file", *[f"md_{n}" for n in MD_NAMES], "body", "malformed")
        .collect()
    )
    out: dict[str, tuple[list[tuple[Any, ...]], list[str]]] = {p.name: ([], []) for p in paths}
    for r in rows:
        name = r["input_file"].rsplit("/", 1)[1]
        good, bad = out[name]
        if r["malformed"] is not None:
            bad.append(r["malformed"].split(name, 1)[1])
        elif not bad:
            good.append((*_key(r[f"md_{n}"] for n in MD_NAMES), bytes(r["body"])))
    return out


def _java_refuses(spark: Any, path: Path) -> str:
    """The data source's refusal of the whole file: its words after the file name."""
    from py4j.protocol import Py4JJavaError

    with pytest.raises(Py4JJavaError) as failed:
        spark.read.format("dmpmqmsg").load(str(path)).count()
    text = str(failed.value)
    at = text.index(path.name + ":")
    return text[at + len(path.name) :].split("\n", 1)[0]


def _variants(tmp_path: Path) -> dict[str, tuple[Path, Any, list[tuple[Any, ...]]]]:
    """Every variant of every data mode: its file, expected outcome, the base's messages."""
    files = {}
    for mode in ("hex", "A", "t"):
        base = tmp_path / f"base-{mode}.dmp"
        write_dump(base, _messages(), qmgr="QM1", queue="DLQ", mode=mode)  # type: ignore[arg-type]
        data = base.read_bytes()
        expected_messages, error = _python(base, pipe=False)
        assert error is None
        assert len(expected_messages) == 4
        for name, (transform, expected) in VARIANTS.items():
            path = tmp_path / f"{name}-{mode}.dmp"
            path.write_bytes(transform(data))
            files[path.name] = (path, expected, expected_messages)
    return files


def _check_expected(
    name: str, expected: Any, got: list[tuple[Any, ...]], error: str | None, base: list[Any]
) -> None:
    """The outcome the rule gives, written out per variant (not taken from a reader)."""
    pan = MD_NAMES.index("put_appl_name")
    if expected == ALL:
        assert (got, error) == (base, None), name
    elif expected == "cr-value":  # the CR is a byte of the value, as IBM's UNIX reader has it
        assert error is None, name
        assert [m[pan] for m in got] == ["app0", got[1][pan], "app2", "app3"], name
        assert got[1][pan] in ("a\rp1", "app1\r"), name
        assert [m[:pan] + m[pan + 1 :] for m in got] == [m[:pan] + m[pan + 1 :] for m in base]
    elif isinstance(expected, tuple):
        count, words = expected
        assert got == base[:count], name
        assert error is not None
        assert words in error, (name, error)
        assert f": message {count + 1}: " in error, (name, error)
    else:
        assert got == [], name
        assert error is not None
        assert expected in error, (name, error)


def test_both_readers_agree_on_every_line_end(spark: Any, tmp_path: Path) -> None:
    """Every line-end variant in every data mode: the Python reader (from a file and
    through a pipe) and the data source (one split per file, and 64-byte splits) give the
    same messages and the same first error, naming the same line and message; a file
    refused whole (CR-only line ends, a stray CR in the header) is refused by both with
    the same words; and each outcome is the rule's, written out per variant."""
    files = _variants(tmp_path)
    python = {name: _python(path, pipe=False) for name, (path, _e, _b) in files.items()}
    for name, (path, expected, base) in files.items():
        got, error = python[name]
        assert _python(path, pipe=True) == (got, error), name
        _check_expected(name, expected, got, error, base)
    # refused whole (before any message): the data source fails the read, naming the line
    refused = {name for name in files if name.rsplit("-", 1)[0] in REFUSED_WHOLE}
    assert len(refused) == 3 * len(REFUSED_WHOLE)
    for name in sorted(refused):
        assert _java_refuses(spark, files[name][0]) == python[name][1], name
    readable = [files[name][0] for name in sorted(files) if name not in refused]
    for size in (None, 64):
        if size is not None:
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(size))
        try:
            java = _java(spark, readable)
        finally:
            spark.conf.unset("spark.sql.files.maxPartitionBytes")
        for path in readable:
            got, error = python[path.name]
            good, bad = java[path.name]
            assert good == got, (path.name, size)
            if error is None:
                assert bad == [], (path.name, size)
            else:
                assert bad, (path.name, size)
                assert bad[0] == error, (path.name, size, bad, error)


def test_what_the_data_source_writes_the_python_reader_reads(spark: Any, tmp_path: Path) -> None:
    """Each variant both readers accept (a lone CR at the end, CR LF without its last
    LF, mixed, lone-CR empty lines...), every good row written back through the data
    source's writer: the Python reader reads the file written without error, and it holds
    the same messages in the same order (a lone CR at the end used to become CR CR LF,
    "found '\\r'")."""
    from pyspark.sql import functions as F

    files = _variants(tmp_path)
    wanted = {}
    for name, (path, _expected, _base) in files.items():
        got, error = _python(path, pipe=False)
        if got and error is None:
            wanted[name] = got
    assert len(wanted) == 3 * 9
    out = tmp_path / "out"
    (
        spark.read.format("dmpmqmsg")
        .load([str(files[name][0]) for name in sorted(wanted)])
        .filter("malformed is null")
        .withColumn("target", F.regexp_extract("input_file", r"([^/]+)\.dmp$", 1))
        .repartition("target")
        .sortWithinPartitions("offset")
        .write.format("dmpmqmsg")
        .option("header", HEADER)
        .partitionBy("target")
        .save(str(out))
    )
    for name, messages in wanted.items():
        (part,) = (out / f"target={name[: -len('.dmp')]}").glob("part-*.dmp")
        assert _python(part, pipe=False) == (messages, None), name


def test_drain_of_a_crlf_dump_ending_in_a_stray_cr_writes_what_decode_and_load_read(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 33's reproduction: the sample backlog with CR LF line ends and a stray CR at
    the end. The drain reads all 200 (0 malformed, exit 0) and every file it writes is
    read by ``decode`` (exit 0) and loaded by ``qm dmpmqmsg -o`` (exit 0, the queue's depth
    the file's count); every message is in one file or discarded (it wrote the catch-all
    file as CR CR LF, which both refused, "found '\\r'"). The same backlog with CR-only
    line ends is refused by drain, decode and the load alike, naming CR-only line ends."""
    from tests.spark.drain_helpers import DEMO_RULES, assert_conserved

    sample = Path(__file__).resolve().parents[2] / "samples" / "backlog-small.dmp"
    src = tmp_path / "c.dmp"
    src.write_bytes(_crlf(sample.read_bytes()) + b"\r")
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(DEMO_RULES), "--input", str(src), "--output", str(out)]
    assert cli_main(argv) == 0
    stdout = capsys.readouterr().out
    assert "Drain (offline): 200 messages" in stdout
    assert re.search(r"\n  malformed +0\n", stdout), stdout
    assert_conserved(list(read_dump(sample)), out)
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    assert cli_main(["qm", "create", "QM1"]) == 0
    capsys.readouterr()
    files = sorted(out.glob("*.dmp"))
    assert len(files) > 3
    for i, path in enumerate(files):
        assert cli_main(["decode", str(path)]) == 0, path.name
        count = len(list(read_dump(path)))
        assert len(capsys.readouterr().out.splitlines()) == count  # a row per message
        queue = f"LOADED.{i}"
        with connect("QM1") as qm:
            qm.admin().define_queue(queue, {"MAXDEPTH": 1000})
        assert cli_main(["qm", "dmpmqmsg", "-m", "QM1", "-o", queue, "-f", str(path)]) == 0
        assert re.search(rf"Written - Files: +0  Messages: +{count} ", capsys.readouterr().err)
        with connect("QM1") as qm:
            assert qm.inquire_queue(queue).curdepth == count, path.name

    cr_only = tmp_path / "cr.dmp"
    cr_only.write_bytes(sample.read_bytes().replace(b"\n", b"\r"))
    argv = ["drain", "--rules", str(DEMO_RULES), "--input", str(cr_only), "--output", str(out)]
    assert cli_main([*argv[:-1], str(tmp_path / "out-cr")]) == 2
    assert f"cr.dmp:1: {CR_ONLY}" in capsys.readouterr().err
    assert not (tmp_path / "out-cr" / "manifest.json").exists()
    assert cli_main(["decode", str(cr_only)]) == 2
    assert f"cr.dmp:1: {CR_ONLY}" in capsys.readouterr().err
    assert cli_main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "LOADED.0", "-f", str(cr_only)]) == 6
    assert f"cr.dmp:1: {CR_ONLY}" in capsys.readouterr().err
