"""MQSETMP, MQINQMP and MQDLTMP of the stand-in, on the caller's structures.

The semantics are the embedded queue manager's own message handle
(:class:`dlqhandler.mq.properties.MessageHandle`: IBM's name rules, types, ``%``
wildcards, the inquiry cursor, type conversion); this module only moves values
between it and the C arguments as IBM's ``cmqc.h`` lays them out:

* the name is an MQCHARV (``VSLength`` MQVS_NULL_TERMINATED or a length; its
  ``VSCCSID`` MQCCSI_APPL or 1208 read as UTF-8, other CCSIDs by their codec);
* a value is MQLONG for MQTYPE_BOOLEAN (non-zero is true), a native-endian integer
  of the type's size, an IEEE float, bytes, or text (``ValueLength``
  MQVL_NULL_TERMINATED allowed for MQTYPE_STRING only; ``MQSMPO.ValueCCSID`` as for
  the name). A length that does not fit the type is MQRC_BUFFER_LENGTH_ERROR (2005).
* MQINQMP returns a string as stored, in UTF-8 (``ReturnedCCSID`` 1208), unless
  MQIMPO_CONVERT_VALUE asks for ``RequestedCCSID`` (MQCCSI_APPL: 1208, the stand-in's
  application CCSID, a choice said here; MQCCSI_Q_MGR: 819): then in that CCSID
  (``ReturnedCCSID`` it), or, when the CCSID is unknown or lacks a character of the
  value, unconverted with IBM's warning MQRC_PROP_VALUE_NOT_CONVERTED (2466); with it,
  a numeric value (MQTYPE_BOOLEAN, INT16, INT32, INT64, FLOAT32, FLOAT64) comes in
  ``RequestedEncoding``'s byte order (MQENC_INTEGER_NORMAL/_REVERSED,
  MQENC_FLOAT_IEEE_NORMAL/_REVERSED; ``ReturnedEncoding`` it), or, for an encoding the
  stand-in cannot make (S/390 or TNS floating point, an undefined integer or float
  encoding), natively with 2466 (``ReturnedEncoding`` MQENC_NATIVE); a value
  longer than the buffer is
  MQRC_PROPERTY_VALUE_TOO_BIG (2469, failed) with ``DataLength`` the length it
  needs (the buffer holds the value's first bytes), and the property cursor on
  it, so that MQIMPO_INQ_PROP_UNDER_CURSOR with a larger buffer returns it;
  MQIMPO_QUERY_LENGTH returns only ``DataLength``. ``Type`` is a conversion request
  with MQIMPO_CONVERT_TYPE only (IBM); without it the value comes as set, and
  ``Type`` returns its type either way. A wildcard's match goes to
  ``MQIMPO.ReturnedName`` when the caller gave it a buffer.

What is not here: MQSMPO_SET_PROP_UNDER/AFTER/BEFORE_CURSOR, MQSMPO_APPEND_PROPERTY
and MQDMPO_DEL_PROP_UNDER_CURSOR (MQRC_FUNCTION_NOT_SUPPORTED, 2298); MQPD fields
are accepted and not interpreted (the embedded queue manager keeps no property
descriptor).
"""

from __future__ import annotations

import ctypes
import struct

from dlqhandler.errors import DecodeError, MQIError
from dlqhandler.mq.ccsid import QMGR_CCSID, codec_for
from dlqhandler.mq.constants import (
    MQRC_DMPO_ERROR,
    MQRC_FUNCTION_NOT_SUPPORTED,
    MQRC_IMPO_ERROR,
    MQRC_PD_ERROR,
    MQRC_PROP_NAME_NOT_CONVERTED,
    MQRC_PROP_VALUE_NOT_CONVERTED,
    MQRC_PROPERTY_NAME_ERROR,
    MQRC_PROPERTY_NOT_AVAILABLE,
    MQRC_PROPERTY_TYPE_ERROR,
    MQRC_PROPERTY_VALUE_TOO_BIG,
    MQRC_SMPO_ERROR,
    mqi_error,
)
from dlqhandler.mq.properties import Property, PropertyType, PropertyValue
from tests.mqi.cmqc import CMQC
from tests.mqi.state import Conn
from tests.mqi.structs import MQCHARV, MQDMPO, MQIMPO, MQPD, MQSMPO, raw

