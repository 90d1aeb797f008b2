"""MQI conformance through IBM's ``ibmmq`` package on the stand-in: what only the MQI
shows (handles, the browse cursor, MQPMO/MQGMO fields, context options), each case
held to the IBM page its docstring cites.

Every "bad input" case puts, fails a call with IBM's reason and then counts the queue
on a second connection: a call that fails changes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

MQ = tuple[Any, Any]


def _depth(ibmmq: Any, queue: str = "Q1") -> int:
    """CURDEPTH of ``queue`` seen from a second connection (MQINQ)."""
    other = ibmmq.QueueManager(None)
    other.connect_with_options("QM1")
    try:
        q = ibmmq.Queue(other, queue, ibmmq.CMQC.MQOO_INQUIRE)
        depth = int(q.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
        q.close()
        return depth
    finally:
        other.disconnect()


def _put(ibmmq: Any, qmgr: Any, *bodies: bytes, queue: str = "Q1") -> None:
    for body in bodies:
        qmgr.put1(
            ibmmq.OD(ObjectName=queue.encode()),
            body,
            ibmmq.MD(Format=b"MQSTR   "),
            ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_NO_SYNCPOINT),
        )


def _open(ibmmq: Any, qmgr: Any, queue: str = "Q1", extra: int = 0) -> Any:
    c = ibmmq.CMQC
    return ibmmq.Queue(qmgr, queue, c.MQOO_INPUT_AS_Q_DEF | c.MQOO_BROWSE | extra)


def _get(ibmmq: Any, q: Any, options: int, *, version: int = 1, **fields: Any) -> bytes:
    gmo = ibmmq.GMO(Version=version, Options=options, **fields)
    return bytes(q.get(None, ibmmq.MD(), gmo))


def _fails(ibmmq: Any, call: Any) -> tuple[int, int]:
    with pytest.raises(ibmmq.MQMIError) as caught:
        call()
    return int(caught.value.comp), int(caught.value.reason)


# -- 1. a failed MQGET takes nothing ---------------------------------------------------------
@pytest.mark.parametrize("version", [1, 4])
@pytest.mark.parametrize("syncpoint", ["MQGMO_NO_SYNCPOINT", "MQGMO_SYNCPOINT"])
def test_properties_in_handle_without_a_handle_fails_and_the_message_stays(
    mq: MQ, version: int, syncpoint: str
) -> None:
    """MQGMO_PROPERTIES_IN_HANDLE with MsgHandle MQHM_NONE (or an MQGMO older than version
    4, whose MsgHandle is ignored): MQCC_FAILED, MQRC_HMSG_ERROR (2460), and the message is
    still on the queue for a second connection.

    IBM, MQGMO Options (https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refdev/q096715_.html):
    MQGMO_PROPERTIES_IN_HANDLE "Properties of the message must be made available using
    the MsgHandle. If no message handle is provided the call fails with reason
    MQRC_HMSG_ERROR"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1")
    q = _open(ibmmq, qmgr)
    options = getattr(c, syncpoint) | c.MQGMO_PROPERTIES_IN_HANDLE
    assert _fails(ibmmq, lambda: _get(ibmmq, q, options, version=version)) == (2, 2460)
    qmgr.backout()
    assert _depth(ibmmq) == 1
    assert _get(ibmmq, q, c.MQGMO_NO_SYNCPOINT) == b"m1"
    q.close()


