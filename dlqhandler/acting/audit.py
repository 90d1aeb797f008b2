"""Audit records: who did what to which dead letter, and why.

Every action of a one-off ``dlqhandler run --action ...`` (or of any run given
``--reason``) leaves one audit record, put to the audit queue (default
``DLQHANDLER.AUDIT``) *in the unit of work of the action itself*
(:mod:`dlqhandler.acting.unit`): the action and its record commit or back out
together. An audit queue that cannot take the record (full, put-inhibited)
backs the action out: it is never done without its record.

The record is a JSON message (Format ``MQSTR``, CCSID 1208), one per action;
``docs/one-off-actions.md`` documents the schema. Its fields come from the run
(``version``, ``time``, ``os_user``, ``command``, ``reason``, ``qmgr``, ``queue``)
and from the dead letter (``msgid``, ``correlid``, ``dlh_reason``, ``dlh_reason_name``,
``destq``, ``destqmgr``, ``action``, ``target``, ``outcome``). The MQ user id is the
record's own MQMD UserIdentifier, which the queue manager sets from the
connection (default context): the handler cannot forge it; :func:`read_audit`
adds it as ``mq_user``. Values taken from messages (queue names, user ids) are
untrusted: they are JSON-escaped (``json.dumps``) and never form a path.
"""

from __future__ import annotations

import calendar
import getpass
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dlqhandler.mq.constants import reason_name
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.outcomes import Outcome
from dlqhandler.qmgr.port import Queue, browse_all

__all__ = ["AUDIT_FORMAT_VERSION", "DEFAULT_AUDIT_QUEUE", "AuditTrail", "os_user", "read_audit"]

DEFAULT_AUDIT_QUEUE = "DLQHANDLER.AUDIT"
AUDIT_FORMAT_VERSION = 1


def os_user() -> str:
    """The operating-system user running the command (``getpass.getuser``)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + (
        f".{int(seconds * 1000) % 1000:03d}Z"
    )


@dataclass(frozen=True, slots=True)
class AuditTrail:
    """What a run says about itself in each of its audit records."""

    queue: str
    reason: str
    command: tuple[str, ...]
    qmgr: str
    input_queue: str
    user: str
    clock: Callable[[], float] = time.time

    def entry(
        self, msg: Message, action: str, target: str | None, outcome: Outcome = Outcome.OK
    ) -> dict[str, Any]:
        """The record of one action on ``msg``."""
        dlh = msg.dlh
        return {
            "version": AUDIT_FORMAT_VERSION,
            "time": _iso(self.clock()),
            "os_user": self.user,
            "command": list(self.command),
            "reason": self.reason,
            "qmgr": self.qmgr,
            "queue": self.input_queue,
            "msgid": msg.md.msg_id.hex(),
            "correlid": msg.md.correl_id.hex(),
            "dlh_reason": dlh.reason if dlh is not None else None,
            "dlh_reason_name": reason_name(dlh.reason) if dlh is not None else None,
            "destq": dlh.dest_q_name.strip() if dlh is not None else None,
            "destqmgr": dlh.dest_q_mgr_name.strip() if dlh is not None else None,
            "action": action,
            "target": target,
            "outcome": outcome.value,
        }

    def message(
        self, msg: Message, action: str, target: str | None, outcome: Outcome = Outcome.OK
    ) -> Message:
        """The audit message of one action (JSON, UTF-8, Format MQSTR; its CorrelId is
        the dead letter's MsgId, so ``--msgid`` finds it by an indexed get)."""
        body = json.dumps(
            self.entry(msg, action, target, outcome), ensure_ascii=False, separators=(",", ":")
        ).encode("utf-8")
        md = MQMD(format="MQSTR", coded_char_set_id=1208, persistence=1, correl_id=msg.md.msg_id)
        return Message(md, body)


def read_audit(
    q: Queue, *, since: float | None = None, msg_id: bytes | None = None
) -> Iterator[dict[str, Any]]:
    """Browse the audit records on ``q`` (never destructive), oldest first; ``since``
    in Unix seconds (by the record's ``time``), ``msg_id`` the dead letter's MsgId.
    A message on the queue that is not an audit record is returned as
    ``{"unreadable": msgid}``, never skipped in silence."""
    for raw in browse_all(q, correl_id=msg_id):
        try:
            record = json.loads(raw.body.decode("utf-8"))
            if not isinstance(record, dict) or "time" not in record:
                raise ValueError("not an audit record")
            moment = calendar.timegm(time.strptime(str(record["time"])[:19], "%Y-%m-%dT%H:%M:%S"))
        except (ValueError, UnicodeDecodeError):
            yield {"unreadable": raw.md.msg_id.hex()}
            continue
        if since is not None and moment < since:
            continue
        if msg_id is not None and record.get("msgid") != msg_id.hex():
            continue  # an all-zero CorrelId matches any message (MQCI_NONE)
        record["mq_user"] = raw.md.user_identifier.strip()
        yield record
