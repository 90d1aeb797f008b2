"""Message properties on the embedded queue manager: how they are stored, how a get
receives them (the queue's PROPCTL and the MQGMO_PROPERTIES_* options).

Stored: a message's properties are one nullable column of its row, ``props``,
holding the folders of an MQRFH2 (:mod:`dlqhandler.mq.rfh2`, little-endian,
NameValueCCSID 1208): NULL for a message without properties, so such a message
costs no more than before (the same one INSERT per put and one statement per get;
the column is read with the row, nothing is decoded when it is NULL).

A get, as IBM documents MQGMO_PROPERTIES_* and the PROPCTL queue attribute:

* MQGMO_PROPERTIES_AS_Q_DEF with a message handle: in the handle, unless the
  queue is PROPCTL(FORCE) ("If a MsgHandle is provided then this option is
  ignored ... unless the value of the PropertyControl queue attribute is
  MQPROP_FORCE_MQRFH2"). The port's returned Message is a handle (see
  :mod:`dlqhandler.qmgr.port`), so this is what a plain get does.
* AS_Q_DEF without a handle: PROPCTL(ALL) and (FORCE): in an MQRFH2 in front of
  the data; (COMPAT): in an MQRFH2 if any property is in the ``mcd``, ``jms``,
  ``usr`` or ``mqext`` folder, else discarded; (NONE): discarded. (V6COMPAT):
  IBM delivers an application's own MQRFH2 as it was put and properties set by
  MQSETMP through a handle only; this queue manager keeps every property as a
  property (it does not keep an application's MQRFH2 apart), so without a handle
  V6COMPAT delivers them as ALL does - our choice, nearest to "received as it
  was sent".
* MQGMO_PROPERTIES_IN_HANDLE: in the handle (without one: MQRC_HMSG_ERROR);
  _FORCE_MQRFH2: in an MQRFH2 whatever the handle and the queue;
  _COMPATIBILITY: as PROPCTL(COMPAT) without a handle; MQGMO_NO_PROPERTIES:
  discarded. A handle the properties do not go to is left as it was (IBM: the
  MsgHandle "is ignored"); one they go to holds the message's, none if it has none.

In an MQRFH2 the header takes the MQMD's Encoding, CodedCharSetId and Format (of
what follows it) and the MQMD's Format becomes ``MQHRF2``; a dead letter thus comes
back as MQRFH2, MQDLH, data, as from IBM MQ.

An MQRFH2 an application puts at the start of the data (MQMD Format ``MQHRF2``) is
properties, as IBM documents: with a message handle "if the message on the queue
contained properties in the message data these are removed from the message data
before the data is returned to the application" (MQGMO, *MsgHandle*); with PROPCTL(ALL)
and a handle "name/value pairs that are not message properties remain in the MQRFH2,
which is stripped of any message properties" (*PROPCTL queue options*); and
PROPCTL(V6COMPAT) exists so that "an MQRFH2 created by an application is received as
it was sent". This queue manager does it **at put** (:func:`put_properties`): the
property folders of the leading MQRFH2s (``mcd``, ``jms``, ``usr``, ``mq``, ``mqext``,
``mq_usr``, ``mqps``) become the message's stored properties, a header left with no
folder is removed (the MQMD takes its Format, Encoding and CodedCharSetId, a CCSID of
MQCCSI_INHERIT -2 meaning the MQMD's), a header that also holds other folders (IBM
Integration Bus's, an application's own) stays in the data with those folders only.
Why at put: a message is then stored one way whoever put it (MQSETMP or an MQRFH2),
every get path (browse, selection, the MQI stand-in, a PROPCTL altered later) delivers
it by the one rule above, a get without properties costs nothing more, and the put
pays only when its Format is ``MQHRF2``. Our choices where IBM's text is open: a put to
a PROPCTL(V6COMPAT) queue keeps the MQRFH2 as data ("received as it was sent"); an
MQRFH2 that cannot be read (a malformed header, a folder that is not that syntax) or a
property folder with attributes or with a name IBM forbids stays in the data as it
was, never rejected and never half-read (the DLQ handler reports such a message);
properties a put also sets through a handle (NewMsgHandle, OriginalMsgHandle) win
over a data property of the same name; only the MQRFH2s at the start of the data are
read (one behind an MQDLH, as a JMS dead letter carries it, is data).
"""

