"""``dlqhandler check``'s alias and remote findings on real definitions made with MQSC
(QREMOTE, queue manager aliases, DEFXMITQ, QALIAS), on the embedded queue manager and
through IBM's ibmmq package on the MQI stand-in (``--backend ibmmq``): the same findings
on both, and each one agreeing with what the rule's put really does (MQPUT1 to the
destination succeeds where the check finds no error, fails where it finds one).

IBM, Name resolution (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): "the
call resolves the name either to a local queue or to a transmission queue"; XmitQName
(https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q103620_.html): "If there
is no queue with the name RemoteQMgrName, the queue identified by the DefXmitQName queue
manager attribute is used".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import PutOptions, connect
from tests.cli.test_check import bad, check, found, home, mqsc, rules
from tests.mqi.build import load

__all__ = ["home"]  # (the fixture, shared with tests/cli/test_check.py)

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
BACKENDS = {"embedded": (), "ibmmq": ("--backend", "ibmmq")}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, home: Path) -> Iterator[tuple[str, ...]]:
    """The command-line arguments of each back end (the stand-in on QM1's home)."""
    if request.param == "embedded":
        yield ()
        return
    state = load()
    state.reset(home=home)
    yield BACKENDS["ibmmq"]
    assert state.calls.get("MQINQ"), "the check went through IBM's library"
    assert not state.errors, state.errors
    state.reset()


def _puts(home: Path, queue: str, qmgr: str = "") -> int:
    """What the rule's MQPUT1 gives: 0, or the reason it fails with (nothing stays put)."""
    qm = connect("QM1", home=home)
    try:
        qm.put1(queue, Message(MQMD(), b"probe"), PutOptions(syncpoint=True), qmgr=qmgr)
    except MQIError as exc:
        return exc.reason
    else:
        return 0
    finally:
        qm.backout()
        qm.disconnect()


def _run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, backend: tuple[str, ...], table: str
) -> dict[str, Any]:
    _, report = check(capsys, "--rules", rules(tmp_path, table), *backend)
    return report


SETUPS = [
    # (MQSC, FWDQ, FWDQM, expected errors and warnings, the put's reason)
    (
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)",
        "CENTRAL",
        "",
        [],
        0,
    ),
    (
        "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)",
        "CENTRAL",
        "",
        [("rules-xmitq", "error")],
        2087,
    ),
    (
        (
            "DEFINE QLOCAL(DEF.XMITQ) USAGE(XMITQ)\nALTER QMGR DEFXMITQ(DEF.XMITQ)\n"
            "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)"
        ),
        "CENTRAL",
        "",
        [],
        0,
    ),
    (
        "DEFINE QLOCAL(PLAIN)\nDEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) XMITQ(PLAIN)",
        "CENTRAL",
        "",
        [("rules-xmitq", "error")],
        2092,
    ),
    (
        "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) XMITQ(NO.SUCH.Q)",
        "CENTRAL",
        "",
        [("rules-xmitq", "error")],
        2196,
    ),
    (
        (
            "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
            "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) PUT(DISABLED)"
        ),
        "CENTRAL",
        "",
        [("rules-target", "error")],
        2051,
    ),
    (
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE QREMOTE(CENTRAL) RQMNAME(QM2)",
        "CENTRAL",
        "",
        [("rules-target", "error")],
        2184,
    ),
    (
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM1)",
        "CENTRAL",
        "",
        [("rules-target", "error")],
        2087,
    ),
    # a queue manager alias with its own transmission queue
    (
        "DEFINE QLOCAL(TO.QM2) USAGE(XMITQ)\nDEFINE QREMOTE(HUB) RQMNAME(QM2) XMITQ(TO.QM2)",
        "APP.IN",
        "HUB",
        [],
        0,
    ),
    # a queue manager alias of this queue manager: the queue is a local one
    ("DEFINE QREMOTE(OLD.NAME) RQMNAME(QM1)", "APP.IN", "OLD.NAME", [], 0),
    (
        "DEFINE QREMOTE(OLD.NAME) RQMNAME(QM1) PUT(DISABLED)",
        "APP.IN",
        "OLD.NAME",
        [("rules-target", "error")],
        2051,
    ),
    (
        "DEFINE QREMOTE(OLD.NAME) RQMNAME(QM1)",
        "NO.SUCH.Q",
        "OLD.NAME",
        [("rules-target", "error")],
        2085,
    ),
    # another queue manager: its transmission queue, else DEFXMITQ, else nothing
    ("DEFINE QLOCAL(QM7) USAGE(XMITQ)", "APP.IN", "QM7", [], 0),
    ("", "APP.IN", "QM7", [("rules-xmitq", "error")], 2087),
    (
        "DEFINE QLOCAL(DEF.XMITQ) USAGE(XMITQ)\nALTER QMGR DEFXMITQ(DEF.XMITQ)",
        "APP.IN",
        "QM7",
        [],
        0,
    ),
    (
        "DEFINE QLOCAL(PLAIN)\nALTER QMGR DEFXMITQ(PLAIN)",
        "APP.IN",
        "QM7",
        [("rules-xmitq", "error")],
        2199,
    ),
    # an alias queue: of a local queue, or of the DLQ itself (a loop)
    ("DEFINE QALIAS(APP.ALIAS) TARGET(APP.IN)", "APP.ALIAS", "", [], 0),
    (f"DEFINE QALIAS(BACK) TARGET({DLQ})", "BACK", "", [("rules-loop", "error")], 0),
    ("DEFINE QALIAS(NOWHERE) TARGET(NO.SUCH.Q)", "NOWHERE", "", [("rules-target", "error")], 2082),
    # an alias queue of a remote queue definition: through it to the transmission queue
    (
        (
            "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
            "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)\n"
            "DEFINE QALIAS(TO.CENTRAL) TARGET(CENTRAL)"
        ),
        "TO.CENTRAL",
        "",
        [],
        0,
    ),
    (
        (
            "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)\n"
            "DEFINE QALIAS(TO.CENTRAL) TARGET(CENTRAL)"
        ),
        "TO.CENTRAL",
        "",
        [("rules-xmitq", "error")],
        2087,
    ),
    (
        (
            "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
            "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)\n"
            "DEFINE QALIAS(TO.CENTRAL) TARGET(CENTRAL) PUT(DISABLED)"
        ),
        "TO.CENTRAL",
        "",
        [("rules-target", "error")],
        2051,
    ),
]


