"""The DLQ handler end to end, next to the embedded queue manager's own ceiling.

``python benchmarks/handler.py [--messages N] [--batch-size B] [--sweep 1,10,50,200]
[--deep]``

A backlog of N persistent dead letters (512-byte payload behind a 172-byte
MQDLH) is loaded onto SYSTEM.DEAD.LETTER.QUEUE of a fresh embedded queue
manager, then ``dlqhandler run`` (a child process, the real CLI, JSON logs at
INFO to a file) forwards every message with ``ACTION(FWD) FWDQ(CATCH)
HEADER(YES)`` and WAIT(NO). Measured:

* ``handler``: messages/second from the handler's ``handler_started`` to its
  ``handler_ended`` event (start-up excluded), and the wall time of the process;
* ``ceiling``: in the same run, the raw queue manager doing only what the
  handler's unit of work must do per message - MQGET under syncpoint, MQPUT1
  to another queue with pass-all context, MQCMIT every batch (same batch size)
  - on the same kind of messages; ``ratio`` = handler / ceiling;
* ``rss``: the handler process's peak RSS (``ru_maxrss``) while it works
  through a DLQ of a given depth: forwarding everything (the N-message run),
  and one pass over a DLQ whose messages are all left (IGNORE) - the case
  where runmqdlq's memory grows with depth. ``--deep`` adds a 1,000,000-message
  forwarding run (about 15 minutes on 2 cores). (The IGNORE pass is not run at
  1,000,000: the embedded queue manager's browse-next is O(position) when many
  messages stay on the queue - see the report - so one pass would take hours.);
* ``sweep``: handler throughput per ``--batch-size`` on a smaller backlog, which
  is how the default batch size was chosen.

:func:`run` returns everything as a dict; ``main`` prints it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions, connect, create_qmgr
from dlqhandler.worker import DEFAULT_BATCH_SIZE

QMGR = "BENCH"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
PAYLOAD = b"x" * 512
FORWARD_ALL = "RETRYINT(60) WAIT(NO)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n"
IGNORE_ALL = "RETRYINT(60) WAIT(NO)\nACTION(IGNORE)\n"
_CHILD = ("import resource, sys\n"
          "from dlqhandler.cli import main\n"
          "rc = main(sys.argv[1:])\n"
          "print(f'MAXRSS_KB={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}')\n"
          "sys.exit(rc)\n")


def _dead_letter() -> Message:
    return Message.dead_letter(MQMD(persistence=1, format="MQSTR", coded_char_set_id=1208,
                                    user_identifier="bench", put_appl_name="bench"),
                               PAYLOAD, reason=2053, dest_q_name="APP.ORDERS",
                               dest_q_mgr_name=QMGR)


def _fresh(home: Path) -> None:
    """A new queue manager with a deep-enough DLQ, a target and two raw queues."""
    if home.exists():
        shutil.rmtree(home)
    create_qmgr(home, QMGR)
    qm = connect(QMGR, home=home)
    admin = qm.admin()
    admin.alter_queue(DLQ, {"MAXDEPTH": 10 ** 8})
    for name in ("CATCH", "RAW.A", "RAW.B"):
        admin.define_queue(name, {"MAXDEPTH": 10 ** 8})
    qm.disconnect()


def _load(home: Path, queue: str, count: int) -> float:
    """Put ``count`` persistent dead letters on ``queue``; returns messages/second."""
    qm = connect(QMGR, home=home)
    q = qm.open(queue, input=False, browse=False, output=True)
    message, options = _dead_letter(), PutOptions(syncpoint=True, context="set_all")
    started = time.perf_counter()
    for i in range(count):
        q.put(message, options)
        if i % 1000 == 999:
            qm.commit()
    qm.commit()
    rate = count / (time.perf_counter() - started)
    q.close()
    qm.disconnect()
    return rate


def _ceiling(home: Path, count: int, batch: int) -> float:
    """Raw get (syncpoint) + PUT1 (pass-all context) + commit every ``batch``."""
    _load(home, "RAW.A", count)
    qm = connect(QMGR, home=home)
    source = qm.open("RAW.A", input=True, browse=False)
    get, put = GetOptions(syncpoint=True), PutOptions(syncpoint=True, context="pass_all")
    started = time.perf_counter()
    for i in range(count):
        qm.put1("RAW.B", source.get(get), put)
        if i % batch == batch - 1:
            qm.commit()
    qm.commit()
    rate = count / (time.perf_counter() - started)
    source.close()
    qm.disconnect()
    return rate


def _handler(home: Path, rules: str, batch: int, count: int) -> dict[str, Any]:
    """Run ``dlqhandler run`` as a child; throughput, wall time and peak RSS."""
    table = home / "bench.rul"
    table.write_text(rules)
    log = home / "handler.log"
    argv = [sys.executable, "-c", _CHILD, "run", "--rules", str(table), "--batch-size",
            str(batch), "--no-watch", "--log-format", "json"]
    env = {"DLQHANDLER_HOME": str(home), "PATH": "/usr/bin:/bin"}
    started = time.perf_counter()
    with log.open("w") as err:
        done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=err, text=True,
                              check=False, timeout=24 * 3600)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"handler failed ({done.returncode}); see {log}")
    events = _events(log, {"handler_started", "handler_ended"})
    seconds = (_when(events["handler_ended"]) - _when(events["handler_started"])).total_seconds()
    ended = events["handler_ended"]
    rss = int(done.stdout.rsplit("MAXRSS_KB=", 1)[1].split()[0])
    return {"messages": count, "batch_size": batch, "seconds": round(seconds, 2),
            "wall_seconds": round(wall, 2), "rate": count / seconds if seconds else 0.0,
            "peak_rss_mb": round(rss / 1024, 1), "forwarded": ended["forwarded"],
            "left": ended["left_on_queue"], "commits": ended["commits"]}


def _events(log: Path, names: set[str]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    with log.open() as lines:
        for line in lines:
            if any(f'"event": "{n}"' in line for n in names):
                event = json.loads(line)
                found[event["event"]] = event
    return found


def _when(event: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00"))


def forward_run(root: Path, count: int, batch: int) -> dict[str, Any]:
    """Load ``count`` dead letters and forward them all with the handler."""
    home = root / f"fwd-{count}-{batch}"
    _fresh(home)
    load_rate = _load(home, DLQ, count)
    result = _handler(home, FORWARD_ALL, batch, count)
    if (result["forwarded"], result["left"]) != (count, 0):
        raise RuntimeError(f"the handler did not forward everything: {result}")
    result["load_rate"] = load_rate
    shutil.rmtree(home, ignore_errors=True)
    return result


def ignore_pass(root: Path, depth: int) -> dict[str, Any]:
    """One pass over a DLQ of ``depth`` messages that all stay (IGNORE)."""
    home = root / f"ignore-{depth}"
    _fresh(home)
    _load(home, DLQ, depth)
    result = _handler(home, IGNORE_ALL, DEFAULT_BATCH_SIZE, depth)
    if result["left"] != depth:
        raise RuntimeError(f"messages went missing in an IGNORE pass: {result}")
    shutil.rmtree(home, ignore_errors=True)
    return result


def run(messages: int = 100_000, batch_size: int = DEFAULT_BATCH_SIZE,
        sweep: tuple[int, ...] = (), sweep_messages: int = 10_000,
        ignore_depths: tuple[int, ...] = (10_000,), deep_messages: int = 0,
        folder: Path | None = None) -> dict[str, Any]:
    """Measure; returns the figures (rates in messages/second, RSS in MB)."""
    root = Path(tempfile.mkdtemp(prefix="dlqhandler-handler-bench-", dir=folder))
    try:
        ceiling_home = root / "ceiling"
        _fresh(ceiling_home)
        ceiling = _ceiling(ceiling_home, messages, batch_size)
        shutil.rmtree(ceiling_home, ignore_errors=True)
        handler = forward_run(root, messages, batch_size)
        swept = [forward_run(root, sweep_messages, b) for b in sweep]
        ignored = [ignore_pass(root, d) for d in ignore_depths]
        deep = forward_run(root, deep_messages, batch_size) if deep_messages else None
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"messages": messages, "payload_bytes": len(PAYLOAD), "persistent": True,
            "batch_size": batch_size, "ceiling_rate": ceiling, "handler": handler,
            "ratio": handler["rate"] / ceiling, "sweep": swept, "ignore_pass": ignored,
            "deep": deep}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument("--sweep", default="",
                        help="comma-separated batch sizes to compare (e.g. 1,10,50,200)")
    parser.add_argument("--sweep-messages", type=int, default=10_000)
    parser.add_argument("--ignore-depths", default="10000",
                        help="comma-separated DLQ depths for the IGNORE pass RSS figure")
    parser.add_argument("--deep", action="store_true",
                        help="also forward a 1,000,000-message DLQ (about 15 minutes)")
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    result = run(args.messages, args.batch_size,
                 tuple(int(b) for b in args.sweep.split(",") if b), args.sweep_messages,
                 tuple(int(d) for d in args.ignore_depths.split(",") if d),
                 1_000_000 if args.deep else 0, args.dir)
    h = result["handler"]
    print(f"{result['messages']} persistent dead letters ({result['payload_bytes']}-byte "
          f"payload), batch size {result['batch_size']}")
    print(f"  raw get+put1+commit ceiling  {result['ceiling_rate']:>10.0f} msg/s")
    print(f"  dlqhandler run (end to end)  {h['rate']:>10.0f} msg/s   ratio "
          f"{result['ratio']:.2f}   ({h['seconds']} s in the loop, {h['wall_seconds']} s wall,"
          f" {h['commits']} commits)")
    print(f"  loading the backlog          {h['load_rate']:>10.0f} msg/s")
    print(f"  peak RSS forwarding {h['messages']:>9} messages: {h['peak_rss_mb']:>7} MB")
    if result["deep"]:
        d = result["deep"]
        print(f"  peak RSS forwarding {d['messages']:>9} messages: {d['peak_rss_mb']:>7} MB"
              f"   ({d['rate']:.0f} msg/s)")
    for r in result["ignore_pass"]:
        print(f"  peak RSS, one pass over {r['messages']:>9} ignored: {r['peak_rss_mb']:>7} MB"
              f"   ({r['rate']:.0f} msg/s browsed)")
    if result["sweep"]:
        print(f"  batch-size sweep ({args.sweep_messages} messages):")
        for r in result["sweep"]:
            print(f"    --batch-size {r['batch_size']:>4}  {r['rate']:>8.0f} msg/s"
                  f"   {r['peak_rss_mb']:>6} MB")


if __name__ == "__main__":
    main()
