"""When a message was dead-lettered, for the age of the oldest message on the DLQ.

MQ stamps PutDate (``YYYYMMDD``) and PutTime (``HHMMSSTH``) in GMT. A queue
manager that dead-letters a message puts them in the MQDLH; the MQMD keeps the
original putter's (context is passed), so the MQDLH's are the ones that say how
long a message has been waiting on the DLQ.
"""

from __future__ import annotations

import calendar
import time

from dlqhandler.mq.message import Message

__all__ = ["dead_lettered_at", "put_at"]


def put_at(date: str, when: str) -> float | None:
    """PutDate + PutTime as Unix seconds; None when they are blank or not a time."""
    date, when = date.strip(), when.strip()
    if len(date) != 8 or len(when) < 6 or not (date + when).isdigit():
        return None
    try:
        moment = time.strptime(date + when[:6], "%Y%m%d%H%M%S")
    except ValueError:
        return None
    return calendar.timegm(moment) + (int(when[6:8]) / 100 if len(when) >= 8 else 0.0)


def dead_lettered_at(msg: Message) -> float | None:
    """The MQDLH's PutDate/PutTime, else (no MQDLH, or blank there) the MQMD's."""
    dlh = msg.dlh
    if dlh is not None and dlh.put_date.strip():
        return put_at(dlh.put_date, dlh.put_time)
    return put_at(msg.md.put_date, msg.md.put_time)