@pytest.mark.parametrize(("commands", "fwdq", "fwdqm", "expected", "reason"), SETUPS)
def test_findings_on_real_definitions_agree_with_the_put(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    backend: tuple[str, ...],
    commands: str,
    fwdq: str,
    fwdqm: str,
    expected: list[tuple[str, str]],
    reason: int,
) -> None:
    """A rule ACTION(FWD) FWDQ(...) [FWDQM(...)] on definitions made with MQSC: check finds
    exactly the expected errors (none where the destination resolves), on both back ends,
    and the rule's put to that destination fails with the reason IBM gives exactly when
    check finds a destination error (a forwarding loop puts, and loops).

    IBM, Name resolution (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): "the
    call resolves the name either to a local queue or to a transmission queue"."""
    if commands:
        mqsc(home, commands)
    table = f"ACTION(FWD) FWDQ({fwdq})" + (f" FWDQM({fwdqm})" if fwdqm else "") + "\n"
    report = _run(capsys, tmp_path, backend, table)
    assert bad(report) == expected
    assert _puts(home, fwdq, fwdqm) == reason


def test_deadq_as_alias_and_as_remote_definition(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: tuple[str, ...]
) -> None:
    """DEADQ naming a QALIAS of SYSTEM.DEAD.LETTER.QUEUE: a warning whose fix names the
    base queue; DEADQ naming a QREMOTE: an error (a remote definition cannot hold dead
    letters). Both back ends, on real definitions.
    IBM, DeadLetterQName (https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q102290_.html): "the
    name of a queue defined on the local queue manager as the dead-letter
    (undelivered-message) queue"."""
    mqsc(home, f"DEFINE QALIAS(DLQ.ALIAS) TARGET({DLQ})\nALTER QMGR DEADQ(DLQ.ALIAS)")
    report = _run(capsys, tmp_path, backend, "ACTION(FWD) FWDQ(DLQ.CATCHALL)\n")
    assert bad(report) == [("deadq-local", "warning")]
    assert found(report, "deadq-local") == [("warning", "QALIAS(DLQ.ALIAS)")]
    mqsc(
        home,
        "DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE QREMOTE(DLQ.REMOTE) RNAME(DLQ) RQMNAME(QM2)\n"
        "ALTER QMGR DEADQ(DLQ.REMOTE)",
    )
    report = _run(capsys, tmp_path, backend, "ACTION(FWD) FWDQ(DLQ.CATCHALL)\n")
    assert ("deadq-local", "error") in bad(report)
    assert found(report, "deadq-local") == [("error", "QUEUE(DLQ.REMOTE)")]
