"""An MQRFH2 an application puts at the start of the data is message properties.

IBM (MQGMO, MsgHandle): with a message handle, "if the message on the queue contained
properties in the message data these are removed from the message data before the data
is returned to the application"; without one they come in an MQRFH2 as the queue's
PROPCTL says. Folders that are not properties stay in the data. These cases run on both
back ends: the embedded queue manager, and IBM MQ through IBM's ``ibmmq`` package.
"""

from __future__ import annotations

import pytest

from dlqhandler.mq import Message, decode_dead_letter
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.mq.rfh2 import MQRFH2, Folder, decode_rfh2, encode_rfh2, folders_of, properties_of
from dlqhandler.qmgr import GetOptions, PutOptions
from tests.qmgr.contract.conftest import Adapter, text
from tests.qmgr.contract.test_properties import ALL_TYPES

T = PropertyType
NOW = PutOptions(syncpoint=False)
SENT = (
    *(Property(n, k, v) for n, k, v in ALL_TYPES[:-2]),
    Property("jms.Cid", T.STRING, "corr-1"),
    Property("mcd.Msd", T.STRING, "jms_text"),
)
BROKER = Folder("psc", (Property("Command", T.STRING, "Publish"),))


def _as_dict(props: tuple[Property, ...]) -> dict[str, tuple[PropertyType, object]]:
    return {p.name: (p.type, p.value) for p in props}


def _with_rfh2(
    data: bytes,
    folders: tuple[Folder, ...],
    *,
    fmt: str = "MQSTR",
    encoding: int = 273,
    ccsid: int = 1208,
) -> Message:
    """An application's message: MQRFH2 (its integers big-endian, as the MQMD says),
    then ``data`` in the header's Encoding 546 and CodedCharSetId ``ccsid``."""
    header = encode_rfh2(
        MQRFH2(encoding=546, coded_char_set_id=ccsid, format=fmt, folders=folders),
        encoding=encoding,
        ccsid=819,
    )
    md = MQMD(format="MQHRF2", encoding=encoding, coded_char_set_id=819)
    return Message(md, header + data)


@pytest.fixture
def rfh2_adapter(adapter: Adapter) -> Adapter:
    """Every adapter: the embedded queue manager, and IBM MQ through IBM's library."""
    return adapter


def test_a_get_with_a_handle_has_the_properties_and_not_the_header(
    rfh2_adapter: Adapter,
) -> None:
    """Put MQRFH2 (mcd, jms, usr, every type) + data; a get with a handle returns the
    properties in it, the data without the header, and the MQMD takes the header's
    Format, Encoding and CodedCharSetId."""
    rfh2_adapter.define_queue("APP.R")
    qm = rfh2_adapter.connect()
    qm.put1("APP.R", _with_rfh2(b"payload", folders_of(SENT)), NOW)
    got = qm.open("APP.R").get(GetOptions(syncpoint=False))
    assert _as_dict(got.properties) == _as_dict(SENT)
    assert (got.body, got.md.format, got.md.encoding, got.md.coded_char_set_id) == (
        b"payload",
        "MQSTR",
        546,
        1208,
    )


@pytest.mark.parametrize("propctl", ["COMPAT", "ALL", "FORCE"])
def test_a_get_without_a_handle_gets_them_back_in_an_mqrfh2(
    rfh2_adapter: Adapter, propctl: str
) -> None:
    """Without a handle (PROPCTL COMPAT, ALL) or from a FORCE queue the same properties
    come back in an MQRFH2 in front of the same data (Format MQSTR behind it)."""
    rfh2_adapter.define_queue("APP.R", propctl=propctl)
    qm = rfh2_adapter.connect()
    qm.put1("APP.R", _with_rfh2(b"payload", folders_of(SENT)), NOW)
    got = qm.open("APP.R").get(GetOptions(syncpoint=False, msg_handle=False))
    assert got.md.format == "MQHRF2"
    rfh2, end = decode_rfh2(got.body, encoding=got.md.encoding, ccsid=got.md.coded_char_set_id)
    assert _as_dict(properties_of(rfh2.folders)) == _as_dict(SENT)
    assert (got.body[end:], rfh2.format, rfh2.coded_char_set_id) == (b"payload", "MQSTR", 1208)


