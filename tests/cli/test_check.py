"""``dlqhandler check`` end to end through the command line, on embedded queue managers set
up with MQSC (the shipped ops/mqsc files, then one misconfiguration at a time), and through
IBM's ibmmq package on the MQI stand-in."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.mq import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.qmgr import PutOptions, connect, create_qmgr
from dlqhandler.qmgr.embedded.objects import QUEUE_ATTRS
from tests.mqi.build import load
from tests.worker.helpers import mqsc

ROOT = Path(__file__).resolve().parents[2]
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
CLEAN_RULES = """\
INPUTQ(SYSTEM.DEAD.LETTER.QUEUE) WAIT(NO)
DESTQ(APP.IN) REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)
REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(DLQ.SECURITY)
ACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)
"""
_MQ_ENV = (
    "DLQHANDLER_IBMMQ_QMGR",
    "DLQHANDLER_MQ_TRANSPORT",
    "DLQHANDLER_MQ_CONN_NAME",
    "DLQHANDLER_MQ_CHANNEL",
    "MQSERVER",
    "DLQHANDLER_MQ_USER",
    "DLQHANDLER_QMGR",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """QM1 under a private home with the shipped queues (ops/mqsc/dlq-queues.mqsc) and
    the queue the clean table retries to."""
    path = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(path))
    for name in _MQ_ENV:
        monkeypatch.delenv(name, raising=False)
    create_qmgr(path, "QM1")
    mqsc(path, (ROOT / "ops" / "mqsc" / "dlq-queues.mqsc").read_text(encoding="utf-8"))
    mqsc(path, "DEFINE QLOCAL(APP.IN)")
    yield path
    structlog.reset_defaults()  # check configured logging for the process


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    """``dlqhandler check QM1 --format json ...``: the exit code and the parsed report."""
    code = main(["check", "QM1", "--format", "json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def found(report: dict[str, Any], check_id: str) -> list[tuple[str, str]]:
    """(severity, object) of every finding of one check."""
    return [(f["severity"], f["object"]) for f in report["findings"] if f["check"] == check_id]


def bad(report: dict[str, Any]) -> list[tuple[str, str]]:
    """(check, severity) of every error and warning."""
    return [
        (f["check"], f["severity"])
        for f in report["findings"]
        if f["severity"] in ("error", "warning")
    ]


def rules(tmp_path: Path, text: str = CLEAN_RULES) -> str:
    path = tmp_path / "rules.rul"
    path.write_text(text, encoding="utf-8")
    return str(path)


def put(home: Path, queue: str, count: int) -> None:
    qm = connect("QM1", home=home)
    try:
        for n in range(count):
            qm.put1(queue, Message(MQMD(), f"m{n}".encode()), PutOptions(syncpoint=False))
    finally:
        qm.disconnect()


# -- a clean set-up ----------------------------------------------------------------------------
def test_clean_setup_passes_and_lists_what_it_could_not_check(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped MQSC and a table whose destinations exist: exit 0, no error or warning;
    what the embedded queue manager cannot tell (channels' MAXMSGL, passall) is 'not
    checked', never 'ok'; DEFSOPT(SHARED) and SHARE, IBM's defaults, are 'ok'."""
    code, report = check(capsys, "--rules", rules(tmp_path))
    assert code == ExitCode.OK
    assert bad(report) == []
    assert report["worst"] == "not checked"
    not_checked = {f["check"] for f in report["findings"] if f["severity"] == "not checked"}
    assert {"dlq-channel-maxmsgl", "auth-passall"} <= not_checked
    # PROPCTL is checked once the embedded queue manager keeps it, and not before.
    assert found(report, "dlq-propctl") == [
        ("ok" if "PROPCTL" in QUEUE_ATTRS else "not checked", f"QLOCAL({DLQ})")
    ]
    ok = {f["check"] for f in report["findings"] if f["severity"] == "ok"}
    assert {
        "deadq-set",
        "deadq-local",
        "dlq-maxmsgl",
        "dlq-headroom",
        "dlq-put",
        "dlq-get",
        "dlq-defsopt",
        "dlq-share",
        "status-exists",
        "status-local",
        "status-hardenbo",
        "trigger",
        "rules-inputq",
        "rules-target",
    } <= ok
    assert not ok & not_checked
    targets = found(report, "rules-target")
    assert ("ok", "QUEUE(APP.IN)") in targets
    assert ("ok", "QUEUE(DLQ.CATCHALL)") in targets


