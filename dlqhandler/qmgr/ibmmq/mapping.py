"""Our MQ data model <-> IBM's ``ibmmq`` structures and option flags.

Pure functions: they take the ``ibmmq`` module (or its ``CMQC`` constants) as
an argument and never import it, so only :mod:`dlqhandler.qmgr.ibmmq.adapter` does.

MQMD mapping (all 29 fields, always an MQMD version 2, so a get absorbs an
MQMDE and group fields travel): character fields are our canonical text
(cut at the first NUL, trailing blanks removed) and go to MQ blank-padded to
their full length, as MQ stores them (``Format`` ``"MQSTR"`` must be
``b"MQSTR   "``, not NUL-padded); they are encoded as ISO 8859-1, which maps
every byte to one character and back, so any byte a queue manager hands us
survives the round trip. Binary fields (MsgId, CorrelId, GroupId,
AccountingToken) are exact bytes.

Message properties: a get supplies a message handle (unless the port's
``msg_handle`` is False) with the port's MQGMO_PROPERTIES_* option, by default
``MQGMO_PROPERTIES_AS_Q_DEF``, as the port promises: in the handle, unless the
queue is PROPCTL(FORCE) (then an MQRFH2 is in front of the data, as on the
embedded queue manager). The adapter reads the handle into ``Message.properties``
(:mod:`dlqhandler.qmgr.ibmmq.properties`); a forward of that message unchanged
passes the handle as ``MQPMO.OriginalMsgHandle`` with ``MQACTP_FORWARD``, as
runmqdlq does.
"""

from __future__ import annotations

from typing import Any

from dlqhandler.errors import DecodeError
from dlqhandler.mq.constants import MQRC_MD_ERROR, mqi_error
from dlqhandler.mq.mqmd import LAYOUT_V2, MQMD
from dlqhandler.qmgr.port import GetOptions, PutOptions

__all__ = [
    "CONTEXT_FIELDS",
    "MQCHAR_ENCODING",
    "gmo_options",
    "md_from_ibmmq",
    "md_to_ibmmq",
    "open_options",
    "pmo_options",
]

MQCHAR_ENCODING = "latin-1"
# The identity and origin context MQPMO_PASS_ALL_CONTEXT carries.
CONTEXT_FIELDS = (
    "user_identifier",
    "accounting_token",
    "appl_identity_data",
    "put_appl_type",
    "put_appl_name",
    "put_date",
    "put_time",
    "appl_origin_data",
)
_FIELDS = tuple(f for f in LAYOUT_V2.fields if f.attr != "struc_id")


def md_to_ibmmq(mq: Any, md: MQMD) -> Any:
    """An ``ibmmq.MD`` (version 2) holding every field of ``md``.

    Raises MQIError 2026 (MQRC_MD_ERROR) for text that does not fit its field.
    """
    out = mq.MD()
    for f in _FIELDS:
        value = getattr(md, f.attr)
        if f.kind == "char":
            try:
                raw = value.encode(MQCHAR_ENCODING)
            except UnicodeEncodeError:
                raise mqi_error(
                    MQRC_MD_ERROR, f"MQMD.{f.ibm} has characters outside ISO 8859-1"
                ) from None
            if len(raw) > f.length:
                raise mqi_error(MQRC_MD_ERROR, f"MQMD.{f.ibm} is longer than {f.length} bytes")
            value = raw.ljust(f.length, b" ")
        elif f.kind == "byte":
            value = bytes(value)
        setattr(out, f.ibm, value)
    out.Version = 2
    return out


def _text(raw: object) -> str:
    data = raw if isinstance(raw, bytes) else str(raw).encode(MQCHAR_ENCODING)
    return data.split(b"\x00", 1)[0].decode(MQCHAR_ENCODING).rstrip(" ")


def md_from_ibmmq(md: Any) -> MQMD:
    """Our :class:`MQMD` from an ``ibmmq.MD`` as a call returned it."""
    values: dict[str, Any] = {}
    for f in _FIELDS:
        raw = getattr(md, f.ibm)
        if f.kind == "char":
            values[f.attr] = _text(raw)
        elif f.kind == "byte":
            data = bytes(raw)[: f.length]
            values[f.attr] = data.ljust(f.length, b"\x00")
        else:
            values[f.attr] = int(raw)
    try:
        return MQMD(**values)
    except DecodeError as exc:
        raise mqi_error(MQRC_MD_ERROR, str(exc)) from exc