def test_a_bad_message_handle_on_mqget_fails_and_the_message_stays(mq: MQ) -> None:
    """MQGMO.MsgHandle naming no handle of MQCRTMH: MQRC_HMSG_ERROR (2460), nothing taken.

    IBM, 2460 MQRC_HMSG_ERROR (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044720_.html):
    "The value specified was not returned by a preceding MQCRTMH call"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1")
    q = _open(ibmmq, qmgr)
    call = lambda: _get(ibmmq, q, c.MQGMO_NO_SYNCPOINT, version=4, MsgHandle=12345)  # noqa: E731
    assert _fails(ibmmq, call) == (2, 2460)
    assert _depth(ibmmq) == 1
    q.close()


# -- 2. the browse cursor ---------------------------------------------------------------------
@pytest.mark.parametrize("option", ["MQGMO_BROWSE_MSG_UNDER_CURSOR", "MQGMO_MSG_UNDER_CURSOR"])
def test_under_the_cursor_before_any_browse_is_2034_and_takes_nothing(mq: MQ, option: str) -> None:
    """Before any browse the cursor is before the first message: MQGMO_BROWSE_MSG_UNDER_CURSOR
    and MQGMO_MSG_UNDER_CURSOR fail with MQRC_NO_MSG_UNDER_CURSOR (2034); both messages stay.

    IBM, 2034 MQRC_NO_MSG_UNDER_CURSOR
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041050_.html): "The cursor
    is positioned logically before the first message (as it is before the first MQGET call
    with a browse option has been successfully performed)"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    q = _open(ibmmq, qmgr)
    options = getattr(c, option) | c.MQGMO_NO_SYNCPOINT
    assert _fails(ibmmq, lambda: _get(ibmmq, q, options)) == (2, 2034)
    assert _depth(ibmmq) == 2
    q.close()


def test_browse_msg_under_cursor_returns_a_copy_of_the_browsed_message(mq: MQ) -> None:
    """BROWSE_FIRST (m1), BROWSE_NEXT (m2), then BROWSE_MSG_UNDER_CURSOR: m2 again, twice, and
    both messages stay on the queue; the cursor did not move (BROWSE_NEXT gives 2033).

    IBM, The browse cursor (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queue-browse-cursor):
    MQGMO_BROWSE_MSG_UNDER_CURSOR "Gets a copy of the message currently pointed to by the
    cursor, that is, the one that was last retrieved using either the MQGMO_BROWSE_FIRST or
    the MQGMO_BROWSE_NEXT option. In all cases, the message remains on the queue"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    q = _open(ibmmq, qmgr)
    assert _get(ibmmq, q, c.MQGMO_BROWSE_FIRST) == b"m1"
    assert _get(ibmmq, q, c.MQGMO_BROWSE_NEXT) == b"m2"
    assert _get(ibmmq, q, c.MQGMO_BROWSE_MSG_UNDER_CURSOR) == b"m2"
    assert _get(ibmmq, q, c.MQGMO_BROWSE_MSG_UNDER_CURSOR) == b"m2"
    assert _depth(ibmmq) == 2
    assert _fails(ibmmq, lambda: _get(ibmmq, q, c.MQGMO_BROWSE_NEXT)) == (2, 2033)
    q.close()


def test_msg_under_cursor_removes_the_browsed_message_not_the_first(mq: MQ) -> None:
    """After browsing to m2, a destructive MQGMO_MSG_UNDER_CURSOR returns and removes m2; m1
    stays; a second MQGMO_MSG_UNDER_CURSOR is 2034 (the message under the cursor is gone).

    IBM, MQGMO Options (https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refdev/q096715_.html):
    MQGMO_MSG_UNDER_CURSOR "Retrieve the message pointed to by the browse cursor"; 2034
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041050_.html): "The
    message the browse cursor was positioned on has been locked or removed"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    q = _open(ibmmq, qmgr)
    _get(ibmmq, q, c.MQGMO_BROWSE_FIRST)
    _get(ibmmq, q, c.MQGMO_BROWSE_NEXT)
    assert _get(ibmmq, q, c.MQGMO_MSG_UNDER_CURSOR | c.MQGMO_NO_SYNCPOINT) == b"m2"
    assert _depth(ibmmq) == 1
    under = c.MQGMO_MSG_UNDER_CURSOR | c.MQGMO_NO_SYNCPOINT
    assert _fails(ibmmq, lambda: _get(ibmmq, q, under)) == (2, 2034)
    assert _get(ibmmq, q, c.MQGMO_NO_SYNCPOINT) == b"m1"
    q.close()


