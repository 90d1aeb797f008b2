"""Message properties: MQCRTMH/MQSETMP/MQINQMP/MQDLTMP, a get's MQGMO_PROPERTIES_*
options, the queue's PROPCTL, and a put with NewMsgHandle/OriginalMsgHandle (MQACTP_*).

These cases run on both back ends: the embedded queue manager, and the IBM MQ adapter
through IBM's ``ibmmq`` package (on the MQI stand-in, whose MQSETMP/MQINQMP/MQDLTMP
are the embedded queue manager's message handle).
"""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import Message
from dlqhandler.mq.properties import MessageHandle, Property, PropertyType
from dlqhandler.mq.rfh2 import decode_rfh2, properties_of
from dlqhandler.qmgr import GetOptions, PutOptions
from tests.qmgr.contract.conftest import Adapter, text

T = PropertyType
NOW = PutOptions(syncpoint=False)
ALL_TYPES = (
    ("flag", T.BOOLEAN, True),
    ("raw", T.BYTE_STRING, b"\x00\xff"),
    ("b", T.INT8, -7),
    ("s", T.INT16, 300),
    ("i", T.INT32, -70000),
    ("l", T.INT64, 2**40),
    ("f", T.FLOAT32, 0.5),
    ("d", T.FLOAT64, 1e-300),
    ("txt", T.STRING, "héllo <&>"),
    ("gone", T.NULL, None),
    ("JMSCorrelationID", T.STRING, "corr-1"),
    ("mcd.Msd", T.STRING, "jms_text"),
)


@pytest.fixture
def props_adapter(adapter: Adapter) -> Adapter:
    """Every adapter: the embedded queue manager, and IBM MQ through IBM's library."""
    return adapter


def _handle(qm_props: tuple[tuple[str, PropertyType, object], ...], qm: object) -> MessageHandle:
    handle = qm.create_message_handle()  # type: ignore[attr-defined]
    for name, kind, value in qm_props:
        handle.set(name, value, kind)
    return handle


def _put(
    adapter: Adapter,
    queue: str,
    props: tuple[tuple[str, PropertyType, object], ...] = ALL_TYPES,
    body: str = "payload",
) -> MessageHandle:
    qm = adapter.connect()
    handle = _handle(props, qm)
    qm.put1(queue, text(body), PutOptions(syncpoint=False, new_msg_handle=handle))
    return handle


def _as_dict(props: tuple[Property, ...]) -> dict[str, tuple[PropertyType, object]]:
    return {p.name: (p.type, p.value) for p in props}


def test_a_get_returns_every_property_type_as_set(props_adapter: Adapter) -> None:
    """MQSETMP of each IBM type, MQPUT with NewMsgHandle, then a plain get (a handle, the
    queue PROPCTL(COMPAT)): the same names, types and values; the data is untouched."""
    props_adapter.define_queue("APP.P")
    sent = _put(props_adapter, "APP.P")
    got = props_adapter.connect().open("APP.P").get(GetOptions(syncpoint=False))
    assert got.body == b"payload"
    assert got.md.format == "MQSTR"
    assert _as_dict(got.properties) == _as_dict(sent.properties)
    assert _as_dict(got.properties)["jms.Cid"] == (T.STRING, "corr-1")


def test_inquire_by_name_wildcard_and_next_then_delete(props_adapter: Adapter) -> None:
    """A get fills the caller's handle (MQGMO.MsgHandle); MQINQMP by name, by ``%``
    with INQ_FIRST/INQ_NEXT through every property, converted; MQDLTMP removes one."""
    props_adapter.define_queue("APP.P")
    _put(
        props_adapter,
        "APP.P",
        (("a.x", T.INT32, 1), ("a.y", T.STRING, "2"), ("b", T.BOOLEAN, False)),
    )
    qm = props_adapter.connect()
    handle = qm.create_message_handle()
    qm.open("APP.P").get(GetOptions(syncpoint=False, msg_handle=handle))
    assert handle.inquire("a.y", type_=T.INT16).value == 2
    names = [handle.inquire("a.%").name, handle.inquire("a.%", next=True).name]
    assert names == ["a.x", "a.y"]
    with pytest.raises(MQIError) as exc:
        handle.inquire("a.%", next=True)
    assert exc.value.reason == 2471
    handle.delete_property("a.x")
    assert [p.name for p in handle.properties] == ["a.y", "b"]
    handle.delete()


