"""Property tests for dmpmqmsg files: round trips, byte-range splits, arbitrary input."""

from __future__ import annotations

import io
from datetime import datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dlqhandler.errors import DLQHandlerError
from dlqhandler.formats.dmpmqmsg import DumpWriter, iter_message_offsets, read_dump
from dlqhandler.mq import MQMD, Message
from tests.mq.strategies import mqmds

CREATED = datetime(2024, 11, 21, 10, 15, 40)
# MQMD text the file can carry: ISO-8859-1 (the dump's bytes), no line breaks.
FILE_MQMDS = mqmds(819, exclude="\n\r")
BODIES = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda s: s.encode("utf-8")),
    st.sampled_from((b"", b"~", b'"', b'~"~~""', b"\r\n", b" ", b"X 00\n")),
)
MESSAGES = st.builds(Message, FILE_MQMDS, BODIES)
BYTE_EXACT_MODES = st.sampled_from(("hex", "A", "p"))


def _write(messages: list[Message], **kw: object) -> bytes:
    out = io.BytesIO()
    with DumpWriter(out, created=CREATED, **kw) as writer:  # type: ignore[arg-type]
        for message in messages:
            writer.write(message)
    assert writer.count == len(messages)
    assert writer.bytes_written == len(out.getvalue())
    return out.getvalue()


def _as_read(message: Message) -> Message:
    """What reading gives back: a version-1 MQMD has no VER line, so it reads as version 2."""
    return Message(message.md.replace(version=2), message.body)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(MESSAGES, max_size=6),
    mode=BYTE_EXACT_MODES,
    width=st.integers(1, 80),
    ctx_chars=st.booleans(),
    index=st.booleans(),
    qmgr=st.sampled_from((None, "QM1")),
)
def test_write_then_read_round_trips_byte_for_byte(
    messages: list[Message], mode: str, width: int, ctx_chars: bool, index: bool, qmgr: str | None
) -> None:
    """hex, -dA and -dp files read back the same MQMDs and bodies, byte for byte."""
    data = _write(
        messages,
        mode=mode,
        width=width,
        ctx_chars=ctx_chars,
        index=index,
        qmgr=qmgr,
        queue=qmgr and "SYSTEM.DEAD.LETTER.QUEUE",
    )
    assert list(read_dump(io.BytesIO(data))) == [_as_read(m) for m in messages]


@given(messages=st.lists(MESSAGES, max_size=4), mode=BYTE_EXACT_MODES)
def test_crlf_files_read_the_same(messages: list[Message], mode: str) -> None:
    """A file with Windows line ends (CRLF) reads exactly like the LF file."""
    data = _write(messages, mode=mode)
    assert list(read_dump(io.BytesIO(data.replace(b"\n", b"\r\n")))) == [
        _as_read(m) for m in messages
    ]


@given(
    lines=st.lists(
        st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=80), max_size=6
    )
)
def test_text_mode_round_trips_newline_terminated_printable_text(lines: list[str]) -> None:
    """-dt is byte-exact only for printable text whose lines all end in LF."""
    body = "".join(line + "\n" for line in lines).encode()
    data = _write([Message(MQMD(), body)], mode="t")
    (msg,) = read_dump(io.BytesIO(data))
    assert msg.body == (body or b"\n")


@st.composite
def _split_case(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    messages = draw(
        st.lists(
            st.builds(
                Message,
                st.builds(MQMD, priority=st.integers(0, 9), version=st.sampled_from((1, 2))),
                BODIES,
            ),
            max_size=8,
        )
    )
    data = _write(
        messages,
        mode=draw(BYTE_EXACT_MODES),
        index=draw(st.booleans()),
        width=draw(st.integers(10, 30)),
    )
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    if draw(st.booleans()):  # separators are conventional: blank lines may go
        data = data.replace(b"\n\nA", b"\nA").replace(b"\n\n\nA", b"\nA")
    cuts = sorted(draw(st.lists(st.integers(0, len(data) + 2), max_size=6)))
    return data, cuts


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(case=_split_case())
def test_byte_range_splits_partition_the_file(case: tuple[bytes, list[int]]) -> None:
    """For any split points, read_dump over consecutive ranges yields every message once."""
    data, cuts = case
    whole = list(read_dump(io.BytesIO(data)))
    bounds = [0, *cuts]
    parts: list[Message] = []
    for start, end in zip(bounds, [*cuts, None], strict=True):
        parts += read_dump(io.BytesIO(data), start=start, end=end)
    assert parts == whole


@given(case=_split_case())
def test_message_offsets_point_at_each_message(case: tuple[bytes, list[int]]) -> None:
    """iter_message_offsets gives one offset per message; a 1-byte range there reads it."""
    data, _cuts = case
    whole = list(read_dump(io.BytesIO(data)))
    offsets = list(iter_message_offsets(io.BytesIO(data)))
    assert len(offsets) == len(whole)
    for offset, message in zip(offsets, whole, strict=True):
        assert data[offset : offset + 1] == b"A"
        assert list(read_dump(io.BytesIO(data), start=offset, end=offset + 1)) == [message]


# --- arbitrary input ----------------------------------------------------------------

_LINES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "",
                "*",
                "N",
                "A",
                "A VER 2",
                "A VER 1",
                "A MSI 41",
                "A RTQ Q",
                "X 0",
                "X 00",
                "X 0g",
                "S",
                'S "',
                'S "~',
                'S "a~~"',
                "T",
                "T x",
                "A FMT",
                "A XYZ 1",
                "A EXP -",
                "\r",
                "* Index 1",
            ]
        ),
        st.text(max_size=30),
    ),
    max_size=30,
)


@st.composite
def _damaged_dump(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(("random", "lines", "mutated")))
    if kind == "random":
        return draw(st.binary(max_size=400))
    if kind == "lines":
        head = draw(st.sampled_from(("* DMPMQMSG\n", "* QLOAD x\n", "")))
        return head.encode() + "\n".join(draw(_LINES)).encode("utf-8", "surrogatepass")
    data = bytearray(_write(draw(st.lists(MESSAGES, min_size=1, max_size=3))))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data) - 1))
        data[at : at + draw(st.integers(0, 3))] = draw(st.binary(max_size=3))
    return bytes(data)


@given(data=_damaged_dump(), start=st.integers(0, 50), end=st.none() | st.integers(50, 500))
def test_arbitrary_bytes_raise_only_our_errors(data: bytes, start: int, end: int | None) -> None:
    """Whatever the bytes, reading yields Messages or raises a DLQHandlerError, nothing else."""
    for begin, stop in ((0, None), (start, end)):
        messages: list[Message] = []
        error: DLQHandlerError | None = None
        try:
            messages.extend(read_dump(io.BytesIO(data), start=begin, end=stop))
        except DLQHandlerError as exc:
            error = exc
        assert all(isinstance(m.md, MQMD) and isinstance(m.body, bytes) for m in messages)
        assert error is None or str(error).startswith("<stream>:")
