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
  forwarding run (about 2 minutes on 2 cores, loading included);
  ``--ignore-depths 10000,1000000`` passes over a DLQ that deep (browse-next is an
  index seek, so a pass is linear: about 70 s at 1,000,000);
* ``sweep``: handler throughput per ``--batch-size`` on a smaller backlog, which
  is how the default batch size was chosen;
* ``properties``: the cost of message properties: ``--properties-messages`` dead
  letters each carrying ``--properties`` (default 10) JMS-style properties (``mcd``,
  ``jms`` and ``usr`` folders, strings, integers, a boolean, a float) forwarded with
  ``FORWARD_ALL``, against the same backlog without properties, one run after the other.

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

import dlqhandler
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.qmgr import GetOptions, PutOptions, connect, create_qmgr
from dlqhandler.worker import DEFAULT_BATCH_SIZE

QMGR = "BENCH"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
PAYLOAD = b"x" * 512
FORWARD_ALL = "RETRYINT(60) WAIT(NO)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n"
# The table: FWD HEADER(NO), DISCARD, catch-all FWD (a third of the backlog each).
MIXED = (
    "RETRYINT(60) WAIT(NO)\n"
    "REASON(MQRC_Q_FULL) DESTQ(APP.ORDERS) ACTION(FWD) FWDQ(CATCH.A) HEADER(NO)\n"
    "REASON(MQRC_NOT_AUTHORIZED) ACTION(DISCARD)\n"
    "ACTION(FWD) FWDQ(CATCH) HEADER(YES)\n"
)
_REASONS = (2053, 2035, 2085)  # MQRC_Q_FULL, MQRC_NOT_AUTHORIZED, MQRC_UNKNOWN_OBJECT_NAME
IGNORE_ALL = "RETRYINT(60) WAIT(NO)\nACTION(IGNORE)\n"
_CHILD = (
    "import resource, sys\n"
    "from dlqhandler.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "use = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print(f'MAXRSS_KB={use.ru_maxrss} CPU_S={use.ru_utime + use.ru_stime}')\n"
    "sys.exit(rc)\n"
)


def bench_properties(count: int, serial: int = 0) -> tuple[Property, ...]:
    """``count`` properties as a JMS application sets them (ten kinds, then extra
    strings); JMSCorrelationID differs per ``serial``, as it does per message."""
    t = PropertyType
    kinds = (
        Property("mcd.Msd", t.STRING, "jms_text"),
        Property("jms.Dst", t.STRING, "queue:///APP.ORDERS"),
        Property("jms.Cid", t.STRING, f"ID:414d5120514d3120{serial:032x}"),
        Property("OrderType", t.STRING, "express"),
        Property("Items", t.INT32, 7),
        Property("OrderNo", t.INT64, 2**40 + 1),
        Property("Urgent", t.BOOLEAN, True),
        Property("Price", t.FLOAT64, 19.99),
        Property("Region", t.STRING, "EMEA"),
        Property("Tries", t.INT16, 1),
    )
    return tuple(
        kinds[i] if i < len(kinds) else Property(f"Extra{i}", t.STRING, f"value {i}")
        for i in range(count)
    )


def _dead_letter(reason: int = 2053) -> Message:
    return Message.dead_letter(
        MQMD(
            persistence=1,
            format="MQSTR",
            coded_char_set_id=1208,
            user_identifier="bench",
            put_appl_name="bench",
        ),
        PAYLOAD,
        reason=reason,
        dest_q_name="APP.ORDERS",
        dest_q_mgr_name=QMGR,
    )


def _fresh(home: Path) -> None:
    """A new queue manager with a deep-enough DLQ, a target and two raw queues."""
    if home.exists():
        shutil.rmtree(home)
    create_qmgr(home, QMGR)
    qm = connect(QMGR, home=home)
    admin = qm.admin()
    admin.alter_queue(DLQ, {"MAXDEPTH": 10**8})
    for name in ("CATCH", "CATCH.A", "RAW.A", "RAW.B"):
        admin.define_queue(name, {"MAXDEPTH": 10**8})
    qm.disconnect()