def test_browse_under_cursor_after_another_handle_took_the_message_is_2034(mq: MQ) -> None:
    """The message under the cursor was got by another connection: 2034, and the other
    message stays.

    IBM, 2034 (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041050_.html):
    "The message the browse cursor was positioned on has been locked or removed from the
    queue (probably by some other application) since the browse operation was performed"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    q = _open(ibmmq, qmgr)
    assert _get(ibmmq, q, c.MQGMO_BROWSE_FIRST) == b"m1"
    other = ibmmq.QueueManager(None)
    other.connect_with_options("QM1")
    taker = _open(ibmmq, other)
    assert _get(ibmmq, taker, c.MQGMO_NO_SYNCPOINT) == b"m1"
    taker.close()
    other.disconnect()
    assert _fails(ibmmq, lambda: _get(ibmmq, q, c.MQGMO_BROWSE_MSG_UNDER_CURSOR)) == (2, 2034)
    assert _depth(ibmmq) == 1
    q.close()


# -- 3. properties put the way IBM shows --------------------------------------------------------
def _handle_with(ibmmq: Any, qmgr: Any, **props: Any) -> Any:
    handle = ibmmq.MessageHandle(qmgr)
    for name, value in props.items():
        handle.properties.set(name, value)
    return handle


def _properties_of_next(ibmmq: Any, qmgr: Any, q: Any) -> tuple[bytes, dict[str, Any]]:
    c = ibmmq.CMQC
    into = ibmmq.MessageHandle(qmgr)
    gmo = ibmmq.GMO(
        Version=c.MQGMO_VERSION_4, Options=c.MQGMO_NO_SYNCPOINT | c.MQGMO_PROPERTIES_IN_HANDLE
    )
    gmo.MsgHandle = into.get_handle()
    body = bytes(q.get(None, ibmmq.MD(), gmo))
    found: dict[str, Any] = {}
    options = c.MQIMPO_INQ_FIRST
    while True:
        try:
            value, name = into.properties.get("%", impo_options=options)
        except ibmmq.MQMIError as exc:
            if exc.reason != c.MQRC_PROPERTY_NOT_AVAILABLE:
                raise
            break
        found[name.decode() if isinstance(name, bytes) else name] = value
        options = c.MQIMPO_INQ_NEXT
    into.dlt()
    return body, found


@pytest.mark.parametrize("both", [False, True])
def test_mqput_and_mqput1_with_original_msg_handle_and_actp_new(mq: MQ, both: bool) -> None:
    """A new message put as IBM shows: MQPMO version 3, OriginalMsgHandle = the handle whose
    properties were set, Action left at MQACTP_NEW: MQPUT and MQPUT1 succeed and the message
    carries the properties. With NewMsgHandle as well, its values override the original's.

    IBM, Setting properties of a message
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queue-setting-properties-message): "set
    the OriginalMsgHandle field in the MQPMO to the value of this message handle, and set the
    MQPMO Action field to MQACTP_NEW (this is the default value)"; MQPMO NewMsgHandle
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098720_.html):
    "overrides the values of the OriginalMsgHandle, if specified"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    original = _handle_with(ibmmq, qmgr, Color="red", Size="S")
    new = _handle_with(ibmmq, qmgr, Size="L") if both else None
    pmo = ibmmq.PMO(Version=c.MQPMO_VERSION_3, Options=c.MQPMO_NO_SYNCPOINT)
    pmo.OriginalMsgHandle = original.get_handle()
    if new is not None:
        pmo.NewMsgHandle = new.get_handle()
    assert pmo.Action == c.MQACTP_NEW
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF)
    q.put(b"by MQPUT", ibmmq.MD(), pmo)
    qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"by MQPUT1", ibmmq.MD(), pmo)
    expected = {"Color": "red", "Size": "L" if both else "S"}
    assert _properties_of_next(ibmmq, qmgr, q) == (b"by MQPUT", expected)
    assert _properties_of_next(ibmmq, qmgr, q) == (b"by MQPUT1", expected)
    q.close()


