"""Dumps of dead letters with their message properties in an MQRFH2 in FRONT of the
MQDLH (MQMD Format MQHRF2, the MQRFH2's Format MQDEAD: what a DLQ defined
PROPCTL(FORCE) gives and IBM's dmpmqmsg unloads), valid and damaged, built with the
project's own encoders; and the Python reference of the data source's property columns.
"""

from __future__ import annotations

import contextlib
import random
import struct
from typing import Any

from dlqhandler.errors import DecodeError, MalformedMessageError
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.mq.ccsid import int_order
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import ALL_PROPERTY_FOLDERS, Property, PropertyType
from dlqhandler.mq.rfh2 import MQRFH2, decode_rfh2, encode_rfh2, folders_of

FOLDERS = ALL_PROPERTY_FOLDERS

PROPS = (
    (),
    (Property("usr.Colour", PropertyType.STRING, "red"),),
    (
        Property("mcd.Msd", PropertyType.STRING, "jms_text"),
        Property("jms.Dst", PropertyType.STRING, "queue:///APP.IN"),
        Property("jms.Dlv", PropertyType.INT32, 2),
        Property("Items", PropertyType.INT64, -7),
        Property("Weight", PropertyType.FLOAT32, 1.5),
        Property("Ok", PropertyType.BOOLEAN, True),
        Property("Blob", PropertyType.BYTE_STRING, b"\x00\xff"),
        Property("Nothing", PropertyType.NULL, None),
        Property("Text", PropertyType.STRING, "<a & 'b'> \u20ac \U0001f600"),
    ),
    (Property("mqext.Exp", PropertyType.INT64, 100), Property("grp.x.y", PropertyType.INT8, 1)),
)


def in_front(dead: Message, props: tuple[Property, ...], nv_ccsid: int, inherit: bool) -> Message:
    """``dead`` (a dead letter) got from a PROPCTL(FORCE) DLQ: its properties in an MQRFH2
    in front of the MQDLH, in the MQMD's encoding; NameValueCCSID ``nv_ccsid``."""
    md = dead.md
    header = MQRFH2(
        md.encoding,
        -2 if inherit else md.coded_char_set_id,
        "MQDEAD",
        name_value_ccsid=nv_ccsid,
        folders=folders_of(props),
    )
    data = encode_rfh2(header, encoding=md.encoding, ccsid=md.coded_char_set_id or 819)
    return Message(md.replace(format="MQHRF2"), data + dead.body)


def valid_in_front(count: int, seed: int) -> list[Message]:
    """Dead letters of the mixed backlog (both byte orders, EBCDIC, JMS ones with an
    MQRFH2 behind the MQDLH too), four in five with an MQRFH2 of properties in front:
    UTF-8 and UTF-16 NameValueCCSID, the header's CCSID its own or inherited."""
    out = []
    rng = random.Random(seed)
    for m in generate_backlog(count, seed=seed):
        try:
            decode_dead_letter(m.md, m.body)
        except MalformedMessageError:
            out.append(m)  # no MQDLH: as it is
            continue
        if rng.random() < 0.2:
            out.append(m)  # from a DLQ that is not PROPCTL(FORCE)
            continue
        props = PROPS[rng.randrange(len(PROPS))]
        out.append(in_front(m, props, rng.choice((1208, 1200, 13488)), rng.random() < 0.3))
    return out


def _header(
    folders: list[bytes],
    *,
    enc: int = 546,
    fmt: bytes = b"MQDEAD  ",
    nv: int = 1208,
    length: int | None = None,
    struc: bytes = b"RFH ",
    version: int = 2,
    pad: bool = True,
    ccsid: int = 1208,
) -> bytes:
    order = int_order(enc)
    blob = b""
    for f in folders:
        if pad:
            f += b" " * (-len(f) % 4)
        blob += struct.pack(f"{order}i", len(f)) + f
    head = struct.pack(
        f"{order}4siiii8sii",
        struc,
        version,
        36 + len(blob) if length is None else length,
        enc,
        ccsid,
        fmt,
        0,
        nv,
    )
    return head + blob


