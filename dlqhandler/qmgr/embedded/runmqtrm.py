"""A trigger monitor for the embedded queue manager, like IBM MQ's ``runmqtrm`` on UNIX.

It opens the initiation queue for input (which by itself makes the queue
manager write trigger messages for queues that already hold messages:
condition 13.3 of :mod:`dlqhandler.qmgr.embedded.trigger`), gets trigger messages
outside syncpoint and, for each, starts the application of its process
definition the way runmqtrm builds its command line: the ApplId, then the
MQTMC2 (:class:`~dlqhandler.mq.mqtm.MQTMC2`, 732 characters) as one argument,
then the EnvData. runmqtrm hands that string to a shell with the MQTMC2 in
double quotes; here there is no shell: ApplId and EnvData are split with
:mod:`shlex` and the MQTMC2 is one argv element, so nothing in it is ever
interpreted. An EnvData ending in ``&`` starts the application in the
background (runmqtrm's convention); otherwise the monitor waits for the
application to end before it looks at the next trigger message, as runmqtrm
does. Every child is reaped and its end logged.

Security: the command comes from the queue manager's process definition, an
object only an administrator defines, never from the message. A trigger
message only says which queue and process; the monitor checks that the
process exists, that the queue exists and names that process, and takes
ApplId, ApplType, EnvData, UserData and TriggerData from the definitions
(a difference from the message is logged). A forged trigger message can
therefore at most start what a genuine trigger event on that queue would.
Restrict PUT on initiation queues all the same, as IBM advises.

Only ApplType UNIX (6; DEF is UNIX here) is started. Trigger messages that
cannot be acted on go to the dead-letter queue with an MQDLH whose Reason is
MQFB_TM_ERROR (not a valid MQTM, or a queue/process that do not match),
MQFB_APPL_TYPE_ERROR (another ApplType) or MQFB_APPL_CANNOT_BE_STARTED
(undefined process, empty or unparsable ApplId, exec failed), as runmqtrm
does ("while the trigger monitor is running it keeps the dead-letter queue
open").

It stops when ``stop`` is set (the command line sets it on SIGTERM/SIGINT),
after ``once`` trigger message, or when none arrives within ``wait`` seconds;
then it waits up to ``stop_timeout`` seconds for the applications it started
(they get their own signals from the terminal or the service manager) and
logs any it leaves running.
"""

from __future__ import annotations

