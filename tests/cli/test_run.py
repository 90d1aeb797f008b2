"""`dlqhandler run` as runmqdlq is invoked: where the rules and the queue come from, exit codes."""

from __future__ import annotations

import io

import pytest

from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from tests.worker.helpers import DLQ, Ledger, RunCli, alter, dead_letter, define, depth, load


def test_a_table_with_errors_processes_nothing(qm, ledger, run_cli: RunCli) -> None:
    """Like runmqdlq, the whole table is validated first: any error ends the run with
    exit 3 before the queue manager is touched, every diagnostic shown with its line."""
    load(qm, [dead_letter("untouched")])
    book = ledger()

    run = run_cli("WAIT(NO)\nREASON(NOT_A_REASON) ACTION(DISCARD)\nACTION(FWDD)\n")

    assert run.rc == ExitCode.RULES_ERROR
    assert "AMQ8708" not in run.out
    assert ":2:" in run.err
    assert ":3:" in run.err
    assert "^" in run.err
    assert "AMQ8758" in run.err
    book.check([])


def test_rules_from_stdin_and_positional_queue_override(qm, ledger, monkeypatch, capsys) -> None:
    """Without --rules the table is read from stdin (runmqdlq < rules); a positional
    INPUTQ overrides the table's INPUTQ, and ' ' means the queue manager's DEADQ."""
    define(qm, "OTHER.DLQ", "CATCH")
    load(qm, [dead_letter("on the deadq")])
    load(qm, [dead_letter("on the other")], queue="OTHER.DLQ")
    book = ledger()
    book.original.update(Ledger.of(qm, "OTHER.DLQ").original)
    table = "INPUTQ(OTHER.DLQ) WAIT(NO)\nACTION(FWD) FWDQ(CATCH)\n"

    monkeypatch.setattr("sys.stdin", io.StringIO(table))
    assert main(["run", " ", "QM1", "--log-format", "json"]) == 0
    assert "INPUTQ(SYSTEM.DEAD.LETTER.QUEUE)" in capsys.readouterr().out
    assert (depth(qm, DLQ), depth(qm, "OTHER.DLQ"), depth(qm, "CATCH")) == (0, 1, 1)

    monkeypatch.setattr("sys.stdin", io.StringIO(table))
    assert main(["run", "--log-format", "json"]) == 0
    assert "INPUTQ(OTHER.DLQ)" in capsys.readouterr().out
    assert depth(qm, "CATCH") == 2
    book.check(["CATCH"])


@pytest.mark.parametrize(
    ("args", "code", "amq"),
    [
        (["NO.SUCH.QUEUE"], ExitCode.CONNECTION_ERROR, "AMQ8745"),
        ([DLQ, "NO.SUCH.QM"], ExitCode.CONNECTION_ERROR, "AMQ8741"),
    ],
)
def test_cannot_open_or_connect(qm, run_cli: RunCli, args, code, amq) -> None:
    """An unknown queue or queue manager ends the run with the connection exit code."""
    run = run_cli("WAIT(NO)\nACTION(DISCARD)\n", *args)
    assert run.rc == code
    assert amq in run.err


def test_get_inhibited_dlq_ends_with_a_fatal_mq_error(qm, ledger, run_cli: RunCli) -> None:
    """ALTER QLOCAL(DLQ) GET(DISABLED) stops the handler (reason 2016, spec §5.4):
    exit 5, nothing lost, the summary still printed."""
    load(qm, [dead_letter("stays")])
    book = ledger()
    alter(qm, DLQ, get="DISABLED")

    run = run_cli("WAIT(YES)\nACTION(DISCARD)\n")

    assert run.rc == ExitCode.MQ_ERROR
    assert "AMQ8709" in run.out
    [error] = run.events("handler_mq_error")
    assert error["reason"] == 2016
    alter(qm, DLQ, get="ENABLED")
    book.check([])


def test_started_by_a_trigger_monitor_takes_queue_and_qmgr_from_mqtmc2(
    qm, ledger, run_cli: RunCli
) -> None:
    """Like runmqdlq under runmqtrm: the MQTMC2 argument names the DLQ and the queue
    manager (it overrides the table's INPUTQ); the names are validated first."""
    from dlqhandler.mq.mqtm import MQTM

    define(qm, "OTHER.DLQ", "CATCH")
    load(qm, [dead_letter("triggered")], queue="OTHER.DLQ")
    book = Ledger.of(qm, "OTHER.DLQ")
    tmc = MQTM(
        q_name="OTHER.DLQ", process_name="DLQ.HANDLER", appl_type=6, appl_id="dlqhandler run"
    ).to_mqtmc2("QM1")
    run = run_cli(
        "INPUTQ(SYSTEM.DEAD.LETTER.QUEUE) WAIT(NO)\nACTION(FWD) FWDQ(CATCH)\n", tmc.to_argv()
    )
    assert run.rc == ExitCode.OK
    assert "INPUTQ(OTHER.DLQ)" in run.out
    assert depth(qm, "CATCH") == 1
    book.check(["CATCH"])


def test_a_crafted_mqtmc2_is_refused(qm, run_cli: RunCli) -> None:
    """A trigger argument whose QName is not a valid MQ name is a usage error."""
    from dlqhandler.mq.mqtm import MQTM

    tmc = MQTM(q_name="BAD;NAME&X").to_mqtmc2("QM1")
    run = run_cli("WAIT(NO)\nACTION(DISCARD)\n", tmc.to_argv())
    assert run.rc == ExitCode.USAGE
    assert "trigger message argument" in run.err
