"""Rules that forward or retry to remote queues, queue manager aliases and alias queues,
on real definitions made with MQSC, run by ``dlqhandler run`` and by ``dlqhandler drain -m
QM1 --apply``, on the embedded queue manager and through IBM's ibmmq package on the MQI
stand-in (``--backend ibmmq``). Each dead letter lands once: on its transmission queue with
an MQXQH naming the queue and queue manager IBM's name resolution gives, or on the alias's
base queue; context and message properties kept; nothing lost, nothing duplicated.

IBM, Name resolution (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): "the
call resolves the name either to a local queue or to a transmission queue"; Queue manager
alias definitions
(https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=components-queue-manager-alias-definitions):
"The queue manager changes the transmission header to say REALQM instead of YOURQM";
DLQ rules (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=table-dlq-rules-patterns-actions):
DESTQM, "The name of the queue manager of the message queue for which the message is
destined".
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dlqhandler.mq import Message
from dlqhandler.qmgr import EmbeddedQueueManager, run_mqsc
from tests.mqi.build import child_env, load
from tests.spark.drain_helpers import drain_env, run_drain
from tests.worker.helpers import (
    DLQ,
    JMS_PROPERTIES,
    MQ_ENV,
    STATUS,
    Ledger,
    RunCli,
    dead_letter,
)
from tests.worker.helpers import load as put_all

TABLE = """\
RETRYINT(0) WAIT(NO)
DESTQ(TO.CENTRAL) ACTION(FWD) FWDQ(CENTRAL) HEADER(YES)
DESTQ(TO.ALIAS) ACTION(FWD) FWDQ(APP.ALIAS) HEADER(NO)
DESTQ(TO.HUB) ACTION(FWD) FWDQ(HUB.IN) FWDQM(HUB) HEADER(NO)
ACTION(RETRY) RETRY(1)
"""
SETUP = f"""\
DEFINE QLOCAL({STATUS})
DEFINE QLOCAL(APP.LOCAL)
DEFINE QLOCAL(QM2) USAGE(XMITQ)
DEFINE QLOCAL(TO.QM3) USAGE(XMITQ)
DEFINE QLOCAL(DEF.XMITQ) USAGE(XMITQ)
ALTER QMGR DEFXMITQ(DEF.XMITQ)
DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)
DEFINE QREMOTE(HUB) RQMNAME(QM3) XMITQ(TO.QM3)
DEFINE QALIAS(APP.ALIAS) TARGET(APP.LOCAL)
"""
TARGETS = ["APP.LOCAL", "QM2", "TO.QM3", "DEF.XMITQ"]
BACKENDS = {"embedded": (), "ibmmq": ("--backend", "ibmmq")}


def _cases() -> dict[str, tuple[Message, str]]:
    """Each dead letter and where it must land ("queue@qmgr" inside an MQXQH)."""
    props = JMS_PROPERTIES[:6]
    return {
        "fwd remote": (dead_letter("c1", destq="TO.CENTRAL", tag="C1"), "APP.IN@QM2"),
        "fwd remote props": (
            dead_letter("c2", destq="TO.CENTRAL", tag="C2", properties=props),
            "APP.IN@QM2",
        ),
        "fwd alias": (dead_letter("a1", destq="TO.ALIAS", tag="A1"), "APP.LOCAL"),
        "fwd alias props": (
            dead_letter("a2", destq="TO.ALIAS", tag="A2", properties=props),
            "APP.LOCAL",
        ),
        "fwd qmgr alias": (dead_letter("h1", destq="TO.HUB", tag="H1"), "HUB.IN@QM3"),
        "retry xmitq": (dead_letter("r1", destq="APP.R", destqm="QM2", tag="R1"), "APP.R@QM2"),
        "retry qmgr alias": (
            dead_letter("r2", destq="APP.R", destqm="HUB", tag="R2", properties=props),
            "APP.R@QM3",
        ),
        "retry defxmitq": (dead_letter("r3", destq="APP.R", destqm="QM7", tag="R3"), "APP.R@QM7"),
        "retry qremote": (dead_letter("r4", destq="CENTRAL", tag="R4"), "APP.IN@QM2"),
    }


@pytest.fixture(params=sorted(BACKENDS))
def backend(
    request: pytest.FixtureRequest,
    qm: EmbeddedQueueManager,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[str, ...]]:
    """QM1 set up with SETUP; the command-line arguments of each back end (the stand-in
    on QM1's home for ibmmq)."""
    out = io.StringIO()
    assert run_mqsc(SETUP, qm.admin(), out, qmgr_name="QM1").ok, out.getvalue()
    if request.param == "embedded":
        yield ()
        return
    for name in MQ_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DLQHANDLER_MQ_RECONNECT_DELAY", "0")
    state = load()
    state.reset(home=home)
    yield BACKENDS["ibmmq"]
    assert not state.errors, state.errors
    state.reset()


def _check(book: Ledger, cases: dict[str, tuple[Message, str]]) -> None:
    book.check(TARGETS)  # every original exactly once, context and properties kept
    where = {name: book.where(m) for name, (m, _) in cases.items()}
    assert where == {name: target for name, (_, target) in cases.items()}


def test_run_forwards_and_retries_to_remote_and_alias_destinations(
    qm: EmbeddedQueueManager, run_cli: RunCli, backend: tuple[str, ...]
) -> None:
    """dlqhandler run: FWD to a QREMOTE (HEADER(YES): the MQDLH travels inside the MQXQH),
    to an alias queue and to a queue at a queue manager alias; RETRY of dead letters whose
    DestQMgrName is a transmission queue, a queue manager alias or a queue manager only
    DEFXMITQ reaches, and whose DestQName is a QREMOTE: each on the right transmission
    queue naming the right queue and queue manager, its context and properties kept.

    IBM, Name resolution (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): "the
    call resolves the name either to a local queue or to a transmission queue"."""
    cases = _cases()
    put_all(qm, [m for m, _ in cases.values()])
    book = Ledger.of(qm, DLQ)

    run = run_cli(TABLE, *backend, DLQ, "QM1")

    assert run.rc == 0, run.err
    _check(book, cases)
    assert (run.summary("forwarded"), run.summary("retried")) == (5, 4)
    if backend:
        assert load().calls.get("MQPUT1"), "the puts went through IBM's library"


@pytest.mark.spark
def test_drain_apply_forwards_and_retries_to_remote_and_alias_destinations(
    qm: EmbeddedQueueManager, home: Path, tmp_path: Path, backend: tuple[str, ...]
) -> None:
    """dlqhandler drain -m QM1 --apply (its own process; through the stand-in's library
    for ibmmq): the same table and dead letters land where the handler puts them.

    IBM, Name resolution (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): "the
    call resolves the name either to a local queue or to a transmission queue"."""
    cases = _cases()
    put_all(qm, [m for m, _ in cases.values()])
    book = Ledger.of(qm, DLQ)
    rules = tmp_path / "r.rul"
    rules.write_text(TABLE, encoding="utf-8")
    env = drain_env(DLQHANDLER_HOME=str(home), DLQHANDLER_LOG_LEVEL="INFO")
    if backend:
        env = {**env, **child_env(), "DLQHANDLER_HOME": str(home)}
        for name in MQ_ENV:
            env.pop(name, None)
    done = run_drain(
        "--rules",
        str(rules),
        "-m",
        "QM1",
        *backend,
        "--apply",
        "--output",
        str(tmp_path / "out"),
        "--master",
        "local[1]",
        cwd=Path(os.getcwd()),
        env={**env, "PYSPARK_PYTHON": sys.executable},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert ("mq_connected" in done.stderr) == bool(backend)  # (the IBM MQ adapter's MQCONNX)
    _check(book, cases)
