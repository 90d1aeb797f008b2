"""Every MQI option the stand-in cannot honour is refused with IBM's reason, before the
call changes anything; docs/ibmmq.md lists each (tests.mqi.options.REFUSED).

IBM, 2046 MQRC_OPTIONS_ERROR (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041170_.html):
"The Options parameter or field contains options that are not valid, or a combination of
options that is not valid"; 2247 MQRC_MATCH_OPTIONS_ERROR
(https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042800_.html): "An undefined option is
specified"; 2045 MQRC_OPTION_NOT_VALID_FOR_TYPE
(https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041160_.html): "an option
is specified that is not valid for the type of object or queue being opened or closed" (the
subscription options of MQCLOSE on a queue handle; MQCO_DELETE and MQCO_DELETE_PURGE are
honoured, see tests/mqi/test_dynamic.py). Each case puts, fails the call, and counts the
queue on a second connection.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.mqi.build import ROOT
from tests.mqi.options import REFUSED
from tests.mqi.test_conformance import _depth, _fails, _open, _put

MQ = tuple[Any, Any]


def _cases(call: str) -> list[Any]:
    return [
        pytest.param(name, value, reason, id=name)
        for c, name, value, reason, _ in REFUSED
        if c == call
    ]


@pytest.mark.parametrize(("name", "value", "reason"), _cases("MQGET"))
def test_a_refused_get_option_fails_and_takes_nothing(
    mq: MQ, name: str, value: int, reason: int
) -> None:
    """MQGET with an MQGMO option (or MatchOptions value) the stand-in does not honour:
    MQCC_FAILED with IBM's reason; the message stays.
    IBM, 2046 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041170_.html): "options that
    are not valid"; 2247 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042800_.html)."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1")
    q = _open(ibmmq, qmgr)
    if name.startswith("MQMO_"):
        gmo = ibmmq.GMO(Version=2, Options=c.MQGMO_NO_SYNCPOINT, MatchOptions=value)
    else:
        gmo = ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT | value)
    assert _fails(ibmmq, lambda: q.get(None, ibmmq.MD(), gmo)) == (2, reason)
    assert _depth(ibmmq) == 1
    q.close()


@pytest.mark.parametrize(("name", "value", "reason"), _cases("MQPUT"))
@pytest.mark.parametrize("verb", ["MQPUT", "MQPUT1"])
def test_a_refused_put_option_fails_and_puts_nothing(
    mq: MQ, verb: str, name: str, value: int, reason: int
) -> None:
    """MQPUT and MQPUT1 with an MQPMO option the stand-in does not honour: MQCC_FAILED with
    IBM's reason; the queue stays empty.
    IBM, 2046 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041170_.html): "options that
    are not valid"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    pmo = ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT | value)
    if verb == "MQPUT":
        q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
        assert _fails(ibmmq, lambda: q.put(b"x", ibmmq.MD(), pmo)) == (2, reason)
        q.close()
    else:
        put1 = lambda: qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"x", ibmmq.MD(), pmo)  # noqa: E731
        assert _fails(ibmmq, put1) == (2, reason)
    assert _depth(ibmmq) == 0


@pytest.mark.parametrize(("name", "value", "reason"), _cases("MQPUT1"))
def test_a_refused_put1_option_fails_and_puts_nothing(
    mq: MQ, name: str, value: int, reason: int
) -> None:
    """MQPUT1 with an MQPMO option the stand-in honours on MQPUT only (MQPMO_LOGICAL_ORDER:
    the group status lives on a queue handle): MQCC_FAILED with 2046; the queue stays empty.
    IBM, GroupId (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097530_.html):
    "if the application requires more control, or the call is MQPUT1, the application must
    ensure that GroupId is set to an appropriate value"."""
    ibmmq, qmgr = mq
    pmo = ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_NO_SYNCPOINT | value)
    put1 = lambda: qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"x", ibmmq.MD(), pmo)  # noqa: E731
    assert _fails(ibmmq, put1) == (2, reason)
    assert _depth(ibmmq) == 0


@pytest.mark.parametrize(("name", "value", "reason"), _cases("MQOPEN"))
def test_a_refused_open_option_fails(mq: MQ, name: str, value: int, reason: int) -> None:
    """MQOPEN with an MQOO option the stand-in does not honour: MQCC_FAILED with IBM's
    reason, no handle; the queue keeps its message.
    IBM, 2046 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041170_.html): "options that
    are not valid"."""
    ibmmq, qmgr = mq
    _put(ibmmq, qmgr, b"m1")
    open_ = lambda: ibmmq.Queue(qmgr, "Q1", value | ibmmq.CMQC.MQOO_BROWSE)  # noqa: E731
    assert _fails(ibmmq, open_) == (2, reason)
    assert _depth(ibmmq) == 1


def test_two_input_options_are_2046(mq: MQ) -> None:
    """MQOO_INPUT_AS_Q_DEF with MQOO_INPUT_SHARED: only one input option may be given.

    IBM, MQOO options (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041170_.html,
    2046): "a combination of options that is not valid"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    both = c.MQOO_INPUT_AS_Q_DEF | c.MQOO_INPUT_SHARED
    assert _fails(ibmmq, lambda: ibmmq.Queue(qmgr, "Q1", both)) == (2, 2046)


@pytest.mark.parametrize(("name", "value", "reason"), _cases("MQCLOSE"))
def test_a_refused_close_option_fails_and_the_handle_stays_open(
    mq: MQ, name: str, value: int, reason: int
) -> None:
    """MQCLOSE with an MQCO option the stand-in cannot honour: IBM's reason, and the handle
    is still usable (a get through it returns the message).
    IBM, 2045 (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041160_.html): "an
    option is specified that is not valid for the type of object or queue being opened or
    closed" (MQCO_KEEP_SUB and MQCO_REMOVE_SUB on a queue handle)."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1")
    q = _open(ibmmq, qmgr)
    assert _fails(ibmmq, lambda: q.close(value)) == (2, reason)
    assert q.get(None, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT)) == b"m1"
    q.close()


def test_docs_list_every_refused_option() -> None:
    """docs/ibmmq.md names every option in tests.mqi.options.REFUSED with its reason code,
    so the note a user reads is the list the stand-in enforces."""
    text = Path(ROOT, "docs", "ibmmq.md").read_text(encoding="utf-8")
    missing = [
        (name, reason) for _, name, _, reason, _ in REFUSED if f"`{name}` | {reason}" not in text
    ]
    assert not missing, missing