def test_an_action_ibm_does_not_define_is_2535_and_nothing_is_put(mq: MQ) -> None:
    """MQPMO.Action 99: MQCC_FAILED, MQRC_ACTION_ERROR (2535); the queue stays empty.

    IBM, MQPMO Action (https://ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q098680_.html):
    "If an incorrect action value is specified, the call fails with the reason code
    MQRC_ACTION_ERROR"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    pmo = ibmmq.PMO(Version=c.MQPMO_VERSION_3, Options=c.MQPMO_NO_SYNCPOINT)
    pmo.OriginalMsgHandle = _handle_with(ibmmq, qmgr, Color="red").get_handle()
    pmo.Action = 99
    put = lambda: qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"x", ibmmq.MD(), pmo)  # noqa: E731
    assert _fails(ibmmq, put) == (2, 2535)
    assert _depth(ibmmq) == 0


def test_mqdltmp_of_a_missing_property_is_a_warning_2471(mq: MQ) -> None:
    """MQDLTMP of a name the handle does not hold: MQCC_WARNING with
    MQRC_PROPERTY_NOT_AVAILABLE (2471); the handle keeps what it had. A wildcard name is
    MQRC_PROPERTY_NAME_ERROR (2442, failed).

    IBM, MQDLTMP (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q101820_.html): "If
    CompCode is MQCC_WARNING: MQRC_PROPERTY_NOT_AVAILABLE (2471, X'09A7') Property not
    available"; "Wildcards are not allowed in the property name"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    handle = _handle_with(ibmmq, qmgr, Color="red")
    assert _fails(ibmmq, lambda: handle.properties.dlt("Size")) == (c.MQCC_WARNING, 2471)
    assert _fails(ibmmq, lambda: handle.properties.dlt("Col%")) == (c.MQCC_FAILED, 2442)
    assert handle.properties.get("Color") == "red"
    handle.properties.dlt("Color")
    assert _fails(ibmmq, lambda: handle.properties.get("Color"))[1] == 2471
    handle.dlt()


# -- 4. context options and MQPMO_NEW_CORREL_ID -------------------------------------------------
def _got_md(ibmmq: Any, qmgr: Any) -> Any:
    q = _open(ibmmq, qmgr)
    md = ibmmq.MD(Version=2)
    q.get(None, md, ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_SYNCPOINT))
    q.close()
    return md


def _identity_md(ibmmq: Any) -> Any:
    return ibmmq.MD(
        Format=b"MQSTR   ",
        UserIdentifier=b"bob",
        AccountingToken=b"\x07".ljust(32, b"\x00"),
        ApplIdentityData=b"who",
        PutApplType=28,
        PutApplName=b"mine",
        PutDate=b"20200101",
        PutTime=b"01020300",
        ApplOriginData=b"from",
    )


