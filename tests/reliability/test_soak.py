"""Soak: a resident handler (WAIT(YES)) under a steady inflow, with the rules table
rewritten (hot reload) every few seconds, for ``DLQ_REL_SOAK_S`` seconds (default 120;
the issue's figure is 1800). Its resident memory (/proc/PID/status VmRSS) and open file
descriptors (/proc/PID/fd) stay flat, the attempt store (the status queue) never holds
more records than there are live messages on the DLQ, and at the end every message is
in exactly one place.

Other knobs: ``DLQ_REL_SOAK_RATE`` (messages a second, default 40),
``DLQ_REL_SOAK_RELOAD_S`` (seconds between rewrites, default 5).
"""

from __future__ import annotations

import random
import statistics
import time
from pathlib import Path

import pytest

from dlqhandler.qmgr import EmbeddedQueueManager
from tests.reliability.knobs import Figures, knob
from tests.reliability.scenario import terminate
from tests.worker.helpers import (
    DLQ,
    STATUS,
    Ledger,
    alter,
    dead_letter,
    define,
    depth,
    json_events,
    load,
    start_handler,
    until,
)

TABLES = [
    "RETRYINT(1) WAIT(YES)\n"
    "DESTQ(APP.*) ACTION(RETRY) RETRY(3)\n"
    "DESTQ(STUCK.Q) ACTION(RETRY) RETRY(2)\n"
    f"DESTQ(STUCK.Q) ACTION(FWD) FWDQ({target}) HEADER(YES)\n"
    f"DESTQ(OLD.*) ACTION(FWD) FWDQ({target}) HEADER(NO)\n"
    "DESTQ(JUNK.*) ACTION(DISCARD)\n"
    for target in ("SOAK.A", "SOAK.B")
]


def _status(pid: int) -> tuple[int, int]:
    """(VmRSS in KiB, open file descriptors) of a process, from /proc."""
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return rss, len(list(Path(f"/proc/{pid}/fd").iterdir()))


def _drift(samples: list[tuple[float, int, int]], index: int) -> float:
    """Median of the last fifth minus median of the second fifth (after warm-up)."""
    fifth = max(1, len(samples) // 5)
    early = [s[index] for s in samples[fifth : 2 * fifth]]
    late = [s[index] for s in samples[-fifth:]]
    return statistics.median(late) - statistics.median(early)


@pytest.mark.reliability
# The soak's own length plus time to start, drain and check (pytest-timeout's 600 s default
# would cut a 30-minute soak short).
@pytest.mark.timeout(knob("DLQ_REL_SOAK_S", 120) + 600)
def test_resident_handler_soak(
    home: Path, qm: EmbeddedQueueManager, tmp_path: Path, figures: Figures
) -> None:
    """A resident handler under steady inflow and periodic hot reloads: RSS and open
    fds flat, the status queue bounded by the live messages, no message lost or
    doubled, every reload taken."""
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc")
    duration = knob("DLQ_REL_SOAK_S", 120)
    rate = knob("DLQ_REL_SOAK_RATE", 40)
    reload_every = knob("DLQ_REL_SOAK_RELOAD_S", 5)
    define(qm, "SOAK.A", "SOAK.B", maxdepth=999_999_999)
    define(qm, "APP.Q", maxdepth=999_999_999)
    define(qm, "STUCK.Q", put="DISABLED")
    alter(qm, DLQ, maxdepth=999_999_999)
    book = Ledger.of(qm)
    rules = tmp_path / "soak.rul"
    rules.write_text(TABLES[0])
    log = tmp_path / "soak.log"
    child = start_handler(home, rules, "--batch-size", "20", log=log)
    rng = random.Random(7)
    kinds = ["APP.Q"] * 70 + ["OLD.X"] * 15 + ["JUNK.X"] * 10 + ["STUCK.Q"] * 5
    samples: list[tuple[float, int, int]] = []
    status_peak = 0
    reloads = 0
    sent = 0
    kind_of: dict[bytes, str] = {}
    try:
        until(
            lambda: any(e.get("event") == "rules_watch_started" for e in json_events(log)),
            "the handler did not start",
        )
        started = time.monotonic()
        next_reload = started + reload_every
        next_sample = started
        while (now := time.monotonic()) < started + duration:
            batch = [
                dead_letter(
                    rng.randbytes(rng.randint(10, 2000)), destq=kind, priority=0, tag="SOAK"
                )
                for kind in rng.choices(kinds, k=max(1, rate // 5))
            ]
            for m in load(qm, batch):
                book.original[m.md.msg_id] = m
                kind_of[m.md.msg_id] = m.dlh.dest_q_name if m.dlh else ""
            sent += len(batch)
            if now >= next_reload:
                reloads += 1
                rules.write_text(TABLES[reloads % 2])
                next_reload = now + reload_every
            if now >= next_sample:
                rss, fds = _status(child.pid)
                samples.append((now - started, rss, fds))
                live = depth(qm, DLQ)
                records = depth(qm, STATUS)
                status_peak = max(status_peak, records)
                assert records <= live + 5, (records, live)  # +5: a record written
                next_sample = now + 2  # before its message left, seen in between
            assert child.poll() is None, "the handler died"
            time.sleep(0.2)
        until(lambda: depth(qm, DLQ) == 0, "the backlog did not drain", timeout=120)
    finally:
        out = terminate(child)
    assert child.returncode == 0, out
    placed = book.check(
        ["SOAK.A", "SOAK.B", "APP.Q"],
        discarded=[k for k, kind in kind_of.items() if kind == "JUNK.X"],
    )
    events = json_events(log)
    swapped = sum(1 for e in events if e.get("event") == "rules_swapped")
    rss_drift = _drift(samples, 1)
    fd_drift = _drift(samples, 2)
    figures(
        seconds_soaked=duration,
        messages=sent,
        reloads_written=reloads,
        rules_swapped=swapped,
        samples=len(samples),
        rss_start_kib=samples[len(samples) // 5][1],
        rss_end_kib=samples[-1][1],
        rss_drift_kib=rss_drift,
        fd_start=samples[len(samples) // 5][2],
        fd_end=samples[-1][2],
        fd_drift=fd_drift,
        status_records_peak=status_peak,
        placed={q: len(v) for q, v in placed.items()},
    )
    assert swapped >= reloads * 0.8, (swapped, reloads)
    assert fd_drift <= 2, samples
    assert rss_drift <= 16 * 1024, samples  # KiB: no growth with messages or reloads