__all__ = ["dltmp", "inqmp", "setmp"]

_OK = (CMQC.MQCC_OK, 0)
_MQRC_BUFFER_LENGTH_ERROR = 2005
_MQVS_NULL_TERMINATED = -1
T = PropertyType
_FIXED = {
    T.BOOLEAN: struct.Struct("=i"),
    T.INT8: struct.Struct("=b"),
    T.INT16: struct.Struct("=h"),
    T.INT32: struct.Struct("=i"),
    T.INT64: struct.Struct("=q"),
    T.FLOAT32: struct.Struct("=f"),
    T.FLOAT64: struct.Struct("=d"),
}


def _codec(ccsid: int, reason: int) -> str:
    if ccsid in (CMQC.MQCCSI_APPL, 1208):
        return "utf-8"
    try:
        return codec_for(ccsid)
    except DecodeError as exc:
        raise mqi_error(reason, str(exc)) from None


def _name(pname: int) -> str:
    """The property name an MQCHARV points to."""
    charv = MQCHARV.from_address(pname)
    if not charv.VSPtr:
        return ""
    data = (
        ctypes.string_at(charv.VSPtr)
        if charv.VSLength == _MQVS_NULL_TERMINATED
        else ctypes.string_at(charv.VSPtr, max(charv.VSLength, 0))
    )
    try:
        return data.decode(_codec(charv.VSCCSID, MQRC_PROP_NAME_NOT_CONVERTED))
    except UnicodeDecodeError:
        raise mqi_error(MQRC_PROP_NAME_NOT_CONVERTED, "the name is not in its VSCCSID") from None


def _check_id(struct_: ctypes.Structure, wanted: bytes, reason: int) -> None:
    if raw(struct_, "StrucId") != wanted:
        raise mqi_error(reason, f"StrucId is not {wanted!r}")


def _value(kind: int, length: int, pvalue: int, ccsid: int) -> PropertyValue:
    """The value MQSETMP was given, as the port's handle takes it."""
    try:
        t = PropertyType(kind)
    except ValueError:
        raise mqi_error(MQRC_PROPERTY_TYPE_ERROR, f"type {kind}") from None
    if t is T.NULL:
        return None
    if t is T.STRING and length == CMQC.MQVL_NULL_TERMINATED:
        data = ctypes.string_at(pvalue) if pvalue else b""
    elif length < 0 or (length and not pvalue):
        raise mqi_error(_MQRC_BUFFER_LENGTH_ERROR, f"ValueLength {length}")
    else:
        data = ctypes.string_at(pvalue, length) if length else b""
    if t in _FIXED:
        layout = _FIXED[t]
        if len(data) != layout.size:
            raise mqi_error(
                _MQRC_BUFFER_LENGTH_ERROR,
                f"ValueLength {length} for MQTYPE_{t.name} ({layout.size})",
            )
        number = layout.unpack(data)[0]
        return bool(number) if t is T.BOOLEAN else number
    if t is T.BYTE_STRING:
        return data
    try:
        return data.decode(_codec(ccsid, MQRC_PROP_VALUE_NOT_CONVERTED))
    except UnicodeDecodeError:
        raise mqi_error(
            MQRC_PROP_VALUE_NOT_CONVERTED, "the string is not in MQSMPO.ValueCCSID"
        ) from None


