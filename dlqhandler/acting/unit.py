"""The unit of work a dead letter (or a group) is acted on in: put, take, count a failure
while held, commit or back out (:func:`dlqhandler.acting.attempt.attempt` drives it).

A DLQ message is *held* while it is acted on, so that no other handler or drain
can take it meanwhile, in one of two ways:

* **locked** by a browse (``dlqhandler run``): the put comes first, then the
  destructive get under the cursor. A failed put never touched the message: its
  attempt is counted while the lock still holds it, and the unit of work (which
  may hold other messages of a batch) stays open;
* **got** under syncpoint (``dlqhandler drain --apply``, and every group): the
  get comes first, then the put. A failed put is counted while the get still
  holds the message, and only then is the unit of work backed out.

Either way the count is written (outside syncpoint, :mod:`dlqhandler.qmgr.attempts`)
before anyone else can see the message: given back first, another handler could
take the message, move it and clear the records it read before this count landed,
which would then stay on the status queue with nothing to clear it.

A successful action removes the attempt record inside the unit of work that
removes the message, so both commit or back out together; the caller commits
(the handler batches several messages per unit of work, the drain one).

A commit that fails with a reason of :data:`COMMIT_UNKNOWN` leaves the unit's outcome
unknown (IBM: "If MQCMIT was interrupted the transaction might or might not have been
committed"): its caller counts its messages neither as moved nor as failed, and names them.

A unit of work holds at most the queue manager's MaxUncommittedMsgs (MAXUMSGS)
messages: :meth:`UnitOfWork.cost` is the most one action can add to it, so a caller
that batches commits before an action that might not fit (a call past it fails with
MQRC_SYNCPOINT_LIMIT_REACHED, 2024, and changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from dlqhandler.acting.plan import Outgoing
from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQRC_CALL_INTERRUPTED,
    MQRC_CONNECTION_BROKEN,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_NO_MSG_UNDER_CURSOR,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.selectors import MQIA_MAX_UNCOMMITTED_MSGS
from dlqhandler.qmgr.attempts import AttemptRecord, AttemptStore, Subject
from dlqhandler.qmgr.port import GetOptions, PutOptions, Queue, QueueManager

__all__ = ["COMMIT_UNKNOWN", "UnitOfWork"]

# MQCMIT reasons that leave the unit of work's outcome unknown: the connection was lost
# (or a reconnectable client's reconnection could not tell) between the request and its
# answer, so the unit may have been committed or backed out. Its messages are neither
# moved nor failed: a caller names them and counts them as neither.
COMMIT_UNKNOWN = frozenset({MQRC_CONNECTION_BROKEN, MQRC_CALL_INTERRUPTED})

_GONE = frozenset({MQRC_NO_MSG_AVAILABLE, MQRC_NO_MSG_UNDER_CURSOR})
_AUDITED = PutOptions(syncpoint=True, context="default")
# IBM's default MaxUncommittedMsgs, for a queue manager that does not answer MQINQ of it.
_DEFAULT_MAXUMSGS = 10_000
# What one member's action can add to the unit of work, as IBM counts it: its get and
# the COD report it may make, its put with the COA report and trigger message it may
# make; an audit record's put with its COA and trigger message; the attempt record
# cleared (a get from the status queue).
_PER_MEMBER, _PER_AUDIT_RECORD, _PER_SUBJECT = 5, 3, 1


class UnitOfWork:
    """A connection's units of work on the DLQ, with its attempt store (if any).

    ``fatal``: MQ reasons a failed put re-raises instead of counting (the handler's
    quiet end: the connection is gone, so nothing could be counted anyway).
    ``audit_queue``: where an action's audit record goes, in the action's own unit of
    work (:mod:`dlqhandler.acting.audit`).
    """

    def __init__(
        self,
        qmgr: QueueManager,
        store: AttemptStore | None,
        clock: Callable[[], float],
        *,
        fatal: Collection[int] = (),
        audit_queue: str | None = None,
    ) -> None:
        self.qmgr = qmgr
        self.store = store
        self._clock = clock
        self._fatal = frozenset(fatal)
        self.audit_queue = audit_queue
        self._maxumsgs: int | None = None

    @property
    def max_uncommitted(self) -> int:
        """The queue manager's MaxUncommittedMsgs (MQINQ once; IBM's default 10000 when
        the queue manager does not answer it)."""
        if self._maxumsgs is None:
            try:
                answers = self.qmgr.inquire_object("qmgr", "", [MQIA_MAX_UNCOMMITTED_MSGS])
            except MQIError:
                answers = {}
            value = answers.get(MQIA_MAX_UNCOMMITTED_MSGS, _DEFAULT_MAXUMSGS)
            self._maxumsgs = value if isinstance(value, int) and value > 0 else _DEFAULT_MAXUMSGS
        return self._maxumsgs

    def cost(self, members: int) -> int:
        """The most an action on ``members`` messages (one, or a group's) can add to the
        unit of work's count of uncommitted messages."""
        per = _PER_MEMBER + (_PER_AUDIT_RECORD if self.audit_queue is not None else 0)
        return members * per + _PER_SUBJECT

    # -- the parts -----------------------------------------------------------------
    def put(self, out: Outgoing) -> None:
        """PUT1 ``out`` under syncpoint (raises MQIError)."""
        self.qmgr.put1(out.queue, out.message, out.options, qmgr=out.qmgr)

    def take(self, q: Queue, msg: Message, *, under_cursor: bool) -> bool:
        """The destructive get under syncpoint of ``msg``: under ``q``'s cursor, or by
        its MsgId, CorrelId and GroupId. False when it is gone (expired or taken)."""
        options = (
            GetOptions(under_cursor=True, syncpoint=True)
            if under_cursor
            else GetOptions(
                msg_id=msg.md.msg_id,
                correl_id=msg.md.correl_id,
                group_id=msg.md.group_id,
                syncpoint=True,
            )
        )
        try:
            q.get(options)
        except MQIError as exc:
            if exc.reason in _GONE:
                return False
            raise
        return True

    def get(self, q: Queue, msg_id: bytes, correl_id: bytes) -> Message | None:
        """Get (hold) a message by MsgId and CorrelId under syncpoint; None when gone."""
        try:
            return q.get(GetOptions(msg_id=msg_id, correl_id=correl_id, syncpoint=True))
        except MQIError as exc:
            if exc.reason in _GONE:
                return None
            raise

    def lookup(self, subject: Subject) -> AttemptRecord | None:
        return self.store.lookup(subject) if self.store is not None else None

    def count_failure(self, subject: Subject, record: AttemptRecord | None) -> AttemptRecord:
        """Count one failed attempt at once; call it while the message is still held."""
        if self.store is None:
            return AttemptRecord((record.attempts if record else 0) + 1, self._clock())
        return self.store.record_failure(subject, record, self._clock())

    def fail(self, subject: Subject, record: AttemptRecord | None) -> AttemptRecord:
        """A put failed on a message (or group) got under syncpoint: count the attempt
        while it is held, then back the unit of work out. In that order (see above)."""
        new = self.count_failure(subject, record)
        self.qmgr.backout()
        return new

    def cleared(self, record: AttemptRecord | None) -> None:
        """The message (or group) was taken: its record goes in the same unit of work."""
        if self.store is not None:
            self.store.clear(record)

    def audited(self, records: Sequence[Message]) -> MQIError | None:
        """Put the audit records of the actions in this unit of work (under syncpoint);
        None when done, else the unit is backed out (no action without its record) and
        the put's error returned."""
        if self.audit_queue is None:
            return None
        for record in records:
            try:
                self.qmgr.put1(self.audit_queue, record, _AUDITED)
            except MQIError as exc:
                self.failed_put(exc)
                self.backout()
                return exc
        return None

    def commit(self) -> None:
        self.qmgr.commit()

    def backout(self) -> None:
        self.qmgr.backout()

    def failed_put(self, exc: MQIError) -> None:
        """Re-raise a put's error the caller must not count (see ``fatal``)."""
        if exc.reason in self._fatal:
            raise exc
