"""Message properties: IBM's name rules, types, the handle's set/inquire/delete."""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQRC_HMSG_ERROR,
    MQRC_PROP_CONV_NOT_SUPPORTED,
    MQRC_PROP_NUMBER_FORMAT_ERROR,
    MQRC_PROPERTY_NAME_ERROR,
    MQRC_PROPERTY_NAME_LENGTH_ERR,
    MQRC_PROPERTY_NOT_AVAILABLE,
    MQRC_PROPERTY_TYPE_ERROR,
)
from dlqhandler.mq.properties import MessageHandle, Property, PropertyType, make_property

T = PropertyType


@pytest.mark.parametrize(
    "name",
    [
        "Color",
        "a.b.c",
        "_x$",
        "usr.Color",
        "mq_usr.a.b",
        "mqx.y",
        "JMSCorrelationID",
        "Beer",
        "ünïcode",
        "x" * 4095,
    ],
)
def test_names_ibm_allows_are_accepted(name: str) -> None:
    """Java identifiers with '.', JMS synonyms, mq_usr with dots, 4095 characters."""
    make_property(name, T.STRING, "v")


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", MQRC_PROPERTY_NAME_LENGTH_ERR),
        ("x" * 4096, MQRC_PROPERTY_NAME_LENGTH_ERR),
        ("NULL", MQRC_PROPERTY_NAME_ERROR),
        ("usr.escape", MQRC_PROPERTY_NAME_ERROR),
        ("JMSFoo", MQRC_PROPERTY_NAME_ERROR),
        ("usr.JMSType", MQRC_PROPERTY_NAME_ERROR),
        ("Body", MQRC_PROPERTY_NAME_ERROR),
        ("Rootx", MQRC_PROPERTY_NAME_ERROR),
        ("Root.MQMD.Priority", MQRC_PROPERTY_NAME_ERROR),
        ("mqa.b.c", MQRC_PROPERTY_NAME_ERROR),
        ("a..b", MQRC_PROPERTY_NAME_ERROR),
        ("a.", MQRC_PROPERTY_NAME_ERROR),
        (".a", MQRC_PROPERTY_NAME_ERROR),
        ("1abc", MQRC_PROPERTY_NAME_ERROR),
        ("a b", MQRC_PROPERTY_NAME_ERROR),
        ("a=b", MQRC_PROPERTY_NAME_ERROR),
        ("x\U0001f600", MQRC_PROPERTY_NAME_ERROR),
    ],
)
def test_names_ibm_forbids_give_its_reason_codes(name: str, reason: int) -> None:
    """Each of 2442's listed causes (and 2513 for the length) is refused with that code."""
    with pytest.raises(MQIError) as info:
        make_property(name, T.STRING, "v")
    assert info.value.reason == reason


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        (T.INT8, 128),
        (T.INT16, -32769),
        (T.INT32, 2**31),
        (T.INT64, 2**63),
        (T.BOOLEAN, 1),
        (T.INT32, True),
        (T.STRING, b"x"),
        (T.BYTE_STRING, "x"),
        (T.NULL, 0),
        (T.FLOAT32, 1e39),
        (T.FLOAT64, 10**400),
        (T.FLOAT32, -(10**400)),
        (99, 1),
    ],
)
def test_values_must_fit_their_type(kind: int, value: object) -> None:
    """A value outside its type's range, of another kind, or an unknown type: 2473."""
    with pytest.raises(MQIError) as info:
        make_property("p", kind, value)  # type: ignore[arg-type]
    assert info.value.reason == MQRC_PROPERTY_TYPE_ERROR


