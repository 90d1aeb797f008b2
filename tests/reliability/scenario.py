"""A backlog whose every message has one known right place, and the processes that
work it: started, killed with SIGKILL at random moments, restarted.

The rules table mixes every kind of outcome:

* ``RETRY.n`` destinations: RETRY to the original queue (MQDLH stripped);
* ``FWD.n``: FWD HEADER(NO) to ``FWD.OUT``;
* ``JUNK.n``: DISCARD;
* ``KEEP.n``: IGNORE (stays on the DLQ);
* ``STUCK.Q`` (PUT(DISABLED)): RETRY(3) fails three times, then FWD HEADER(YES) to
  ``CATCH``, so attempt counts have to survive kills and be shared by instances;
* a few messages without an MQDLH: reported and left on the DLQ.

One message in three carries message properties, as a JMS application puts them
(``mcd``, ``jms`` and ``usr`` folders, every IBM type, values of its own).

:func:`check_outcome` uses the conservation ledger of the worker tests (MsgId,
payload hash, properties by name, type and value, what each action does to the
message) and then demands that each message is exactly where its rule sends it.
"""

from __future__ import annotations

import math
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dlqhandler.mq import Message
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.qmgr import QueueManager
from tests.required import require_java
from tests.worker.helpers import (
    DLQ,
    DLQHANDLER,
    ROOT,
    Ledger,
    alter,
    dead_letter,
    define,
    depth,
    load,
    plain,
    terminate,
)

__all__ = [
    "RULES",
    "Backlog",
    "KillLog",
    "check_outcome",
    "kill_group",
    "load_backlog",
    "needs_java",
    "properties",
    "start_drain",
    "stuck_attempts",
    "terminate",
    "uncommitted",
]

RETRY_QUEUES = 4
RULES = """\
RETRYINT(0) WAIT(NO)
DESTQ(RETRY.*) ACTION(RETRY) RETRY(3)
DESTQ(FWD.*) ACTION(FWD) FWDQ(FWD.OUT) HEADER(NO)
DESTQ(JUNK.*) ACTION(DISCARD)
DESTQ(KEEP.*) ACTION(IGNORE)
DESTQ(STUCK.Q) ACTION(RETRY) RETRY(3)
DESTQ(STUCK.Q) ACTION(FWD) FWDQ(CATCH) HEADER(YES)
"""
TARGETS = (*(f"RETRY.{i}" for i in range(RETRY_QUEUES)), "FWD.OUT", "CATCH")
DISCARDED = "<discarded>"
# kind -> share of the backlog (per thousand); the rest have no MQDLH.
_MIX = (("RETRY", 400), ("FWD", 250), ("JUNK", 200), ("KEEP", 120), ("STUCK", 20))


@dataclass
class Backlog:
    """The messages loaded onto the DLQ and where each one must end up."""

    messages: list[Message]
    expected: dict[bytes, str]  # MsgId -> queue, or DISCARDED
    stuck: list[Message] = field(default_factory=list)

    def count(self, where: str) -> int:
        return sum(1 for v in self.expected.values() if v == where)


def properties(i: int) -> tuple[Property, ...]:
    """Message ``i``'s properties: every third message has a JMS set of its own."""
    if i % 3:
        return ()
    t = PropertyType
    return (
        Property("mcd.Msd", t.STRING, "jms_text"),
        Property("jms.Cid", t.STRING, f"ID:{i:048x}"),
        Property("OrderNo", t.INT64, 2**40 + i),
        Property("Items", t.INT32, -i),
        Property("Tries", t.INT8, i % 100),
        Property("Region", t.INT16, i % 30000),
        Property("Urgent", t.BOOLEAN, i % 2 == 0),
        Property("Checksum", t.BYTE_STRING, i.to_bytes(4, "big")),
        Property("Weight", t.FLOAT32, i / 4),
        Property("Price", t.FLOAT64, math.nan if i % 7 == 0 else i / 3),
        Property("Coupon", t.NULL, None),
        Property("Note", t.STRING, f"order <{i}> & co"),
    )


def _message(kind: str, i: int, rng: random.Random) -> tuple[Message, str]:
    payload = f"{kind}:{i}:".encode() + rng.randbytes(rng.randint(0, 1500))
    n = rng.randrange(RETRY_QUEUES)
    props = properties(i)

    def dead(destq: str, reason: int, tag: str) -> Message:
        return dead_letter(payload, destq=destq, reason=reason, tag=tag, properties=props)

    if kind == "RETRY":
        return dead(f"RETRY.{n}", 2053, "R"), f"RETRY.{n}"
    if kind == "FWD":
        return dead(f"FWD.{n}", 2085, "F"), "FWD.OUT"
    if kind == "JUNK":
        return dead(f"JUNK.{n}", 2085, "J"), DISCARDED
    if kind == "KEEP":
        return dead(f"KEEP.{n}", 2035, "K"), DLQ
    if kind == "STUCK":
        return dead("STUCK.Q", 2051, "S"), "CATCH"
    orphan = plain(payload, tag="N")
    return Message(orphan.md, orphan.body, None, props), DLQ


def load_backlog(qm: QueueManager, count: int, *, seed: int = 20) -> Backlog:
    """Define the queues and put ``count`` dead letters on the DLQ (in units of 500)."""
    room = max(5000, 2 * count)
    alter(qm, DLQ, maxdepth=room)
    define(qm, *TARGETS, maxdepth=room)
    define(qm, "STUCK.Q", put="DISABLED")
    rng = random.Random(seed)
    kinds = [k for k, share in _MIX for _ in range(share)]
    kinds += ["PLAIN"] * (1000 - len(kinds))
    backlog = Backlog([], {})
    for start in range(0, count, 500):
        chunk = []
        for i in range(start, min(count, start + 500)):
            msg, where = _message(rng.choice(kinds), i, rng)
            chunk.append(msg)
            backlog.expected[msg.md.msg_id] = where
            if where == "CATCH":
                backlog.stuck.append(msg)
        backlog.messages += load(qm, chunk)
    return backlog


