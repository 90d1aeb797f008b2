"""A second process for the contract suite: consume, or take and hang (to be killed).

``consume``: print READY once connected, then get messages under syncpoint
one at a time (backing out every Nth get first), commit each, print each
body and pause (``--pause-ms``, so that other consumers get their turns); stop
when none arrives within the wait. ``hang``: get N messages and put
M under syncpoint, print READY, then sleep until killed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from dlqhandler.errors import MQIError
from dlqhandler.logs import configure_logging
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions, QueueManager, connect


def _connect(args: argparse.Namespace) -> QueueManager:
    if args.adapter == "embedded":
        return connect(args.qmgr, home=Path(args.home))
    if args.adapter == "ibmmq":
        from dlqhandler.qmgr.ibmmq.adapter import connect as connect_ibmmq

        return connect_ibmmq(args.qmgr)
    raise SystemExit(f"unknown adapter {args.adapter}")


def consume(qm: QueueManager, args: argparse.Namespace) -> None:
    q = qm.open(args.queue)
    print("READY", flush=True)
    n = 0
    while True:
        try:
            msg = q.get(GetOptions(syncpoint=True, wait_ms=args.wait_ms))
        except MQIError as exc:
            if exc.reason == 2033:
                break
            raise
        n += 1
        if args.backout_every and n % args.backout_every == 0:
            qm.backout()
            continue
        qm.commit()
        print(msg.body.decode(), flush=True)
        if args.pause_ms:
            time.sleep(args.pause_ms / 1000)


def hang(qm: QueueManager, args: argparse.Namespace) -> None:
    q = qm.open(args.queue)
    for _ in range(args.get):
        q.get(GetOptions(syncpoint=True))
    for i in range(args.put):
        qm.put1(
            args.put_queue, Message(MQMD(), f"uncommitted {i}".encode()), PutOptions(syncpoint=True)
        )
    print("READY", flush=True)
    time.sleep(600)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--qmgr", required=True)
    sub = parser.add_subparsers(dest="action", required=True)
    c = sub.add_parser("consume")
    c.add_argument("--queue", required=True)
    c.add_argument("--wait-ms", type=int, default=500)
    c.add_argument("--backout-every", type=int, default=0)
    c.add_argument("--pause-ms", type=int, default=0)
    h = sub.add_parser("hang")
    h.add_argument("--queue", required=True)
    h.add_argument("--get", type=int, default=0)
    h.add_argument("--put", type=int, default=0)
    h.add_argument("--put-queue", default="")
    args = parser.parse_args()
    configure_logging(level="WARNING")  # events to stderr: stdout is the protocol
    qm = _connect(args)
    try:
        {"consume": consume, "hang": hang}[args.action](qm, args)
    finally:
        qm.disconnect()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