from __future__ import annotations

import functools
from dataclasses import replace

from dlqhandler.errors import DecodeError, MQIError
from dlqhandler.mq.ccsid import QMGR_CCSID
from dlqhandler.mq.constants import MQRC_HMSG_ERROR, mqi_error
from dlqhandler.mq.message import Message
from dlqhandler.mq.properties import Property, check_name
from dlqhandler.mq.rfh2 import (
    MQFMT_RF_HEADER_2,
    MQRFH2,
    Folder,
    decode_rfh2,
    encode_rfh2,
    folder_of,
    folders_of,
    is_property_folder,
    properties_of,
)
from dlqhandler.qmgr.port import GetOptions, PutOptions, outgoing_properties

__all__ = ["decode_stored", "deliver", "encode_stored", "put_properties"]

_STORED_ENCODING, _STORED_CCSID = 546, 819
_COMPAT_FOLDERS = frozenset({"mcd", "jms", "usr", "mqext"})


# The properties MQGET returned, with the column they were read from: {id(props): (props,
# blob)}, so a put of a message as got (a forward, a retry) stores that column again
# instead of writing the header anew (as images.py does for the MQMD).
_COLUMNS: dict[int, tuple[tuple[Property, ...], bytes]] = {}
_COLUMNS_MAX = 64


def encode_stored(properties: tuple[Property, ...]) -> bytes | None:
    """The ``props`` column of a message (None when it has none)."""
    if not properties:
        return None
    known = _COLUMNS.get(id(properties))
    if known is not None and known[0] is properties:
        return known[1]
    return encode_rfh2(
        MQRFH2(folders=folders_of(properties)), encoding=_STORED_ENCODING, ccsid=_STORED_CCSID
    )


def put_properties(
    message: Message, options: PutOptions, propctl: str
) -> tuple[Message, bytes | None]:
    """What a put stores: the message with the properties of the MQRFH2s at the start
    of its data taken out of it (see the module docstring), and the ``props`` column:
    those properties, then the put's own (:func:`.port.outgoing_properties`) over them."""
    own = outgoing_properties(message, options)
    if message.md.format != MQFMT_RF_HEADER_2 or propctl == "V6COMPAT":
        return message, encode_stored(own)  # (every other put: one string compare)
    message, from_data = _from_data(message)
    if not from_data:
        return message, encode_stored(own)
    names = {p.name for p in own}
    return message, encode_stored((*(p for p in from_data if p.name not in names), *own))


_MQCCSI_INHERIT = -2


def _is_properties(folder: Folder) -> bool:
    """A folder IBM reads as message properties (:func:`.rfh2.is_property_folder`) whose
    names it allows."""
    if not is_property_folder(folder):
        return False
    try:
        for prop in properties_of((folder,)):
            check_name(prop.name)
    except MQIError:
        return False
    return True


def _from_data(message: Message) -> tuple[Message, tuple[Property, ...]]:
    """The message without the property folders of its leading MQRFH2s, and their
    properties (none, and the message unchanged, when none can be taken)."""
    md, body = message.md, message.body
    enc, ccsid, fmt = md.encoding, md.coded_char_set_id or QMGR_CCSID, md.format
    pos = 0
    kept: list[MQRFH2] = []
    folders: list[Folder] = []
    while fmt == MQFMT_RF_HEADER_2:
        try:
            rfh2, end = decode_rfh2(body, encoding=enc, ccsid=ccsid, start=pos)
        except DecodeError:
            break  # (not readable: from here on it is data, as it was)
        props = [f for f in rfh2.folders if _is_properties(f)]
        others = tuple(f for f in rfh2.folders if not _is_properties(f))
        if others or not props:
            kept.append(replace(rfh2, folders=others))
        folders.extend(props)
        pos = end
        enc, fmt = rfh2.encoding, rfh2.format
        if rfh2.coded_char_set_id != _MQCCSI_INHERIT:
            ccsid = rfh2.coded_char_set_id
    if not folders:
        return message, ()
    # MQMD -> the headers kept (written in the MQMD's encoding and CCSID) -> the rest.
    describes = [(md.encoding, _MQCCSI_INHERIT, MQFMT_RF_HEADER_2)] * len(kept)
    if kept:
        describes[-1] = (enc, ccsid, fmt)
    try:
        headers = b"".join(
            encode_rfh2(
                replace(h, encoding=e, coded_char_set_id=c, format=f),
                encoding=md.encoding,
                ccsid=md.coded_char_set_id or QMGR_CCSID,
            )
            for h, (e, c, f) in zip(kept, describes, strict=True)
        )
    except DecodeError:
        return message, ()  # (a header that cannot be written back: all stays data)
    if not kept:
        md = md.replace(encoding=enc, coded_char_set_id=ccsid, format=fmt)
    return Message(md, headers + body[pos:], None, message.properties), properties_of(folders)