def test_mqpmo_no_context_puts_a_message_without_context(mq: MQ) -> None:
    """MQPMO_NO_CONTEXT on MQPUT1 and MQPUT: accepted (no special open option), and the
    message has no context whatever the MQMD held: blank UserIdentifier, ApplIdentityData,
    PutApplName, PutDate, PutTime, ApplOriginData; a null AccountingToken; PutApplType
    MQAT_NO_CONTEXT (0).

    IBM, Message context (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=mq-message-context):
    an application "can specify that the context fields are to contain no information. The
    user ID associated with an application requires no special authority to do either of
    these"; MQMD initial values
    (http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.ref.dev.doc/q097720_.htm):
    "PutApplType MQAT_NO_CONTEXT 0"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    pmo = ibmmq.PMO(Options=c.MQPMO_NO_CONTEXT | c.MQPMO_NO_SYNCPOINT)
    qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"x", _identity_md(ibmmq), pmo)
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
    q.put(b"y", _identity_md(ibmmq), ibmmq.PMO(Options=c.MQPMO_NO_CONTEXT | c.MQPMO_NO_SYNCPOINT))
    q.close()
    for _ in range(2):
        md = _got_md(ibmmq, qmgr)
        assert md.PutApplType == c.MQAT_NO_CONTEXT
        assert md.AccountingToken == bytes(32)
        for field in ("UserIdentifier", "ApplIdentityData", "PutApplName", "PutDate"):
            assert getattr(md, field).strip(b" \x00") == b"", field
        assert (md.PutTime.strip(b" \x00"), md.ApplOriginData.strip(b" \x00")) == (b"", b"")


def test_mqpmo_new_correl_id_generates_a_correl_id(mq: MQ) -> None:
    """MQPMO_NEW_CORREL_ID: the queue manager replaces the MQMD's CorrelId with a unique one
    (AMQ + the queue manager name), returns it in the MQMD and the message carries it; two
    puts get two different ones.

    IBM, CorrelId (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097470_.html):
    "If the application specifies MQPMO_NEW_CORREL_ID, the queue manager generates a unique
    correlation identifier which is sent with the message, and also returned to the sending
    application on output from the MQPUT or MQPUT1 call"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    given = b"MINE".ljust(24, b"\x00")
    made = []
    for _ in range(2):
        md = ibmmq.MD(CorrelId=given)
        pmo = ibmmq.PMO(Options=c.MQPMO_NEW_CORREL_ID | c.MQPMO_NO_SYNCPOINT)
        qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"x", md, pmo)
        assert md.CorrelId != given
        assert md.CorrelId.startswith(b"AMQ QM1")
        made.append(md.CorrelId)
    assert made[0] != made[1]
    assert [_got_md(ibmmq, qmgr).CorrelId for _ in made] == made


def test_set_identity_context_keeps_identity_and_generates_origin(mq: MQ) -> None:
    """MQPMO_SET_IDENTITY_CONTEXT: on a handle opened without MQOO_SET_IDENTITY_CONTEXT,
    MQRC_NOT_OPEN_FOR_SET_IDENT (2096) and nothing is put; opened with it, the MQMD's
    UserIdentifier, AccountingToken and ApplIdentityData are kept and the queue manager
    sets the origin context (PutApplType, PutApplName, PutDate...).

    IBM, Message context (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=mq-message-context):
    "An application can set the identity context fields in a message, allowing the queue
    manager to generate the origin context"; 2096 MQRC_NOT_OPEN_FOR_SET_IDENT
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041570_.html): "the queue had not
    been opened with the MQOO_SET_IDENTITY_CONTEXT option"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    pmo = ibmmq.PMO(Options=c.MQPMO_SET_IDENTITY_CONTEXT | c.MQPMO_NO_SYNCPOINT)
    plain = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
    assert _fails(ibmmq, lambda: plain.put(b"x", _identity_md(ibmmq), pmo)) == (2, 2096)
    plain.close()
    assert _depth(ibmmq) == 0
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_SET_IDENTITY_CONTEXT)
    q.put(b"x", _identity_md(ibmmq), pmo)
    q.close()
    md = _got_md(ibmmq, qmgr)
    assert md.UserIdentifier.rstrip() == b"bob"
    assert md.AccountingToken == b"\x07".ljust(32, b"\x00")
    assert md.ApplIdentityData.rstrip() == b"who"
    assert md.PutApplType == c.MQAT_UNIX
    assert md.PutApplName.rstrip() not in (b"", b"mine")
    assert md.PutDate != b"20200101"
    assert md.ApplOriginData.strip() == b""


def test_pass_identity_context_copies_only_the_identity_of_the_saved_message(mq: MQ) -> None:
    """MQPMO_PASS_IDENTITY_CONTEXT with MQPMO.Context the input handle that saved a got
    message's context (MQOO_SAVE_ALL_CONTEXT): the new message has that message's identity
    context and a new origin context; an output handle opened without a pass or set context
    option is MQRC_NOT_OPEN_FOR_PASS_IDENT (2094).

    IBM, Message context (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=mq-message-context):
    "An application can also pass the identity context fields from a message it has
    retrieved to a message it is putting on a queue"; 2094 MQRC_NOT_OPEN_FOR_PASS_IDENT
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041550_.html): "the queue had not
    been opened with the MQOO_PASS_IDENTITY_CONTEXT option"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    set_all = ibmmq.PMO(Options=c.MQPMO_SET_ALL_CONTEXT | c.MQPMO_NO_SYNCPOINT)
    qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"orig", _identity_md(ibmmq), set_all)
    src = ibmmq.Queue(qmgr, "Q1", c.MQOO_INPUT_AS_Q_DEF | c.MQOO_SAVE_ALL_CONTEXT)
    src.get(None, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT))
    pmo = ibmmq.PMO(Options=c.MQPMO_PASS_IDENTITY_CONTEXT | c.MQPMO_NO_SYNCPOINT)
    pmo.Context = src.get_handle()
    plain = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
    assert _fails(ibmmq, lambda: plain.put(b"x", ibmmq.MD(), pmo)) == (2, 2094)
    plain.close()
    assert _depth(ibmmq) == 0
    out = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_PASS_IDENTITY_CONTEXT)
    out.put(b"passed", ibmmq.MD(), pmo)
    out.close()
    src.close()
    md = _got_md(ibmmq, qmgr)
    assert (md.UserIdentifier.rstrip(), md.ApplIdentityData.rstrip()) == (b"bob", b"who")
    assert md.PutApplName.rstrip() != b"mine"
    assert md.PutDate != b"20200101"


