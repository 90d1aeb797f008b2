"""What MQPUT does to a message descriptor before the message is stored.

* MsgId: a new unique id when the MQMD has none (or ``new_msg_id``):
  ``AMQ `` + the queue manager name blank-padded to 12 + an 8-byte counter.
* Priority -1 and Persistence 2 take the queue's DEFPRTY/DEFPSIST; CodedCharSetId
  0 (MQCCSI_Q_MGR) becomes the queue manager's CCSID, 819.
* Context: ``pass_all``/``set_all`` keep the identity and origin context of
  the given MQMD byte for byte; ``default`` fills it from the putter
  (UserIdentifier, AccountingToken, PutApplType 6 = MQAT_UNIX, PutApplName,
  PutDate/PutTime in GMT) and, like MQ, fills a blank ReplyToQMgr;
  ``set_identity`` keeps the MQMD's identity context (UserIdentifier,
  AccountingToken, ApplIdentityData) and fills the origin context as ``default``
  does; ``none`` empties both (blanks, nulls, zeros: PutApplType MQAT_NO_CONTEXT).
* CorrelId: a new one (as a MsgId is made) with ``new_correl_id``.
* Group members and segments without a GroupId get a new one.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from dlqhandler.mq.ccsid import QMGR_CCSID
from dlqhandler.mq.constants import (
    MQAT_NO_CONTEXT,
    MQAT_UNIX,
    MQFB_APPL_LAST,
    MQMT_APPL_LAST,
    MQMT_REQUEST,
    MQMT_SYSTEM_FIRST,
    MQRC_EXPIRY_ERROR,
    MQRC_FEEDBACK_ERROR,
    MQRC_MISSING_REPLY_TO_Q,
    MQRC_MSG_TYPE_ERROR,
    MQRC_PERSISTENCE_ERROR,
    MQRC_PRIORITY_ERROR,
    mqi_error,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.qmgr.embedded.objects import QueueView

__all__ = [
    "MQAT_QMGR",
    "NO_ID",
    "Putter",
    "check_md",
    "effective_priority",
    "put_timestamp",
    "qmgr_dead_letter",
    "resolve_md",
]

NO_ID = bytes(24)
MQAT_QMGR = 7
MAX_PRIORITY = 9
# SEGMENTATION_ALLOWED | SEGMENT | LAST_SEGMENT | MSG_IN_GROUP | LAST_MSG_IN_GROUP
_GROUP_FLAGS = 0x1F


@dataclass(frozen=True, slots=True)
class Putter:
    """The identity a default-context put records."""

    user: str
    appl_name: str
    uid: int

    @classmethod
    def current(cls, user: str | None = None, appl_name: str | None = None) -> Putter:
        """The running process: login name, program name (last 28 characters), uid."""
        name = appl_name if appl_name is not None else Path(sys.argv[0] or "python").name
        who = user if user is not None else _login_name()
        return cls(user=who[:12], appl_name=name[-28:], uid=os.getuid())

    @property
    def accounting_token(self) -> bytes:
        """As MQ on UNIX: length byte, the numeric uid in ASCII, then MQACTT_UNIX_NUMERIC_ID."""
        digits = str(self.uid).encode("ascii")[:30]
        return (bytes([len(digits)]) + digits).ljust(31, b"\x00") + b"\x06"


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry for the uid (containers)
        return str(os.getuid())


def put_timestamp(now: float) -> tuple[str, str]:
    """PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` (GMT) for a clock reading."""
    moment = datetime.fromtimestamp(now, UTC)
    hundredths = moment.microsecond // 10_000
    return moment.strftime("%Y%m%d"), moment.strftime("%H%M%S") + f"{hundredths:02d}"


def qmgr_dead_letter(
    md: MQMD,
    body: bytes,
    *,
    reason: int,
    dest_q_name: str,
    dest_q_mgr_name: str,
    qmgr_name: str,
    now: float,
) -> Message:
    """A message the queue manager itself puts on its dead-letter queue (a trigger
    message its initiation queue refused, a report its ReplyToQ refused): behind an
    MQDLH giving ``reason`` and where it was going, with the queue manager's context
    (PutApplType MQAT_QMGR, its name, the time ``now``)."""
    date, time_ = put_timestamp(now)
    return Message.dead_letter(
        md,
        body,
        reason=reason,
        dest_q_name=dest_q_name,
        dest_q_mgr_name=dest_q_mgr_name,
        put_appl_type=MQAT_QMGR,
        put_appl_name=qmgr_name[:28],
        put_date=date,
        put_time=time_,
    )


def effective_priority(priority: int) -> int:
    """The priority a message is queued at (MQ keeps a higher MQMD value as given)."""
    return min(max(priority, 0), MAX_PRIORITY)


def check_md(md: MQMD) -> None:
    """IBM's MQPUT/MQPUT1 refusals of an MQMD field, before anything is put:
    MQRC_EXPIRY_ERROR (2013) for an Expiry of 0 or below -1, MQRC_PRIORITY_ERROR (2050)
    below -1, MQRC_PERSISTENCE_ERROR (2047) not 0, 1 or 2, MQRC_MSG_TYPE_ERROR (2029) a
    MsgType outside the system and application ranges (1 to 999999999),
    MQRC_FEEDBACK_ERROR (2014) a Feedback neither MQFB_NONE nor in those ranges, and
    MQRC_MISSING_REPLY_TO_Q (2027) a request (MQMT_REQUEST) with a blank ReplyToQ (IBM,
    ReplyToQ: "this field must not be blank if the MsgType field has the value
    MQMT_REQUEST, or if any report messages are requested by the Report field"; the second
    half is not enforced: docs/embedded-qmgr.md says why)."""
    if md.expiry == 0 or md.expiry < -1:
        raise mqi_error(MQRC_EXPIRY_ERROR, f"Expiry {md.expiry}")
    if md.priority < -1:
        raise mqi_error(MQRC_PRIORITY_ERROR, f"Priority {md.priority}")
    if md.persistence not in (0, 1, 2):
        raise mqi_error(MQRC_PERSISTENCE_ERROR, f"Persistence {md.persistence}")
    if not MQMT_SYSTEM_FIRST <= md.msg_type <= MQMT_APPL_LAST:
        raise mqi_error(MQRC_MSG_TYPE_ERROR, f"MsgType {md.msg_type}")
    if not 0 <= md.feedback <= MQFB_APPL_LAST:
        raise mqi_error(MQRC_FEEDBACK_ERROR, f"Feedback {md.feedback}")
    if md.msg_type == MQMT_REQUEST and not md.reply_to_q.strip():
        raise mqi_error(MQRC_MISSING_REPLY_TO_Q, "ReplyToQ is blank for a request message")


def resolve_md(
    md: MQMD,
    *,
    queue: QueueView,
    context: str,
    putter: Putter,
    alternate_user: str | None,
    now: float,
    new_msg_id: bool,
    make_id: Callable[[], bytes],
    qmgr_name: str,
    new_correl_id: bool = False,
) -> MQMD:
    """The MQMD as MQPUT leaves it (raises MQIError for bad fields, see :func:`check_md`)."""
    check_md(md)
    changes: dict[str, object] = {}
    if md.coded_char_set_id == 0:  # MQCCSI_Q_MGR: MQPUT records the real CCSID
        changes["coded_char_set_id"] = QMGR_CCSID
    if md.priority == -1:
        changes["priority"] = queue.defprty
    if md.persistence == 2:
        changes["persistence"] = queue.defpsist
    if new_msg_id or md.msg_id == NO_ID:
        changes["msg_id"] = make_id()
    if md.msg_flags & _GROUP_FLAGS and md.group_id == NO_ID:
        changes["group_id"] = make_id()
    if new_correl_id:
        changes["correl_id"] = make_id()
    if context in ("default", "set_identity"):
        date, time_ = put_timestamp(now)
        changes.update(
            put_appl_type=MQAT_UNIX,
            put_appl_name=putter.appl_name,
            put_date=date,
            put_time=time_,
            appl_origin_data="",
        )
        if context == "default":
            changes.update(
                user_identifier=(alternate_user or putter.user)[:12],
                accounting_token=putter.accounting_token,
                appl_identity_data="",
            )
        if md.reply_to_q and not md.reply_to_q_mgr:
            changes["reply_to_q_mgr"] = qmgr_name
    elif context == "none":
        changes.update(
            user_identifier="",
            accounting_token=bytes(32),
            appl_identity_data="",
            put_appl_type=MQAT_NO_CONTEXT,
            put_appl_name="",
            put_date="",
            put_time="",
            appl_origin_data="",
        )
    return md.replace(**changes) if changes else md
