"""Codec benchmark: MQDLH and MQMD decode rates, dmpmqmsg write and read throughput.

    python benchmarks/codec.py [--messages N] [--json]

Generates a realistic backlog (``dlqhandler.formats.backlog``, seed 1, default
50,000 messages), then times, each best of ``--repeat`` runs:

* MQDLH decode: ``decode_dead_letter`` on every message that has an MQDLH;
* MQMD decode: ``decode_mqmd`` on each message's 364-byte MQMD image;
* dmpmqmsg write: ``DumpWriter`` to a file (hex mode, 25-byte X lines);
* dmpmqmsg read: ``read_dump`` over that file, every message built;
* the floor for reading: one ``f.read()`` of the file, and iterating its lines.

``run(n)`` returns the figures as a dict for ``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import DumpWriter, read_dump
from dlqhandler.mq import decode_dead_letter, decode_mqmd, encode_mqmd

MB = 1_000_000


def _best(repeat: int, fn: Callable[[], object]) -> float:
    """Fastest wall time of ``repeat`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(n: int = 50_000, *, repeat: int = 3, seed: int = 1) -> dict[str, float]:
    """Measure everything on an ``n``-message backlog; rates per second, sizes in MB."""
    messages = list(generate_backlog(n, seed=seed))
    dead = [(m.md, m.body) for m in messages if m.dlh is not None]
    images = [encode_mqmd(m.md) for m in messages]

    def decode_dlhs() -> None:
        for md, body in dead:
            decode_dead_letter(md, body)

    def decode_mds() -> None:
        for image in images:
            decode_mqmd(image)

    with tempfile.TemporaryDirectory(prefix="dlqh-bench-") as tmp:
        path = Path(tmp) / "backlog.dmp"

        def write() -> None:
            with path.open("wb") as f, DumpWriter(f, qmgr="QM1") as writer:
                for message in messages:
                    writer.write(message)

        def read() -> None:
            count = sum(1 for _ in read_dump(path))
            assert count == n

        def raw_read() -> None:
            with path.open("rb") as f:
                f.read()

        def line_iteration() -> None:
            with path.open("rb", buffering=1 << 16) as f:
                for _ in f:
                    pass

        t_dlh = _best(repeat, decode_dlhs)
        t_md = _best(repeat, decode_mds)
        t_write = _best(repeat, write)
        size = path.stat().st_size / MB
        t_read = _best(repeat, read)
        t_raw = _best(repeat, raw_read)
        t_lines = _best(repeat, line_iteration)

    read_mbs = size / t_read
    return {
        "messages": n,
        "file_mb": size,
        "mqdlh_decode_per_s": len(dead) / t_dlh,
        "mqmd_decode_per_s": len(images) / t_md,
        "dump_write_mb_per_s": size / t_write,
        "dump_write_msgs_per_s": n / t_write,
        "dump_read_mb_per_s": read_mbs,
        "dump_read_msgs_per_s": n / t_read,
        "raw_read_mb_per_s": size / t_raw,
        "line_iteration_mb_per_s": size / t_lines,
        "read_vs_raw_read": read_mbs / (size / t_raw),
        "read_vs_line_iteration": read_mbs / (size / t_lines),
    }


def _report(r: dict[str, float]) -> str:
    read = r["dump_read_mb_per_s"]
    lines = [
        (
            f"backlog: {int(r['messages']):,} messages, {r['file_mb']:.1f} MB as a dmpmqmsg file "
            f"(python {sys.version.split()[0]}, {os.cpu_count()} CPUs)"
        ),
        f"  MQDLH decode      {r['mqdlh_decode_per_s']:>12,.0f} messages/s",
        f"  MQMD decode       {r['mqmd_decode_per_s']:>12,.0f} messages/s",
        (
            f"  dmpmqmsg write    {r['dump_write_mb_per_s']:>12,.1f} MB/s "
            f"({r['dump_write_msgs_per_s']:,.0f} messages/s)"
        ),
        f"  dmpmqmsg read     {read:>12,.1f} MB/s ({r['dump_read_msgs_per_s']:,.0f} messages/s)",
        (
            f"  raw f.read()      {r['raw_read_mb_per_s']:>12,.1f} MB/s "
            f"(dmpmqmsg read is {r['read_vs_raw_read']:.3f} of it)"
        ),
        (
            f"  line iteration    {r['line_iteration_mb_per_s']:>12,.1f} MB/s "
            f"(dmpmqmsg read is {r['read_vs_line_iteration']:.3f} of it)"
        ),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=50_000, help="backlog size")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    result = run(args.messages, repeat=args.repeat)
    print(json.dumps(result, indent=2) if args.json else _report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
