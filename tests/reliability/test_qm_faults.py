"""Queue manager faults under a running handler: a target that fills up, is put-inhibited
and re-enabled, deleted and redefined; a DLQ get-inhibited mid-run; the embedded queue
manager's disk full. The handler reports, backs out, carries on or ends cleanly, and
nothing is lost or doubled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import MQRC_STORAGE_MEDIUM_FULL
from dlqhandler.qmgr import EmbeddedQueueManager, GetOptions, PutOptions, create_qmgr
from dlqhandler.qmgr.embedded.store import QMgrPaths, Store
from tests.reliability.knobs import Figures
from tests.reliability.scenario import terminate
from tests.worker.helpers import (
    DLQ,
    STATUS,
    Ledger,
    RunCli,
    alter,
    dead_letter,
    define,
    depth,
    json_events,
    load,
    start_handler,
    until,
)

FAULTS = "RETRYINT(1) WAIT(YES)\nDESTQ(APP.Q) ACTION(RETRY) RETRY(999999)\n"


class _Handler:
    """A `dlqhandler run` child and its JSON log."""

    def __init__(self, home: Path, rules: Path, log: Path) -> None:
        self.log = log
        self.proc = start_handler(home, rules, "--no-watch", "--batch-size", "10", log=log)

    def failures(self, reason: int) -> int:
        return sum(
            1
            for e in json_events(self.log)
            if e.get("event") == "put_failed" and e.get("reason_code") == reason
        )

    def stop(self) -> int:
        terminate(self.proc)
        return int(self.proc.returncode)


@pytest.fixture
def handler(home: Path, tmp_path: Path) -> Iterator[Callable[[str], _Handler]]:
    started: list[_Handler] = []

    def start(rules_text: str) -> _Handler:
        rules = tmp_path / "faults.rul"
        rules.write_text(rules_text)
        started.append(_Handler(home, rules, tmp_path / f"handler{len(started)}.log"))
        return started[-1]

    yield start
    for h in started:
        if h.proc.poll() is None:
            h.proc.kill()
            h.proc.wait(timeout=10)


def _move_all(qm: EmbeddedQueueManager, source: str, target: str) -> int:
    """Move every message (context kept) in one unit of work: the test's own 'app'
    taking delivered messages off a queue that is about to be deleted."""
    q = qm.open(source, input=True, browse=False)
    moved = 0
    try:
        while depth(qm, source):
            got = q.get(GetOptions(syncpoint=True))
            qm.put1(target, got, PutOptions(syncpoint=True, context="set_all"))
            moved += 1
        qm.commit()
    finally:
        q.close()
    return moved


@pytest.mark.reliability
def test_target_full_inhibited_deleted_and_redefined_mid_run(
    qm: EmbeddedQueueManager, handler: Callable[[str], _Handler], figures: Figures
) -> None:
    """One resident handler while its target queue fills up (MAXDEPTH, 2053), is
    PUT(DISABLED) (2051) and re-enabled, and is deleted (2085) and redefined: every
    failure is counted and retried after RETRYINT, and at the end every message is
    on the target exactly once; no attempt record is left."""
    define(qm, "APP.Q", "APP.HOLD", maxdepth=100_000)
    book = Ledger.of(qm)
    h = handler(FAULTS)
    batches = 0

    def inflow(n: int = 100) -> None:
        nonlocal batches
        batches += 1
        for m in load(
            qm,
            [
                dead_letter(f"b{batches}.{i}", destq="APP.Q", reason=2053, priority=0)
                for i in range(n)
            ],
        ):
            book.original[m.md.msg_id] = m

    def fault(reason: int, apply: Callable[[], None], repair: Callable[[], None]) -> int:
        before = h.failures(reason)
        apply()
        inflow()
        until(lambda: h.failures(reason) > before, f"no put failure {reason}", timeout=60)
        repair()
        until(lambda: depth(qm, DLQ) == 0, f"the DLQ did not drain after {reason}", timeout=120)
        return h.failures(reason) - before

    inflow()
    until(lambda: depth(qm, DLQ) == 0, "the handler did not start working", timeout=60)
    full = fault(
        2053,
        lambda: alter(qm, "APP.Q", maxdepth=depth(qm, "APP.Q") + 20),
        lambda: alter(qm, "APP.Q", maxdepth=100_000),
    )
    inhibited = fault(
        2051, lambda: alter(qm, "APP.Q", put="DISABLED"), lambda: alter(qm, "APP.Q", put="ENABLED")
    )

    def delete() -> None:
        alter(qm, "APP.Q", put="DISABLED")
        _move_all(qm, "APP.Q", "APP.HOLD")
        qm.admin().delete_queue("APP.Q")

    deleted = fault(2085, delete, lambda: define(qm, "APP.Q", maxdepth=100_000))
    inflow()
    until(lambda: depth(qm, DLQ) == 0, "the handler stopped working", timeout=60)
    assert h.stop() == 0
    placed = book.check(["APP.Q", "APP.HOLD"])
    assert len(placed["APP.Q"]) + len(placed["APP.HOLD"]) == len(book.original)
    assert depth(qm, STATUS) == 0
    figures(
        messages=len(book.original),
        failures_q_full=full,
        failures_put_inhibited=inhibited,
        failures_unknown_object=deleted,
    )


def test_dlq_get_inhibited_mid_run_ends_cleanly(
    qm: EmbeddedQueueManager, handler: Callable[[str], _Handler]
) -> None:
    """ALTER QLOCAL(DLQ) GET(DISABLED) under a working handler: it backs out its unit of
    work and ends with exit 5 (ExitCode.MQ_ERROR, reason 2016 logged); nothing lost."""
    define(qm, "APP.Q", maxdepth=100_000)
    alter(qm, DLQ, maxdepth=100_000)
    load(qm, [dead_letter(f"m{i}", destq="APP.Q") for i in range(3000)])
    book = Ledger.of(qm)
    h = handler(FAULTS)
    until(lambda: depth(qm, "APP.Q") >= 100, "the handler did not start working")
    alter(qm, DLQ, get="DISABLED")
    h.proc.communicate(timeout=60)
    assert h.proc.returncode == ExitCode.MQ_ERROR
    [error] = [e for e in json_events(h.log) if e["event"] == "handler_mq_error"]
    assert error["reason"] == 2016
    alter(qm, DLQ, get="ENABLED")
    placed = book.check(["APP.Q"])
    assert placed.get(DLQ), "the DLQ was emptied before GET(DISABLED) took effect"


def _limit_pages(monkeypatch: pytest.MonkeyPatch, extra_pages: int) -> None:
    """Every embedded-QM connection opened from now on in this process sees a database
    that may grow by ``extra_pages`` only (SQLite's max_page_count): a full disk."""
    original = Store.__init__

    def limited(self: Store, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        pages = int(self.db.execute("PRAGMA page_count").fetchone()[0])
        self.db.execute(f"PRAGMA max_page_count = {pages + extra_pages}")

    monkeypatch.setattr(Store, "__init__", limited)


def test_disk_full_is_reported_backed_out_and_nothing_is_lost(
    qm: EmbeddedQueueManager,
    ledger: Callable[[], Ledger],
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The embedded queue manager's disk fills up under the handler: SQLITE_FULL is
    MQRC_STORAGE_MEDIUM_FULL (2192), the handler reports it, backs out and ends with
    exit 5; after space is freed a new run moves everything, once."""
    define(qm, "APP.Q", maxdepth=100_000)
    load(qm, [dead_letter(b"x" * 4000, destq="APP.Q", tag=f"D{i}") for i in range(400)])
    book = ledger()
    qm.admin().define_queue(STATUS, {}, replace=True)
    with monkeypatch.context() as m:
        _limit_pages(m, extra_pages=40)
        full = run_cli(FAULTS.replace("WAIT(YES)", "WAIT(NO)"), "--batch-size", "50")
    assert full.rc == ExitCode.MQ_ERROR, full.err
    [error] = full.events("handler_mq_error")
    assert error["reason"] == MQRC_STORAGE_MEDIUM_FULL
    assert "SQLite" in error["detail"]
    assert "AMQ8709" in full.out  # ended with its summary
    qm.recover()  # as the next connection would: the dead unit of work is backed out
    moved_before = depth(qm, "APP.Q")
    assert moved_before < 400  # the disk was full before the end
    book.check(["APP.Q"])

    after = run_cli(FAULTS.replace("WAIT(YES)", "WAIT(NO)"))
    assert after.rc == 0, after.err
    placed = book.check(["APP.Q"])
    assert len(placed["APP.Q"]) == 400
    assert depth(qm, STATUS) == 0


def test_sqlite_full_maps_to_storage_medium_full(tmp_path: Path) -> None:
    """The mapping itself: a write that cannot grow the database raises MQIError 2192
    (not sqlite3.OperationalError), and the transaction is rolled back."""
    create_qmgr(tmp_path, "QMF")
    store = Store(QMgrPaths.of(tmp_path / "qmgrs", "QMF"))
    try:
        store.db.execute("CREATE TABLE IF NOT EXISTS filler (b BLOB)")
        pages = int(store.db.execute("PRAGMA page_count").fetchone()[0])
        store.db.execute(f"PRAGMA max_page_count = {pages + 2}")

        def fill() -> None:
            with store.write(durable=True) as db:
                for _ in range(50):
                    db.execute("INSERT INTO filler VALUES (?)", (b"x" * 4000,))

        with pytest.raises(MQIError) as exc:
            fill()
        assert exc.value.reason == MQRC_STORAGE_MEDIUM_FULL
        assert not store.db.in_transaction
        assert store.db.execute("SELECT count(*) FROM filler").fetchone()[0] == 0
    finally:
        store.close()
