"""MQINQMP with MQIMPO_CONVERT_VALUE: a string property's value in the requested CCSID.

IBM, MQIMPO Options (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=mimpo-options-mqlong),
MQIMPO_CONVERT_VALUE: "This option requests that the value of the property be converted to
conform to the RequestedCCSID and RequestedEncoding values before the MQINQMP call returns
the property value in the Value area". IBM's ``ibmmq`` adds the option to every
``properties.get`` and reads a string value back as UTF-8, so the byte-level cases call the
stand-in's conversion directly.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.mqi.props import _converted, in_encoding

MQ = tuple[Any, Any]


def _get(ibmmq: Any, handle: Any, name: str, ccsid: int) -> Any:
    c = ibmmq.CMQC
    impo = ibmmq.IMPO(Options=c.MQIMPO_CONVERT_VALUE, RequestedCCSID=ccsid)
    return handle.properties.get(name, impo=impo)


def test_a_value_converts_to_the_requested_ccsid(mq: MQ) -> None:
    """A string property read with MQIMPO_CONVERT_VALUE in CCSID 819, 1208 and MQCCSI_APPL
    comes back with MQCC_OK and its characters.
    IBM, MQIMPO RequestedCCSID (https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q097250_.html): "The
    character set that the inquired property value is to be converted into if the value is a
    character string"."""
    ibmmq, qmgr = mq
    handle = ibmmq.MessageHandle(qmgr)
    handle.properties.set("city", "Zurich")
    handle.properties.set("town", "Zürich")
    assert _get(ibmmq, handle, "city", 819) == "Zurich"
    assert _get(ibmmq, handle, "town", 1208) == "Zürich"
    assert _get(ibmmq, handle, "town", ibmmq.CMQC.MQCCSI_APPL) == "Zürich"


@pytest.mark.parametrize(("value", "ccsid"), [("αβ", 819), ("Zürich", 12345)])
def test_a_value_that_cannot_be_converted_is_a_warning(mq: MQ, value: str, ccsid: int) -> None:
    """Characters the requested CCSID lacks (Greek in 819), or a CCSID the queue manager
    does not know: MQCC_WARNING with MQRC_PROP_VALUE_NOT_CONVERTED (2466), and the property
    is still there, unchanged, for a read without conversion.
    IBM, MQIMPO Options (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=mimpo-options-mqlong):
    "If conversion fails, but the MQINQMP call otherwise completes without error, the
    property value is returned unconverted ... The completion code is MQCC_WARNING in this
    case, with reason code MQRC_PROP_VALUE_NOT_CONVERTED" (the 2466 page,
    https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044780_.html, lists MQCC_FAILED
    while saying the value is returned: the stand-in follows the option's own page)."""
    ibmmq, qmgr = mq
    handle = ibmmq.MessageHandle(qmgr)
    handle.properties.set("name", value)
    with pytest.raises(ibmmq.MQMIError) as caught:
        _get(ibmmq, handle, "name", ccsid)
    assert (caught.value.comp, caught.value.reason) == (1, 2466)
    impo = ibmmq.IMPO(Options=0)
    assert handle.properties.get("name", impo=impo) == value


def test_the_bytes_of_a_converted_value() -> None:
    """The conversion MQINQMP applies gives the CCSID's own bytes: EBCDIC 500 for "Zürich"
    (Z=0xE9, ü=0xDC), ISO 8859-1 for 819, UTF-8 for MQCCSI_APPL, the queue manager's 819 for
    MQCCSI_Q_MGR (0); nothing for a CCSID it cannot do.
    IBM, MQIMPO Options (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=mimpo-options-mqlong):
    "If conversion is successful, the ReturnedCCSID and ReturnedEncoding fields are set to
    the same as RequestedCCSID and RequestedEncoding"."""
    assert _converted("Zürich", 500) == (bytes.fromhex("e9dc99898388"), 500)
    assert _converted("Zürich", 819) == ("Zürich".encode("latin-1"), 819)
    assert _converted("Zürich", -3) == ("Zürich".encode(), 1208)
    assert _converted("Zürich", 0) == ("Zürich".encode("latin-1"), 819)
    assert _converted("αβ", 819) is None
    assert _converted("x", -2) is None


_NORMAL = 0x101  # MQENC_INTEGER_NORMAL | MQENC_FLOAT_IEEE_NORMAL: big-endian