def test_a_message_without_properties_comes_back_as_before(props_adapter: Adapter) -> None:
    """No properties: the same data, no MQRFH2 even from a PROPCTL(FORCE) queue (whose get
    leaves a caller's handle as it was); from a COMPAT queue the handle is emptied."""
    props_adapter.define_queue("APP.F", propctl="FORCE")
    props_adapter.define_queue("APP.C")
    qm = props_adapter.connect()
    old = Property("old", T.INT32, 1)
    for queue, left in (("APP.F", (old,)), ("APP.C", ())):
        qm.put1(queue, text("plain"), NOW)
        handle = MessageHandle([old])
        got = qm.open(queue).get(GetOptions(syncpoint=False, msg_handle=handle))
        assert (got.body, got.md.format, got.properties, handle.properties) == (
            b"plain",
            "MQSTR",
            (),
            left,
        )


def _rfh2_props(
    body: bytes, ccsid: int = 819
) -> tuple[dict[str, tuple[PropertyType, object]], bytes, str]:
    rfh2, end = decode_rfh2(body, encoding=546, ccsid=ccsid)
    return _as_dict(properties_of(rfh2.folders)), body[end:], rfh2.format


@pytest.mark.parametrize(
    ("propctl", "handle", "expected"),
    [
        ("COMPAT", True, "handle"),
        ("COMPAT", False, "rfh2"),
        ("ALL", True, "handle"),
        ("ALL", False, "rfh2"),
        ("FORCE", True, "rfh2"),
        ("FORCE", False, "rfh2"),
        ("NONE", True, "handle"),
        ("NONE", False, "none"),
        ("V6COMPAT", True, "handle"),
        ("V6COMPAT", False, "rfh2"),
    ],
)
def test_propctl_decides_where_a_get_as_q_def_puts_properties(
    props_adapter: Adapter, propctl: str, handle: bool, expected: str
) -> None:
    """MQGMO_PROPERTIES_AS_Q_DEF: in the handle unless PROPCTL(FORCE); without a handle,
    ALL/FORCE/V6COMPAT (and COMPAT, with usr properties) give an MQRFH2 in front of the
    data (MQMD Format MQHRF2, the header's Format the old one), NONE discards them."""
    props_adapter.define_queue("APP.P", propctl=propctl)
    sent = _put(props_adapter, "APP.P")
    got = props_adapter.connect().open("APP.P").get(GetOptions(syncpoint=False, msg_handle=handle))
    if expected == "handle":
        assert _as_dict(got.properties) == _as_dict(sent.properties)
        assert got.body == b"payload"
    elif expected == "rfh2":
        assert got.properties == ()
        assert got.md.format == "MQHRF2"
        props, rest, fmt = _rfh2_props(got.body)
        assert (props, rest, fmt) == (_as_dict(sent.properties), b"payload", "MQSTR")
    else:
        assert (got.properties, got.body, got.md.format) == ((), b"payload", "MQSTR")


def test_compat_without_a_handle_discards_properties_outside_its_folders(
    props_adapter: Adapter,
) -> None:
    """PROPCTL(COMPAT), no handle: properties none of which is in mcd/jms/usr/mqext are
    discarded (IBM: "Otherwise all properties ... are discarded")."""
    props_adapter.define_queue("APP.P")
    _put(props_adapter, "APP.P", (("mq.x", T.INT32, 1),))
    got = props_adapter.connect().open("APP.P").get(GetOptions(syncpoint=False, msg_handle=False))
    assert (got.properties, got.body) == ((), b"payload")