def _encode(prop: Property) -> bytes:
    v = prop.value
    if prop.type is T.NULL:
        return b""
    if prop.type in _FIXED:
        return _FIXED[prop.type].pack(int(bool(v)) if prop.type is T.BOOLEAN else v)
    if isinstance(v, bytes):
        return v
    assert isinstance(v, str)
    return v.encode("utf-8", "surrogatepass")


def setmp(
    conn: Conn, hmsg: int, psmpo: int, pname: int, ppd: int, kind: int, length: int, pvalue: int
) -> tuple[int, int]:
    handle = conn.message_handle(hmsg)
    smpo = MQSMPO.from_address(psmpo)
    _check_id(smpo, b"SMPO", MQRC_SMPO_ERROR)
    if ppd:
        _check_id(MQPD.from_address(ppd), b"PD  ", MQRC_PD_ERROR)
    if smpo.Options != CMQC.MQSMPO_SET_FIRST:
        raise mqi_error(
            MQRC_FUNCTION_NOT_SUPPORTED, "MQSMPO cursor and append options are not in the stand-in"
        )
    handle.set(_name(pname), _value(kind, length, pvalue, smpo.ValueCCSID), kind)
    return _OK


def inqmp(
    conn: Conn,
    hmsg: int,
    pimpo: int,
    pname: int,
    ppd: int,
    ptype: int,
    length: int,
    pvalue: int,
    pdatalen: int,
) -> tuple[int, int]:
    handle = conn.message_handle(hmsg)
    impo = MQIMPO.from_address(pimpo)
    _check_id(impo, b"IMPO", MQRC_IMPO_ERROR)
    if ppd:
        _check_id(MQPD.from_address(ppd), b"PD  ", MQRC_PD_ERROR)
    o = impo.Options
    wanted = ctypes.c_int32.from_address(ptype).value if ptype else CMQC.MQTYPE_AS_SET
    convert = wanted != CMQC.MQTYPE_AS_SET and bool(o & CMQC.MQIMPO_CONVERT_TYPE)
    prop = handle.inquire(
        _name(pname),
        next=bool(o & CMQC.MQIMPO_INQ_NEXT),
        under_cursor=bool(o & CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR),
        type_=wanted if convert else None,
    )
    returned = impo.ReturnedName
    if returned.VSPtr and returned.VSBufSize > 0:
        name = prop.name.encode("utf-8")
        ctypes.memmove(returned.VSPtr, name, min(len(name), returned.VSBufSize))
        returned.VSLength = len(name)
        returned.VSCCSID = 1208
    impo.ReturnedEncoding = CMQC.MQENC_NATIVE
    impo.ReturnedCCSID = 1208 if prop.type is T.STRING else 0
    if ptype:
        ctypes.c_int32.from_address(ptype).value = int(prop.type)
    data = _encode(prop)
    warning = 0
    if prop.type is T.STRING and o & CMQC.MQIMPO_CONVERT_VALUE:
        converted = _converted(str(prop.value), impo.RequestedCCSID)
        if converted is None:
            warning = MQRC_PROP_VALUE_NOT_CONVERTED
        else:
            data, impo.ReturnedCCSID = converted
            impo.ReturnedEncoding = impo.RequestedEncoding
    elif o & CMQC.MQIMPO_CONVERT_VALUE:
        ordered = in_encoding(prop, impo.RequestedEncoding)
        if ordered is None:
            warning = MQRC_PROP_VALUE_NOT_CONVERTED
        else:
            data, impo.ReturnedEncoding = ordered, impo.RequestedEncoding
    if pdatalen:
        ctypes.c_int32.from_address(pdatalen).value = len(data)
    if o & CMQC.MQIMPO_QUERY_LENGTH:
        return _OK
    if len(data) > max(length, 0):
        # The buffer gets the value's first bytes (a string cut at a character, the rest
        # NULs): IBM's ``ibmmqc`` decodes the buffer even when the call failed.
        head = data[: max(length, 0)]
        if prop.type is T.STRING and impo.ReturnedCCSID == 1208:
            head = head.decode("utf-8", "ignore").encode("utf-8").ljust(len(head), b"\0")
        if head:
            ctypes.memmove(pvalue, head, len(head))
        raise MQIError(
            MQRC_PROPERTY_VALUE_TOO_BIG, f"{prop.name}: {len(data)} bytes", comp=CMQC.MQCC_FAILED
        )
    if data:
        ctypes.memmove(pvalue, data, len(data))
    return (CMQC.MQCC_WARNING, warning) if warning else _OK


