"""Issue 33, class 6: the handler's control queues. The input DLQ, the status queue (attempt
counts) and the audit queue (audit records) are three different queues, and no action puts
a dead letter on the status or audit queue of the local queue manager: ``run`` (with a
table or a one-off action), its hot reload, ``drain --apply`` and ``check`` refuse it before
anything moves (exit 2; ``check``: an error finding); a target known only per message (a
RETRY to a DestQName that is a control queue, a FWDQ(&DESTQ)) is refused per message,
counted as ``CONTROL_QUEUE``, and the message stays on the DLQ."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main
from dlqhandler.mq.constants import MQRC_Q_FULL, MQRC_UNKNOWN_OBJECT_NAME
from dlqhandler.worker.options import HandlerOptions
from dlqhandler.worker.reload import RulesReloader
from tests.worker.helpers import DLQ, RunCli, browse, dead_letter, define, depth, load

STATUS, AUDIT = "DLQHANDLER.STATUS", "DLQHANDLER.AUDIT"


def _oneoff(*extra: str) -> list[str]:
    return ["run", "--match", "REASON(MQRC_Q_FULL)", "--reason", "control", "--no-watch", *extra]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            _oneoff("--action", "retry", "--status-queue", DLQ),
            f"{DLQ} is both the input dead-letter queue and the status queue",
        ),
        (
            _oneoff("--action", "retry", "--audit-queue", DLQ),
            f"{DLQ} is both the input dead-letter queue and the audit queue",
        ),
        (
            _oneoff("--action", "retry", "--audit-queue", STATUS),
            f"{STATUS} is both the status queue (--status-queue) and the audit queue",
        ),
        (
            _oneoff("--action", f"fwd:{STATUS}"),
            f"the target {STATUS} is the handler's status queue",
        ),
        (
            _oneoff("--action", f"fwd:{AUDIT}@QM1", "--header", "no"),
            f"the target {AUDIT} is the handler's audit queue",
        ),
        (
            _oneoff("--action", "fwd:MY.AUDIT", "--audit-queue", "MY.AUDIT"),
            "the target MY.AUDIT is the handler's audit queue",
        ),
    ],
    ids=[
        "status-is-dlq",
        "audit-is-dlq",
        "status-is-audit",
        "fwd-status",
        "fwd-audit",
        "own-audit",
    ],
)
def test_a_run_naming_a_control_queue_twice_or_as_a_target_is_refused_before_anything_moves(
    qm, ledger, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    """A one-off action whose status or audit queue is the DLQ (or each other), or that
    forwards to the status or audit queue: exit 2 with a message naming the queue and
    the rule, nothing moved, no record written anywhere (depths unchanged)."""
    define(qm, "APP.Q", STATUS, AUDIT)
    load(qm, [dead_letter(f"m{i}", reason=MQRC_Q_FULL, destq="APP.Q") for i in range(3)])
    book = ledger()

    rc = main(args)

    err = capsys.readouterr().err
    assert rc == 2, err
    assert says in err
    assert "Traceback" not in err
    book.check([])
    assert depth(qm, STATUS) == depth(qm, AUDIT) == depth(qm, "APP.Q") == 0


def test_a_table_that_forwards_to_a_control_queue_is_refused(qm, ledger, run_cli: RunCli) -> None:
    """A rules table whose FWDQ names the status or the audit queue outright: exit 2 with
    every such rule named by file and line, before anything moves."""
    define(qm, STATUS, AUDIT)
    load(qm, [dead_letter("m", reason=MQRC_Q_FULL)])
    book = ledger()

    run = run_cli(
        f"REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ({STATUS})\nACTION(FWD) FWDQ({AUDIT}) HEADER(NO)\n"
    )

    assert run.rc == 2, run.err
    assert f"rules.rul:1: ACTION(FWD) FWDQ({STATUS}) is the handler's status queue" in run.err
    assert f"rules.rul:2: ACTION(FWD) FWDQ({AUDIT}) is the handler's audit queue" in run.err
    book.check([])
    assert depth(qm, STATUS) == depth(qm, AUDIT) == 0


@pytest.mark.parametrize("fwdqm", ["&DESTQM", "&REPLYQM", "QM1", "QM2"])
def test_a_fwdq_naming_a_control_queue_is_refused_whatever_its_fwdqm(
    qm, ledger, run_cli: RunCli, tmp_path: Path, capsys: pytest.CaptureFixture[str], fwdqm: str
) -> None:
    """FWDQ(DLQHANDLER.STATUS) with FWDQM(&DESTQM) or &REPLYQM (this queue manager for any
    message naming it), this queue manager's name, or another's (where it would land among
    that handler's records): refused before anything moves by run (exit 2) and an error
    finding of check. Found by the model test's long profile."""
    define(qm, STATUS, AUDIT)
    load(qm, [dead_letter("m", reason=MQRC_Q_FULL)])
    book = ledger()
    table = f"ACTION(FWD) FWDQ({STATUS}) FWDQM({fwdqm}) HEADER(NO)\n"

    run = run_cli(table)

    assert run.rc == 2, run.err
    assert f"FWDQ({STATUS}) is the handler's status queue" in run.err
    book.check([])
    path = tmp_path / "c.rul"
    path.write_text(table)
    capsys.readouterr()
    main(["check", "QM1", "--rules", str(path), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["severity"] for f in findings if f["check"] == "rules-control-queue"] == ["error"]


def test_a_dlq_that_is_the_status_queue_is_refused_and_check_says_so(
    qm, capsys: pytest.CaptureFixture[str], run_cli: RunCli
) -> None:
    """`ALTER QMGR DEADQ(DLQHANDLER.STATUS)`: `run ' '` (the DEADQ) refuses to start (exit
    2), and `check` reports it as an error finding with the MQSC that fixes it (exit 1)."""
    define(qm, STATUS, AUDIT)
    qm.admin().alter_qmgr({"DEADQ": STATUS})  # type: ignore[attr-defined]

    run = run_cli("ACTION(DISCARD)\n", " ")
    assert run.rc == 2, run.err
    assert f"{STATUS} is both the input dead-letter queue and the status queue" in run.err

    capsys.readouterr()
    rc = main(["check", "QM1", "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert rc == 1
    control = [f for f in findings if f["check"] == "control-queues"]
    assert [f["severity"] for f in control] == ["error"]
    assert "ALTER QMGR DEADQ(SYSTEM.DEAD.LETTER.QUEUE)" in control[0]["fix"]


def test_check_reports_a_rule_forwarding_to_a_control_queue(
    qm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check --rules` on a table forwarding to the audit queue: an error finding naming
    the rule's file and line; on a sound set-up the control-queues finding is ok."""
    define(qm, STATUS, AUDIT, "CATCH")
    table = tmp_path / "t.rul"
    table.write_text(f"ACTION(FWD) FWDQ({AUDIT})\n")
    good = tmp_path / "good.rul"
    good.write_text("ACTION(FWD) FWDQ(CATCH)\n")

    rc = main(["check", "QM1", "--rules", str(table), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert rc == 1
    bad = [f for f in findings if f["check"] == "rules-control-queue"]
    assert len(bad) == 1
    assert bad[0]["object"] == f"{table}:1"
    assert "audit queue" in bad[0]["problem"]

    main(["check", "QM1", "--rules", str(good), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["severity"] for f in findings if f["check"] == "control-queues"] == ["ok"]
    assert not [f for f in findings if f["check"] == "rules-control-queue"]


def test_a_target_known_per_message_that_is_a_control_queue_is_refused_per_message(
    qm, ledger, run_cli: RunCli
) -> None:
    """A RETRY of a dead letter whose DestQName is the status queue, and a FWDQ(&DESTQ) of
    one whose DestQName is the audit queue: refused per message (CONTROL_QUEUE in the
    summary, exit 6), the messages stay on the DLQ, and the status and audit queues hold
    no dead letter (only attempt records on the status queue)."""
    define(qm, STATUS, AUDIT)
    to_status = dead_letter("to status", reason=MQRC_Q_FULL, destq=STATUS, tag="S")
    to_audit = dead_letter("to audit", reason=MQRC_UNKNOWN_OBJECT_NAME, destq=AUDIT, tag="A")
    load(qm, [to_status, to_audit])
    book = ledger()

    run = run_cli(
        "RETRYINT(3600) WAIT(NO)\n"
        "REASON(MQRC_Q_FULL) ACTION(RETRY)\n"
        "REASON(MQRC_UNKNOWN_OBJECT_NAME) ACTION(FWD) FWDQ(&DESTQ)\n"
    )

    assert run.rc == 6, run.err
    assert "CONTROL_QUEUE" in run.out
    assert {e["reason_name"] for e in run.events("put_failed")} == {"CONTROL_QUEUE"}
    book.check([])
    assert depth(qm, AUDIT) == 0
    assert all(m.md.format.strip() != "MQDEAD" for m in browse(qm, STATUS))


def test_a_reload_that_forwards_to_a_control_queue_is_rejected_and_the_old_table_kept(
    tmp_path: Path,
) -> None:
    """Hot reload: a new table forwarding to the status queue is rejected as a table with
    errors is (the old one stays, the refusal is logged with its file and line)."""
    from structlog.testing import capture_logs

    path = tmp_path / "t.rul"
    path.write_text("ACTION(FWD) FWDQ(CATCH)\n")
    installed: list[Any] = []
    control = HandlerOptions(input_queue=DLQ).control
    reloader = RulesReloader(
        path,
        installed.append,
        current_sha256="0",
        refusals=lambda rs: control.refusals(rs.rules, source=str(path)),
    )
    path.write_text(f"ACTION(FWD) FWDQ({STATUS})\n")
    with capture_logs() as logs:
        assert reloader.reload_now() is False
    assert installed == []
    assert reloader.rejected == 1
    refused = [e for e in logs if e["event"] == "rules_refused"]
    assert refused
    assert f"{path}:1: ACTION(FWD) FWDQ({STATUS})" in refused[0]["detail"]
    path.write_text("ACTION(FWD) FWDQ(OTHER)\n")
    assert reloader.reload_now() is True
    assert len(installed) == 1


@pytest.mark.parametrize(
    ("table", "extra", "says"),
    [
        (f"ACTION(FWD) FWDQ({STATUS})\n", [], f"FWDQ({STATUS}) is the handler's status queue"),
        (
            "ACTION(RETRY)\n",
            ["--catch-all", AUDIT],
            f"--catch-all {AUDIT} is the audit queue",
        ),
        ("ACTION(RETRY)\n", ["--catch-all", DLQ], f"--catch-all {DLQ} is the input dead-letter"),
        (
            "ACTION(RETRY)\n",
            ["--status-queue", DLQ],
            f"{DLQ} is both the input dead-letter queue and the status queue",
        ),
    ],
    ids=["fwd-status", "catch-all-audit", "catch-all-dlq", "status-is-dlq"],
)
def test_drain_apply_refuses_a_control_queue_before_anything_moves(
    qm, ledger, tmp_path: Path, capsys: pytest.CaptureFixture[str], table, extra, says
) -> None:
    """`drain -m QM1 --apply` refuses what `run` refuses, before Spark starts and before
    anything moves: a rule or a --catch-all naming the status or audit queue (or the DLQ
    itself), a status queue that is the DLQ. Exit 2, the messages all still on the DLQ."""
    define(qm, "APP.Q", STATUS, AUDIT)
    load(qm, [dead_letter(f"m{i}", reason=MQRC_Q_FULL, destq="APP.Q") for i in range(3)])
    book = ledger()
    rules = tmp_path / "t.rul"
    rules.write_text(table)

    out = str(tmp_path / "o")
    rc = main(["drain", "-m", "QM1", "--apply", "--rules", str(rules), "--output", out, *extra])

    err = capsys.readouterr().err
    assert rc == 2, err
    assert says in err
    book.check([])
    assert depth(qm, STATUS) == depth(qm, AUDIT) == depth(qm, "APP.Q") == 0