@pytest.mark.parametrize("before", ["nothing", "a browse"])
def test_passing_context_from_a_handle_with_none_saved_is_2098(mq: MQ, before: str) -> None:
    """MQPMO_PASS_ALL_CONTEXT naming an input handle (MQOO_SAVE_ALL_CONTEXT) that has got
    nothing yet, or whose last successful MQGET was a browse: MQRC_CONTEXT_NOT_AVAILABLE
    (2098) and nothing is put.

    IBM, 2098 MQRC_CONTEXT_NOT_AVAILABLE
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041590_.html): "This arises if no
    message has yet been successfully retrieved with the queue handle referred to, or if the
    last successful MQGET call was a browse"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    src = ibmmq.Queue(qmgr, "Q1", c.MQOO_INPUT_AS_Q_DEF | c.MQOO_BROWSE | c.MQOO_SAVE_ALL_CONTEXT)
    if before == "a browse":
        src.get(None, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT))
        src.get(None, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_BROWSE_FIRST))
    pmo = ibmmq.PMO(Options=c.MQPMO_PASS_ALL_CONTEXT | c.MQPMO_NO_SYNCPOINT)
    pmo.Context = src.get_handle()
    depth = _depth(ibmmq)
    put = lambda: qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"x", ibmmq.MD(), pmo)  # noqa: E731
    assert _fails(ibmmq, put) == (2, 2098)
    assert _depth(ibmmq) == depth
    src.close()


# -- 5. MQGMO_CONVERT ---------------------------------------------------------------------------
def _put_as(ibmmq: Any, qmgr: Any, data: bytes, *, fmt: bytes, ccsid: int, enc: int = 546) -> None:
    md = ibmmq.MD(Format=fmt.ljust(8), CodedCharSetId=ccsid, Encoding=enc)
    pmo = ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_NO_SYNCPOINT)
    qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), data, md, pmo)


def _convert_get(
    ibmmq: Any, qmgr: Any, *, ccsid: int, enc: int = 546, length: int | None = None
) -> tuple[int, int, bytes, Any]:
    """(CompCode, Reason, data, MQMD) of an MQGET with MQGMO_CONVERT asking for ccsid/enc."""
    c = ibmmq.CMQC
    q = _open(ibmmq, qmgr)
    md = ibmmq.MD(CodedCharSetId=ccsid, Encoding=enc)
    gmo = ibmmq.GMO(Options=c.MQGMO_CONVERT | c.MQGMO_NO_SYNCPOINT)
    try:
        data = bytes(q.get(length, md, gmo))
        cc, rc = c.MQCC_OK, 0
    except ibmmq.MQMIError as exc:
        cc, rc, data = exc.comp, exc.reason, bytes(exc.message or b"")
    q.close()
    return cc, rc, data, md


@pytest.mark.parametrize(
    ("text", "source", "target"),
    [("héllo wörld", 1208, 819), ("ABC xyz 123", 819, 500), ("Grüße", 500, 1208)],
)
def test_convert_an_mqstr_message_to_the_ccsid_asked_for(
    mq: MQ, text: str, source: int, target: int
) -> None:
    """MQGMO_CONVERT of an MQSTR message to the MQMD's CodedCharSetId: the text in the
    target code page, MQCC_OK, and the returned MQMD says the CCSID and Encoding it is in.

    IBM, Conversion processing
    (https://www.ibm.com/docs/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q104070_.html): "The
    application must set the CodedCharSetId and Encoding fields in the MsgDesc parameter of
    the MQGET call to the values required, before issuing the call"; MQFMT_STRING is among
    the built-in formats the queue manager converts (Processing conventions,
    https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=exit-processing-conventions)."""
    ibmmq, qmgr = mq
    codecs = {1208: "utf-8", 819: "latin-1", 500: "cp500"}
    _put_as(ibmmq, qmgr, text.encode(codecs[source]), fmt=b"MQSTR", ccsid=source)
    cc, rc, data, md = _convert_get(ibmmq, qmgr, ccsid=target)
    assert (cc, rc) == (0, 0)
    assert data == text.encode(codecs[target])
    assert (md.CodedCharSetId, md.Encoding) == (target, 546)


def test_convert_of_mqfmt_none_is_2110_with_the_data_unconverted(mq: MQ) -> None:
    """MQFMT_NONE in another CCSID than asked: MQCC_WARNING, MQRC_FORMAT_ERROR (2110), the
    data as it was and the MQMD's CodedCharSetId the message's; the message was got. In the
    CCSID asked for there is nothing to convert: MQCC_OK.

    IBM, 2110 MQRC_FORMAT_ERROR (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041710_.html):
    "The format name in the message is MQFMT_NONE ... The message is returned unconverted to
    the application issuing the MQGET call, the values of the CodedCharSetId and Encoding
    fields in the MsgDesc parameter are set to those of the message returned, and the call
    completes with MQCC_WARNING"."""
    ibmmq, qmgr = mq
    raw = "héllo".encode()
    _put_as(ibmmq, qmgr, raw, fmt=b"", ccsid=1208)
    cc, rc, data, md = _convert_get(ibmmq, qmgr, ccsid=819)
    assert (cc, rc, data, md.CodedCharSetId) == (1, 2110, raw, 1208)
    assert _depth(ibmmq) == 0
    _put_as(ibmmq, qmgr, raw, fmt=b"", ccsid=1208)
    assert _convert_get(ibmmq, qmgr, ccsid=1208)[:3] == (0, 0, raw)


@pytest.mark.parametrize(
    ("data", "source", "target", "reason"),
    [
        ("price €5".encode(), 1208, 819, 2119),  # no € in ISO 8859-1
        (b"\xff\xfe bad", 1208, 819, 2119),  # not UTF-8
        (b"abc", 1208, 9999, 2115),  # no such code page here
        (b"abc", 9998, 819, 2111),
    ],
)
def test_a_conversion_that_cannot_be_done_returns_the_data_unconverted(
    mq: MQ, data: bytes, source: int, target: int, reason: int
) -> None:
    """Characters the target cannot hold or data not valid in its CCSID: MQRC_NOT_CONVERTED
    (2119); a target or source CCSID without a code page: MQRC_TARGET_CCSID_ERROR (2115) /
    MQRC_SOURCE_CCSID_ERROR (2111). Each MQCC_WARNING, with the data and the MQMD's CCSID
    as the message has them.

    IBM, 2119 MQRC_NOT_CONVERTED (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041800_.html):
    "The message data is returned unconverted, the values of the CodedCharSetId and Encoding
    fields in the MsgDesc parameter are set to those of the message returned, and the call
    completes with MQCC_WARNING"; 2115 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041760_.html)
    and 2111 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041720_.html): "the message
    data is returned unconverted"."""
    ibmmq, qmgr = mq
    _put_as(ibmmq, qmgr, data, fmt=b"MQSTR", ccsid=source)
    cc, rc, got, md = _convert_get(ibmmq, qmgr, ccsid=target)
    assert (cc, rc, got, md.CodedCharSetId) == (1, reason, data, source)


def test_a_message_that_grows_past_the_buffer_is_2120_unconverted(mq: MQ) -> None:
    """An ISO 8859-1 text that fits the buffer but not once in UTF-8: MQRC_CONVERTED_MSG_TOO_BIG
    (2120, warning), the data unconverted; the message is gone from the queue. With
    MQGMO_ACCEPT_TRUNCATED_MSG the converted data is cut to the buffer instead (2079).

    IBM, 2120 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041810_.html): "the
    message had already been removed from the queue because prior to conversion the message
    data could be accommodated in the application buffer without truncation. The message is
    returned unconverted"; Processing conventions
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=exit-processing-conventions): "If the
    MQGMO_ACCEPT_TRUNCATED_MSG option was specified, the message is truncated"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    raw = "é" * 10
    _put_as(ibmmq, qmgr, raw.encode("latin-1"), fmt=b"MQSTR", ccsid=819)
    cc, rc, data, md = _convert_get(ibmmq, qmgr, ccsid=1208, length=10)
    assert (cc, rc, data, md.CodedCharSetId) == (1, 2120, raw.encode("latin-1"), 819)
    assert _depth(ibmmq) == 0
    _put_as(ibmmq, qmgr, raw.encode("latin-1"), fmt=b"MQSTR", ccsid=819)
    q = _open(ibmmq, qmgr)
    md = ibmmq.MD(CodedCharSetId=1208)
    gmo = ibmmq.GMO(Options=c.MQGMO_CONVERT | c.MQGMO_NO_SYNCPOINT | c.MQGMO_ACCEPT_TRUNCATED_MSG)
    with pytest.raises(ibmmq.MQMIError) as caught:
        q.get(10, md, gmo)
    assert (caught.value.reason, bytes(caught.value.message)) == (2079, raw.encode()[:10])
    q.close()


def test_convert_a_dead_letter_converts_the_mqdlh_and_the_data_after_it(mq: MQ) -> None:
    """A dead letter (MQDEAD: MQDLH, then MQSTR data) in ISO 8859-1 and little-endian asked
    for in EBCDIC 500, big-endian (273): the MQDLH's own fields in 500/273, its
    CodedCharSetId/Encoding describing the converted data after it, which is in 500 too.

    IBM, Processing conventions
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=exit-processing-conventions): the
    built-in formats the queue manager converts include "MQFMT_DEAD_LETTER_HEADER" and
    "MQFMT_STRING"; 2110 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041710_.html):
    "the values returned in the various CodedCharSetId and Encoding fields always correctly
    describe the relevant message data"."""
    from dlqhandler.mq.mqdlh import MQDLH, decode_mqdlh, encode_mqdlh

    ibmmq, qmgr = mq
    dlh = MQDLH(
        reason=2053,
        dest_q_name="APP.IN",
        dest_q_mgr_name="QM1",
        coded_char_set_id=819,
        format="MQSTR",
        put_appl_name="app",
    )
    head = encode_mqdlh(dlh, encoding=546, ccsid=819)
    _put_as(ibmmq, qmgr, head + "Grüße".encode("latin-1"), fmt=b"MQDEAD", ccsid=819)
    cc, rc, data, md = _convert_get(ibmmq, qmgr, ccsid=500, enc=273)
    assert (cc, rc, md.CodedCharSetId, md.Encoding) == (0, 0, 500, 273)
    got = decode_mqdlh(data, encoding=273, ccsid=500)
    assert (got.reason, got.dest_q_name, got.format) == (2053, "APP.IN", "MQSTR")
    assert (got.coded_char_set_id, got.encoding) == (500, 273)
    assert data[172:] == "Grüße".encode("cp500")