def open_options(
    c: Any, *, input: bool, browse: bool, output: bool, exclusive: bool | None = None
) -> int:
    """MQOO_* for the port's ``open``: input handles save context (MQOO_SAVE_ALL_CONTEXT);
    ``exclusive`` input is MQOO_INPUT_EXCLUSIVE, False MQOO_INPUT_SHARED, None (the
    default) MQOO_INPUT_AS_Q_DEF."""
    flags = int(c.MQOO_FAIL_IF_QUIESCING)
    if input:
        if exclusive is None:
            flags |= c.MQOO_INPUT_AS_Q_DEF
        else:
            flags |= c.MQOO_INPUT_EXCLUSIVE if exclusive else c.MQOO_INPUT_SHARED
        flags |= c.MQOO_SAVE_ALL_CONTEXT
    if browse:
        flags |= c.MQOO_BROWSE
    if output:
        flags |= c.MQOO_OUTPUT
    return flags


_PROPERTIES = {
    "as_q_def": lambda c: int(c.MQGMO_PROPERTIES_AS_Q_DEF),
    "in_handle": lambda c: int(c.MQGMO_PROPERTIES_IN_HANDLE),
    "force_rfh2": lambda c: int(c.MQGMO_PROPERTIES_FORCE_MQRFH2),
    "compatibility": lambda c: int(c.MQGMO_PROPERTIES_COMPATIBILITY),
    "none": lambda c: int(c.MQGMO_NO_PROPERTIES),
}


def gmo_options(c: Any, o: GetOptions) -> tuple[int, int, int]:
    """(MQGMO Options, WaitInterval, MatchOptions) for ``o``.

    A browse never joins a unit of work (MQ rejects MQGMO_SYNCPOINT with the
    browse options), so ``syncpoint`` applies to destructive gets only. The
    port's ``properties`` is the MQGMO_PROPERTIES_* option of the same name.
    """
    flags = int(c.MQGMO_FAIL_IF_QUIESCING) | _PROPERTIES[o.properties](c)
    if o.browse == "first":
        flags |= c.MQGMO_BROWSE_FIRST
    elif o.browse == "next":
        flags |= c.MQGMO_BROWSE_NEXT
    elif o.browse == "under_cursor":
        flags |= c.MQGMO_BROWSE_MSG_UNDER_CURSOR
    if o.under_cursor:
        flags |= c.MQGMO_MSG_UNDER_CURSOR
    if o.lock:
        flags |= c.MQGMO_LOCK
    if o.browse is None and o.syncpoint:
        flags |= c.MQGMO_SYNCPOINT
    else:
        flags |= c.MQGMO_NO_SYNCPOINT
    if o.logical_order:
        flags |= c.MQGMO_LOGICAL_ORDER
    if o.all_msgs_available:
        flags |= c.MQGMO_ALL_MSGS_AVAILABLE
    if o.complete_msg:
        flags |= c.MQGMO_COMPLETE_MSG
    if o.all_segments_available:
        flags |= c.MQGMO_ALL_SEGMENTS_AVAILABLE
    wait = 0
    if o.wait_ms:
        flags |= c.MQGMO_WAIT
        wait = int(c.MQWI_UNLIMITED) if o.wait_ms < 0 else int(o.wait_ms)
    else:
        flags |= c.MQGMO_NO_WAIT
    match = int(c.MQMO_NONE)
    if not o.under_cursor and o.browse != "under_cursor":
        if o.msg_id is not None:
            match |= c.MQMO_MATCH_MSG_ID
        if o.correl_id is not None:
            match |= c.MQMO_MATCH_CORREL_ID
        if o.group_id is not None:
            match |= c.MQMO_MATCH_GROUP_ID
    return flags, wait, match


def pmo_options(c: Any, o: PutOptions, *, pass_context: bool) -> int:
    """MQPMO Options for ``o``.

    ``pass_context``: the queue manager holds this very message's context on
    an input handle (see the adapter), so ``"pass_all"`` can be
    MQPMO_PASS_ALL_CONTEXT; otherwise ``"pass_all"`` keeps the MQMD's context
    byte for byte with MQPMO_SET_ALL_CONTEXT, which is what the port promises.
    """
    flags = int(c.MQPMO_FAIL_IF_QUIESCING)
    flags |= c.MQPMO_SYNCPOINT if o.syncpoint else c.MQPMO_NO_SYNCPOINT
    if o.context == "pass_all":
        flags |= c.MQPMO_PASS_ALL_CONTEXT if pass_context else c.MQPMO_SET_ALL_CONTEXT
    elif o.context == "set_all":
        flags |= c.MQPMO_SET_ALL_CONTEXT
    elif o.context == "set_identity":
        flags |= c.MQPMO_SET_IDENTITY_CONTEXT
    elif o.context == "none":
        flags |= c.MQPMO_NO_CONTEXT
    else:
        flags |= c.MQPMO_DEFAULT_CONTEXT
    if o.alternate_user is not None:
        flags |= c.MQPMO_ALTERNATE_USER_AUTHORITY
    if o.new_msg_id:
        flags |= c.MQPMO_NEW_MSG_ID
    if o.new_correl_id:
        flags |= c.MQPMO_NEW_CORREL_ID
    if o.logical_order:
        flags |= c.MQPMO_LOGICAL_ORDER
    return int(flags)