def test_a_folder_dot_name_property_is_a_folder_of_its_own(props_adapter: Adapter) -> None:
    """A property named ``abc.x`` goes in an MQRFH2 folder ``<abc>`` of its own (marked
    ``content='properties'``), not a group in ``<usr>``: from a PROPCTL(ALL) queue without a
    handle the MQRFH2 holds it so, and put back it is the property ``abc.x`` again; a
    PROPCTL(COMPAT) queue without a handle discards it (no mcd, jms, usr or mqext property).

    IBM, Mapping from property names to MQRFH2 folder and element names
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_7.5.0/com.ibm.mq.ref.dev.doc/q104190_.htm):
    "<folder>.<Property>" maps to folder "<folder>"; Supported MQRFH2 folders
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q104150_.htm):
    "Groups are not allowed in the <usr> folder", "Any folder marked with the
    content='properties' attribute"."""
    props_adapter.define_queue("APP.ALL", propctl="ALL")
    props_adapter.define_queue("APP.C")
    props_adapter.define_queue("APP.BACK")
    qm = props_adapter.connect()
    _put(props_adapter, "APP.ALL", (("abc.x", T.INT32, 5), ("Color", T.STRING, "red")))
    _put(props_adapter, "APP.C", (("abc.x", T.INT32, 5),), body="only")
    got = qm.open("APP.ALL").get(GetOptions(syncpoint=False, msg_handle=False))
    rfh2, _ = decode_rfh2(got.body, encoding=546, ccsid=819)
    assert [(f.name, f.attributes) for f in rfh2.folders] == [
        ("abc", (("content", "properties"),)),
        ("usr", ()),
    ]
    assert [p.name for p in rfh2.folders[0].properties] == ["x"]
    qm.put1("APP.BACK", got, NOW)  # the MQRFH2 at the start of the data is properties
    back = qm.open("APP.BACK").get(GetOptions(syncpoint=False))
    assert (_as_dict(back.properties), back.body) == (
        {"abc.x": (T.INT32, 5), "Color": (T.STRING, "red")},
        b"payload",
    )
    discarded = qm.open("APP.C").get(GetOptions(syncpoint=False, msg_handle=False))
    assert (discarded.properties, discarded.body, discarded.md.format) == ((), b"only", "MQSTR")


@pytest.mark.parametrize(
    ("option", "expected"),
    [("in_handle", "handle"), ("force_rfh2", "rfh2"), ("compatibility", "rfh2"), ("none", "none")],
)
def test_each_mqgmo_properties_option(props_adapter: Adapter, option: str, expected: str) -> None:
    """MQGMO_PROPERTIES_IN_HANDLE, _FORCE_MQRFH2, _COMPATIBILITY and MQGMO_NO_PROPERTIES
    on a PROPCTL(ALL) queue, with a handle."""
    props_adapter.define_queue("APP.P", propctl="ALL")
    sent = _put(props_adapter, "APP.P")
    got = props_adapter.connect().open("APP.P").get(GetOptions(syncpoint=False, properties=option))  # type: ignore[arg-type]
    if expected == "handle":
        assert _as_dict(got.properties) == _as_dict(sent.properties)
    elif expected == "rfh2":
        assert _rfh2_props(got.body)[0] == _as_dict(sent.properties)
    else:
        assert (got.properties, got.body) == ((), b"payload")