@pytest.mark.parametrize(
    ("kind", "value", "layout"),
    [
        ("MQTYPE_INT16", 258, "h"),
        ("MQTYPE_INT32", 7, "i"),
        ("MQTYPE_INT64", -2, "q"),
        ("MQTYPE_FLOAT64", 1.5, "d"),
        ("MQTYPE_FLOAT32", 0.25, "f"),
    ],
)
def test_a_number_comes_in_the_requested_encoding(
    mq: MQ, kind: str, value: float, layout: str
) -> None:
    """MQINQMP with MQIMPO_CONVERT_VALUE and RequestedEncoding big-endian (integer and IEEE
    float NORMAL): the value's bytes come in that order (IBM's ``ibmmq`` reads them back in
    its native little-endian order, so it sees the byte-swapped number); with
    MQENC_NATIVE (the default) the number is as set.
    IBM, MQIMPO Options (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=mimpo-options-mqlong):
    MQIMPO_CONVERT_VALUE "requests that the value of the property be converted to conform to
    the RequestedCCSID and RequestedEncoding values"; RequestedEncoding
    (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q097210_.html): "encoding into which
    the inquired property is to be converted"."""
    import struct

    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    handle = ibmmq.MessageHandle(qmgr)
    handle.properties.set("n", value, property_type=getattr(c, kind))
    impo = ibmmq.IMPO(Options=c.MQIMPO_CONVERT_VALUE, RequestedEncoding=_NORMAL)
    swapped = struct.unpack("<" + layout, struct.pack(">" + layout, value))[0]
    assert swapped != value
    assert handle.properties.get("n", impo=impo) == swapped
    native = ibmmq.IMPO(Options=c.MQIMPO_CONVERT_VALUE, RequestedEncoding=c.MQENC_NATIVE)
    assert handle.properties.get("n", impo=native) == value


def test_an_encoding_the_queue_manager_cannot_make_is_a_warning(mq: MQ) -> None:
    """A float asked for in S/390 floating point, or an integer in an undefined integer
    encoding: MQCC_WARNING with MQRC_PROP_VALUE_NOT_CONVERTED (2466), the value returned
    unconverted (native), and the property still there.
    IBM, MQIMPO Options (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=mimpo-options-mqlong):
    "If conversion fails, but the MQINQMP call otherwise completes without error, the
    property value is returned unconverted ... The completion code is MQCC_WARNING in this
    case, with reason code MQRC_PROP_VALUE_NOT_CONVERTED"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    handle = ibmmq.MessageHandle(qmgr)
    handle.properties.set("f", 1.5, property_type=c.MQTYPE_FLOAT64)
    handle.properties.set("i", 7, property_type=c.MQTYPE_INT32)
    for name, encoding in (("f", c.MQENC_FLOAT_S390 | 2), ("i", 0x200)):
        impo = ibmmq.IMPO(Options=c.MQIMPO_CONVERT_VALUE, RequestedEncoding=encoding)
        with pytest.raises(ibmmq.MQMIError) as caught:
            handle.properties.get(name, impo=impo)
        assert (caught.value.comp, caught.value.reason) == (1, 2466)
    assert handle.properties.get("i", impo=ibmmq.IMPO(Options=0)) == 7


def test_the_bytes_of_a_number_in_an_encoding() -> None:
    """The bytes MQINQMP gives a number for an encoding: big-endian for NORMAL, little for
    REVERSED (integer and IEEE float parts read separately), a one-byte integer, a byte
    string and a string as they are; None for S/390 floats and undefined parts.
    IBM, MQIMPO Options (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=mimpo-options-mqlong):
    "If conversion is successful, the ReturnedCCSID and ReturnedEncoding fields are set to
    the same as RequestedCCSID and RequestedEncoding"."""
    from dlqhandler.mq.properties import Property, PropertyType

    i32 = Property("a", PropertyType.INT32, 258)
    assert in_encoding(i32, 0x101) == bytes.fromhex("00000102")
    assert in_encoding(i32, 0x202) == bytes.fromhex("02010000")
    assert in_encoding(i32, 0x200) is None
    flag = Property("b", PropertyType.BOOLEAN, True)
    assert in_encoding(flag, 0x001) == bytes.fromhex("00000001")
    f64 = Property("c", PropertyType.FLOAT64, 1.0)
    assert in_encoding(f64, 0x102) == bytes.fromhex("3ff0000000000000")
    assert in_encoding(f64, 0x301) is None
    assert in_encoding(Property("d", PropertyType.INT8, -1), 0) == b"\xff"
    assert in_encoding(Property("e", PropertyType.BYTE_STRING, b"\x01\x02"), 0x101) == b"\x01\x02"