FOLDER_CASES: tuple[bytes, ...] = (
    b"<usr><a dt='i4'>x</a></usr>",
    b"<usr><a dt='i9'>1</a></usr>",
    b"<usr><a>1</b></usr>",
    b"<usr>text</usr>",
    b"<usr><a xsi:nil='false'></a></usr>",
    b"<usr><a xsi:nil='true'>1</a></usr>",
    b"<usr><a>&bogus;</a></usr>",
    b"<usr><a>&#xD800;</a></usr>",
    b"<usr><a a='&#99999999;'>1</a></usr>",
    b'<usr><a dt="i4">&#49;&#50;</a></usr>',
    b"<usr><a dt='boolean'>yes</a></usr>",
    b"<usr><a dt='boolean'> TRUE </a></usr>",
    b"<usr><a dt='bin.hex'>abc</a></usr>",
    b"<usr><a dt='r4'>1e39</a></usr>",
    b"<usr><a dt='r4'>-3.4028235e38</a></usr>",
    b"<usr><a dt='r8'>1e999</a><b dt='r8'>nan</b><c dt='r4'>.5e-3</c></usr>",
    b"<usr><a dt='i1'>128</a></usr>",
    b"<usr><a dt='i1'>-128</a><b dt='i2'>+32767</b></usr>",
    b"<usr><a dt='i8'>99999999999999999999</a></usr>",
    b"<usr><a dt='r8'>-1e309</a></usr>",
    b"<usr><a dt='r4'>Infinity</a><b dt='r8'>-inf</b><c dt='r4'>3.4028235e38</c></usr>",
    b"<usr><a dt='i8'>123456789012345678901</a></usr>",
    b"<usr><a dt='i4'>0000000000000000000000000012</a></usr>",
    b"<usr><a dt='null'></a></usr>",
    b"<psc><Command>x</Command></psc>",
    b"<mcd><Msd>jms_bytes</Msd></mcd>",
    b"<usr><a>1</a></usr> junk",
    b"<usr><g dt='i4'><a>1</a></g></usr>",
    b"<usr><a>1</a>",
    b"<usr",
    b"<usr><a>1</a></usr \t>",
    b"<usr><a>1</a></usr>\x00\x00",
    b"<usr></usr>",
    b"<usr/>",
    b"   ",
    b"<usr><a dt='int'>5</a><b/><c att=\"&amp;\">&lt;x&gt;</c></usr>",
    b"\xff\xfe",
    b"<usr><a>\xc3</a></usr>",
    b"<usr><a>\xe0\x80</a></usr>",
    b"<usr><a>\xed\xa0\x80</a></usr>",
    "<usr><\u20ac>1</\u20ac><b>\u20ac</b></usr>".encode(),
    b"<usr><a>x</a><a dt='i4'>y</a></usr>",
    b"<jms><Dst>queue:///Q</Dst></jms><extra/>",
)