import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dlqhandler.errors import DecodeError, DLQHandlerError, MQIError
from dlqhandler.logs import get_logger
from dlqhandler.mq.constants import (
    MQAT_UNIX,
    MQFB_APPL_CANNOT_BE_STARTED,
    MQFB_APPL_TYPE_ERROR,
    MQFB_TM_ERROR,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_UNKNOWN_OBJECT_NAME,
    mqi_error,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqtm import MQFMT_TRIGGER, MQTM, MQTMC2, decode_mqtm
from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager
from dlqhandler.qmgr.embedded.putting import put_timestamp
from dlqhandler.qmgr.embedded.qmgrs import INITIATION_QUEUE
from dlqhandler.qmgr.embedded.trigger import APPL_TYPES
from dlqhandler.qmgr.port import GetOptions, PutOptions

__all__ = [
    "Launch",
    "MonitorOptions",
    "MonitorStats",
    "TriggerMessageError",
    "TriggerMonitor",
    "plan_launch",
]

_POLL_MS = 250
_CHILD_POLL = 0.2
Spawn = Callable[..., "subprocess.Popen[bytes]"]


@dataclass(frozen=True, slots=True)
class MonitorOptions:
    """``initq`` to serve; ``wait``: end when no trigger message comes within this many
    seconds (None: wait forever); ``once``: end after one trigger message."""

    initq: str = INITIATION_QUEUE
    wait: float | None = None
    once: bool = False
    stop_timeout: float = 30.0


@dataclass(slots=True)
class MonitorStats:
    """What a run did: trigger messages got, applications started, messages rejected."""

    received: int = 0
    started: int = 0
    rejected: int = 0
    exit_codes: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Launch:
    """The application a trigger message starts: argv (no shell) and the MQTMC2 passed."""

    argv: tuple[str, ...]
    background: bool
    tmc2: MQTMC2


class TriggerMessageError(DLQHandlerError):
    """A trigger message the monitor will not act on; ``feedback`` is the MQDLH Reason."""

    def __init__(self, feedback: int, message: str) -> None:
        super().__init__(message)
        self.feedback = feedback


def _split(text: str, what: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise TriggerMessageError(MQFB_APPL_CANNOT_BE_STARTED, f"{what} {text!r}: {exc}") from exc


def plan_launch(qm: EmbeddedQueueManager, message: Message) -> tuple[MQTM, Launch]:
    """Check a trigger message against the definitions and build what to start.

    Raises :class:`TriggerMessageError` with the feedback for the dead-letter queue.
    """
    md = message.md
    if md.format != MQFMT_TRIGGER:
        raise TriggerMessageError(MQFB_TM_ERROR, f"Format is {md.format!r}, not 'MQTRIG'")
    try:
        tm = decode_mqtm(message.body, encoding=md.encoding, ccsid=md.coded_char_set_id or 819)
    except DecodeError as exc:
        raise TriggerMessageError(MQFB_TM_ERROR, f"not a valid MQTM: {exc}") from exc
    admin = qm.admin()
    process = (
        next((p for p in admin.processes(tm.process_name) if p.name == tm.process_name), None)
        if tm.process_name
        else None
    )
    if process is None:
        raise TriggerMessageError(
            MQFB_APPL_CANNOT_BE_STARTED, f"process {tm.process_name!r} is not defined"
        )
    queues = admin.queues(tm.q_name, generic=False) if tm.q_name else []
    if not queues or queues[0].attrs["PROCESS"] != tm.process_name:
        raise TriggerMessageError(
            MQFB_TM_ERROR,
            f"queue {tm.q_name!r} does not exist or does not name process {tm.process_name!r}",
        )
    p, q = process.attrs, queues[0].attrs
    appl_type = APPL_TYPES.get(str(p["APPLTYPE"]), 0)
    if appl_type != MQAT_UNIX:
        raise TriggerMessageError(
            MQFB_APPL_TYPE_ERROR, f"process {process.name} has APPLTYPE({p['APPLTYPE']}), not UNIX"
        )
    tmc2 = MQTMC2(
        q_name=tm.q_name,
        process_name=tm.process_name,
        trigger_data=str(q["TRIGDATA"]),
        appl_id=str(p["APPLICID"]),
        env_data=str(p["ENVRDATA"]),
        user_data=str(p["USERDATA"]),
        q_mgr_name=qm.name,
    )
    args = _split(tmc2.appl_id, "APPLICID")
    if not args:
        raise TriggerMessageError(
            MQFB_APPL_CANNOT_BE_STARTED, f"process {process.name} has no APPLICID"
        )
    extra = _split(tmc2.env_data, "ENVRDATA")
    background = bool(extra) and extra[-1].endswith("&")
    if background:  # "... &" or "...&": drop the ampersand, run in the background
        last = extra.pop()[:-1]
        if last:
            extra.append(last)
    return tm, Launch((*args, tmc2.to_argv(), *extra), background, tmc2)


class TriggerMonitor:
    """Serve one initiation queue until stopped (see the module docstring)."""

    def __init__(
        self,
        qm: EmbeddedQueueManager,
        options: MonitorOptions,
        *,
        stop: threading.Event | None = None,
        spawn: Spawn | None = None,
        log: Any = None,
    ) -> None:
        self._qm = qm
        self._options = options
        self._stop = stop or threading.Event()
        self._spawn: Spawn = spawn or subprocess.Popen
        self._log = log or get_logger("runmqtrm", qmgr=qm.name, initq=options.initq)
        self._children: list[subprocess.Popen[bytes]] = []
        self.stats = MonitorStats()
        self.opened = False  # the initiation queue was opened (a failure after is not MQOPEN's)

    def run(self) -> MonitorStats:
        """Open the initiation queue and process trigger messages; MQIError if it cannot."""
        queue = self._qm.open(self._options.initq, input=True, browse=False)
        self.opened = True
        self._log.info("trigger_monitor_started", wait=self._options.wait, once=self._options.once)
        reason = "stopped"
        try:
            reason = self._loop(queue)
        finally:
            queue.close()
            self._finish()
            self._log.info(
                "trigger_monitor_stopped",
                reason=reason,
                received=self.stats.received,
                started=self.stats.started,
                rejected=self.stats.rejected,
            )
        return self.stats

    def _loop(self, queue: Any) -> str:
        wait = self._options.wait
        deadline = None if wait is None else time.monotonic() + wait
        while not self._stop.is_set():
            self._reap()
            slice_ms = _POLL_MS
            if deadline is not None:
                slice_ms = max(0, min(slice_ms, int((deadline - time.monotonic()) * 1000)))
            try:
                message = queue.get(GetOptions(syncpoint=False, wait_ms=slice_ms))
            except MQIError as exc:
                if exc.reason != MQRC_NO_MSG_AVAILABLE:
                    raise
                if deadline is not None and time.monotonic() >= deadline:
                    return "no_trigger_message"
                continue
            self.stats.received += 1
            self._handle(message)
            if self._options.once:
                return "once"
            deadline = None if wait is None else time.monotonic() + wait
        return "stopped"

    def _handle(self, message: Message) -> None:
        try:
            tm, launch = plan_launch(self._qm, message)
        except TriggerMessageError as exc:
            self._reject(message, exc.feedback, str(exc))
            return
        self._note_differences(tm, launch.tmc2)
        log = self._log.bind(queue=tm.q_name, process=tm.process_name)
        try:
            child = self._spawn(list(launch.argv), stdin=subprocess.DEVNULL, close_fds=True)
        except OSError as exc:
            log.error("application_not_started", applid=launch.tmc2.appl_id, error=str(exc))
            self._reject(message, MQFB_APPL_CANNOT_BE_STARTED, str(exc))
            return
        self.stats.started += 1
        log.info(
            "application_started",
            pid=child.pid,
            applid=launch.tmc2.appl_id,
            envdata=launch.tmc2.env_data,
            background=launch.background,
        )
        if launch.background:
            self._children.append(child)
        else:
            self._wait_for(child)

    def _note_differences(self, tm: MQTM, tmc2: MQTMC2) -> None:
        differ = [
            name
            for name, got, defined in (
                ("ApplId", tm.appl_id, tmc2.appl_id),
                ("EnvData", tm.env_data, tmc2.env_data),
                ("UserData", tm.user_data, tmc2.user_data),
                ("TriggerData", tm.trigger_data, tmc2.trigger_data),
            )
            if got != defined
        ]
        if differ:
            self._log.warning(
                "trigger_message_differs_from_definitions",
                queue=tm.q_name,
                process=tm.process_name,
                fields=differ,
            )

    def _reject(self, message: Message, feedback: int, why: str) -> None:
        """Put a trigger message that cannot be acted on on the dead-letter queue."""
        self.stats.rejected += 1
        self._log.warning("trigger_message_rejected", feedback=feedback, reason=why)
        deadq = self._qm.inquire().dead_letter_q_name
        date, time_ = put_timestamp(time.time())
        dead = Message.dead_letter(
            message.md,
            message.body,
            reason=feedback,
            dest_q_name=self._options.initq,
            dest_q_mgr_name=self._qm.name,
            put_appl_type=MQAT_UNIX,
            put_appl_name="dlqhandler runmqtrm",
            put_date=date,
            put_time=time_,
        )
        try:
            if not deadq:
                raise mqi_error(MQRC_UNKNOWN_OBJECT_NAME, "the queue manager has no DEADQ")
            self._qm.put1(deadq, dead, PutOptions(syncpoint=False, context="pass_all"))
        except MQIError as exc:
            self._log.error(
                "trigger_message_discarded", feedback=feedback, deadq=deadq, error=str(exc)
            )

    def _wait_for(self, child: subprocess.Popen[bytes]) -> None:
        """Wait for a foreground application (runmqtrm's one-at-a-time), or until stopped."""
        while True:
            try:
                code = child.wait(timeout=_CHILD_POLL)
            except subprocess.TimeoutExpired:
                if self._stop.is_set():
                    self._children.append(child)
                    return
                self._reap()
                continue
            self._ended(child, code)
            return

    def _ended(self, child: subprocess.Popen[bytes], code: int) -> None:
        self.stats.exit_codes.append(code)
        self._log.info("application_ended", pid=child.pid, returncode=code)

    def _reap(self) -> None:
        for child in list(self._children):
            code = child.poll()
            if code is not None:
                self._children.remove(child)
                self._ended(child, code)

    def _finish(self) -> None:
        deadline = time.monotonic() + self._options.stop_timeout
        for child in list(self._children):
            try:
                code = child.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._log.warning("application_left_running", pid=child.pid)
                continue
            self._children.remove(child)
            self._ended(child, code)
