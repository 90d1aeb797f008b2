"""Data conversion on MQGET (MQGMO_CONVERT), as IBM's *Conversion processing* describes.

:func:`convert` takes a message's descriptor and data and the CodedCharSetId and
Encoding the getter asked for (its MQMD's), and returns what MQGET hands back: the
descriptor and data converted, or unconverted with IBM's warning reason.

* Nothing to do (MQCC_OK, data as it is): the message is already in the CCSID and
  encoding asked for, or it has no data. CCSID 0 (MQCCSI_Q_MGR) in the request means
  the queue manager's own (819).
* Formats converted: ``MQSTR`` (all characters, from the message's CCSID to the
  requested one; the integer encoding does not apply), and the MQ headers the product
  decodes, each converted field by field, then what follows it by its own Format:
  ``MQDEAD`` (MQDLH), ``MQXMIT`` (MQXQH with its embedded MQMD; the message after it
  is not converted, as on a transmission queue), ``MQHRF2`` (the MQRFH2's fixed part
  and its lengths; NameValueData stays in its NameValueCCSID, as IBM says of it).
  Data in MQFMT_NONE after a header stays as it is (MQCC_OK), as IBM documents.
* Warnings (the data returned unconverted, the descriptor's CodedCharSetId and Encoding
  those of the message): MQRC_FORMAT_ERROR (2110) for MQFMT_NONE (or a format no
  built-in conversion or exit knows) at the start of the data; MQRC_SOURCE_CCSID_ERROR
  (2111) / MQRC_TARGET_CCSID_ERROR (2115) for a CCSID this queue manager has no code
  page for (:mod:`dlqhandler.mq.ccsid`); MQRC_SOURCE_INTEGER_ENC_ERROR (2112) /
  MQRC_TARGET_INTEGER_ENC_ERROR (2116) for an integer encoding that is neither normal
  nor reversed, where a header needs it; MQRC_NOT_CONVERTED (2119) for characters the
  target code page cannot hold, or data that is not valid in its own. A message of
  several parts may come back partly converted: every CodedCharSetId and Encoding
  field still describes the part after it (IBM: "some parts may be converted and other
  parts not converted").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dlqhandler.errors import DecodeError, MalformedMessageError
from dlqhandler.mq.ccsid import QMGR_CCSID, codec_for
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1, decode_mqdlh, encode_mqdlh
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.rfh2 import decode_rfh2, encode_rfh2
from dlqhandler.qmgr.embedded.xqh import decode_xqh, encode_xqh

__all__ = [
    "MQRC_FORMAT_ERROR",
    "MQRC_NOT_CONVERTED",
    "MQRC_SOURCE_CCSID_ERROR",
    "MQRC_SOURCE_INTEGER_ENC_ERROR",
    "MQRC_TARGET_CCSID_ERROR",
    "MQRC_TARGET_INTEGER_ENC_ERROR",
    "Converted",
    "convert",
]

MQRC_FORMAT_ERROR = 2110
MQRC_SOURCE_CCSID_ERROR = 2111
MQRC_SOURCE_INTEGER_ENC_ERROR = 2112
MQRC_TARGET_CCSID_ERROR = 2115
MQRC_TARGET_INTEGER_ENC_ERROR = 2116
MQRC_NOT_CONVERTED = 2119
_INHERIT = -2  # MQCCSI_INHERIT: the CCSID of the structure before


@dataclass(frozen=True, slots=True)
class Converted:
    """What MQGET returns: descriptor, data, and 0 or the warning reason."""

    md: MQMD
    body: bytes
    reason: int = 0


class _UnconvertedError(Exception):
    def __init__(self, reason: int) -> None:
        super().__init__(reason)
        self.reason = reason


def convert(md: MQMD, body: bytes, *, ccsid: int, encoding: int) -> Converted:
    """``md`` and ``body`` as an MQGET with MQGMO_CONVERT and an MQMD asking for
    ``ccsid`` and ``encoding`` returns them (see the module docstring)."""
    have_ccsid = md.coded_char_set_id or QMGR_CCSID
    want_ccsid = ccsid or QMGR_CCSID
    if not body or (have_ccsid == want_ccsid and md.encoding == encoding):
        return Converted(md, body)
    if md.format == "":
        return Converted(md, body, MQRC_FORMAT_ERROR)
    try:
        part = _part(md.format, (have_ccsid, md.encoding), body, (want_ccsid, encoding), first=True)
    except _UnconvertedError as exc:
        return Converted(md, body, exc.reason)
    out_ccsid, out_encoding, data, reason = part
    return Converted(md.replace(coded_char_set_id=out_ccsid, encoding=out_encoding), data, reason)


_Desc = tuple[int, int]  # CodedCharSetId, Encoding
_Part = tuple[int, int, bytes, int]  # ccsid, encoding, data (as described by them), reason


def _part(fmt: str, have: _Desc, data: bytes, wanted: _Desc, *, first: bool) -> _Part:
    """Convert one part (a header and what follows, or the application data). Raises
    _UnconvertedError when this part, and so the whole message, stays as it was; a failure
    in what follows a converted header comes back as a reason with that rest
    unconverted (the header's fields describe it)."""
    (ccsid, encoding), (want, want_enc) = have, wanted
    if not data or (ccsid == want and encoding == want_enc):
        return ccsid, encoding, data, 0
    if fmt == "MQSTR":
        return want, want_enc, _text(data, ccsid, want), 0
    if fmt == "MQDEAD":
        return _dlh(data, have, wanted)
    if fmt == "MQXMIT":
        return _xqh(data, have, wanted)
    if fmt == "MQHRF2":
        return _rfh2(data, have, wanted)
    if fmt == "" and not first:
        return ccsid, encoding, data, 0  # IBM: MQFMT_NONE after a header is left, MQCC_OK
    raise _UnconvertedError(MQRC_FORMAT_ERROR)


def _codecs(ccsid: int, want: int) -> tuple[str, str]:
    try:
        source = codec_for(ccsid)
    except DecodeError:
        raise _UnconvertedError(MQRC_SOURCE_CCSID_ERROR) from None
    try:
        target = codec_for(want)
    except DecodeError:
        raise _UnconvertedError(MQRC_TARGET_CCSID_ERROR) from None
    return source, target


def _text(data: bytes, ccsid: int, want: int) -> bytes:
    source, target = _codecs(ccsid, want)
    try:
        return data.decode(source).encode(target)
    except (UnicodeDecodeError, UnicodeEncodeError):
        raise _UnconvertedError(MQRC_NOT_CONVERTED) from None


def _orders(encoding: int, want_enc: int) -> None:
    if encoding & 0xF not in (1, 2):
        raise _UnconvertedError(MQRC_SOURCE_INTEGER_ENC_ERROR)
    if want_enc & 0xF not in (1, 2):
        raise _UnconvertedError(MQRC_TARGET_INTEGER_ENC_ERROR)


def _rest(fmt: str, have: _Desc, data: bytes, wanted: _Desc) -> _Part:
    """What follows a converted header: converted, or left with the reason why not."""
    ccsid, encoding = have
    try:
        return _part(fmt, have, data, wanted, first=False)
    except _UnconvertedError as exc:
        return ccsid, encoding, data, exc.reason


def _dlh(data: bytes, have: _Desc, wanted: _Desc) -> _Part:
    (ccsid, encoding), (want, want_enc) = have, wanted
    _orders(encoding, want_enc)
    _codecs(ccsid, want)
    try:
        dlh = decode_mqdlh(data, encoding=encoding, ccsid=ccsid)
    except MalformedMessageError:
        raise _UnconvertedError(MQRC_FORMAT_ERROR) from None
    inner_ccsid = ccsid if dlh.coded_char_set_id == _INHERIT else dlh.coded_char_set_id
    r_ccsid, r_enc, rest, reason = _rest(
        dlh.format, (inner_ccsid or QMGR_CCSID, dlh.encoding), data[MQDLH_LENGTH_1:], wanted
    )
    if dlh.coded_char_set_id == _INHERIT and r_ccsid == want:
        r_ccsid = _INHERIT
    try:
        head = encode_mqdlh(
            dlh.replace(coded_char_set_id=r_ccsid, encoding=r_enc), encoding=want_enc, ccsid=want
        )
    except DecodeError:
        raise _UnconvertedError(MQRC_NOT_CONVERTED) from None
    return want, want_enc, head + rest, reason


def _xqh(data: bytes, have: _Desc, wanted: _Desc) -> _Part:
    (ccsid, encoding), (want, want_enc) = have, wanted
    _orders(encoding, want_enc)
    _codecs(ccsid, want)
    try:
        xqh, rest = decode_xqh(data, encoding=encoding, ccsid=ccsid)
    except DecodeError:
        raise _UnconvertedError(MQRC_FORMAT_ERROR) from None
    try:
        head = encode_xqh(
            xqh.remote_q_name, xqh.remote_q_mgr_name, xqh.md, encoding=want_enc, ccsid=want
        )
    except DecodeError:
        raise _UnconvertedError(MQRC_NOT_CONVERTED) from None
    return want, want_enc, head + rest, 0


def _rfh2(data: bytes, have: _Desc, wanted: _Desc) -> _Part:
    (ccsid, encoding), (want, want_enc) = have, wanted
    _orders(encoding, want_enc)
    _codecs(ccsid, want)
    try:
        rfh2, end = decode_rfh2(data, encoding=encoding, ccsid=ccsid)
    except DecodeError:
        raise _UnconvertedError(MQRC_FORMAT_ERROR) from None
    inner = ccsid if rfh2.coded_char_set_id == _INHERIT else rfh2.coded_char_set_id
    r_ccsid, r_enc, rest, reason = _rest(
        rfh2.format, (inner or QMGR_CCSID, rfh2.encoding), data[end:], wanted
    )
    if rfh2.coded_char_set_id == _INHERIT and r_ccsid == want:
        r_ccsid = _INHERIT
    try:
        head = encode_rfh2(
            replace(rfh2, coded_char_set_id=r_ccsid, encoding=r_enc), encoding=want_enc, ccsid=want
        )
    except DecodeError:
        raise _UnconvertedError(MQRC_NOT_CONVERTED) from None
    return want, want_enc, head + rest, reason
