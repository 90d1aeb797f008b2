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

from tests.mqi.props import _converted

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
