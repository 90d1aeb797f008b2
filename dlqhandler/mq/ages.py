"""How long a message has been on a dead-letter queue, and selecting by that age.

One home for the rule ``run`` and ``report`` share (the Spark report writes it as a
column expression, :mod:`dlqhandler.spark.report.ages`, and a test holds the two equal):

* :func:`put_at`: MQ stamps PutDate (``YYYYMMDD``) and PutTime (``HHMMSSTH``) in
  GMT. Blanks at either end are ignored; then the date is 8 ASCII digits forming a
  real date (year 0001 to 9999), the time 6 or 8 ASCII digits, hours 00-23, minutes
  00-59, seconds 00-61 (C's strptime range); the hundredths count when given.
  Anything else is not a time (None).
* :func:`dead_lettered_at`: a queue manager that dead-letters a message stamps the
  MQDLH's PutDate/PutTime; the MQMD keeps the original putter's (context is
  passed), so the MQDLH's say how long a message has been waiting on the DLQ. With
  no MQDLH, or a blank PutDate in it, the MQMD's are taken (the time the message
  was put on the DLQ).
* :class:`AgeWindow`: ``--older-than 7d`` / ``--newer-than 2h`` (:func:`parse_duration`).
  A message is admitted when its age (reference time minus :func:`dead_lettered_at`)
  is at least ``older_than`` and at most ``newer_than``: both bounds inclusive. A
  message without a readable time is never admitted by an age.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date as _date

from dlqhandler.errors import ConfigError
from dlqhandler.mq.message import Message

__all__ = ["AgeWindow", "dead_lettered_at", "duration_text", "parse_duration", "put_at"]

_PUT_DATE = re.compile(r"([0-9]{4})([0-9]{2})([0-9]{2})")
_PUT_TIME = re.compile(r"([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})?")
_EPOCH_DAY = _date(1970, 1, 1).toordinal()

_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)([smhdw])")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def put_at(date: str, when: str) -> float | None:
    """PutDate + PutTime as Unix seconds; None when they are blank or not a time."""
    d = _PUT_DATE.fullmatch(date.strip(" "))
    t = _PUT_TIME.fullmatch(when.strip(" "))
    if d is None or t is None:
        return None
    year, month, day = (int(g) for g in d.groups())
    hour, minute, second = int(t[1]), int(t[2]), int(t[3])
    if hour > 23 or minute > 59 or second > 61:
        return None
    try:
        days = _date(year, month, day).toordinal() - _EPOCH_DAY
    except ValueError:  # year 0000, month 13, 30 February ...
        return None
    whole = days * 86400 + hour * 3600 + minute * 60 + second
    return whole + (int(t[4]) / 100 if t[4] is not None else 0.0)


def dead_lettered_at(msg: Message) -> float | None:
    """The MQDLH's PutDate/PutTime, else (no MQDLH, or blank there) the MQMD's."""
    dlh = msg.dlh
    if dlh is not None and dlh.put_date.strip(" "):
        return put_at(dlh.put_date, dlh.put_time)
    return put_at(msg.md.put_date, msg.md.put_time)


def parse_duration(text: str, option: str) -> float:
    """``90s``, ``30m``, ``2h``, ``7d``, ``1w`` as seconds; ConfigError naming ``option``."""
    found = _DURATION.fullmatch(text.strip().lower())
    if found is None and _DURATION.fullmatch(text.strip().lower().removeprefix("-")):
        raise ConfigError(
            f"{option} {text!r} is a negative age: an age counts back from now "
            f"({text.strip().removeprefix('-')}: that long ago), so it cannot be negative; "
            f"give it without the minus sign ({option} {text.strip().removeprefix('-')})"
        )
    if found is None:
        raise ConfigError(
            f"{option} {text!r} is not a duration: a number and a unit, "
            "s, m, h, d or w (e.g. 7d, 2h, 30m)"
        )
    return float(found.group(1)) * _UNIT[found.group(2)]


def duration_text(seconds: float) -> str:
    """Seconds in days, hours, minutes or seconds, the largest that holds them whole
    (``604800.0`` -> ``7d``, ``5400.0`` -> ``90m``)."""
    for unit in "dhm":
        if seconds and seconds % _UNIT[unit] == 0:
            return f"{seconds / _UNIT[unit]:g}{unit}"
    return f"{seconds:g}s"


@dataclass(frozen=True, slots=True)
class AgeWindow:
    """``--older-than`` / ``--newer-than`` in seconds (None: no bound)."""

    older_than: float | None = None
    newer_than: float | None = None

    @classmethod
    def parse(cls, older_than: str | None, newer_than: str | None) -> AgeWindow:
        """The window the options give; ConfigError for a malformed duration, or for
        ``--newer-than`` under ``--older-than`` (no message can be in both: a mistake,
        most likely the two swapped, so it is refused rather than selecting nothing)."""
        older = parse_duration(older_than, "--older-than") if older_than is not None else None
        newer = parse_duration(newer_than, "--newer-than") if newer_than is not None else None
        if older is not None and newer is not None and newer < older:
            raise ConfigError(
                f"--newer-than {newer_than} is shorter than --older-than {older_than}: no "
                "message can be both; for messages dead-lettered between "
                f"{duration_text(newer)} and {duration_text(older)} ago give "
                f"--older-than {newer_than} --newer-than {older_than}"
            )
        return cls(older, newer)

    @property
    def active(self) -> bool:
        return self.older_than is not None or self.newer_than is not None

    def admits(self, when: float | None, now: float) -> bool:
        """True when a message dead-lettered at ``when`` is in the window at ``now``."""
        if not self.active:
            return True
        if when is None:
            return False
        age = now - when
        if self.older_than is not None and age < self.older_than:
            return False
        return not (self.newer_than is not None and age > self.newer_than)

    def describe(self) -> str:
        """``dead-lettered at least 7d and at most 30d ago`` (empty when inactive)."""
        bounds = []
        if self.older_than is not None:
            bounds.append(f"at least {duration_text(self.older_than)}")
        if self.newer_than is not None:
            bounds.append(f"at most {duration_text(self.newer_than)}")
        return f"dead-lettered {' and '.join(bounds)} ago" if bounds else ""