def _load(home: Path, queue: str, count: int, *, mixed: bool = False, properties: int = 0) -> float:
    """Put ``count`` persistent dead letters on ``queue`` (``mixed``: the three reasons
    of :data:`MIXED` in turn; ``properties``: each with that many); returns
    messages/second."""
    qm = connect(QMGR, home=home)
    q = qm.open(queue, input=False, browse=False, output=True)
    messages = [_dead_letter(r) for r in (_REASONS if mixed else _REASONS[:1])]
    options = PutOptions(syncpoint=True, context="set_all")
    started = time.perf_counter()
    for i in range(count):
        message = messages[i % len(messages)]
        if properties:  # (each message its own, as in life: no cache sees one twice)
            message = Message(
                message.md, message.body, None, bench_properties(properties, serial=i)
            )
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


def _start(home: Path, rules: str, batch: int, tag: str = "") -> tuple[Any, Path]:
    """Start ``dlqhandler run`` as a child process; returns it and its log file."""
    table = home / "bench.rul"
    table.write_text(rules)
    log = home / f"handler{tag}.log"
    argv = [
        sys.executable,
        "-c",
        _CHILD,
        "run",
        "--rules",
        str(table),
        "--batch-size",
        str(batch),
        "--no-watch",
        "--log-format",
        "json",
    ]
    # The child imports the same dlqhandler as this process (a snapshot, say).
    code_root = str(Path(dlqhandler.__file__).resolve().parents[1])
    env = {"DLQHANDLER_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONPATH": code_root}
    with log.open("w") as err:
        child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=err, text=True)
    return child, log


def _finish(child: Any, log: Path) -> dict[str, Any]:
    """Wait for a handler child; its loop's start and end, counts and peak RSS."""
    out, _ = child.communicate(timeout=24 * 3600)
    if child.returncode != 0:
        raise RuntimeError(f"handler failed ({child.returncode}); see {log}")
    events = _events(log, {"handler_started", "handler_ended"})
    ended = events["handler_ended"]
    return {
        "started": _when(events["handler_started"]),
        "ended": _when(ended),
        "rss_kb": int(out.rsplit("MAXRSS_KB=", 1)[1].split()[0]),
        "cpu_s": float(out.rsplit("CPU_S=", 1)[1].split()[0]),
        "forwarded": ended["forwarded"],
        "discarded": ended.get("discarded", 0),
        "left": ended["left_on_queue"],
        "commits": ended["commits"],
    }


def _handler(home: Path, rules: str, batch: int, count: int) -> dict[str, Any]:
    """Run ``dlqhandler run`` as a child; throughput, wall time and peak RSS."""
    started = time.perf_counter()
    r = _finish(*_start(home, rules, batch))
    wall = time.perf_counter() - started
    seconds = (r["ended"] - r["started"]).total_seconds()
    return {
        "messages": count,
        "batch_size": batch,
        "seconds": round(seconds, 2),
        "wall_seconds": round(wall, 2),
        "rate": count / seconds if seconds else 0.0,
        "peak_rss_mb": round(r["rss_kb"] / 1024, 1),
        "cpu_seconds": r["cpu_s"],
        "forwarded": r["forwarded"],
        "discarded": r["discarded"],
        "left": r["left"],
        "commits": r["commits"],
    }