def test_json_shape(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--format json is one document: format, qmgr, dlq, worst, counts per severity and
    findings with check, severity, object, problem, why and fix."""
    code, report = check(capsys)
    assert code == ExitCode.OK
    assert set(report) == {"format", "qmgr", "dlq", "worst", "counts", "findings"}
    assert (report["format"], report["qmgr"], report["dlq"]) == ("dlqhandler-check/1", "QM1", DLQ)
    assert set(report["counts"]) == {"error", "warning", "not checked", "ok"}
    assert sum(report["counts"].values()) == len(report["findings"])
    for f in report["findings"]:
        assert set(f) == {"check", "severity", "object", "problem", "why", "fix"}
        assert f["severity"] != "error" or (f["why"] and f["fix"])


def test_text_output_shows_why_and_fix(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The text report puts errors first, then warnings, each with its why and its MQSC
    fix, and ends with the counts; -q leaves out the 'ok' lines."""
    mqsc(home, f"DELETE QLOCAL(DLQHANDLER.STATUS)\nALTER QLOCAL({DLQ}) GET(DISABLED)")
    assert main(["check", "QM1", "-q"]) == ExitCode.FAILURE
    out = capsys.readouterr().out.splitlines()
    assert out[1] == f"ERROR       dlq-get              QLOCAL({DLQ}): GET(DISABLED)"
    assert out[2].strip().startswith("why: the handler cannot get dead letters")
    assert out[3].strip() == f"fix: ALTER QLOCAL({DLQ}) GET(ENABLED)"
    assert out[4].startswith("WARNING     status-exists")
    assert out[5].strip().startswith("why: the handler keeps each dead letter's durable")
    assert out[6].strip() == (
        "fix: DEFINE QLOCAL(DLQHANDLER.STATUS) DESCR('dlqhandler "
        "attempt counts') MAXDEPTH(999999999) DEFPSIST(YES) NOHARDENBO"
    )
    assert not any(line.startswith("ok ") for line in out)
    assert out[-1].startswith("1 error, 1 warning,")


# -- the DEADQ and the dead-letter queue -------------------------------------------------------
@pytest.mark.parametrize(
    ("commands", "check_id", "severity"),
    [
        ("ALTER QMGR DEADQ(' ')", "deadq-set", "error"),
        ("ALTER QMGR DEADQ(NO.SUCH.QUEUE)", "deadq-exists", "error"),
        ("ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) MAXMSGL(65536)", "dlq-maxmsgl", "error"),
        ("ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) PUT(DISABLED)", "dlq-put", "error"),
        ("ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) GET(DISABLED)", "dlq-get", "error"),
        ("ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) DEFSOPT(EXCL)", "dlq-defsopt", "warning"),
        ("ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) NOSHARE", "dlq-share", "warning"),
        ("DELETE QLOCAL(DLQHANDLER.STATUS)", "status-exists", "warning"),
        ("ALTER QLOCAL(DLQHANDLER.STATUS) HARDENBO", "status-hardenbo", "warning"),
        ("ALTER QLOCAL(DLQHANDLER.STATUS) PUT(DISABLED)", "status-put", "error"),
    ],
)
def test_each_misconfiguration_is_found(
    home: Path, capsys: pytest.CaptureFixture[str], commands: str, check_id: str, severity: str
) -> None:
    """One misconfiguration made with MQSC gives exactly its finding, and the exit code
    follows its severity (1 for an error, 0 for a warning); its fix, run as MQSC, clears it."""
    mqsc(home, commands)
    code, report = check(capsys)
    assert bad(report) == [(check_id, severity)]
    assert code == (ExitCode.FAILURE if severity == "error" else ExitCode.OK)
    finding = next(f for f in report["findings"] if f["check"] == check_id)
    assert finding["why"]
    mqsc(home, finding["fix"])
    code, report = check(capsys)
    assert (code, bad(report)) == (ExitCode.OK, [])


@pytest.mark.skipif(
    "PROPCTL" not in QUEUE_ATTRS, reason="this embedded queue manager does not keep PROPCTL yet"
)
def test_propctl_force_is_an_error(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """PROPCTL(FORCE) on the DLQ puts an MQRFH2 before the MQDLH: an error, which its
    fix clears."""
    mqsc(home, f"ALTER QLOCAL({DLQ}) PROPCTL(FORCE)")
    code, report = check(capsys)
    assert (code, bad(report)) == (ExitCode.FAILURE, [("dlq-propctl", "error")])
    mqsc(home, next(f["fix"] for f in report["findings"] if f["check"] == "dlq-propctl"))
    assert check(capsys)[0] == ExitCode.OK


def test_maxmsgl_fix_raises_the_dlq_to_the_queue_managers(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MAXMSGL below the queue manager's: the fix is the ALTER that raises it, and after
    running that MQSC the check passes."""
    mqsc(home, "ALTER QMGR MAXMSGL(8388608)")
    code, report = check(capsys)
    assert code == ExitCode.FAILURE
    fix = next(f["fix"] for f in report["findings"] if f["check"] == "dlq-maxmsgl")
    assert fix == f"ALTER QLOCAL({DLQ}) MAXMSGL(8388608)"
    mqsc(home, fix)
    assert check(capsys)[0] == ExitCode.OK


def test_headroom_warns_when_nearly_full_and_fails_when_full(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MAXDEPTH(5): four dead letters are a warning (over 80%), five an error (full)."""
    mqsc(home, f"ALTER QLOCAL({DLQ}) MAXDEPTH(5)")
    put(home, DLQ, 4)
    code, report = check(capsys)
    assert (code, bad(report)) == (ExitCode.OK, [("dlq-headroom", "warning")])
    put(home, DLQ, 1)
    code, report = check(capsys)
    assert (code, bad(report)) == (ExitCode.FAILURE, [("dlq-headroom", "error")])


# -- triggered start ---------------------------------------------------------------------------
def test_triggered_setup_as_shipped_passes(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ops/mqsc/dlq-triggered.mqsc: TRIGGER TRIGTYPE(FIRST), INITQ and PROCESS exist and
    the process starts dlqhandler run; with no trigger monitor on the initiation queue
    that is the one warning."""
    mqsc(home, (ROOT / "ops" / "mqsc" / "dlq-triggered.mqsc").read_text(encoding="utf-8"))
    code, report = check(capsys)
    assert code == ExitCode.OK
    assert bad(report) == [("trigger-monitor", "warning")]
    assert found(report, "trigger-process") == [("ok", "PROCESS(DLQ.HANDLER)")]
    assert found(report, "trigger-initq") == [("ok", "QLOCAL(DLQ.INITQ)")]


@pytest.mark.parametrize(
    ("commands", "check_id", "severity"),
    [
        ("DELETE QLOCAL(DLQ.INITQ)", "trigger-initq", "error"),
        ("DELETE PROCESS(DLQ.HANDLER)", "trigger-process", "error"),
        (f"ALTER QLOCAL({DLQ}) TRIGTYPE(EVERY)", "trigger-type", "warning"),
        (f"ALTER QLOCAL({DLQ}) TRIGTYPE(NONE)", "trigger-type", "error"),
        ("ALTER PROCESS(DLQ.HANDLER) APPLICID('/usr/bin/true')", "trigger-process", "warning"),
    ],
)
def test_each_trigger_misconfiguration_is_found(
    home: Path, capsys: pytest.CaptureFixture[str], commands: str, check_id: str, severity: str
) -> None:
    """Triggering as shipped, then one thing broken: its finding (besides the missing
    trigger monitor, when the initiation queue exists); its fix, run as MQSC, clears it."""
    mqsc(home, (ROOT / "ops" / "mqsc" / "dlq-triggered.mqsc").read_text(encoding="utf-8"))
    mqsc(home, commands)
    code, report = check(capsys)
    assert (check_id, severity) in bad(report)
    assert set(bad(report)) <= {(check_id, severity), ("trigger-monitor", "warning")}
    assert code == (ExitCode.FAILURE if severity == "error" else ExitCode.OK)
    mqsc(home, next(f["fix"] for f in report["findings"] if f["check"] == check_id))
    code, report = check(capsys)
    assert (code, bad(report)) == (ExitCode.OK, [("trigger-monitor", "warning")])


# -- what the rules table needs ----------------------------------------------------------------
def test_missing_and_put_inhibited_destinations(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FWDQ that does not exist and a RETRY destination (pinned by DESTQ) that is
    PUT(DISABLED) are errors naming their rule lines; a FWDQ(&REPLYQ) is 'not checked'."""
    mqsc(home, "DELETE QLOCAL(DLQ.SECURITY)\nALTER QLOCAL(APP.IN) PUT(DISABLED)")
    table = CLEAN_RULES.replace(
        "ACTION(FWD) FWDQ(DLQ.CATCHALL)",
        "REPLYQ(?*) ACTION(FWD) FWDQ(&REPLYQ)\nACTION(FWD) FWDQ(DLQ.CATCHALL)",
    )
    code, report = check(capsys, "--rules", rules(tmp_path, table))
    assert code == ExitCode.FAILURE
    errors = {(f["object"], f["problem"]) for f in report["findings"] if f["severity"] == "error"}
    assert errors == {
        ("QLOCAL(DLQ.SECURITY)", "DLQ.SECURITY does not exist (rule at line 3)"),
        ("QUEUE(APP.IN)", "APP.IN is PUT(DISABLED) (rule at line 2)"),
    }
    assert ("not checked", "rule at line 4") in found(report, "rules-target")


def test_forwarding_loop_is_w504_against_the_real_deadq(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table without INPUTQ that forwards to the queue manager's real DEADQ: the linter's
    W504 (a loop) as an error, at its line."""
    table = "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(APP.DLQ)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n"
    mqsc(home, "DEFINE QLOCAL(APP.DLQ)\nALTER QMGR DEADQ(APP.DLQ)")
    code, report = check(capsys, "--rules", rules(tmp_path, table))
    assert code == ExitCode.FAILURE
    assert found(report, "rules-loop") == [("error", f"{tmp_path / 'rules.rul'}:1")]


def test_table_reading_another_queue_than_deadq_warns(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """INPUTQ naming a queue other than the DEADQ: the dead letters the queue manager puts
    are not handled by this table (a warning, exit 0)."""
    mqsc(home, "DEFINE QLOCAL(OTHER.DLQ)")
    table = CLEAN_RULES.replace(f"INPUTQ({DLQ})", "INPUTQ(OTHER.DLQ)")
    code, report = check(capsys, "--rules", rules(tmp_path, table))
    assert (code, bad(report)) == (ExitCode.OK, [("rules-inputq", "warning")])


def test_remote_destination_needs_its_transmission_queue(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """FWDQM(QM2) with no transmission queue QM2 is an error; a local queue QM2 that is not
    USAGE(XMITQ) too; once it is a transmission queue the check passes."""
    table = CLEAN_RULES.replace(
        "ACTION(FWD) FWDQ(DLQ.CATCHALL)",
        "DESTQ(REMOTE.*) ACTION(FWD) FWDQ(DLQ.CENTRAL) FWDQM(QM2)\nACTION(FWD) FWDQ(DLQ.CATCHALL)",
    )
    path = rules(tmp_path, table)
    code, report = check(capsys, "--rules", path)
    assert (code, found(report, "rules-xmitq")) == (
        ExitCode.FAILURE,
        [("error", "DLQ.CENTRAL@QM2")],
    )
    mqsc(home, "DEFINE QLOCAL(QM2)")
    code, report = check(capsys, "--rules", path)
    assert (code, found(report, "rules-xmitq")) == (ExitCode.FAILURE, [("error", "QLOCAL(QM2)")])
    mqsc(home, "ALTER QLOCAL(QM2) USAGE(XMITQ)")
    code, report = check(capsys, "--rules", path)
    assert (code, found(report, "rules-xmitq")) == (ExitCode.OK, [("ok", "QLOCAL(QM2)")])


def test_put_authority_is_checked_by_opening_for_output(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An authority record that leaves this user without PUT on a destination: the queue
    manager's own MQOPEN check refuses it and the check reports auth-put as an error;
    nothing is put on the queue."""
    qm = connect("QM1", home=home)
    user = qm.user
    qm.disconnect()
    mqsc(
        home,
        # (INQ too: the check inquires the destination, and MQOPEN for inquiry needs it)
        f"SET AUTHREC PROFILE(DLQ.CATCHALL) OBJTYPE(QUEUE) PRINCIPAL('{user}')"
        " AUTHADD(BROWSE, INQ)",
    )
    code, report = check(capsys, "--rules", rules(tmp_path))
    assert code == ExitCode.FAILURE
    assert found(report, "auth-put") == [("error", "QUEUE(DLQ.CATCHALL)")]
    qm = connect("QM1", home=home)
    assert qm.inquire_queue("DLQ.CATCHALL").curdepth == 0
    qm.disconnect()


def test_a_queue_the_user_cannot_inquire_is_a_finding_and_the_check_goes_on(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A destination and the status queue this user may not inquire (authority records
    without INQ: the MQOPEN for inquiry fails with 2035, "On an MQOPEN or MQPUT1 call, the
    user is not authorized to open the object for the options specified",
    https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html): each is an auth-inq
    error naming the grant, and the check goes on with the other objects (the DLQ, the
    other destinations) and exits 1, not 4."""
    qm = connect("QM1", home=home)
    user = qm.user
    qm.disconnect()
    for queue in ("DLQ.CATCHALL", "DLQHANDLER.STATUS"):
        mqsc(
            home,
            f"SET AUTHREC PROFILE({queue}) OBJTYPE(QUEUE) PRINCIPAL('{user}')"
            " AUTHADD(BROWSE, PUT, GET)",
        )
    code, report = check(capsys, "--rules", rules(tmp_path))
    assert code == ExitCode.FAILURE
    assert found(report, "auth-inq") == [
        ("error", "QUEUE(DLQHANDLER.STATUS)"),
        ("error", "QUEUE(DLQ.CATCHALL)"),
    ]
    [finding] = [f for f in report["findings"] if f["object"] == "QUEUE(DLQ.CATCHALL)"]
    assert "2035" in finding["problem"]
    assert "-n DLQ.CATCHALL -t queue -p <user> +inq" in finding["fix"]
    assert "AUTHADD(INQ)" in finding["fix"]
    assert ("ok", "QUEUE(DLQ.SECURITY)") in found(report, "rules-target")
    assert found(report, "dlq-put") != []


def test_a_queue_manager_the_user_cannot_inquire_is_a_finding(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On the embedded queue manager, a user with an OBJTYPE(QMGR) authority record
    granting CONNECT but not INQ connects, but the inquiry of the queue manager object is
    refused with 2035 (IBM, Granting authority to inquire on a queue manager,
    https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=manager-granting-authority-inquire-queue:
    "setmqaut -m QMgrName -n ObjectProfile -t qmgr -g GroupName +inq"): the check reports
    one auth-inq error on QMGR(QM1) naming that grant, skips the DLQ's checks (its DEADQ
    is unknown) and exits 1."""
    qm = connect("QM1", home=home)
    user = qm.user
    qm.disconnect()
    mqsc(home, f"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{user}') AUTHADD(CONNECT)")
    code, report = check(capsys, "--rules", rules(tmp_path))
    assert code == ExitCode.FAILURE
    assert found(report, "auth-inq") == [("error", "QMGR(QM1)")]
    [finding] = [f for f in report["findings"] if f["check"] == "auth-inq"]
    assert "-t qmgr -p <user> +inq" in finding["fix"]
    assert found(report, "dlq-put") == []


def test_putaut_ctx_lists_altusr_as_not_checked(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PUTAUT(CTX) rule needs altusr, which MQINQ cannot tell: 'not checked', with the
    rule's line."""
    table = CLEAN_RULES.replace("FWDQ(DLQ.SECURITY)", "FWDQ(DLQ.SECURITY) PUTAUT(CTX)")
    code, report = check(capsys, "--rules", rules(tmp_path, table))
    assert code == ExitCode.OK
    altusr = [f for f in report["findings"] if f["check"] == "auth-altusr"]
    assert [f["severity"] for f in altusr] == ["not checked"]
    assert "lines 3" in altusr[0]["problem"]


# -- bad input ---------------------------------------------------------------------------------
def test_missing_queue_manager_is_exit_4(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A queue manager that does not exist: exit 4 and a one-line error naming it."""
    assert main(["check", "NOSUCHQM"]) == ExitCode.CONNECTION_ERROR
    err = capsys.readouterr().err
    assert "NOSUCHQM" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["--status-queue", "BAD QUEUE NAME"],
        ["--channel", "SVRCONN"],
        ["--rules", "/nonexistent/rules.rul"],
    ],
)
def test_bad_arguments_are_exit_2(
    home: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """An invalid status queue name, an IBM MQ option without --backend ibmmq, or a rules
    file that cannot be read: exit 2 with the reason, before connecting."""
    assert main(["check", "QM1", *args]) == ExitCode.USAGE
    assert capsys.readouterr().err.startswith("dlqhandler check: ")


def test_rules_that_do_not_compile_are_exit_3(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table with errors: its diagnostics and exit 3, nothing checked."""
    assert main(["check", "QM1", "--rules", rules(tmp_path, "ACTION(FLY)\n")]) == (
        ExitCode.RULES_ERROR
    )
    captured = capsys.readouterr()
    assert "error[" in captured.err
    assert captured.out == ""


# -- through IBM's library on the MQI stand-in -------------------------------------------------
@pytest.fixture
def standin(home: Path) -> Iterator[Any]:
    """The stand-in libmqm_r on QM1's home (IBM's ibmmq package calls it)."""
    state = load()
    state.reset(home=home)
    yield state
    assert not state.errors, state.errors
    state.reset()


def test_standin_gives_the_same_findings_as_the_embedded_queue_manager(
    home: Path, tmp_path: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same set-up checked through IBM's library (MQOPEN with MQOO_INQUIRE, MQINQ) on
    the stand-in and directly on the embedded queue manager: identical findings, the
    selectors the stand-in does not answer included as 'not checked'."""
    mqsc(home, (ROOT / "ops" / "mqsc" / "dlq-triggered.mqsc").read_text(encoding="utf-8"))
    mqsc(home, "DELETE QLOCAL(DLQ.SECURITY)")
    path = rules(tmp_path)
    embedded = check(capsys, "--rules", path)
    ibmmq = check(capsys, "--rules", path, "--backend", "ibmmq")
    assert ibmmq == embedded
    assert ibmmq[0] == ExitCode.FAILURE
    assert ("rules-target", "error") in bad(ibmmq[1])


def test_exclusive_dlq_is_a_warning_the_same_through_ibmmq(
    home: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DLQ defined DEFSOPT(EXCL) NOSHARE: both warnings (exit 0: one run works on it
    alone, as runmqdlq does, but a second reader gets 2042; see
    tests/cli/test_run_checks.py), through IBM's library (MQINQ
    MQIA_DEF_INPUT_OPEN_OPTION and MQIA_SHAREABILITY on the stand-in) as on the embedded
    queue manager; the fix, run as MQSC, clears them on both.

    IBM, Shareability (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103540_.html):
    MQQA_NOT_SHAREABLE "An MQOPEN call with the MQOO_INPUT_SHARED option is treated as
    MQOO_INPUT_EXCLUSIVE"."""
    mqsc(home, "ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) DEFSOPT(EXCL) NOSHARE")
    embedded = check(capsys)
    ibmmq = check(capsys, "--backend", "ibmmq")
    assert ibmmq == embedded
    assert (ibmmq[0], bad(ibmmq[1])) == (
        ExitCode.OK,
        [("dlq-defsopt", "warning"), ("dlq-share", "warning")],
    )
    fix = next(f["fix"] for f in ibmmq[1]["findings"] if f["check"] == "dlq-defsopt")
    mqsc(home, fix)
    for args in ((), ("--backend", "ibmmq")):
        code, report = check(capsys, *args)
        assert (code, bad(report)) == (ExitCode.OK, [])


def test_missing_status_queue_is_an_error_through_ibmmq(
    home: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through IBM's library run does not define the status queue: missing, it is an
    error (exit 1), where the embedded back end, whose run defines it, warns."""
    mqsc(home, "DELETE QLOCAL(DLQHANDLER.STATUS)")
    code, report = check(capsys, "--backend", "ibmmq")
    assert (code, bad(report)) == (ExitCode.FAILURE, [("status-exists", "error")])
    code, report = check(capsys)
    assert (code, bad(report)) == (ExitCode.OK, [("status-exists", "warning")])


def test_missing_queue_manager_through_ibmmq_is_exit_4(
    home: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through IBM's library, a queue manager MQCONNX cannot reach: exit 4 and the
    reason, no traceback."""
    assert main(["check", "NOSUCHQM", "--backend", "ibmmq"]) == ExitCode.CONNECTION_ERROR
    err = capsys.readouterr().err
    assert "MQRC_Q_MGR_NAME_ERROR (2058)" in err
    assert "Traceback" not in err


def test_run_on_the_standin_names_the_missing_status_queue(
    home: Path,
    tmp_path: Path,
    standin: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """dlqhandler run --backend ibmmq without DLQHANDLER.STATUS: exit 4 and an error that
    names the status queue, why it is needed and the MQSC that defines it, not the bare
    MQOPEN reason; nothing is taken off the DLQ."""
    import dlqhandler.cli.run as run_module

    monkeypatch.setattr(run_module, "configure_logging", lambda **_: None)
    mqsc(home, "DELETE QLOCAL(DLQHANDLER.STATUS)")
    put(home, DLQ, 2)
    code = main(["run", "--backend", "ibmmq", "--rules", rules(tmp_path), "--no-watch", DLQ, "QM1"])
    err = capsys.readouterr().err
    assert code == ExitCode.CONNECTION_ERROR
    assert (
        "the status queue DLQHANDLER.STATUS does not exist on queue manager QM1 (it "
        "holds the handler's durable attempt counts); define it: DEFINE "
        "QLOCAL(DLQHANDLER.STATUS)"
    ) in err
    assert "MQOPEN DLQHANDLER.STATUS" not in err
    qm = connect("QM1", home=home)
    assert qm.inquire_queue(DLQ).curdepth == 2
    qm.disconnect()


def test_drain_apply_on_the_standin_names_the_missing_status_queue(
    home: Path, tmp_path: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """dlqhandler drain -m QM1 --apply --backend ibmmq without DLQHANDLER.STATUS stops
    before Spark starts with the same wording, and writes nothing."""
    mqsc(home, "DELETE QLOCAL(DLQHANDLER.STATUS)")
    put(home, DLQ, 1)
    out = tmp_path / "out"
    code = main(
        [
            "drain",
            "-m",
            "QM1",
            "--backend",
            "ibmmq",
            "--apply",
            "--rules",
            rules(tmp_path),
            "--output",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code != ExitCode.OK
    assert "the status queue DLQHANDLER.STATUS does not exist on queue manager QM1" in err
    assert "DEFINE QLOCAL(DLQHANDLER.STATUS)" in err
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize(
    ("deadq", "words"),
    [
        ("'my dlq'", "DEADQ 'my dlq' contains characters not allowed in MQ names (' ')"),
        ("'app.dlq'", "DEADQ names app.dlq, which does not exist"),
        ("'Dlq/Q%1'", "DEADQ names Dlq/Q%1, which does not exist"),
    ],
)
def test_the_deadq_fix_is_mqsc_that_qm_mqsc_takes(
    home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    deadq: str,
    words: str,
) -> None:
    """A DEADQ that is not a valid queue name ('my dlq': a blank) or names a queue with
    lower case that does not exist: the error says which, and its fix, fed to
    ``dlqhandler qm mqsc`` as printed, runs (exit 0) and clears it. Names are quoted
    where IBM's MQSC rules need it: "Strings that contain blanks, lowercase characters
    or special characters ... must be enclosed in single quotation marks", unquoted
    lower case being folded to upper case
    (https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=commands-mqsc-command-syntax);
    the fix used to be DEFINE QLOCAL(my dlq), which qm mqsc refused."""
    mqsc(home, f"ALTER QMGR DEADQ({deadq})")
    code, report = check(capsys)
    assert code == ExitCode.FAILURE
    assert bad(report) == [("deadq-exists", "error")]
    finding = next(f for f in report["findings"] if f["check"] == "deadq-exists")
    assert words in finding["problem"]
    monkeypatch.setattr("sys.stdin", io.StringIO(finding["fix"] + "\n"))
    assert main(["qm", "mqsc", "QM1"]) == 0
    assert "No commands have a syntax error." in capsys.readouterr().out
    code, report = check(capsys)
    assert (code, bad(report)) == (ExitCode.OK, [])