def check_outcome(book: Ledger, backlog: Backlog) -> dict[str, int]:
    """Conservation (the ledger), then every message at its own rule's place.

    Returns how many messages each place holds.
    """
    # The ledger's start is what was put: properties included (name, type, value).
    for m in backlog.messages:
        recorded = book.original[m.md.msg_id].properties
        assert len(recorded) == len(m.properties), m.md.msg_id
        assert all(a.same_as(b) for a, b in zip(recorded, m.properties, strict=True))
    assert sum(1 for m in backlog.messages if m.properties) >= len(backlog.messages) // 3
    discarded = [k for k, v in backlog.expected.items() if v == DISCARDED]
    book.check(TARGETS, discarded=discarded)  # (compares every message's properties)
    wrong = {
        k.decode(errors="replace"): (book.where(m), backlog.expected[k])
        for m in backlog.messages
        if (k := m.md.msg_id)
        and backlog.expected[k] != DISCARDED
        and book.where(m) != backlog.expected[k]
    }
    assert not wrong, f"{len(wrong)} misplaced (found, expected): {list(wrong.items())[:10]}"
    return dict(Counter(backlog.expected.values()))


def uncommitted(db: Path) -> int:
    """Rows of a unit of work nobody committed (taken or put pending), read straight
    from the embedded queue manager's database after a kill, before any recovery."""
    conn = sqlite3.connect(db, timeout=30)
    try:
        return int(
            conn.execute("SELECT count(*) FROM messages WHERE state IN (1, 2)").fetchone()[0]
        )
    finally:
        conn.close()


def kill_group(child: subprocess.Popen[Any]) -> None:
    """SIGKILL a child; one started in a session of its own dies with its whole
    process group (a Spark driver takes its JVM and Python workers with it)."""
    try:
        if os.getpgid(child.pid) == child.pid:
            os.killpg(child.pid, signal.SIGKILL)
        else:
            child.kill()
    except ProcessLookupError:
        pass
    child.communicate(timeout=60)


@dataclass
class KillLog:
    """What the kill loop did: kills, and how many found a unit of work open."""

    kills: int = 0
    mid_unit: int = 0
    in_flight: int = 0
    finished_early: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "kills": self.kills,
            "kills_mid_unit_of_work": self.mid_unit,
            "uncommitted_rows_backed_out": self.in_flight,
            "runs_finished_before_their_kill": self.finished_early,
        }


def kill_at_random(
    start: Callable[[int], subprocess.Popen[Any]],
    *,
    qm: QueueManager,
    db: Path,
    queue: str,
    kills: int,
    per_run: int,
    rng: random.Random,
    stop: Callable[[subprocess.Popen[Any]], None] = kill_group,
    startup_kills: float = 0.1,
    floor: int = 0,
    timeout: float = 300,
) -> KillLog:
    """Start a process and SIGKILL it at a random moment, ``kills`` times (a run that
    ends before its kill is started again, up to ``2 * kills`` starts).

    Most kills wait until the process has removed a random number (up to
    ``2 * per_run``, and never more than half of what is left above ``floor``, the
    depth the queue ends at) of messages from ``queue`` and then a few milliseconds
    more, so they land while a unit of work is being filled; a share
    (``startup_kills``) land at a random moment of start-up instead.
    """
    log = KillLog()
    for run in range(2 * kills):
        before = depth(qm, queue)
        if log.kills == kills or before <= floor:
            break
        child = start(run)
        deadline = time.monotonic() + timeout
        if rng.random() < startup_kills:
            time.sleep(rng.uniform(0, 0.6))
        else:
            goal = min(rng.randint(1, max(1, 2 * per_run)), max(1, (before - floor) // 2))
            while before - depth(qm, queue) < goal and child.poll() is None:
                assert time.monotonic() < deadline, "no progress before the kill"
                time.sleep(0.01)
            time.sleep(rng.uniform(0, 0.05))
        if child.poll() is not None:
            log.finished_early += 1
            child.communicate(timeout=60)
            continue
        stop(child)
        log.kills += 1
        rows = uncommitted(db)
        log.in_flight += rows
        log.mid_unit += rows > 0
    return log


def stuck_attempts(events: Iterable[dict[str, Any]]) -> dict[str, list[int]]:
    """Per STUCK message, the attempt numbers its put failures were logged with."""
    out: dict[str, list[int]] = {}
    for e in events:
        if e.get("event") == "put_failed" and e.get("destq") == "STUCK.Q":
            out.setdefault(e["msgid"], []).append(int(e["attempts"]))
    return out


def start_drain(home: Path, rules: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    """`dlqhandler drain --apply -m QM1` in a session of its own (its JVM and Python
    workers die with it when the group is killed)."""
    env = {
        **os.environ,
        "DLQHANDLER_HOME": str(home),
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
    }
    env.pop("DLQHANDLER_QMGR", None)
    return subprocess.Popen(
        [
            str(DLQHANDLER),
            "drain",
            "--rules",
            str(rules),
            "-m",
            "QM1",
            "--apply",
            "--master",
            "local[2]",
            "--output",
            str(out),
            *extra,
        ],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def needs_java() -> None:
    """The drain needs Java 17: skip without it, fail when $DLQHANDLER_REQUIRE_JAVA is set."""
    require_java()
