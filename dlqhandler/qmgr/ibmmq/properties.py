"""Message properties through IBM's ``ibmmq`` package: a message handle <-> ours.

Pure functions on an ``ibmmq.MessageHandle`` (they take the ``ibmmq`` module as an
argument and never import it). The adapter reads what a get put into a handle
(MQINQMP ``%`` with MQIMPO_INQ_FIRST, then MQIMPO_INQ_NEXT until
MQRC_PROPERTY_NOT_AVAILABLE) and sets what a put carries (MQSETMP).

How the type is learnt: IBM's extension (``ibmmqc.MQINQMP``) returns a value and
its length, not the property's type, so the type is read from both: ``None`` is
MQTYPE_NULL, bytes MQTYPE_BYTE_STRING, text MQTYPE_STRING, a float of 4 or 8
bytes MQTYPE_FLOAT32/64, an integer of 1, 2 or 8 bytes MQTYPE_INT8/16/64. A
4-byte integer is MQTYPE_INT32 or MQTYPE_BOOLEAN (an MQBOOL is an MQLONG); one
more MQINQMP of that name with MQIMPO_CONVERT_TYPE to MQTYPE_STRING tells them
apart (IBM converts a boolean to "TRUE"/"FALSE", an integer to its digits). The
low-level call is used because ``MessageHandle.properties.get`` drops the length.
A value longer than the buffer (MQRC_PROPERTY_VALUE_TOO_BIG) is read again with
MQIMPO_INQ_PROP_UNDER_CURSOR and the length the queue manager said it needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dlqhandler.mq.constants import (
    MQRC_PROPERTY_NOT_AVAILABLE,
    MQRC_PROPERTY_VALUE_TOO_BIG,
    mqi_error,
)
from dlqhandler.mq.properties import Property, PropertyType, make_property

__all__ = ["clear_properties", "read_properties", "set_properties"]

T = PropertyType
_BUFFER = 1024  # the value buffer of a first MQINQMP (a longer value is read again)
_BY_LENGTH = {
    (int, 1): T.INT8,
    (int, 2): T.INT16,
    (int, 8): T.INT64,
    (float, 4): T.FLOAT32,
    (float, 8): T.FLOAT64,
}


def _inqmp(
    mq: Any, handle: Any, name: str, options: int, *, type_: int = 0, length: int = _BUFFER
) -> tuple[Any, int, str]:
    """One MQINQMP: (value, DataLength, returned name); MQMIError if it fails."""
    c = mq.CMQC
    impo = mq.IMPO()
    impo.Options = options | c.MQIMPO_CONVERT_VALUE
    value, data_length, returned, cc, rc = mq.ibmmqc.MQINQMP(
        handle.get_queue_manager(),
        handle.get_handle(),
        impo.pack(),
        name.encode("utf-8"),
        mq.PD().pack(),
        type_,
        length,
    )
    if cc != c.MQCC_OK:
        raise mq.MQMIError(cc, rc, data_length=data_length)
    if isinstance(returned, bytes):
        returned = returned.decode("utf-8")
    return value, int(data_length), returned or name


def _property(mq: Any, handle: Any, name: str, value: Any, length: int) -> Property:
    if value is None:
        kind = T.NULL
    elif isinstance(value, bytes):
        kind = T.BYTE_STRING
    elif isinstance(value, str):
        kind = T.STRING
    elif isinstance(value, int) and length == 4:
        text, _, _ = _inqmp(mq, handle, name, mq.CMQC.MQIMPO_CONVERT_TYPE, type_=int(T.STRING))
        kind = T.BOOLEAN if text in ("TRUE", "FALSE") else T.INT32
        value = bool(value) if kind is T.BOOLEAN else value
    else:
        kind = _BY_LENGTH.get((type(value), length), T.STRING)
    return make_property(name, kind, value)


def read_properties(mq: Any, handle: Any) -> tuple[Property, ...]:
    """Every property in ``handle``, in the queue manager's order."""
    c = mq.CMQC
    found: list[tuple[str, Any, int]] = []
    options = c.MQIMPO_INQ_FIRST
    while True:
        try:
            value, length, name = _inqmp(mq, handle, "%", options)
        except mq.MQMIError as exc:
            if exc.reason == MQRC_PROPERTY_NOT_AVAILABLE:
                break
            if exc.reason != MQRC_PROPERTY_VALUE_TOO_BIG:
                raise
            value, length, name = _inqmp(
                mq, handle, "%", c.MQIMPO_INQ_PROP_UNDER_CURSOR, length=int(exc.data_length)
            )
        found.append((name, value, length))
        options = c.MQIMPO_INQ_NEXT
    # Type probes by name come after the walk: an inquiry of another name moves the cursor.
    return tuple(_property(mq, handle, *item) for item in found)


def set_properties(mq: Any, handle: Any, properties: Iterable[Property]) -> None:
    """MQSETMP of each property (name, type and value as they are)."""
    for p in properties:
        value: Any = p.value
        if p.type is T.STRING:
            assert isinstance(value, str)
            length = len(value.encode("utf-8"))
        elif p.type is T.BYTE_STRING:
            assert isinstance(value, bytes)
            length = len(value)
        else:
            length = 0  # fixed-size types: IBM's extension sets the length itself
        handle.properties.set(p.name, value, property_type=int(p.type), value_length=length)


def clear_properties(mq: Any, handle: Any, properties: Iterable[Property]) -> None:
    """MQDLTMP of each of ``properties`` (what the handle is known to hold)."""
    for p in properties:
        try:
            handle.properties.dlt(p.name)
        except mq.MQMIError as exc:
            if exc.reason != MQRC_PROPERTY_NOT_AVAILABLE:
                raise mqi_error(int(exc.reason), f"MQDLTMP {p.name}") from exc
