"""A case's message: the dead letter ``run`` would get, built from pattern keywords.

The keywords are the rules table's own (:data:`~dlqhandler.rules.PATTERN_FIELDS`: where
each lives in the MQMD or the MQDLH). A field a case does not give keeps MQ's default
(``MQMD_DEFAULT`` and ``MQDLH_DEFAULT``: blanks, ``MQMT_DATAGRAM``, ``MQRC_NONE``...),
but Persistence: MQ's initial ``MQPER_PERSISTENCE_AS_Q_DEF`` is replaced by the queue's
DEFPSIST when a message is put, so a message got from a queue is persistent or not
(:data:`GOT_PERSISTENCE`), and a case's is ``MQPER_NOT_PERSISTENT`` unless it says
otherwise, as on a queue defined with IBM's DEFPSIST(NO). The message is dead-lettered as a
queue manager does it (:meth:`~dlqhandler.mq.Message.dead_letter`), its character fields
as a get reads them from its bytes (cut at a NUL, without trailing blanks), so the matcher
and the planner see it exactly as ``run`` sees one got from a queue (``USERID: "bob "``
is ``bob`` there, as MQ pads the field).

Numeric fields take a number or an MQ name of the families the table's keyword takes
(:data:`~dlqhandler.rules.keywords.NUMERIC_FAMILIES`; FEEDBACK also takes ``MQRC_``
names, as a report's Feedback can hold a reason code).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from dlqhandler.errors import DLQHandlerError
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.ccsid import QMGR_CCSID, encode_text
from dlqhandler.mq.constants import FAMILIES, family_of
from dlqhandler.rules import PATTERN_FIELDS
from dlqhandler.rules.keywords import FEEDBACK_WARN_FAMILIES, NUMERIC_FAMILIES, suggest

__all__ = [
    "GOT_PERSISTENCE",
    "MAX_HOPS_IN_A_CASE",
    "MQLONG_MAX",
    "MQLONG_MIN",
    "NotANumberError",
    "build_message",
    "number",
    "text",
]

# The Persistence a message got from a queue has (MQPER_NOT_PERSISTENT, MQPER_PERSISTENT),
# the first a case's message has when it gives none.
GOT_PERSISTENCE = (0, 1)

# The most MQDLHs a case's message may carry (run counts at most 64: header_depth's limit).
MAX_HOPS_IN_A_CASE = 100

MQLONG_MIN, MQLONG_MAX = -(2**31), 2**31 - 1
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NAME = re.compile(r"MQ[A-Z]+_[A-Z0-9_]+")

# MQMD and MQDLH attributes each keyword sets when the message is built.
_MD = {k: s.attribute for k, s in PATTERN_FIELDS.items() if s.structure == "md"}
_MD["FORMAT"] = "format"  # the MQDLH's Format is the original message's


class NotANumberError(ValueError):
    """Why a value is not a number for its keyword, and what was probably meant."""

    def __init__(self, why: str, suggestion: str) -> None:
        super().__init__(why)
        self.why = why
        self.suggestion = suggestion


def families(keyword: str) -> tuple[str, ...]:
    """The MQ name families a numeric keyword takes."""
    return NUMERIC_FAMILIES[keyword] + FEEDBACK_WARN_FAMILIES.get(keyword, ())


@functools.lru_cache(maxsize=4096)  # a file repeats the same few names thousands of times
def number(keyword: str, value: str) -> int:
    """A numeric field's value from its text: a number (an MQLONG) or an MQ name."""
    allowed = families(keyword)
    names = " or ".join(f"{f}_*" for f in allowed)
    if _INTEGER.fullmatch(value):
        n = int(value)
        if not MQLONG_MIN <= n <= MQLONG_MAX:
            raise NotANumberError(
                "outside an MQLONG", f"give a number from {MQLONG_MIN} to {MQLONG_MAX}"
            )
        return n
    if not _NAME.fullmatch(value) or family_of(value) is None:
        pool = [n for f in allowed for n in FAMILIES[f]]
        guess = suggest(value, pool, prefix=False)
        hint = f"did you mean {guess}?" if guess else f"{keyword} takes a number or {names}"
        return _raise("not a number or a known MQ name", hint)
    family = family_of(value)
    if family not in allowed:
        return _raise(f"a {family} name", f"{keyword} takes a number or {names}")
    found = FAMILIES[str(family)][value]
    assert isinstance(found, int)  # the numeric families hold integers
    return found


def _raise(why: str, suggestion: str) -> int:
    raise NotANumberError(why, suggestion)


def text(keyword: str, value: str) -> str:
    """A character field's value, checked to fit the field in the queue manager's code
    page (ValueError saying why if not)."""
    length = PATTERN_FIELDS[keyword].length
    if len(value) > length:
        raise ValueError(f"is {len(value)} characters long; the field holds {length}")
    try:
        encode_text(value, length, QMGR_CCSID, field=keyword)
    except DLQHandlerError as exc:
        raise ValueError(f"cannot be written in the field (CCSID {QMGR_CCSID}): {exc}") from exc
    return value


def _as_got(value: str) -> str:
    """A character field as a get reads it from the message's bytes
    (:func:`~dlqhandler.mq.ccsid.decode_text`): cut at a NUL, without trailing blanks
    (MQ pads the field with them)."""
    return value.split("\0", 1)[0].rstrip(" ")


def build_message(fields: Mapping[str, str | int], *, hops: int = 1) -> Message:
    """The dead letter whose pattern fields are ``fields`` (keyword -> value), MQ's
    defaults elsewhere, carrying ``hops`` MQDLHs: dead-lettered ``hops`` times, as a
    message forwarded with its header (HEADER(YES)) and dead-lettered again is, each
    MQDLH holding the fields (the outermost is the one matched; its Format is then
    ``MQDEAD``, the format of the dead letter under it, whatever FORMAT says). ValueError
    when a value cannot be put in the message (a character the queue manager's code page
    does not have)."""
    fields = {k: _as_got(v) if isinstance(v, str) else v for k, v in fields.items()}
    given: dict[str, Any] = {_MD[k]: v for k, v in fields.items() if k in _MD}
    given.setdefault("persistence", GOT_PERSISTENCE[0])
    if hops > 1:
        given["format"] = ""  # the first dead letter's data: MQDEAD names it in the next
    md = MQMD(**given)
    message = Message(md, b"")
    try:
        for _ in range(hops):
            message = Message.dead_letter(
                message.md,
                message.body,
                reason=int(fields.get("REASON", 0)),
                dest_q_name=str(fields.get("DESTQ", "")),
                dest_q_mgr_name=str(fields.get("DESTQM", "")),
            )
    except (DLQHandlerError, UnicodeError) as exc:
        raise ValueError(str(exc)) from exc
    return message
