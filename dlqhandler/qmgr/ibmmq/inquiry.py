"""MQINQ through IBM's ``ibmmq`` package: one object opened for inquiry, asked, closed.

The port's ``inquire_object``: MQOPEN with MQOO_INQUIRE of the queue manager, a
queue or a process, MQINQ, MQCLOSE.

IBM MQ fails a whole MQINQ with MQRC_SELECTOR_ERROR when one selector is not one
it knows (an older queue manager, or a character attribute the ``ibmmq`` package
has no length for), and warns MQRC_SELECTOR_NOT_FOR_TYPE for one that does not
apply to the object. The port promises the answers it can give and leaves the rest
out, so a refused MQINQ is repeated one selector at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dlqhandler.mq.constants import MQRC_SELECTOR_ERROR, MQRC_SELECTOR_NOT_FOR_TYPE
from dlqhandler.qmgr.ibmmq.handle import mq_name
from dlqhandler.qmgr.ibmmq.mapping import MQCHAR_ENCODING
from dlqhandler.qmgr.port import Answers, ObjectType

__all__ = ["inquire_answered", "inquire_object"]

_UNANSWERABLE = (MQRC_SELECTOR_ERROR, MQRC_SELECTOR_NOT_FOR_TYPE)


def _value(raw: object) -> int | str:
    if isinstance(raw, int):
        return raw
    data = raw if isinstance(raw, bytes) else str(raw).encode(MQCHAR_ENCODING)
    return data.split(b"\x00", 1)[0].decode(MQCHAR_ENCODING).strip()


def inquire_answered(mq: Any, obj: Any, selectors: list[int]) -> Answers:
    """MQINQ ``selectors`` on the open ``ibmmq`` object ``obj`` (``mq`` is the ``ibmmq``
    module): all at once, else each alone, leaving out the ones refused."""
    try:
        answers = obj.inquire(selectors) if selectors else {}
    except mq.MQMIError as exc:
        if exc.reason not in _UNANSWERABLE:
            raise
        answers = {}
        for selector in selectors:
            try:
                answers[selector] = obj.inquire(selector)
            except mq.MQMIError as one:
                if one.reason not in _UNANSWERABLE:
                    raise
    return {selector: _value(v) for selector, v in answers.items()}


def inquire_object(
    mq: Any, qmo: Any, objtype: ObjectType, name: str, selectors: Sequence[int]
) -> Answers:
    """MQOPEN (MQOO_INQUIRE) the object on the connection ``qmo``, MQINQ, MQCLOSE."""
    c = mq.CMQC
    od = mq.OD()
    od.ObjectType = {"qmgr": c.MQOT_Q_MGR, "queue": c.MQOT_Q, "process": c.MQOT_PROCESS}[objtype]
    if objtype != "qmgr":
        od.ObjectName = mq_name(name)
    obj = mq.Queue(qmo, od, c.MQOO_INQUIRE | c.MQOO_FAIL_IF_QUIESCING)
    try:
        return inquire_answered(mq, obj, list(dict.fromkeys(selectors)))
    finally:
        obj.close()