def decode_stored(blob: bytes) -> tuple[Property, ...]:
    """The properties a ``props`` column holds (written by :func:`encode_stored`). A
    browse then a get of the same message read the column once."""
    properties = _decode_stored(blob)
    if len(_COLUMNS) >= _COLUMNS_MAX:
        _COLUMNS.clear()
    _COLUMNS[id(properties)] = (properties, blob)
    return properties


@functools.lru_cache(maxsize=64)
def _decode_stored(blob: bytes) -> tuple[Property, ...]:
    try:
        rfh2, _ = decode_rfh2(blob, encoding=_STORED_ENCODING, ccsid=_STORED_CCSID)
    except DecodeError as exc:  # only a damaged database file gets here
        raise DecodeError(
            f"stored message properties: {exc}", raw=exc.raw, offset=exc.offset
        ) from exc
    return properties_of(rfh2.folders)


def deliver(message: Message, options: GetOptions, propctl: str) -> Message:
    """``message`` (its stored properties in ``properties``) as this get receives it."""
    props = message.properties
    handle = options.msg_handle
    has_handle = handle is not False
    mode = options.properties
    if mode == "in_handle" and not has_handle:
        raise mqi_error(MQRC_HMSG_ERROR, "MQGMO_PROPERTIES_IN_HANDLE without a handle")
    if mode == "as_q_def":
        if propctl == "FORCE":
            where = "rfh2"
        elif has_handle:
            where = "handle"
        else:
            where = {"ALL": "rfh2", "V6COMPAT": "rfh2", "NONE": "none"}.get(propctl, "compat")
    else:
        where = {
            "in_handle": "handle",
            "force_rfh2": "rfh2",
            "compatibility": "compat",
            "none": "none",
        }[mode]
    if where == "compat":
        where = "rfh2" if any(folder_of(p.name)[0] in _COMPAT_FOLDERS for p in props) else "none"
    out = message
    if where == "rfh2" and props:
        out = _in_rfh2(message)
    elif where != "handle":
        out = Message(message.md, message.body, message.dlh)
    if where == "handle" and not isinstance(handle, bool):
        handle.replace_all(props)  # (else IBM: "a MsgHandle ... is ignored")
    return out


def _in_rfh2(message: Message) -> Message:
    """The properties in an MQRFH2 in front of the data. The header is written in the
    MQMD's encoding and CCSID; where those cannot describe it (a CCSID such as UTF-16
    1200, an encoding without an integer order), the MQMD takes 546 and 1208 for it:
    the header's own Encoding and CodedCharSetId still describe the data after it."""
    md = message.md
    rfh2 = MQRFH2(
        encoding=md.encoding,
        coded_char_set_id=md.coded_char_set_id,
        format=md.format,
        folders=folders_of(message.properties),
    )
    try:
        header = encode_rfh2(rfh2, encoding=md.encoding, ccsid=md.coded_char_set_id or 819)
    except DecodeError:
        header = encode_rfh2(rfh2, encoding=546, ccsid=1208)
        md = md.replace(encoding=546, coded_char_set_id=1208)
    return Message(md.replace(format=MQFMT_RF_HEADER_2), header + message.body)