@pytest.mark.parametrize("syncpoint", [False, True])
def test_in_handle_without_a_handle_is_hmsg_error_and_takes_nothing(
    props_adapter: Adapter, syncpoint: bool
) -> None:
    """MQGMO_PROPERTIES_IN_HANDLE with no handle (MQHM_NONE): MQRC_HMSG_ERROR (2460), and
    the message stays on the queue: a second connection counts it, and a get then takes it.

    IBM, MQGMO Options (https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refdev/q096715_.html,
    MQGMO_PROPERTIES_IN_HANDLE): "If no message handle is provided the call fails with
    reason MQRC_HMSG_ERROR" -- a failed call, so nothing is removed."""
    props_adapter.define_queue("APP.P")
    _put(props_adapter, "APP.P")
    with pytest.raises(MQIError) as exc:
        props_adapter.connect().open("APP.P").get(
            GetOptions(syncpoint=syncpoint, properties="in_handle", msg_handle=False)
        )
    assert (exc.value.comp, exc.value.reason) == (2, 2460)
    other = props_adapter.connect()
    assert other.inquire_queue("APP.P").curdepth == 1
    assert other.open("APP.P").get(GetOptions(syncpoint=False)).body == b"payload"


def test_a_dead_letter_forced_to_mqrfh2_has_it_in_front_of_the_mqdlh(
    props_adapter: Adapter,
) -> None:
    """A DLQ defined PROPCTL(FORCE): MQRFH2 (Format MQDEAD), then the MQDLH, then data."""
    from dlqhandler.mq import decode_dead_letter

    props_adapter.define_queue("APP.DLQ", propctl="FORCE")
    qm = props_adapter.connect()
    dead = Message.dead_letter(
        text("payload").md,
        b"payload",
        reason=2053,
        dest_q_name="APP.IN",
        properties=(Property("Color", T.STRING, "red"),),
    )
    qm.put1("APP.DLQ", dead, NOW)
    got = qm.open("APP.DLQ").get(GetOptions(syncpoint=False))
    props, rest, fmt = _rfh2_props(got.body)
    assert (props, fmt, got.md.format) == ({"Color": (T.STRING, "red")}, "MQDEAD", "MQHRF2")
    assert decode_dead_letter(dead.md, rest).payload == b"payload"


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("forward", {"Color": "red", "Size": "L"}),
        ("report", {"Color": "red", "Size": "L"}),
        ("reply", {"Size": "L"}),
    ],
)
def test_put_with_original_msg_handle_and_action(
    props_adapter: Adapter, action: str, expected: dict[str, str]
) -> None:
    """MQPMO.OriginalMsgHandle: MQACTP_FORWARD/REPORT copy the original's properties under
    the new handle's, MQACTP_REPLY copies none."""
    props_adapter.define_queue("APP.IN")
    props_adapter.define_queue("APP.OUT")
    _put(props_adapter, "APP.IN", (("Color", T.STRING, "red"), ("Size", T.STRING, "S")))
    qm = props_adapter.connect()
    original = qm.create_message_handle()
    got = qm.open("APP.IN").get(GetOptions(syncpoint=False, msg_handle=original))
    new = qm.create_message_handle()
    new.set("Size", "L")
    qm.put1(
        "APP.OUT",
        got.with_md(got.md),
        PutOptions(
            syncpoint=False, original_msg_handle=original, new_msg_handle=new, action=action
        ),
    )  # type: ignore[arg-type]
    out = qm.open("APP.OUT").get(GetOptions(syncpoint=False))
    assert {p.name: p.value for p in out.properties} == expected


@pytest.mark.parametrize("both", [False, True])
def test_a_new_message_put_with_an_original_handle_and_actp_new_carries_its_properties(
    props_adapter: Adapter, both: bool
) -> None:
    """MQACTP_NEW (the default Action) with OriginalMsgHandle: the new message carries the
    handle's properties, by MQPUT1 and by MQPUT; with a NewMsgHandle too, the new handle's
    values win by name and the original's other properties stay.

    IBM, Setting properties of a message
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queue-setting-properties-message):
    "set the OriginalMsgHandle field in the MQPMO to the value of this message handle, and
    set the MQPMO Action field to MQACTP_NEW (this is the default value)"; MQPMO
    NewMsgHandle (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098720_.html):
    "It defines the properties of the message and overrides the values of the
    OriginalMsgHandle, if specified"."""
    props_adapter.define_queue("APP.OUT")
    qm = props_adapter.connect()
    original = _handle((("Color", T.STRING, "red"), ("Size", T.INT32, 1)), qm)
    new = _handle((("Size", T.INT32, 2),), qm) if both else None
    options = PutOptions(syncpoint=False, original_msg_handle=original, new_msg_handle=new)
    qm.put1("APP.OUT", text("one"), options)
    qm.open("APP.OUT", output=True).put(text("two"), options)
    size = 2 if both else 1
    for body in ("one", "two"):
        got = qm.open("APP.OUT").get(GetOptions(syncpoint=False))
        assert got.body == body.encode()
        assert _as_dict(got.properties) == {
            "Color": (T.STRING, "red"),
            "Size": (T.INT32, size),
        }


