"""`make demo`: the DLQ handler end to end on an embedded queue manager.

1. (Re)create the embedded queue manager QM1 under ``$DLQHANDLER_HOME``
   (``make demo`` uses ``.dlqhandler-demo``); a previous QM1 there is deleted.
2. Define the queues ``rules/demo.rul`` forwards to (DLQ.SECURITY, DLQ.TOOBIG,
   DLQ.CATCHALL) and the application queues most dead letters were meant for,
   as if someone had fixed them: RETRY can now deliver those messages. A few
   messages name queues that still do not exist; their retries fail and the
   catch-all takes them.
3. Load the shipped backlog ``samples/backlog-small.dmp`` (200 messages) onto
   SYSTEM.DEAD.LETTER.QUEUE with ``dlqhandler qm dmpmqmsg -o``.
4. Run ``dlqhandler run --rules rules/demo.rul`` to completion (WAIT(NO)).
5. Show the summary, ``DISPLAY QLOCAL(*) CURDEPTH``, and check conservation:
   messages in + reports the queue manager generated about them = on target queues +
   discarded + left on the DLQ. (Requests in the backlog ask for a COA: a retry or a
   forward that places one on a queue makes the queue manager send a COA to a reply queue
   that does not exist, so the report itself is dead-lettered and handled, as on IBM MQ;
   those found on the queues or discarded by a rule are counted in.)

Every step is the real command line; the handler's JSON log goes to
``$DLQHANDLER_HOME/handler.log``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from dlqhandler.formats import read_dump
from dlqhandler.qmgr import connect, delete_qmgr, list_qmgrs
from dlqhandler.qmgr.port import browse_all

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "backlog-small.dmp"
RULES = ROOT / "rules" / "demo.rul"
QMGR = "QM1"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
TARGETS = ("DLQ.SECURITY", "DLQ.TOOBIG", "DLQ.CATCHALL")
# Where the backlog's messages were going; their queues have room again.
APPLICATION_QUEUES = (
    "APP.ORDERS",
    "APP.BILLING",
    "APP.INVENTORY",
    "APP.SHIPPING",
    "APP.NOTIFY",
    "PAYROLL.IN",
    "PAYROLL.AUDIT",
)
NOT_TARGETS = {DLQ, "DLQHANDLER.STATUS", "SYSTEM.DEFAULT.INITIATION.QUEUE"}
_MQMT_REPORT, _MQAT_QMGR = 4, 7


def dlqhandler(
    *args: str, stdin: str | None = None, quiet: bool = False, log: Path | None = None
) -> str:
    """Run one ``dlqhandler`` command and return its stdout (echoed unless ``quiet``).

    stderr goes to ``log`` when given, else it is echoed with stdout.
    """
    print(f"$ dlqhandler {' '.join(args)}", flush=True)
    with log.open("w") if log is not None else open(os.devnull, "w") as sink:
        done = subprocess.run(
            [sys.executable, "-m", "dlqhandler", *args],
            input=stdin,
            text=True,
            stdout=subprocess.PIPE,
            stderr=sink if log is not None else subprocess.PIPE,
            check=False,
            timeout=300,
        )
    shown = done.stdout + (done.stderr or "")
    if done.returncode != 0:
        raise SystemExit(f"dlqhandler {args[0]} failed ({done.returncode}):\n{shown}")
    if not quiet:
        print(shown.strip("\n"), flush=True)
    return str(done.stdout)


def main() -> int:
    home = Path(os.environ.setdefault("DLQHANDLER_HOME", str(ROOT / ".dlqhandler-demo")))
    home.mkdir(parents=True, exist_ok=True)
    os.environ.pop("DLQHANDLER_QMGR", None)
    if any(q.name == QMGR for q in list_qmgrs(home)):
        delete_qmgr(home, QMGR)
        print(f"Deleted the previous {QMGR} in {home}")

    dlqhandler("qm", "create", QMGR, quiet=True)
    mqsc = "".join(f"DEFINE QLOCAL({q})\n" for q in (*TARGETS, *APPLICATION_QUEUES))
    dlqhandler("qm", "mqsc", QMGR, stdin=mqsc, quiet=True)
    print(f"Defined {', '.join(TARGETS)} and {len(APPLICATION_QUEUES)} application queues")
    dlqhandler("qm", "dmpmqmsg", "-m", QMGR, "-o", DLQ, "-f", str(SAMPLE))
    loaded_ids = {m.md.msg_id for m in read_dump(SAMPLE)}
    loaded = len(loaded_ids)

    print(
        "\nRunning the handler (rules/demo.rul: RETRYINT(5) WAIT(NO)); this takes about"
        " 15 seconds,\nthe time three retries of the messages for missing queues take."
    )
    out = dlqhandler(
        "run", "--rules", str(RULES), "--no-watch", "--log-format", "json", log=home / "handler.log"
    )
    print(f"(handler log: {home / 'handler.log'})\n")

    display = dlqhandler("qm", "mqsc", QMGR, stdin="DISPLAY QLOCAL(*) CURDEPTH\n")
    depths = {
        name: int(n) for name, n in re.findall(r"QUEUE\(([^)]+)\)\s+CURDEPTH\((\d+)\)", display)
    }
    discarded = int(re.search(r"^\s+discarded\s+(\d+)$", out, re.MULTILINE)[1])  # type: ignore[index]
    on_targets = sum(n for q, n in depths.items() if q not in NOT_TARGETS)
    left = depths[DLQ]
    queues = [q for q in depths if q not in NOT_TARGETS or q == DLQ]
    generated = _generated_reports(home, queues, loaded_ids) + _discarded_reports(
        home / "handler.log", loaded_ids
    )
    ok = loaded + generated == on_targets + discarded + left
    print(
        f"\nConservation: {loaded} in + {generated} reports the queue manager generated = "
        f"{on_targets} on target queues + {discarded} discarded + {left} left on the DLQ: "
        f"{'OK' if ok else 'MISMATCH'}"
    )
    return 0 if ok else 1


def _generated_reports(home: Path, queues: list[str], loaded: set[bytes]) -> int:
    """Reports the queue manager made about the loaded messages (MsgType MQMT_REPORT,
    PutApplType MQAT_QMGR, CorrelId a loaded MsgId), wherever they are now."""
    qm = connect(QMGR, home=home)
    try:
        count = 0
        for name in queues:
            queue = qm.open(name, input=False, browse=True)
            try:
                count += sum(
                    1
                    for m in browse_all(queue)
                    if m.md.msg_type == _MQMT_REPORT
                    and m.md.put_appl_type == _MQAT_QMGR
                    and m.md.msg_id not in loaded
                    and m.md.correl_id in loaded
                )
            finally:
                queue.close()
        return count
    finally:
        qm.disconnect()


def _discarded_reports(log: Path, loaded: set[bytes]) -> int:
    """Messages the handler discarded that were not loaded: reports the queue manager
    dead-lettered during the run, which a rule discarded (from the handler's JSON log)."""
    wanted = {m.hex() for m in loaded}
    count = 0
    for line in log.read_text(encoding="utf-8").splitlines():
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        if event.get("event") == "message_discarded" and event.get("msgid") not in wanted:
            count += 1
    return count


if __name__ == "__main__":
    raise SystemExit(main())