def parallel_run(root: Path, count: int, batch: int, handlers: int) -> dict[str, Any]:
    """``handlers`` handlers started together on one DLQ of ``count`` (mixed table):
    aggregate messages/second from the first loop's start to the last loop's end."""
    home = root / f"parallel-{count}-{handlers}"
    _fresh(home)
    _load(home, DLQ, count, mixed=True)
    children = [_start(home, MIXED, batch, tag=f"-{i}") for i in range(handlers)]
    results = [_finish(child, log) for child, log in children]
    seconds = (
        max(r["ended"] for r in results) - min(r["started"] for r in results)
    ).total_seconds()
    handled = sum(r["forwarded"] + r["discarded"] for r in results)
    if handled != count:
        raise RuntimeError(f"{handlers} handlers handled {handled} of {count}")
    shutil.rmtree(home, ignore_errors=True)
    return {
        "messages": count,
        "handlers": handlers,
        "seconds": round(seconds, 2),
        "rate": count / seconds if seconds else 0.0,
        "per_handler": [r["forwarded"] + r["discarded"] for r in results],
    }


def sqlite_move_floor(n: int = 20_000) -> float:
    """``benchmarks/sqlite_move_floor.py`` (a durable move in bare SQLite on this disk, 100
    per transaction) in its own process, as a user would run it: messages/second."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("sqlite_move_floor.py")), str(n)],
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    return float(done.stdout.split()[-1])


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


def forward_run(root: Path, count: int, batch: int, *, mixed: bool = False) -> dict[str, Any]:
    """Load ``count`` dead letters and forward them all with the handler (``mixed``: the
    issue's three-rule table, a third of them discarded)."""
    home = root / f"fwd-{count}-{batch}{'-mixed' if mixed else ''}"
    _fresh(home)
    load_rate = _load(home, DLQ, count, mixed=mixed)
    result = _handler(home, MIXED if mixed else FORWARD_ALL, batch, count)
    if (result["forwarded"] + result["discarded"], result["left"]) != (count, 0):
        raise RuntimeError(f"the handler did not handle everything: {result}")
    result["load_rate"] = load_rate
    shutil.rmtree(home, ignore_errors=True)
    return result


def properties_pair(
    root: Path, count: int, batch: int, properties: int, rounds: int = 2
) -> dict[str, Any]:
    """Forward ``count`` dead letters with ``properties`` properties each, and the same
    backlog without, in turn ``rounds`` times (the best run of each counts, so a busy
    moment of a shared machine does not decide): both figures and what a message with
    them costs."""
    runs: dict[str, list[dict[str, Any]]] = {"with": [], "without": []}
    for _ in range(rounds):
        for label, n in (("with", properties), ("without", 0)):
            home = root / f"props-{label}"
            _fresh(home)
            _load(home, DLQ, count, properties=n)
            result = _handler(home, FORWARD_ALL, batch, count)
            if (result["forwarded"], result["left"]) != (count, 0):
                raise RuntimeError(f"the handler did not forward everything: {result}")
            runs[label].append(result)
            shutil.rmtree(home, ignore_errors=True)
    best = {label: max(rs, key=lambda r: r["rate"]) for label, rs in runs.items()}
    with_, without = best["with"]["rate"], best["without"]["rate"]
    # CPU time of the whole process (start-up included, the same in both, so it cancels):
    # what others' load on a shared machine changes least.
    cpu = {label: min(r["cpu_seconds"] for r in rs) for label, rs in runs.items()}
    return {
        "extra_cpu_us_per_message": (cpu["with"] - cpu["without"]) / count * 1e6,
        "messages": count,
        "properties": properties,
        "rounds": rounds,
        "with": best["with"],
        "without": best["without"],
        "ratio": with_ / without if without else None,
        "extra_us_per_message": (1 / with_ - 1 / without) * 1e6 if with_ and without else None,
    }


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


def run(
    messages: int = 100_000,
    batch_size: int = DEFAULT_BATCH_SIZE,
    sweep: tuple[int, ...] = (),
    sweep_messages: int = 10_000,
    ignore_depths: tuple[int, ...] = (10_000,),
    deep_messages: int = 0,
    folder: Path | None = None,
    rss_messages: int = 0,
    parallel_messages: int = 0,
    parallel_handlers: int = 4,
    floor: bool = True,
    properties: int = 10,
    properties_messages: int = 0,
) -> dict[str, Any]:
    """Measure; returns the figures (rates in messages/second, RSS in MB).

    The handler runs the issue's three-rule table (:data:`MIXED`). ``floor``: run
    ``sqlite_move_floor.py`` before and after (the better figure counts). ``rss_messages``:
    a small forward run whose peak RSS is set against the deep one's.
    ``parallel_messages``: ``parallel_handlers`` handlers on one DLQ that deep, against
    one handler on the same backlog. ``properties_messages``: that many dead letters with
    ``properties`` properties each forwarded, against the same without properties.
    """
    root = Path(tempfile.mkdtemp(prefix="dlqhandler-handler-bench-", dir=folder))
    floors: list[float] = []
    try:
        if floor:
            floors.append(sqlite_move_floor())
        ceiling_home = root / "ceiling"
        _fresh(ceiling_home)
        ceiling = _ceiling(ceiling_home, messages, batch_size)
        shutil.rmtree(ceiling_home, ignore_errors=True)
        handler = forward_run(root, messages, batch_size, mixed=True)
        small = forward_run(root, rss_messages, batch_size, mixed=True) if rss_messages else None
        swept = [forward_run(root, sweep_messages, b) for b in sweep]
        ignored = [ignore_pass(root, d) for d in ignore_depths]
        deep = forward_run(root, deep_messages, batch_size, mixed=True) if deep_messages else None
        parallel = single = None
        if parallel_messages:
            single = parallel_run(root, parallel_messages, batch_size, 1)
            parallel = parallel_run(root, parallel_messages, batch_size, parallel_handlers)
        props = (
            properties_pair(root, properties_messages, batch_size, properties)
            if properties_messages
            else None
        )
        if floor:
            floors.append(sqlite_move_floor())
    finally:
        shutil.rmtree(root, ignore_errors=True)
    best_floor = max(floors) if floors else None
    out: dict[str, Any] = {
        "messages": messages,
        "payload_bytes": len(PAYLOAD),
        "persistent": True,
        "batch_size": batch_size,
        "rules": "mixed: FWD HEADER(NO), DISCARD, catch-all FWD",
        "ceiling_rate": ceiling,
        "handler": handler,
        "ratio": handler["rate"] / ceiling,
        "sweep": swept,
        "ignore_pass": ignored,
        "deep": deep,
        "rss_small": small,
        "sqlite_floor_rate": best_floor,
        "sqlite_floors": floors,
        "parallel": parallel,
        "parallel_single": single,
        "properties": props,
    }
    if best_floor:
        out["ratio_sqlite"] = handler["rate"] / best_floor
        if deep is not None:
            out["deep_ratio_sqlite"] = deep["rate"] / best_floor
    if small is not None and deep is not None:
        out["rss_ratio"] = deep["peak_rss_mb"] / small["peak_rss_mb"]
    if parallel is not None and single is not None:
        out["parallel_ratio"] = parallel["rate"] / single["rate"]
    return out


def _print(result: dict[str, Any], sweep_messages: int) -> None:
    h = result["handler"]
    print(
        f"{result['messages']} persistent dead letters ({result['payload_bytes']}-byte "
        f"payload), batch size {result['batch_size']}, {result['rules']}"
    )
    if result["sqlite_floor_rate"]:
        floors = ", ".join(f"{f:.0f}" for f in result["sqlite_floors"])
        print(
            f"  sqlite_move_floor.py (best of {floors}) {result['sqlite_floor_rate']:>8.0f} msg/s"
        )
    print(f"  raw get+put1+commit ceiling  {result['ceiling_rate']:>10.0f} msg/s")
    print(
        f"  dlqhandler run (end to end)  {h['rate']:>10.0f} msg/s   ratio "
        f"{result['ratio']:.2f} to the raw qmgr, "
        f"{result.get('ratio_sqlite', float('nan')):.3f} to sqlite_move_floor"
        f"   ({h['seconds']} s in the loop, {h['wall_seconds']} s wall, "
        f"{h['commits']} commits)"
    )
    print(f"  loading the backlog          {h['load_rate']:>10.0f} msg/s")
    for label, r in (("small", result["rss_small"]), ("main", h), ("deep", result["deep"])):
        if r is not None:
            print(
                f"  peak RSS forwarding {r['messages']:>9} messages: {r['peak_rss_mb']:>7} MB"
                f"   ({r['rate']:.0f} msg/s; {label})"
            )
    if result.get("deep_ratio_sqlite") is not None:
        print(f"  deep run ratio to sqlite_move_floor {result['deep_ratio_sqlite']:.3f}")
    if result.get("rss_ratio") is not None:
        print(f"  peak RSS deep / small: {result['rss_ratio']:.2f}")
    if result["parallel"] is not None:
        par, one = result["parallel"], result["parallel_single"]
        print(
            f"  {par['handlers']} handlers on one {par['messages']}-message DLQ: "
            f"{par['rate']:.0f} msg/s aggregate (per handler {par['per_handler']}); one "
            f"handler {one['rate']:.0f} msg/s; ratio {result['parallel_ratio']:.2f}"
        )
    if result.get("properties") is not None:
        p = result["properties"]
        print(
            f"  {p['messages']} dead letters with {p['properties']} properties each:"
            f" {p['with']['rate']:.0f} msg/s; without: {p['without']['rate']:.0f} msg/s;"
            f" ratio {p['ratio']:.2f} ({p['extra_us_per_message']:.0f} µs more a message;"
            f" CPU {p['extra_cpu_us_per_message']:.0f} µs more a message)"
        )
    for r in result["ignore_pass"]:
        print(
            f"  peak RSS, one pass over {r['messages']:>9} ignored: {r['peak_rss_mb']:>7} MB"
            f"   ({r['rate']:.0f} msg/s browsed)"
        )
    if result["sweep"]:
        print(f"  batch-size sweep ({sweep_messages} messages):")
        for r in result["sweep"]:
            print(
                f"    --batch-size {r['batch_size']:>4}  {r['rate']:>8.0f} msg/s"
                f"   {r['peak_rss_mb']:>6} MB"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument(
        "--sweep", default="", help="comma-separated batch sizes to compare (e.g. 1,10,50,200)"
    )
    parser.add_argument("--sweep-messages", type=int, default=10_000)
    parser.add_argument(
        "--ignore-depths",
        default="10000",
        help="comma-separated DLQ depths for the IGNORE pass RSS figure",
    )
    parser.add_argument(
        "--deep",
        type=int,
        nargs="?",
        const=1_000_000,
        default=0,
        help="also forward a DLQ this deep (default 1,000,000)",
    )
    parser.add_argument(
        "--rss-messages",
        type=int,
        default=0,
        help="a small forward run whose peak RSS is set against --deep's",
    )
    parser.add_argument(
        "--parallel",
        type=int,
        default=0,
        help="N handlers (--handlers) on one DLQ this deep vs one handler",
    )
    parser.add_argument("--handlers", type=int, default=4)
    parser.add_argument(
        "--properties", type=int, default=10, help="properties per message (default 10)"
    )
    parser.add_argument(
        "--properties-messages",
        type=int,
        default=0,
        help="forward this many dead letters with --properties each, and without",
    )
    parser.add_argument(
        "--no-floor", action="store_true", help="skip benchmarks/sqlite_move_floor.py"
    )
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    result = run(
        args.messages,
        args.batch_size,
        tuple(int(b) for b in args.sweep.split(",") if b),
        args.sweep_messages,
        tuple(int(d) for d in args.ignore_depths.split(",") if d),
        args.deep,
        args.dir,
        args.rss_messages,
        args.parallel,
        args.handlers,
        floor=not args.no_floor,
        properties=args.properties,
        properties_messages=args.properties_messages,
    )
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2, default=str))
    _print(result, args.sweep_messages)


if __name__ == "__main__":
    main()