def test_set_inquire_delete_by_name_and_wildcard() -> None:
    """MQSETMP/MQINQMP/MQDLTMP: names, the usr. prefix, %, INQ_FIRST and INQ_NEXT; ``usr.%``
    matches only the <usr> folder's properties, and ``grp.a`` is in a folder ``<grp>`` of
    its own (IBM, Mapping from property names to MQRFH2 folder and element names,
    https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_7.5.0/com.ibm.mq.ref.dev.doc/q104190_.htm:
    "<folder>.<Property>" maps to MQRFH2 folder "<folder>")."""
    h = MessageHandle()
    h.set("Color", "red")
    h.set("usr.Size", 3, T.INT32)
    h.set("JMSCorrelationID", "abc")
    h.set("grp.a", True)
    assert h.inquire("usr.Color") == Property("Color", T.STRING, "red")
    assert h.inquire("jms.Cid").value == "abc"
    assert [
        h.inquire("%").name,
        h.inquire("%", next=True).name,
        h.inquire("%", next=True).name,
        h.inquire("%", next=True).name,
    ] == ["Color", "Size", "jms.Cid", "grp.a"]
    with pytest.raises(MQIError) as info:
        h.inquire("%", next=True)
    assert info.value.reason == MQRC_PROPERTY_NOT_AVAILABLE
    assert h.inquire("usr.%", next=False).name == "Color"
    assert h.inquire("usr.%", next=True).name == "Size"
    with pytest.raises(MQIError) as info:  # jms.Cid and grp.a are not in usr
        h.inquire("usr.%", next=True)
    assert info.value.reason == MQRC_PROPERTY_NOT_AVAILABLE
    h.delete_property("grp.%")
    h.delete_property("Color")
    with pytest.raises(MQIError) as info:
        h.delete_property("Color")
    assert info.value.reason == MQRC_PROPERTY_NOT_AVAILABLE
    assert [p.name for p in h.properties] == ["Size", "jms.Cid"]
    h.delete()
    with pytest.raises(MQIError) as info:
        h.inquire("Size")
    assert info.value.reason == MQRC_HMSG_ERROR


def test_mixed_content_is_refused() -> None:
    """Setting a.b.c when a.b is a property (or the reverse) is MQRC_PROPERTY_NAME_ERROR."""
    h = MessageHandle()
    h.set("a.b", 1)
    for name in ("a.b.c", "a"):
        with pytest.raises(MQIError) as info:
            h.set(name, 1)
        assert info.value.reason == MQRC_PROPERTY_NAME_ERROR


@pytest.mark.parametrize(
    ("have", "want", "expected"),
    [
        (Property("p", T.BOOLEAN, True), T.STRING, "TRUE"),
        (Property("p", T.BOOLEAN, False), T.INT32, 0),
        (Property("p", T.INT32, 70000), T.INT64, 70000),
        (Property("p", T.INT32, 7), T.BOOLEAN, True),
        (Property("p", T.INT8, -3), T.STRING, "-3"),
        (Property("p", T.INT16, 3), T.FLOAT64, 3.0),
        (Property("p", T.FLOAT32, 0.5), T.FLOAT64, 0.5),
        (Property("p", T.FLOAT64, 2.25), T.STRING, "2.25"),
        (Property("p", T.BYTE_STRING, b"\x01\xab"), T.STRING, "01AB"),
        (Property("p", T.STRING, " 42 "), T.INT16, 42),
        (Property("p", T.STRING, "false"), T.BOOLEAN, False),
        (Property("p", T.STRING, "1.5e2"), T.FLOAT32, 150.0),
        (Property("p", T.STRING, "0aff"), T.BYTE_STRING, b"\n\xff"),
        (Property("p", T.NULL, None), T.INT32, None),
    ],
)
def test_inquire_converts_types_as_ibm_documents(
    have: Property, want: PropertyType, expected: object
) -> None:
    """MQIMPO_CONVERT_TYPE: the documented conversions give the documented values."""
    h = MessageHandle([have])
    assert h.inquire("p", type_=want).value == expected


@pytest.mark.parametrize(
    ("have", "want", "reason"),
    [
        (Property("p", T.INT32, 70000), T.INT16, MQRC_PROP_NUMBER_FORMAT_ERROR),
        (Property("p", T.STRING, "x1"), T.INT32, MQRC_PROP_NUMBER_FORMAT_ERROR),
        (Property("p", T.STRING, "maybe"), T.BOOLEAN, MQRC_PROP_NUMBER_FORMAT_ERROR),
        (Property("p", T.BYTE_STRING, b"x"), T.INT32, MQRC_PROP_CONV_NOT_SUPPORTED),
        (Property("p", T.FLOAT64, 1.0), T.BOOLEAN, MQRC_PROP_CONV_NOT_SUPPORTED),
        (Property("p", T.STRING, "1e999"), T.FLOAT64, MQRC_PROP_NUMBER_FORMAT_ERROR),
        (Property("p", T.STRING, "-1e39"), T.FLOAT32, MQRC_PROP_NUMBER_FORMAT_ERROR),
    ],
)
def test_conversions_that_cannot_be_made_give_ibms_reasons(
    have: Property, want: PropertyType, reason: int
) -> None:
    """A value that does not fit (2472) or a pair IBM does not convert (2470)."""
    with pytest.raises(MQIError) as info:
        MessageHandle([have]).inquire("p", type_=want)
    assert info.value.reason == reason