def test_folders_that_are_not_properties_stay_in_the_data(rfh2_adapter: Adapter) -> None:
    """An MQRFH2 with a broker's folder and a usr folder: the handle gets the usr
    property; the data keeps an MQRFH2 with the broker's folder only, its Format
    chain to the data intact."""
    rfh2_adapter.define_queue("APP.R")
    qm = rfh2_adapter.connect()
    props = (Property("Color", T.STRING, "red"),)
    qm.put1("APP.R", _with_rfh2(b"payload", (BROKER, *folders_of(props))), NOW)
    got = qm.open("APP.R").get(GetOptions(syncpoint=False))
    assert _as_dict(got.properties) == _as_dict(props)
    assert got.md.format == "MQHRF2"
    rfh2, end = decode_rfh2(got.body, encoding=got.md.encoding, ccsid=got.md.coded_char_set_id)
    assert (rfh2.folders, rfh2.format, got.body[end:]) == ((BROKER,), "MQSTR", b"payload")


@pytest.mark.parametrize("case", ["broker_only", "v6compat", "bad_struc_length", "bad_name"])
def test_an_mqrfh2_that_is_not_properties_stays_as_it_was_put(
    rfh2_adapter: Adapter, case: str
) -> None:
    """Byte for byte, no properties: an MQRFH2 with only a broker's folder, one put to a
    PROPCTL(V6COMPAT) queue (IBM: "received as it was sent"), one whose StrucLength is
    past the end (never rejected, never half-read: the DLQ handler reports such a
    message), one whose usr folder holds a name IBM forbids."""
    rfh2_adapter.define_queue("APP.R", propctl="V6COMPAT" if case == "v6compat" else "COMPAT")
    folders = {
        "broker_only": (BROKER,),
        "v6compat": folders_of(SENT),
        "bad_struc_length": folders_of(SENT),
        "bad_name": (Folder("usr", (Property("NULL", T.STRING, "x"),)),),
    }[case]
    message = _with_rfh2(b"payload", folders)
    if case == "bad_struc_length":
        message = Message(
            message.md, message.body[:8] + (9999).to_bytes(4, "big") + message.body[12:]
        )
    qm = rfh2_adapter.connect()
    qm.put1("APP.R", message, NOW)
    got = qm.open("APP.R").get(GetOptions(syncpoint=False))
    assert (got.properties, got.body, got.md.format) == ((), message.body, "MQHRF2")


def test_a_dead_letter_loaded_with_its_mqrfh2_in_front_is_an_mqdlh_with_properties(
    rfh2_adapter: Adapter,
) -> None:
    """What IBM's dmpmqmsg unloads from a COMPAT DLQ and loads back: MQRFH2 (Format
    MQDEAD), MQDLH, data. On the queue it is a dead letter: a get with a handle sees
    the MQDLH at the start (MQMD Format MQDEAD) and the properties in the handle."""
    rfh2_adapter.define_queue("APP.DLQ")
    dead = Message.dead_letter(text("payload").md, b"payload", reason=2053, dest_q_name="APP.IN")
    props = (Property("Color", T.STRING, "red"), Property("jms.Cid", T.STRING, "c-1"))
    header = encode_rfh2(
        MQRFH2(
            encoding=dead.md.encoding,
            coded_char_set_id=dead.md.coded_char_set_id,
            format="MQDEAD",
            folders=folders_of(props),
        ),
        encoding=dead.md.encoding,
        ccsid=dead.md.coded_char_set_id,
    )
    qm = rfh2_adapter.connect()
    qm.put1("APP.DLQ", Message(dead.md.replace(format="MQHRF2"), header + dead.body), NOW)
    got = qm.open("APP.DLQ").get(GetOptions(syncpoint=False))
    assert (got.md.format, got.body, _as_dict(got.properties)) == (
        "MQDEAD",
        dead.body,
        _as_dict(props),
    )
    dlh = decode_dead_letter(got.md, got.body).dlh
    assert dlh is not None
    assert dlh.dest_q_name == "APP.IN"


def test_a_handle_on_the_put_wins_over_the_data_and_both_are_kept(
    rfh2_adapter: Adapter,
) -> None:
    """A put with an MQRFH2 in the data and a NewMsgHandle: both sets of properties are
    the message's; a name in both takes the handle's value."""
    rfh2_adapter.define_queue("APP.R")
    qm = rfh2_adapter.connect()
    handle = qm.create_message_handle()
    handle.set("Color", "blue")
    handle.set("Items", 3, T.INT32)
    data_props = (Property("Color", T.STRING, "red"), Property("Size", T.STRING, "L"))
    qm.put1(
        "APP.R",
        _with_rfh2(b"payload", folders_of(data_props)),
        PutOptions(syncpoint=False, new_msg_handle=handle),
    )
    got = qm.open("APP.R").get(GetOptions(syncpoint=False))
    assert _as_dict(got.properties) == {
        "Size": (T.STRING, "L"),
        "Color": (T.STRING, "blue"),
        "Items": (T.INT32, 3),
    }
    assert got.body == b"payload"