def damaged_in_front(seed: int) -> list[Message]:
    """Dead letters whose MQRFH2 in front is damaged (or odd but valid) in every way the
    reader names: the fixed part, folder lengths, text in the NameValueCCSID, the XML,
    property types and values, what stands behind the header; and random bytes flipped
    in valid headers."""
    original = MQMD(format="MQSTR", encoding=546, coded_char_set_id=1208)
    dead = Message.dead_letter(original, b"payload", reason=2053, dest_q_name="APP.IN")
    dead_be = Message.dead_letter(
        original, b"data", reason=2035, dest_q_name="APP.B", encoding=273, ccsid=500
    )
    cases: list[tuple[int, int, bytes]] = []  # (MQMD encoding, MQMD ccsid, data)
    for folder in FOLDER_CASES:
        cases.append((546, 1208, _header([folder]) + dead.body))
    for folder in ("<usr><a>\u00e9</a></usr>", "<usr><a dt='i4'>x</a></usr>"):
        for nv, codec in ((1200, "utf-16-be"), (1202, "utf-16-le"), (819, "latin-1")):
            data = folder.encode(codec)
            cases.append((273, 819, _header([data], enc=273, nv=nv, ccsid=500) + dead_be.body))
    utf16 = "<usr><a>x</a></usr> ".encode("utf-16-be")
    for folders in (
        [utf16[:8] + b"\xdc\x00\x00\x41" + utf16[8:]],  # a low surrogate alone
        [utf16[:8] + b"\xd8\x00\x00\x41" + utf16[8:]],  # a high one, then no low one
        [utf16 + b"\x00\x20\xd8\x00"],  # a high one at the end
        [b"\x00", b"\x00\x20\x00"],  # an odd length
    ):
        header = _header(folders, enc=273, nv=1200, pad=False, ccsid=500)
        cases.append((273, 819, header + dead_be.body))
    cases += [
        (546, 1208, _header([], struc=b"RFX ") + dead.body),
        (546, 1208, _header([], version=1) + dead.body),
        (546, 1208, _header([b"<usr/>"], length=38) + dead.body),
        (546, 1208, _header([], length=20) + dead.body),
        (546, 1208, _header([], length=4000) + dead.body),
        (546, 1208, _header([], nv=9999) + dead.body),
        (546, 1208, _header([], fmt=b"MQSTR   ") + dead.body),
        (546, 1208, _header([], fmt=b"MQHRF2  ") + _header([]) + dead.body),
        (546, 1208, _header([]) + dead.body[:100]),
        (546, 1208, _header([]) + b"XLH " + dead.body[4:]),
        (546, 1208, _header([])[:20]),
        (546, 1208, b""),
        (0, 1208, _header([]) + dead.body),
        (0, 1208, b"RFH \x00\x00\x00\x09" + bytes(40)),
        (546, 1208, _header([b"<usr/>"])[:-4] + b"\xff\xff\xff\x7f" + dead.body),
        (546, 1208, _header([b"<usr/>"])[:36] + b"\x20\x00\x00\x00<usr/>  " + dead.body),
        (546, 1208, _header([b"<usr/>"])[:36] + b"\xfe\xff\xff\xff<usr/>  " + dead.body),
        (546, 1208, _header([b"<usr/>"])[:36] + b"\x08\x00\x00\x00<usr/>  " + b"\x01\x00"),
        (273, 819, _header([], enc=273, ccsid=500) + dead_be.body),
        (273, 819, _header([], enc=273, ccsid=-2) + dead_be.body),
        (273, 500, _header([], enc=273) + dead_be.body),
        (273, 819, _header([b"<usr><a>1</a></usr>"], enc=273, fmt=b"\xff" * 8) + dead.body),
    ]
    rng = random.Random(seed)
    valid = [m for m in valid_in_front(40, seed) if m.md.format == "MQHRF2"]
    for m in valid:
        end = len(m.body) - len(decode_dead_letter(m.md, m.body).body)
        for _ in range(6):
            data = bytearray(m.body)
            for _ in range(rng.randint(1, 3)):
                at = rng.randrange(end)
                data[at] = rng.choice((rng.randrange(256), ord("<"), ord("&"), ord("'"), 0))
            cases.append((m.md.encoding, m.md.coded_char_set_id, bytes(data)))
    return [
        Message(
            MQMD(
                format="MQHRF2",
                encoding=enc,
                coded_char_set_id=ccsid,
                msg_id=i.to_bytes(4, "big").ljust(24, b"\x00"),
            ),
            data,
        )
        for i, (enc, ccsid, data) in enumerate(cases)
    ]


def property_columns(m: Message) -> dict[str, Any]:
    """The data source's ``rfh2_in_front`` and ``property_folders`` of ``m``, from the
    Python decoders: the MQRFH2 in front that decode_dead_letter skips, and
    the property folders holding properties in it and in an MQRFH2 right behind the
    MQDLH (a damaged one there: none from it)."""
    try:
        decoded = decode_dead_letter(m.md, m.body)
    except MalformedMessageError:
        return {"rfh2_in_front": None, "property_folders": None}
    dlh = decoded.dlh
    assert dlh is not None
    front = len(m.body) - len(decoded.body)
    names: set[str] = set()
    headers = []
    if front:
        headers.append(
            decode_rfh2(m.body, encoding=m.md.encoding, ccsid=m.md.coded_char_set_id or 819)[0]
        )
    if dlh.format == "MQHRF2":
        with contextlib.suppress(DecodeError):  # the data's, not a header: none from it
            headers.append(
                decode_rfh2(
                    decoded.body, encoding=dlh.encoding, ccsid=dlh.coded_char_set_id, start=172
                )[0]
            )
    for header in headers:
        names |= {f.name for f in header.folders if f.properties and f.name in FOLDERS}
    return {"rfh2_in_front": front, "property_folders": sorted(names)}
