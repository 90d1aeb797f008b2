"""MQGET, MQPUT/MQPUT1 and MQINQ of the stand-in, on the caller's structures.

MQGET follows IBM's rules for the buffer: a message longer than ``BufferLength``
without MQGMO_ACCEPT_TRUNCATED_MSG fails with MQRC_TRUNCATED_MSG_FAILED (2080,
warning), the MQMD and ``DataLength`` describe it, the buffer holds its first
bytes and the message stays where it was (on the queue; under the browse
cursor). Before a destructive get, the message it would take is browsed on a
second handle to learn its length (waiting there when the get waits), and the get then
takes that message by its MsgId, so a get that fails takes nothing and sends no COD (a
message that went meanwhile is peeked for again; MQGMO_COMPLETE_MSG and
_ALL_SEGMENTS_AVAILABLE are peeked with the same options). A get in a group's logical
order (MQGMO_LOGICAL_ORDER: the position is the handle's) is peeked through the handle
itself (the embedded handle's ``get(..., peek=True)``: no report, no group move). Only a
message that changed between the peek and the get and then does not fit has been taken,
its COD sent, and is kept by the handle for its next get (``Obj.held``). An MQMD version
1 receives the version 2
fields in an MQMDE in front of the data when they are not the defaults.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from dataclasses import replace
from typing import Literal

from dlqhandler.errors import MQIError
from dlqhandler.mq import Message
from dlqhandler.mq.constants import (
    MQRC_ACTION_ERROR,
    MQRC_CONTEXT_HANDLE_ERROR,
    MQRC_CONTEXT_NOT_AVAILABLE,
    MQRC_CONVERTED_MSG_TOO_BIG,
    MQRC_HMSG_ERROR,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_NO_MSG_UNDER_CURSOR,
    MQRC_NOT_OPEN_FOR_INQUIRE,
    MQRC_NOT_OPEN_FOR_OUTPUT,
    MQRC_NOT_OPEN_FOR_PASS_ALL,
    MQRC_NOT_OPEN_FOR_PASS_IDENT,
    MQRC_NOT_OPEN_FOR_SET_ALL,
    MQRC_NOT_OPEN_FOR_SET_IDENT,
    MQRC_OPTIONS_ERROR,
    MQRC_PRIORITY_EXCEEDS_MAXIMUM,
    MQRC_SELECTOR_ERROR,
    MQRC_TRUNCATED_MSG_ACCEPTED,
    MQRC_TRUNCATED_MSG_FAILED,
)
from dlqhandler.mq.mqmd import MQMD, decode_mqmd, encode_mqmd
from dlqhandler.mq.properties import MessageHandle
from dlqhandler.qmgr.embedded.conversion import convert
from dlqhandler.qmgr.port import GetOptions, PutOptions
from tests.mqi.cmqc import CMQC, INQ_CHAR_LENGTHS
from tests.mqi.options import check_gmo, check_pmo
from tests.mqi.state import Conn, Obj
from tests.mqi.structs import MQGMO, MQOD, MQPMO, text
from tests.mqi.structs import put as put_field

__all__ = ["FORCE_TRUNCATION", "get", "inquire", "put"]

FORCE_TRUNCATION = threading.local()  # set by an injected 2080 for this thread's next MQGET
_OK = (CMQC.MQCC_OK, 0)
_NONE24 = bytes(24)
_CONTEXT = (
    "user_identifier",
    "accounting_token",
    "appl_identity_data",
    "put_appl_type",
    "put_appl_name",
    "put_date",
    "put_time",
    "appl_origin_data",
)
_V2_DEFAULTS = {
    "group_id": _NONE24,
    "msg_seq_number": 1,
    "offset": 0,
    "msg_flags": 0,
    "original_length": -1,
}
_MDE = struct.Struct("<4si i i i 8s i 24s i i i i")  # MQMDE, 72 bytes


def read_md(ptr: int) -> MQMD:
    version = ctypes.c_int32.from_address(ptr + 4).value
    return decode_mqmd(ctypes.string_at(ptr, 324 if version < 2 else 364))


def write_md(ptr: int, md: MQMD, version: int) -> None:
    image = encode_mqmd(md.replace(version=min(max(version, 1), 2)))
    ctypes.memmove(ptr, image, len(image))


def _needs_mde(md: MQMD) -> bool:
    return any(getattr(md, k) != v for k, v in _V2_DEFAULTS.items())


def _with_mde(md: MQMD, body: bytes) -> tuple[MQMD, bytes]:
    """A version 2 message for a version 1 MQMD: the group fields go in an MQMDE."""
    mde = _MDE.pack(
        b"MDE ",
        2,
        72,
        md.encoding,
        md.coded_char_set_id,
        md.format.encode("latin-1").ljust(8),
        0,
        md.group_id,
        md.msg_seq_number,
        md.offset,
        md.msg_flags,
        md.original_length,
    )
    head = md.replace(format="MQHMDE", encoding=546, coded_char_set_id=1208, **_V2_DEFAULTS)
    return head, mde + body


def _without_mde(md: MQMD, body: bytes) -> tuple[MQMD, bytes]:
    """A put with a version 1 MQMD whose data starts with an MQMDE (Format MQHMDE)."""
    if md.format != "MQHMDE" or len(body) < _MDE.size:
        return md, body
    (_sid, _v, length, enc, ccsid, fmt, _flags, group, seq, offset, flags, original) = (
        _MDE.unpack_from(body)
    )
    md = md.replace(
        version=2,
        encoding=enc,
        coded_char_set_id=ccsid,
        format=fmt.split(b"\0", 1)[0].decode("latin-1").rstrip(),
        group_id=group,
        msg_seq_number=seq,
        offset=offset,
        msg_flags=flags,
        original_length=original,
    )
    return md, body[length:]


# -- MQGET ----------------------------------------------------------------------------------
def _exclusive(options: int, *groups: int) -> None:
    """MQRC_OPTIONS_ERROR when more than one option of a group is given (IBM's rules)."""
    for group in groups:
        chosen = options & group
        if chosen & (chosen - 1):
            raise MQIError(MQRC_OPTIONS_ERROR, comp=CMQC.MQCC_FAILED)


_PROPERTY_OPTIONS: tuple[
    tuple[int, Literal["in_handle", "force_rfh2", "compatibility", "none"]], ...
] = (
    (CMQC.MQGMO_PROPERTIES_IN_HANDLE, "in_handle"),
    (CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2, "force_rfh2"),
    (CMQC.MQGMO_PROPERTIES_COMPATIBILITY, "compatibility"),
    (CMQC.MQGMO_NO_PROPERTIES, "none"),
)
_ACTIONS: dict[int, Literal["new", "forward", "reply", "report"]] = {
    CMQC.MQACTP_NEW: "new",
    CMQC.MQACTP_FORWARD: "forward",
    CMQC.MQACTP_REPLY: "reply",
    CMQC.MQACTP_REPORT: "report",
}


def _handle(conn: Conn, hmsg: int) -> MessageHandle | None:
    """The message handle an MQGMO/MQPMO field names (None: MQHM_NONE)."""
    return None if hmsg == 0 else conn.message_handle(hmsg)


def _get_options(conn: Conn, gmo: MQGMO, md: MQMD) -> GetOptions:
    o = gmo.Options
    _exclusive(
        o,
        CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT,
        CMQC.MQGMO_BROWSE_FIRST
        | CMQC.MQGMO_BROWSE_NEXT
        | CMQC.MQGMO_MSG_UNDER_CURSOR
        | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR,
    )
    if o & CMQC.MQGMO_LOCK and not o & (
        CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR
    ):
        raise MQIError(MQRC_OPTIONS_ERROR, "MQGMO_LOCK needs a browse", comp=CMQC.MQCC_FAILED)
    match = (
        gmo.MatchOptions
        if gmo.Version >= 2
        else (CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID)
    )
    browse: Literal["first", "next", "under_cursor"] | None = None
    if o & CMQC.MQGMO_BROWSE_FIRST:
        browse = "first"
    elif o & CMQC.MQGMO_BROWSE_NEXT:
        browse = "next"
    elif o & CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR:
        browse = "under_cursor"
    if browse and o & CMQC.MQGMO_SYNCPOINT:
        raise MQIError(MQRC_OPTIONS_ERROR, comp=CMQC.MQCC_FAILED)
    wait = 0
    if o & CMQC.MQGMO_WAIT:
        wait = -1 if gmo.WaitInterval == CMQC.MQWI_UNLIMITED else max(gmo.WaitInterval, 0)

    def wanted(flag: int, value: bytes) -> bytes | None:
        return value if match & flag and value != _NONE24 else None

    # Message properties: the port delivers them as MQGET does (the handle, an MQRFH2...).
    handle = _handle(conn, gmo.MsgHandle) if gmo.Version >= 4 else None
    properties: Literal["as_q_def", "in_handle", "force_rfh2", "compatibility", "none"] = next(
        (v for flag, v in _PROPERTY_OPTIONS if o & flag), "as_q_def"
    )
    if properties == "in_handle" and handle is None:  # (before anything is taken)
        raise MQIError(MQRC_HMSG_ERROR, "MQGMO_PROPERTIES_IN_HANDLE", comp=CMQC.MQCC_FAILED)
    return GetOptions(
        properties=properties,
        msg_handle=False if handle is None else handle,
        browse=browse,
        under_cursor=bool(o & CMQC.MQGMO_MSG_UNDER_CURSOR),
        lock=bool(o & CMQC.MQGMO_LOCK),
        syncpoint=bool(o & CMQC.MQGMO_SYNCPOINT),
        wait_ms=wait,
        msg_id=wanted(CMQC.MQMO_MATCH_MSG_ID, md.msg_id),
        correl_id=wanted(CMQC.MQMO_MATCH_CORREL_ID, md.correl_id),
        group_id=wanted(CMQC.MQMO_MATCH_GROUP_ID, md.group_id),
        logical_order=bool(o & CMQC.MQGMO_LOGICAL_ORDER),
        all_msgs_available=bool(o & CMQC.MQGMO_ALL_MSGS_AVAILABLE),
        complete_msg=bool(o & CMQC.MQGMO_COMPLETE_MSG),
        all_segments_available=bool(o & CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE),
    )


def _peek(conn: Conn, obj: Obj, options: GetOptions) -> Message | None:
    """The message a destructive get would take, browsed on a second handle (in logical
    order, where the position is the handle's, peeked through the handle itself)."""
    if options.logical_order:
        try:
            return obj.port().get(options, peek=True)  # type: ignore[call-arg]
        except MQIError as exc:
            if exc.reason == MQRC_NO_MSG_AVAILABLE:
                return None
            raise
    if obj.peek is None:
        obj.peek = conn.qm.open(obj.name, input=False, browse=True)
    try:
        return obj.peek.get(
            GetOptions(
                browse="first",
                syncpoint=False,
                wait_ms=options.wait_ms,  # (a message yet to come: wait for it here)
                complete_msg=options.complete_msg,
                all_segments_available=options.all_segments_available,
                msg_id=options.msg_id,
                correl_id=options.correl_id,
                group_id=options.group_id,
            )
        )
    except MQIError as exc:
        if exc.reason == MQRC_NO_MSG_AVAILABLE:
            return None
        raise


def _take(
    conn: Conn, obj: Obj, options: GetOptions, room: int, accept: bool
) -> tuple[Message, bool]:
    """(message, removed-or-moved): the message this get returns, leaving it in place
    when it does not fit and truncation is not accepted."""
    q = obj.port()
    if options.browse is not None:
        if obj.pending is not None and obj.pending[1] == options.lock:
            msg = obj.pending[0]
        else:
            msg = q.get(options)
        obj.pending = None if accept or len(msg.body) <= room else (msg, options.lock)
        return msg, obj.pending is None
    if options.under_cursor:
        if obj.browsed is None:
            raise MQIError(MQRC_NO_MSG_UNDER_CURSOR, comp=CMQC.MQCC_FAILED)
        if not accept and len(obj.browsed.body) > room:
            return obj.browsed, False
        return q.get(options), True
    if obj.held is not None and _matches(obj.held, options):
        msg, obj.held = obj.held, None
        if not accept and len(msg.body) > room:
            obj.held = msg
            return msg, False
        return msg, True
    if not accept:
        while True:
            peeked = _peek(conn, obj, options)
            if peeked is None:
                if options.wait_ms:  # (the peek waited: no wait twice)
                    raise MQIError(MQRC_NO_MSG_AVAILABLE, obj.name, comp=CMQC.MQCC_FAILED)
                msg = q.get(options)
                break
            if len(peeked.body) > room:
                return peeked, False
            try:  # take the message peeked, which fits (it went meanwhile: peek again)
                msg = q.get(replace(options, msg_id=peeked.md.msg_id, wait_ms=0))
                break
            except MQIError as exc:
                if exc.reason != MQRC_NO_MSG_AVAILABLE:
                    raise
    else:
        msg = q.get(options)
    if not accept and len(msg.body) > room:  # changed since the peek: keep it for the retry
        obj.held = msg
        return msg, False
    return msg, True


def _matches(msg: Message, o: GetOptions) -> bool:
    md = msg.md
    return all(
        want is None or want == have
        for want, have in (
            (o.msg_id, md.msg_id),
            (o.correl_id, md.correl_id),
            (o.group_id, md.group_id),
        )
    )


def get(
    conn: Conn, hobj: int, pmd: int, pgmo: int, buflen: int, pbuf: int, pdatalen: int
) -> tuple[int, int]:
    obj = conn.obj(hobj)
    gmo = MQGMO.from_address(pgmo)
    check_gmo(gmo)  # (every refusal before anything is read or taken)
    md_version = ctypes.c_int32.from_address(pmd + 4).value
    if gmo.Options & CMQC.MQGMO_UNLOCK:
        obj.port().unlock()
        return _OK
    request = read_md(pmd)
    options = _get_options(conn, gmo, request)
    forced = getattr(FORCE_TRUNCATION, "flag", False)
    FORCE_TRUNCATION.flag = False
    accept = bool(gmo.Options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
    room = -1 if forced else max(buflen, 0)
    msg, done = _take(conn, obj, options, room, accept and not forced)
    md, data = msg.md, msg.body
    warning = 0  # a conversion warning (the data then as the message has it)
    if done and gmo.Options & CMQC.MQGMO_CONVERT and buflen > 0:
        out = convert(md, data, ccsid=request.coded_char_set_id, encoding=request.encoding)
        if len(out.body) > buflen and not accept:
            warning = MQRC_CONVERTED_MSG_TOO_BIG  # (it fitted before: it is taken)
        else:
            md, data, warning = out.md, out.body, out.reason
    if md_version < 2 and _needs_mde(md):
        md, data = _with_mde(md, data)
    write_md(pmd, md, md_version)
    copied = min(len(data), max(buflen, 0))
    if copied:
        ctypes.memmove(pbuf, data, copied)
    ctypes.c_int32.from_address(pdatalen).value = len(data)
    put_field(gmo, "ResolvedQName", obj.name.encode("latin-1"))
    if gmo.Version >= 2:
        flags = msg.md.msg_flags
        gmo.GroupStatus[0] = ord(
            CMQC.MQGS_LAST_MSG_IN_GROUP
            if flags & CMQC.MQMF_LAST_MSG_IN_GROUP
            else CMQC.MQGS_MSG_IN_GROUP
            if flags & CMQC.MQMF_MSG_IN_GROUP
            else CMQC.MQGS_NOT_IN_GROUP
        )
        gmo.SegmentStatus[0] = ord(
            CMQC.MQSS_LAST_SEGMENT
            if flags & CMQC.MQMF_LAST_SEGMENT
            else CMQC.MQSS_SEGMENT
            if flags & CMQC.MQMF_SEGMENT
            else CMQC.MQSS_NOT_A_SEGMENT
        )
        gmo.Segmentation[0] = ord(
            CMQC.MQSEG_ALLOWED if flags & CMQC.MQMF_SEGMENTATION_ALLOWED else CMQC.MQSEG_INHIBITED
        )
    if gmo.Version >= 3:
        gmo.ReturnedLength = copied
    if not done:
        return CMQC.MQCC_WARNING, MQRC_TRUNCATED_MSG_FAILED
    if options.browse is not None:
        obj.browsed = msg
        obj.saved = None  # (IBM 2098: "the last successful MQGET call was a browse")
    else:
        obj.browsed = None
        if obj.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
            obj.saved = msg
    if warning:
        return CMQC.MQCC_WARNING, warning
    # IBM 2242/2241 on MQGET: a get without MQGMO_LOGICAL_ORDER right after one with it
    # that left a logical message or group unfinished (the message is got all the same).
    incomplete = 0 if options.browse is not None else int(getattr(obj.port(), "get_warning", 0))
    if incomplete:
        return CMQC.MQCC_WARNING, incomplete
    if len(data) > copied:
        return CMQC.MQCC_WARNING, MQRC_TRUNCATED_MSG_ACCEPTED
    return _OK


# -- MQPUT / MQPUT1 -------------------------------------------------------------------------
_MAX_PRIORITY = 9  # the queue manager's MaxPriority (MAXPRTY)
_IDENTITY = ("user_identifier", "accounting_token", "appl_identity_data")
# The open options that allow each context option of a put (IBM: MQOO_SET_ALL_CONTEXT
# implies the other three, MQOO_PASS_ALL_CONTEXT and MQOO_SET_IDENTITY_CONTEXT imply
# MQOO_PASS_IDENTITY_CONTEXT), and the reason when none of them was given.
_PASS_IDENTITY = (
    CMQC.MQOO_PASS_IDENTITY_CONTEXT
    | CMQC.MQOO_PASS_ALL_CONTEXT
    | CMQC.MQOO_SET_IDENTITY_CONTEXT
    | CMQC.MQOO_SET_ALL_CONTEXT,
    MQRC_NOT_OPEN_FOR_PASS_IDENT,
)
_PASS_ALL = (CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT, MQRC_NOT_OPEN_FOR_PASS_ALL)
_SET_IDENTITY = (
    CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT,
    MQRC_NOT_OPEN_FOR_SET_IDENT,
)
_SET_ALL = (CMQC.MQOO_SET_ALL_CONTEXT, MQRC_NOT_OPEN_FOR_SET_ALL)


def _opened_for(obj: Obj | None, rule: tuple[int, int]) -> None:
    """MQPUT on a handle not opened for this context option: IBM's MQRC_NOT_OPEN_FOR_*.
    (MQPUT1 opens as it puts: nothing to check.)"""
    if obj is not None and not obj.options & rule[0]:
        raise MQIError(rule[1], comp=CMQC.MQCC_FAILED)


def put(
    conn: Conn, hobj: int | None, pod: int | None, pmd: int, ppmo: int, buflen: int, pbuf: int
) -> tuple[int, int]:
    pmo = MQPMO.from_address(ppmo)
    check_pmo(pmo)
    o = pmo.Options
    _exclusive(
        o,
        CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT,
        CMQC.MQPMO_DEFAULT_CONTEXT
        | CMQC.MQPMO_PASS_IDENTITY_CONTEXT
        | CMQC.MQPMO_PASS_ALL_CONTEXT
        | CMQC.MQPMO_SET_IDENTITY_CONTEXT
        | CMQC.MQPMO_SET_ALL_CONTEXT
        | CMQC.MQPMO_NO_CONTEXT,
    )
    md_version = ctypes.c_int32.from_address(pmd + 4).value
    md, body = _without_mde(read_md(pmd), ctypes.string_at(pbuf, buflen) if buflen > 0 else b"")
    obj = conn.obj(hobj) if hobj is not None else None
    od = MQOD.from_address(pod) if pod else None
    if obj is not None and not obj.options & CMQC.MQOO_OUTPUT:
        raise MQIError(MQRC_NOT_OPEN_FOR_OUTPUT, comp=CMQC.MQCC_FAILED)
    context: Literal["pass_all", "set_all", "set_identity", "none", "default"] = "default"
    if o & (CMQC.MQPMO_PASS_ALL_CONTEXT | CMQC.MQPMO_PASS_IDENTITY_CONTEXT):
        everything = bool(o & CMQC.MQPMO_PASS_ALL_CONTEXT)
        _opened_for(obj, _PASS_ALL if everything else _PASS_IDENTITY)
        source = conn.objects.get(pmo.Context)
        if source is None or not source.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
            raise MQIError(MQRC_CONTEXT_HANDLE_ERROR, comp=CMQC.MQCC_FAILED)
        if source.saved is None:  # nothing got yet, or a browse since (IBM)
            raise MQIError(MQRC_CONTEXT_NOT_AVAILABLE, comp=CMQC.MQCC_FAILED)
        saved = source.saved.md
        fields = _CONTEXT if everything else _IDENTITY
        md = md.replace(**{f: getattr(saved, f) for f in fields})
        context = "pass_all" if everything else "set_identity"
    elif o & CMQC.MQPMO_SET_ALL_CONTEXT:
        _opened_for(obj, _SET_ALL)
        context = "set_all"
    elif o & CMQC.MQPMO_SET_IDENTITY_CONTEXT:
        _opened_for(obj, _SET_IDENTITY)
        context = "set_identity"
    elif o & CMQC.MQPMO_NO_CONTEXT:
        context = "none"
    alternate = None
    if o & CMQC.MQPMO_ALTERNATE_USER_AUTHORITY:
        alternate = (
            text(od, "AlternateUserId")
            if od is not None
            else (obj.alternate_user if obj is not None else None)
        )
    original = new = None
    action: Literal["new", "forward", "reply", "report"] = "new"
    if pmo.Version >= 3:  # (MQRC_HMSG_ERROR for a handle that is not one)
        original, new = _handle(conn, pmo.OriginalMsgHandle), _handle(conn, pmo.NewMsgHandle)
        if pmo.Action not in _ACTIONS:
            raise MQIError(MQRC_ACTION_ERROR, comp=CMQC.MQCC_FAILED)
        action = _ACTIONS[pmo.Action]
    logical = bool(o & CMQC.MQPMO_LOGICAL_ORDER)
    if logical and obj is None:  # (tests.mqi.options.REFUSED: no handle keeps the status)
        raise MQIError(MQRC_OPTIONS_ERROR, "MQPMO_LOGICAL_ORDER on MQPUT1", comp=CMQC.MQCC_FAILED)
    options = PutOptions(
        logical_order=logical,
        syncpoint=bool(o & CMQC.MQPMO_SYNCPOINT),
        context=context,
        alternate_user=alternate,
        new_msg_id=bool(o & CMQC.MQPMO_NEW_MSG_ID),
        new_correl_id=bool(o & CMQC.MQPMO_NEW_CORREL_ID),
        original_msg_handle=original,
        new_msg_handle=new,
        action=action,
    )
    message = Message(md, body)
    warning = 0
    if obj is not None:
        out = obj.port().put(message, options)
        # IBM 2242/2241 as MQCC_WARNING: a put without MQPMO_LOGICAL_ORDER after one with
        # it that left a logical message or group unfinished (the message is put).
        warning = int(getattr(obj.queue, "put_warning", 0) or 0)
        resolved = obj.resolved or (obj.name, conn.qm.name)
    else:
        assert od is not None
        name, qmgr = text(od, "ObjectName"), text(od, "ObjectQMgrName")
        out = conn.qm.put1(name, message, options, qmgr=qmgr)
        route = conn.qm.resolve(name, qmgr)
        resolved = route.resolved(conn.qm.name)
        if resolved[1] == conn.qm.name:  # (a local queue: an alias's base is its name)
            resolved = (conn.qm.queue_view(route.target).name, resolved[1])
    write_md(pmd, out, md_version)
    put_field(pmo, "ResolvedQName", resolved[0].encode("latin-1"))
    put_field(pmo, "ResolvedQMgrName", resolved[1].encode("latin-1"))
    if not warning and md.priority > _MAX_PRIORITY:
        # IBM 2049: "The message is accepted by the queue manager, but is placed on the
        # queue at the queue manager's maximum priority" (MQCC_WARNING).
        warning = MQRC_PRIORITY_EXCEEDS_MAXIMUM
    return (CMQC.MQCC_WARNING, warning) if warning else _OK


# -- MQINQ --------------------------------------------------------------------------------------
def _queue_values(conn: Conn, obj: Obj) -> dict[int, int | str]:
    admin = conn.qm.admin()
    if admin.aliases(obj.name, generic=False) or admin.remotes(obj.name, generic=False):
        return {}  # (an alias or remote queue: inquire_object answers with its attributes)
    info = conn.qm.inquire_queue(obj.name)
    a = info.attributes
    return {
        CMQC.MQCA_Q_NAME: info.name,
        CMQC.MQIA_CURRENT_Q_DEPTH: info.curdepth,
        CMQC.MQIA_MAX_Q_DEPTH: info.maxdepth,
        CMQC.MQIA_MAX_MSG_LENGTH: info.maxmsgl,
        CMQC.MQIA_INHIBIT_PUT: 0 if info.put_enabled else 1,
        CMQC.MQIA_INHIBIT_GET: 0 if info.get_enabled else 1,
        CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
        CMQC.MQIA_BACKOUT_THRESHOLD: int(a.get("BOTHRESH", 0) or 0),
        CMQC.MQCA_BACKOUT_REQ_Q_NAME: a.get("BOQNAME", ""),
        CMQC.MQIA_HARDEN_GET_BACKOUT: (
            CMQC.MQQA_BACKOUT_HARDENED
            if a.get("HARDENBO") == "HARDENBO"
            else CMQC.MQQA_BACKOUT_NOT_HARDENED
        ),
        CMQC.MQIA_DEF_PERSISTENCE: 1 if a.get("DEFPSIST") == "YES" else 0,
        CMQC.MQIA_DEF_PRIORITY: int(a.get("DEFPRTY", 0) or 0),
    }


def _qmgr_values(conn: Conn) -> dict[int, int | str]:
    info = conn.qm.inquire()
    return {
        CMQC.MQCA_Q_MGR_NAME: info.name,
        CMQC.MQCA_DEAD_LETTER_Q_NAME: info.dead_letter_q_name,
        CMQC.MQIA_CODED_CHAR_SET_ID: info.ccsid,
        CMQC.MQIA_COMMAND_LEVEL: 940,
        CMQC.MQIA_PLATFORM: CMQC.MQPL_UNIX,
        CMQC.MQIA_MAX_MSG_LENGTH: int(info.extra.get("MAXMSGL", 4194304)),
    }


def inquire(
    conn: Conn,
    hobj: int,
    count: int,
    psel: int,
    intcount: int,
    pints: int,
    charlen: int,
    pchars: int,
) -> tuple[int, int]:
    obj = conn.obj(hobj)
    if not obj.options & CMQC.MQOO_INQUIRE:
        raise MQIError(MQRC_NOT_OPEN_FOR_INQUIRE, comp=CMQC.MQCC_FAILED)
    selectors = list((ctypes.c_int32 * count).from_address(psel)) if count > 0 else []
    if obj.kind == "qmgr":
        values = _qmgr_values(conn)
    elif obj.kind == "process":
        values = {}
    else:
        values = _queue_values(conn, obj)
    # Whatever else the queue manager answers through the port (what it does not know
    # stays out: MQRC_SELECTOR_ERROR below, as for a selector IBM MQ does not know).
    kind = obj.kind if obj.kind in ("qmgr", "process") else "queue"
    values.update(conn.qm.inquire_object(kind, obj.name, selectors))
    ints: list[int] = []
    chars = b""
    for s in selectors:
        if s not in values or (
            CMQC.MQCA_FIRST <= s <= CMQC.MQCA_LAST and s not in INQ_CHAR_LENGTHS
        ):
            raise MQIError(MQRC_SELECTOR_ERROR, comp=CMQC.MQCC_FAILED)
        v = values[s]
        if CMQC.MQCA_FIRST <= s <= CMQC.MQCA_LAST:
            chars += str(v).encode("latin-1").ljust(INQ_CHAR_LENGTHS[s])
        else:
            ints.append(int(v))
    cc, rc = _OK
    if len(ints) > intcount:
        cc, rc = CMQC.MQCC_WARNING, 2022  # MQRC_INT_ATTR_COUNT_TOO_SMALL
    if len(chars) > charlen:
        cc, rc = CMQC.MQCC_WARNING, 2008  # MQRC_CHAR_ATTRS_TOO_SHORT
    n = min(len(ints), max(intcount, 0))
    if n:
        (ctypes.c_int32 * n).from_address(pints)[:] = ints[:n]
    m = min(len(chars), max(charlen, 0))
    if m:
        ctypes.memmove(pchars, chars, m)
    return cc, rc