def test_properties_survive_browse_backout_and_commit(props_adapter: Adapter) -> None:
    """A browse with lock, a get under the cursor backed out, the get again and a put
    under syncpoint: the properties are there each time."""
    props_adapter.define_queue("APP.P")
    props_adapter.define_queue("APP.OUT")
    sent = _as_dict(_put(props_adapter, "APP.P").properties)
    qm = props_adapter.connect()
    q = qm.open("APP.P")
    assert (
        _as_dict(q.get(GetOptions(browse="first", lock=True, syncpoint=False)).properties) == sent
    )
    assert _as_dict(q.get(GetOptions(under_cursor=True)).properties) == sent
    qm.backout()
    got = q.get(GetOptions())
    qm.put1("APP.OUT", got, PutOptions())
    qm.commit()
    assert _as_dict(qm.open("APP.OUT").get(GetOptions(syncpoint=False)).properties) == sent


def test_properties_count_toward_maxmsgl(props_adapter: Adapter) -> None:
    """A message whose data fits MAXMSGL but not with its properties: 2030."""
    props_adapter.define_queue("APP.SMALL", maxmsgl=100)
    qm = props_adapter.connect()
    qm.put1("APP.SMALL", text("x" * 90), NOW)
    handle = _handle((("big", T.STRING, "y" * 40),), qm)
    with pytest.raises(MQIError) as exc:
        qm.put1("APP.SMALL", text("x" * 90), PutOptions(syncpoint=False, new_msg_handle=handle))
    assert exc.value.reason == 2030


def test_a_forbidden_name_or_type_gives_ibms_reason(props_adapter: Adapter) -> None:
    """MQSETMP on a handle from the queue manager: 2442 for a reserved name, 2473 for a
    value that does not fit its type."""
    qm = props_adapter.connect()
    handle = qm.create_message_handle()
    for name, kind, value, reason in (("Body.x", T.STRING, "v", 2442), ("n", T.INT8, 1000, 2473)):
        with pytest.raises(MQIError) as exc:
            handle.set(name, value, kind)
        assert exc.value.reason == reason
    assert handle.properties == ()  # nothing was set


def test_an_mqrfh2_is_readable_whatever_the_data_ccsid(props_adapter: Adapter) -> None:
    """Data in UTF-16 (CCSID 1200) forced to an MQRFH2: the MQMD describes the header
    (1208), the header's CodedCharSetId the data after it (1200), nothing lost."""
    props_adapter.define_queue("APP.F", propctl="FORCE")
    qm = props_adapter.connect()
    data = "grüße".encode("utf-16-be")
    qm.put1(
        "APP.F",
        Message(
            text("").md.replace(coded_char_set_id=1200),
            data,
            None,
            (Property("Color", T.STRING, "red"),),
        ),
        NOW,
    )
    got = qm.open("APP.F").get(GetOptions(syncpoint=False))
    assert got.md.coded_char_set_id == 1208
    rfh2, end = decode_rfh2(got.body, encoding=got.md.encoding, ccsid=1208)
    assert (rfh2.coded_char_set_id, rfh2.format, got.body[end:]) == (1200, "MQSTR", data)
    assert _as_dict(properties_of(rfh2.folders)) == {"Color": (T.STRING, "red")}
