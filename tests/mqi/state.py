"""The stand-in's handles: a connection (hconn), its objects (hobj) and message handles."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from dlqhandler.errors import MQIError
from dlqhandler.mq import Message
from dlqhandler.mq.constants import (
    MQRC_HMSG_ERROR,
    MQRC_HOBJ_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_UNKNOWN_OBJECT_NAME,
)
from dlqhandler.mq.properties import MessageHandle
from dlqhandler.qmgr.embedded import EmbeddedQueueManager
from dlqhandler.qmgr.embedded.dynamic import CloseDelete
from dlqhandler.qmgr.embedded.handle import EmbeddedQueue
from dlqhandler.qmgr.port import Queue
from tests.mqi.cmqc import CMQC

__all__ = ["Conn", "Obj"]

_INPUT = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE


@dataclass
class Obj:
    """An object handle: a queue (through a port handle) or the queue manager (inquiry).

    ``saved``: the message whose context MQOO_SAVE_ALL_CONTEXT saved at the last
    destructive get. ``browsed``: the message under the browse cursor.
    ``pending``: a browsed message that did not fit the buffer (the cursor stays on
    it: the next browse returns it again). ``held``: a destructively got message
    that did not fit after all (it changed between the peek for its size and the get:
    see :mod:`tests.mqi.messages`); the next get of the handle returns it.
    """

    hobj: int
    kind: str  # "queue", "inquire", "qmgr" or "process"
    name: str
    options: int
    queue: Queue | None = None
    alternate_user: str | None = None
    saved: Message | None = None
    browsed: Message | None = None
    pending: tuple[Message, bool] | None = None
    held: Message | None = None
    peek: Queue | None = None
    resolved: tuple[str, str] | None = None  # ResolvedQName, ResolvedQMgrName of an output open
    created: str = ""  # the dynamic queue an MQOPEN of a model queue created

    def port(self) -> Queue:
        if self.queue is None:
            raise MQIError(MQRC_HOBJ_ERROR, comp=CMQC.MQCC_FAILED)
        return self.queue

    def close(self, delete: CloseDelete = "") -> None:
        """MQCLOSE: ``delete`` is MQCO_DELETE/MQCO_DELETE_PURGE (checked first: a refused
        delete leaves the handle open)."""
        if delete and self.queue is None:  # (not a queue handle)
            raise MQIError(MQRC_OPTION_NOT_VALID_FOR_TYPE, comp=CMQC.MQCC_FAILED)
        if self.queue is not None:
            assert isinstance(self.queue, EmbeddedQueue)
            self.queue.close(delete)
        for q in (self.queue, self.peek):
            if q is not None:
                q.close()
        self.queue = self.peek = None


@dataclass
class Conn:
    """One MQCONNX: an embedded queue manager connection and its handles."""

    hconn: int
    qm: EmbeddedQueueManager
    objects: dict[int, Obj] = field(default_factory=dict)
    message_handles: dict[int, MessageHandle] = field(default_factory=dict)
    broken: bool = False
    _hobj: Any = field(default_factory=lambda: itertools.count(101))
    _hmsg: Any = field(default_factory=lambda: itertools.count(0x10000001))

    def next_hobj(self) -> int:
        return int(next(self._hobj))

    def obj(self, hobj: int) -> Obj:
        found = self.objects.get(hobj)
        if found is None:
            raise MQIError(MQRC_HOBJ_ERROR, comp=CMQC.MQCC_FAILED)
        return found

    def message_handle(self, hmsg: int) -> MessageHandle:
        found = self.message_handles.get(hmsg)
        if found is None:
            raise MQIError(MQRC_HMSG_ERROR, comp=CMQC.MQCC_FAILED)
        return found

    def new_message_handle(self) -> int:
        number = int(next(self._hmsg))
        self.message_handles[number] = MessageHandle()
        return number

    def open_queue(
        self,
        name: str,
        options: int,
        alternate_user: str | None,
        qmgr: str = "",
        *,
        dynamic_name: str = "",
    ) -> Obj:
        """MQOPEN of a queue (``qmgr``: MQOD.ObjectQMgrName, resolved as IBM documents by
        the embedded queue manager: :mod:`dlqhandler.qmgr.embedded.remote`; a model queue's
        name makes a dynamic queue named from ``dynamic_name``)."""
        hobj = self.next_hobj()
        wanted = {
            "input": bool(options & _INPUT),
            "browse": bool(options & CMQC.MQOO_BROWSE),
            "output": bool(options & CMQC.MQOO_OUTPUT),
        }
        remote_qmgr = qmgr.strip() not in ("", self.qm.name)
        if any(wanted.values()):
            exclusive: bool | None = None  # MQOO_INPUT_AS_Q_DEF: the queue's DEFSOPT
            if options & CMQC.MQOO_INPUT_EXCLUSIVE:
                exclusive = True
            elif options & CMQC.MQOO_INPUT_SHARED:
                exclusive = False
            handle = self.qm.open(
                name, **wanted, exclusive=exclusive, qmgr=qmgr, dynamic_name=dynamic_name
            )
            created = handle.opened_as if handle.created else ""
            resolved = (
                self.qm.resolve(name, qmgr).resolved(self.qm.name)
                if wanted["output"] and not created
                else None
            )
            if resolved is not None and resolved[1] == self.qm.name:
                resolved = None  # a local queue: the handle's (an alias's base queue)
            return Obj(
                hobj,
                "queue",
                handle.name,
                options,
                queue=handle,
                alternate_user=alternate_user,
                resolved=resolved,
                created=created,
            )
        if remote_qmgr:  # IBM 2045: "MQOO_INQUIRE for a remote queue that has no local definition"
            raise MQIError(MQRC_OPTION_NOT_VALID_FOR_TYPE, comp=CMQC.MQCC_FAILED)
        # MQOO_INQUIRE only: the queue (local, alias or remote definition) must exist; a
        # model queue's open creates its dynamic queue all the same (IBM: "whatever options
        # you specify").
        try:
            self.qm.inquire_object("queue", name, [])
        except MQIError as exc:
            if exc.reason != MQRC_UNKNOWN_OBJECT_NAME:
                raise
            handle = self.qm.open(
                name, input=False, browse=False, dynamic_name=dynamic_name
            )  # (2085 again when ``name`` is no model either)
            return Obj(
                hobj,
                "inquire",
                handle.name,
                options,
                queue=handle,
                alternate_user=alternate_user,
                created=handle.name,
            )
        return Obj(hobj, "inquire", name, options, alternate_user=alternate_user)

    def close(self, *, commit: bool) -> None:
        """MQDISC: close every handle, commit (or back out) and disconnect."""
        try:
            for obj in self.objects.values():
                obj.close()
            if commit:
                self.qm.commit()
        finally:
            self.objects.clear()
            self.qm.disconnect()

    def break_off(self, *, commit: bool) -> None:
        """MQRC_CONNECTION_BROKEN: the queue manager ends the connection; its unit of
        work is backed out (or, for a broken MQCMIT, may have been committed)."""
        self.broken = True
        self.drop(commit=commit)

    def drop(self, *, commit: bool = False) -> None:
        try:
            if commit:
                self.qm.commit()
            else:
                self.qm.backout()
        finally:
            self.objects.clear()
            self.qm.disconnect()