_INTEGER_ORDER = {1: ">", 2: "<"}  # MQENC_INTEGER_NORMAL, MQENC_INTEGER_REVERSED
_FLOAT_ORDER = {0x100: ">", 0x200: "<"}  # MQENC_FLOAT_IEEE_NORMAL, _IEEE_REVERSED
_FLOATS = (T.FLOAT32, T.FLOAT64)


def in_encoding(prop: Property, requested: int) -> bytes | None:
    """MQIMPO_CONVERT_VALUE of a value that is not a string: a number's bytes in the
    byte order ``requested`` (an MQENC_* value) gives its type, or None when the stand-in
    cannot make that encoding. A one-byte integer, a byte string or a null has no byte
    order: its bytes as they are. IBM, MQIMPO Options: the value is "converted to conform
    to the RequestedCCSID and RequestedEncoding values"."""
    if prop.type not in _FIXED or prop.type is T.INT8:
        return _encode(prop)
    if prop.type in _FLOATS:
        order = _FLOAT_ORDER.get(requested & CMQC.MQENC_FLOAT_MASK)
    else:
        order = _INTEGER_ORDER.get(requested & CMQC.MQENC_INTEGER_MASK)
    if order is None:
        return None
    v = prop.value
    number = int(bool(v)) if prop.type is T.BOOLEAN else v
    return struct.pack(order + _FIXED[prop.type].format[-1], number)


def _converted(value: str, requested: int) -> tuple[bytes, int] | None:
    """MQIMPO_CONVERT_VALUE: ``value`` in the requested CCSID, with that CCSID, or None
    when it cannot be (an unknown CCSID, a character the CCSID lacks). IBM, MQIMPO
    Options: "If conversion fails, but the MQINQMP call otherwise completes without error,
    the property value is returned unconverted" with MQCC_WARNING and 2466."""
    ccsid = {CMQC.MQCCSI_APPL: 1208, 0: QMGR_CCSID}.get(requested, requested)
    if ccsid <= 0:
        return None
    try:
        return value.encode(codec_for(ccsid)), ccsid
    except (DecodeError, UnicodeEncodeError, LookupError):
        return None


def dltmp(conn: Conn, hmsg: int, pdmpo: int, pname: int) -> tuple[int, int]:
    handle = conn.message_handle(hmsg)
    dmpo = MQDMPO.from_address(pdmpo)
    _check_id(dmpo, b"DMPO", MQRC_DMPO_ERROR)
    name = _name(pname)
    if "%" in name:  # IBM: "Wildcards are not allowed in the property name"
        raise mqi_error(MQRC_PROPERTY_NAME_ERROR, "MQDLTMP takes no wildcard")
    if dmpo.Options & CMQC.MQDMPO_DEL_PROP_UNDER_CURSOR:
        raise mqi_error(
            MQRC_FUNCTION_NOT_SUPPORTED, "MQDMPO_DEL_PROP_UNDER_CURSOR is not in the stand-in"
        )
    try:
        handle.delete_property(name)
    except MQIError as exc:
        if exc.reason != MQRC_PROPERTY_NOT_AVAILABLE:
            raise
        # IBM lists 2471 under MQCC_WARNING for MQDLTMP (the handle is unchanged).
        return CMQC.MQCC_WARNING, MQRC_PROPERTY_NOT_AVAILABLE
    return _OK
