"""Coded character set ids (CCSIDs) and integer encodings, as MQ uses them.

MQ describes text by CCSID and integers by the ``Encoding`` field. This module
maps both to Python: :func:`codec_for` gives a Python codec name for a CCSID,
:func:`int_order` the ``struct`` byte-order character for an Encoding.
"""

from __future__ import annotations

import codecs
from functools import lru_cache

from dlqhandler.errors import DecodeError

__all__ = [
    "EBCDIC_CCSIDS",
    "QMGR_CCSID",
    "blank_for",
    "codec_for",
    "decode_text",
    "encode_text",
    "int_order",
    "is_ebcdic",
]

# The embedded queue manager's own CCSID: ISO-8859-1, a byte-per-character code
# page, so any MQMD byte sequence maps to text and back unchanged.
QMGR_CCSID = 819

# CCSID -> Python codec. EBCDIC 1047 and friends come from the ``ebcdic`` package
# (registered on import); the rest are in the standard library.
_CODECS: dict[int, str] = {
    37: "cp037",
    273: "cp273",
    277: "cp277",
    278: "cp278",
    280: "cp280",
    284: "cp284",
    285: "cp285",
    297: "cp297",
    500: "cp500",
    875: "cp875",
    1026: "cp1026",
    1047: "cp1047",
    1140: "cp1140",
    1141: "cp1141",
    1148: "cp1148",
    367: "ascii",
    437: "cp437",
    819: "latin_1",
    850: "cp850",
    852: "cp852",
    858: "cp858",
    912: "iso8859_2",
    923: "iso8859_15",
    1051: "hp_roman8",
    1208: "utf_8",
    1250: "cp1250",
    1251: "cp1251",
    1252: "cp1252",
    5348: "cp1252",
    4909: "iso8859_7",
    1089: "iso8859_6",
    954: "euc_jp",
    943: "cp932",
    932: "cp932",
    1200: "utf_16_be",
    1202: "utf_16_le",
    13488: "utf_16_be",
    17584: "utf_16_be",
}

EBCDIC_CCSIDS = frozenset(
    {37, 273, 277, 278, 280, 284, 285, 297, 500, 875, 1026, 1047, 1140, 1141, 1148}
)


def _register_ebcdic() -> None:
    try:
        import ebcdic  # noqa: F401  (registers cp1047, cp285, cp297... on import)
    except ImportError:  # pragma: no cover - a declared dependency
        return


_register_ebcdic()


@lru_cache(maxsize=256)
def codec_for(ccsid: int) -> str:
    """The Python codec for a CCSID; raises :class:`DecodeError` for unknown ones.

    CCSID 0 (MQCCSI_Q_MGR) means the queue manager's own, ISO-8859-1 here.
    """
    if ccsid == 0:
        ccsid = QMGR_CCSID
    name = _CODECS.get(ccsid)
    if name is None:
        raise DecodeError(f"unsupported CCSID {ccsid}")
    try:
        codecs.lookup(name)
    except LookupError as exc:
        raise DecodeError(f"CCSID {ccsid} needs codec {name!r}, which is not installed") from exc
    return name


def is_ebcdic(ccsid: int) -> bool:
    """True for the EBCDIC code pages (blank is 0x40 there)."""
    return ccsid in EBCDIC_CCSIDS


def blank_for(ccsid: int) -> bytes:
    """The single-byte blank used to pad character fields in this CCSID."""
    return b"\x40" if is_ebcdic(ccsid) else b"\x20"


def decode_text(raw: bytes, ccsid: int) -> str:
    """Decode an MQCHARn field: cut at the first NUL, strip trailing blanks.

    MQ treats a NUL and everything after it as blanks, and trailing blanks as
    padding, so the canonical text of ``b"Q1\\0\\0"`` and ``b"Q1  "`` is ``"Q1"``.
    The fields of a queue's messages repeat (queue, queue manager, user, program
    names), so results are remembered (``functools.lru_cache``, bounded).
    """
    # (The cache needs an immutable key: bytes as they are - what ``struct`` unpacks -,
    # a bytearray or memoryview copied.) DecodeError for an unknown CCSID, bad bytes.
    return _decode_text(raw if type(raw) is bytes else bytes(raw), ccsid)


_REMEMBERED = 16384  # decoded and encoded MQCHARn values kept


@lru_cache(maxsize=_REMEMBERED)
def _decode_text(raw: bytes, ccsid: int) -> str:
    codec = codec_for(ccsid)
    nul = raw.find(b"\x00")
    if nul >= 0:
        raw = raw[:nul]
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"text not valid in CCSID {ccsid}: {exc.reason}", raw=raw, offset=exc.start
        ) from exc
    return text.rstrip(" ")


def encode_text(text: str, length: int, ccsid: int, *, field: str = "field") -> bytes:
    """Encode text into a blank-padded MQCHARn field of exactly ``length`` bytes
    (remembered, like :func:`decode_text`)."""
    return _encode_text(text, length, ccsid, field)


@lru_cache(maxsize=_REMEMBERED)
def _encode_text(text: str, length: int, ccsid: int, field: str) -> bytes:
    codec = codec_for(ccsid)
    try:
        raw = text.encode(codec)
    except UnicodeEncodeError as exc:
        raise DecodeError(f"{field}: {text!r} cannot be written in CCSID {ccsid}") from exc
    if len(raw) > length:
        raise DecodeError(f"{field}: {text!r} is longer than {length} bytes")
    return raw + blank_for(ccsid) * (length - len(raw))


def int_order(encoding: int, *, version_probe: bytes | None = None) -> str:
    """``'>'`` for MQENC_INTEGER_NORMAL (big-endian), ``'<'`` for REVERSED.

    When the integer part is undefined (0), a 4-byte ``version_probe`` (the
    structure's Version field, which is 1 or 2) decides; failing that, an error.
    """
    part = encoding & 0xF
    if part == 1:
        return ">"
    if part == 2:
        return "<"
    if version_probe is not None and len(version_probe) == 4:
        if version_probe[:3] == b"\x00\x00\x00" and version_probe[3] in (1, 2):
            return ">"
        if version_probe[1:] == b"\x00\x00\x00" and version_probe[0] in (1, 2):
            return "<"
    raise DecodeError(f"encoding {encoding} has no integer byte order")
