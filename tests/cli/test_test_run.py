"""``dlqhandler test`` holds a table to what ``dlqhandler run`` would do, started as the
case file (its ``run:`` key) or the command line says: the input DLQ and the local queue
manager (INPUTQ/INPUTQM), the control queues (--status-queue, --audit-queue) and
--max-hops. Where it matters, ``run`` itself is started on the embedded queue manager with
the same table and the same message, and the case must say what it did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dlqhandler.acting import DEFAULT_AUDIT_QUEUE
from dlqhandler.cases import RunSetup, read_cases, run_as, run_cases
from dlqhandler.cases.runner import (
    ASSUMED_DEADQ,
    DEFAULT_MAX_HOPS,
)
from dlqhandler.cases.runner import (
    DEFAULT_AUDIT_QUEUE as CASES_AUDIT_QUEUE,
)
from dlqhandler.cases.runner import (
    DEFAULT_STATUS_QUEUE as CASES_STATUS_QUEUE,
)
from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.formats import read_dump, write_dump
from dlqhandler.mq import Message
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.rules import ControlData, Matcher, compile_rules_or_raise, message_fields
from dlqhandler.rules.outgoing import header_depth
from dlqhandler.worker import HandlerOptions
from tests.cli.helpers import BACKLOG, DEMO, ROOT, DlqTest, Write
from tests.worker.helpers import DLQ, RunCli, browse, dead_letter, define, depth, load

Out = pytest.CaptureFixture[str]

# "Any INPUTQ value you supply as a parameter to the runmqdlq command overrides any
# INPUTQ value in the rules table." (IBM MQ, DLQ control data,
# https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=table-dlq-control-data)
CONTROL_DATA_PAGE = "https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=table-dlq-control-data"


def test_the_defaults_are_runs_own() -> None:
    """With nothing said, a case is checked against run's defaults: the status and audit
    queues, --max-hops and the DLQ assumed for the queue manager's DEADQ are the
    constants and option defaults ``run`` uses."""
    import argparse

    from dlqhandler.cli import run as run_command

    parser = argparse.ArgumentParser()
    run_command.register(parser.add_subparsers())
    args = parser.parse_args(["run"])
    assert (CASES_STATUS_QUEUE, CASES_AUDIT_QUEUE) == (DEFAULT_STATUS_QUEUE, DEFAULT_AUDIT_QUEUE)
    assert DEFAULT_MAX_HOPS == args.max_hops == HandlerOptions("Q").max_hops
    assert (args.status_queue, args.audit_queue) == (DEFAULT_STATUS_QUEUE, DEFAULT_AUDIT_QUEUE)
    how = run_as(RunSetup(), ControlData())
    assert (how.input_queue, how.local_qmgr, how.max_hops) == (ASSUMED_DEADQ, "", 5)


def test_inputq_given_overrides_the_tables_as_runmqdlq_does() -> None:
    """INPUTQ and INPUTQM given (run:, or the command line) win over the table's control
    data, which wins over the queue manager's DEADQ: "Any INPUTQ value you supply as a
    parameter to the runmqdlq command overrides any INPUTQ value in the rules table"
    (IBM MQ, DLQ control data, CONTROL_DATA_PAGE)."""
    table = ControlData(inputq="TABLE.DLQ", inputqm="QMT")
    assert run_as(RunSetup(), table).input_queue == "TABLE.DLQ"
    assert run_as(RunSetup(), table).local_qmgr == "QMT"
    given = run_as(RunSetup(inputq="GIVEN.DLQ", inputqm="QMG"), table)
    assert (given.input_queue, given.local_qmgr) == ("GIVEN.DLQ", "QMG")
    cli = RunSetup(status_queue="CLI.STATUS", max_hops=3)
    merged = cli.over(RunSetup(status_queue="FILE.STATUS", audit_queue="FILE.AUDIT"))
    assert merged == RunSetup(status_queue="CLI.STATUS", audit_queue="FILE.AUDIT", max_hops=3)


RENAMED = """\
rules: r.rul
run:
  inputq: MY.DLQ
  inputqm: QM1
  status_queue: MY.STATUS
  audit_queue: MY.AUDIT
  max_hops: 3
tests:
  - name: to the renamed status queue
    message: {REPLYQ: MY.STATUS}
    expect: {action: FWD, fwdq: MY.STATUS}
  - name: to the renamed audit queue
    message: {REPLYQ: MY.AUDIT}
    expect: {action: FWD, fwdq: MY.AUDIT}
  - name: to the input DLQ named by its queue manager
    message: {REPLYQ: MY.DLQ, REPLYQM: QM1}
    expect: {action: FWD, fwdq: MY.DLQ, fwdqm: QM1}
  - name: the default names are ordinary queues now
    message: {REPLYQ: DLQHANDLER.STATUS}
    expect: {action: FWD, fwdq: DLQHANDLER.STATUS}
"""


def test_control_queues_are_the_ones_run_is_given(write: Write, dlq_test: DlqTest) -> None:
    """A case file's ``run:`` names the queues ``run`` is started with: a FWD to the
    status or audit queue so named, or to the input DLQ on the queue manager named by
    INPUTQM, is what ``run`` refuses; the default names are then ordinary queues. The
    command line's options override the file's ``run:``."""
    write("r.rul", "ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)\n")
    cases = write("c.yaml", RENAMED)
    out = dlq_test(cases, code=ExitCode.FAILURE).out
    assert f"{cases}:9:5: FAIL to the renamed status queue" in out
    assert "target MY.STATUS is the handler's status queue" in out
    assert f"{cases}:12:5: FAIL to the renamed audit queue" in out
    assert f"{cases}:15:5: FAIL to the input DLQ named by its queue manager" in out
    assert "target MY.DLQ is the input dead-letter queue (a loop)" in out
    assert out.endswith("1 passed, 3 failed\n")
    # the command line names other queues: only the default status queue is refused now
    argv = [cases, "--inputq", "OTHER.DLQ", "--status-queue", "DLQHANDLER.STATUS"]
    out = dlq_test(*argv, "--audit-queue", "OTHER.AUDIT", code=ExitCode.FAILURE).out
    assert "FAIL the default names are ordinary queues now" in out
    assert out.endswith("3 passed, 1 failed\n")


def test_bad_names_in_run_are_reported_at_their_place(
    write: Write, dlq_test: DlqTest, capsys: Out
) -> None:
    """A ``run:`` name that is not an MQ name (C312), a max_hops that is not a count of 1
    or more (C313) and an unknown key (C104, with did-you-mean) are each reported at
    ``file:line:col``, exit 2, no case run; a bad name on the command line is a usage
    error (exit 2) too."""
    write("r.rul", "ACTION(DISCARD)\n")
    cases = write(
        "c.yaml",
        "rules: r.rul\nrun:\n  inputq: 'MY DLQ'\n  max_hops: 0\n  status_qeue: S\n"
        "tests:\n  - name: n\n    expect: {action: DISCARD}\n",
    )
    err = dlq_test(cases, code=ExitCode.USAGE).err
    assert f"{cases}:3:11: error[C312]: inputq 'MY DLQ' contains characters" in err
    assert f"{cases}:4:13: error[C313]: max_hops '0' is not a count of 1 or more" in err
    assert f"{cases}:5:3: error[C104]: unknown key 'status_qeue' in run" in err
    assert "did you mean status_queue?" in err
    assert "3 problems in case files; no case was run" in err
    good = write("g.yaml", "rules: r.rul\ntests:\n  - name: n\n    expect: {action: DISCARD}\n")
    with pytest.raises(SystemExit) as stop:
        main(["test", good, "--audit-queue", "A" * 49])
    assert stop.value.code == ExitCode.USAGE
    assert "--audit-queue: queue name 'AAAA" in capsys.readouterr().err
    read = read_cases("run: {inputqm: ' '}\ntests: []\n", "x.yaml")
    assert read.run == RunSetup()  # a blank INPUTQM is the default queue manager


def test_a_table_run_would_not_start_with_is_not_tested(
    write: Write, dlq_test: DlqTest, run_cli: RunCli
) -> None:
    """A rule forwarding to the status queue ``run`` is given, or a status queue that is
    the input DLQ: ``run`` refuses to start (exit 2, nothing moved), so ``test`` runs no
    case and exits 2, saying why as ``run`` does (in --format json too), and --generate
    writes no case for such a run."""
    table = "ACTION(FWD) FWDQ(MY.STATUS)\n"
    write("r.rul", table)
    cases = write(
        "c.yaml",
        "rules: r.rul\nrun: {status_queue: MY.STATUS}\n"
        "tests:\n  - name: n\n    expect: {action: FWD}\n",
    )
    err = dlq_test(cases, code=ExitCode.USAGE).err
    assert f"{cases}: run would not start: " in err
    assert "r.rul:1: ACTION(FWD) FWDQ(MY.STATUS) is the handler's status queue" in err
    assert "no case was run" in err
    started = run_cli(table, "--status-queue", "MY.STATUS")
    assert started.rc == ExitCode.USAGE
    assert "FWDQ(MY.STATUS) is the handler's status queue" in started.err
    assert (
        "is both the input dead-letter queue and the status queue"
        in dlq_test(cases, "--status-queue", ASSUMED_DEADQ, code=ExitCode.USAGE).err
    )
    (error,) = json.loads(dlq_test(cases, "--format", "json", code=ExitCode.USAGE).out)["errors"]
    assert "FWDQ(MY.STATUS) is the handler's status queue" in error["run_would_not_start"]
    out = Path(cases).parent / "snap.yaml"
    argv = [str(Path(cases).parent / "r.rul"), "--generate", str(BACKLOG)]
    assert (
        "run would not start: "
        in dlq_test(
            *argv, "--output", str(out), "--status-queue", "MY.STATUS", code=ExitCode.USAGE
        ).err
    )
    assert not out.exists()


def test_a_passing_case_is_what_run_does_on_a_named_dlq(
    write: Write, dlq_test: DlqTest, qm, run_cli: RunCli
) -> None:
    """The DLQ and queue manager given to ``run`` (MY.DLQ on QM1): a FWD to &REPLYQ at
    &REPLYQM naming MY.DLQ at QM1 is a loop ``run`` refuses (the message stays, the
    failure is FORWARD_LOOP), and the case expecting that forward fails; without
    INPUTQM the case cannot know QM1 is local, which the docs say."""
    table = "WAIT(NO)\nACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)\n"
    write("r.rul", table)
    cases = write(
        "c.yaml",
        "rules: r.rul\nrun: {inputq: MY.DLQ, inputqm: QM1}\ntests:\n"
        "  - name: back to the DLQ\n    message: {REPLYQ: MY.DLQ, REPLYQM: QM1}\n"
        "    expect: {action: FWD, fwdq: MY.DLQ, fwdqm: QM1}\n",
    )
    assert (
        "target MY.DLQ is the input dead-letter queue (a loop)"
        in dlq_test(cases, code=ExitCode.FAILURE).out
    )
    define(qm, "MY.DLQ")
    load(qm, [dead_letter(reply_to_q="MY.DLQ", reply_to_q_mgr="QM1")], queue="MY.DLQ")
    run = run_cli(table, "MY.DLQ", "QM1")
    assert run.events("put_failed", reason_name="FORWARD_LOOP")
    assert depth(qm, "MY.DLQ") == 1


RETRIES = """\
rules: r.rul
run: {inputqm: QM1}
tests:
  - name: to its destination
    message: {DESTQ: APP.Q, DESTQM: QM1}
    expect: {action: RETRY}
  - name: to the DLQ itself
    message: {DESTQ: SYSTEM.DEAD.LETTER.QUEUE, DESTQM: QM1}
    expect: {action: RETRY}
  - name: to the status queue
    message: {DESTQ: DLQHANDLER.STATUS}
    expect: {action: RETRY}
  - name: to no queue
    message: {DESTQM: QM1}
    expect: {action: RETRY}
"""


def test_a_retry_run_refuses_is_reported_as_run_refuses_it(
    write: Write, dlq_test: DlqTest, qm, run_cli: RunCli
) -> None:
    """RETRY puts to the MQDLH's DestQName at DestQMgrName ("RETRY: Causes the DLQ
    handler to try again to put the message on its destination queue", IBM MQ, DLQ action
    keywords, https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=i-dlq-action-keywords). When
    that is the input DLQ on the local queue manager, a control queue, or blank, ``run``
    refuses the put (FORWARD_LOOP, CONTROL_QUEUE, INVALID_TARGET: its put_failed reason)
    and the message stays: a case expecting a plain RETRY there fails, saying so, and one
    stating ``refused:`` with run's reason passes. ``run`` itself, on the same messages
    with the same table, refuses exactly those three and retries the fourth."""
    table = "WAIT(NO)\nACTION(RETRY) RETRY(1)\n"
    write("r.rul", table)
    cases = write("c.yaml", RETRIES)
    out = dlq_test(cases, code=ExitCode.FAILURE).out.splitlines()
    table_path = str(Path(cases).parent / "r.rul")
    assert out == [
        (
            f"{cases}:7:5: FAIL to the DLQ itself: expected RETRY, got RETRY refused by run as "
            "FORWARD_LOOP (target SYSTEM.DEAD.LETTER.QUEUE is the input dead-letter queue (a "
            f"loop)) ({table_path}:2)"
        ),
        (
            f"{cases}:10:5: FAIL to the status queue: expected RETRY, got RETRY refused by run as "
            "CONTROL_QUEUE (target DLQHANDLER.STATUS is the handler's status queue: a dead "
            f"letter is never put there) ({table_path}:2)"
        ),
        (
            f"{cases}:13:5: FAIL to no queue: expected RETRY, got RETRY refused by run as "
            f"INVALID_TARGET (MQDLH.DestQName '' is blank (rule at line 2)) ({table_path}:2)"
        ),
        "1 passed, 3 failed",
    ]
    stated = RETRIES.replace(
        "DESTQM: QM1}\n    expect: {action: RETRY}\n  - name: to the status",
        "DESTQM: QM1}\n    expect: {action: RETRY, refused: FORWARD_LOOP}\n  - name: to the status",
    )
    stated = stated.replace(
        "DLQHANDLER.STATUS}\n    expect: {action: RETRY}",
        "DLQHANDLER.STATUS}\n    expect: {action: RETRY, refused: CONTROL_QUEUE}",
    )
    stated = stated.replace(
        "{DESTQM: QM1}\n    expect: {action: RETRY}",
        "{DESTQM: QM1}\n    expect: {action: RETRY, refused: invalid_target}",
    )
    stated = stated.replace(
        "APP.Q, DESTQM: QM1}\n    expect: {action: RETRY}",
        "APP.Q, DESTQM: QM1}\n    expect: {action: RETRY, refused: FORWARD_LOOP}",
    )
    out = dlq_test(write("s.yaml", stated), code=ExitCode.FAILURE).out.splitlines()
    assert out[0].endswith(
        "FAIL to its destination: expected RETRY refused by run as FORWARD_LOOP, got RETRY "
        f"({table_path}:2)"
    )
    assert out[1] == "3 passed, 1 failed"

    define(qm, "APP.Q")
    load(
        qm,
        [
            dead_letter(destq="APP.Q", tag="APP"),
            dead_letter(destq="SYSTEM.DEAD.LETTER.QUEUE", tag="LOOP"),
            dead_letter(destq="DLQHANDLER.STATUS", destqm="", tag="STATUS"),
            dead_letter(destq="", tag="BLANK"),
        ],
    )
    run = run_cli(table)
    refused = sorted(e["reason_name"] for e in run.events("put_failed"))
    assert refused == ["CONTROL_QUEUE", "FORWARD_LOOP", "INVALID_TARGET"]
    assert depth(qm, "APP.Q") == 1
    assert depth(qm, DLQ) == 3


def test_refused_is_checked_as_written(write: Write, dlq_test: DlqTest) -> None:
    """``refused:`` takes run's reasons only (C309, with did-you-mean) and only with RETRY
    or FWD (C310: a DISCARD or IGNORE puts nothing); both exit 2, no case run."""
    write("r.rul", "ACTION(DISCARD)\n")
    cases = write(
        "c.yaml",
        "rules: r.rul\ntests:\n  - name: a\n    expect: {action: RETRY, refused: FORWARD_LOP}\n"
        "  - name: b\n    expect: {action: DISCARD, refused: FORWARD_LOOP}\n",
    )
    err = dlq_test(cases, code=ExitCode.USAGE).err
    assert "error[C309]: refused 'FORWARD_LOP' is not a reason run gives" in err
    assert "did you mean FORWARD_LOOP?" in err
    assert "error[C310]: refused applies to ACTION(RETRY) and ACTION(FWD) only" in err


HOPS = """\
rules: r.rul
run: {max_hops: 3}
tests:
  - name: forwarded with its headers
    message: {REASON: MQRC_Q_FULL, HOPS: 3}
    expect: {action: FWD, fwdq: APP.OUT}
  - name: forwarded without the outer header
    message: {REASON: MQRC_NOT_AUTHORIZED, HOPS: 3}
    expect: {action: FWD, fwdq: APP.OUT}
  - name: one hop fewer
    message: {REASON: MQRC_Q_FULL, HOPS: 2}
    expect: {action: FWD, fwdq: APP.OUT}
"""


def _hops(message: Message, n: int) -> Message:
    """``message`` forwarded with its header and dead-lettered again, ``n - 1`` times, for
    the same reason."""
    for _ in range(n - 1):
        assert message.dlh is not None
        message = Message.dead_letter(
            message.md,
            message.body,
            reason=message.dlh.reason,
            dest_q_name="APP.OUT",
            dest_q_mgr_name="QM1",
        )
    return message


def test_max_hops_refuses_as_run_does(write: Write, dlq_test: DlqTest, qm, run_cli: RunCli) -> None:
    """``run --max-hops N`` refuses to put a message that would carry N or more MQDLHs (a
    forward loop): a case's message carries ``HOPS`` of them. With HEADER(YES) the put
    carries them all; with HEADER(NO) (and RETRY) the outer one is taken off first, one
    fewer. A case expecting the forward fails with run's FORWARD_LOOP; ``run`` itself, on
    such messages, refuses the first and forwards the others."""
    table = (
        "WAIT(NO)\nREASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(APP.OUT) HEADER(NO) RETRY(1)\n"
        "ACTION(FWD) FWDQ(APP.OUT) RETRY(1)\n"
    )
    write("r.rul", table)
    cases = write("c.yaml", HOPS)
    out = dlq_test(cases, code=ExitCode.FAILURE).out.splitlines()
    assert len(out) == 2
    assert out[0].startswith(
        f"{cases}:4:5: FAIL forwarded with its headers: expected FWD APP.OUT, got FWD APP.OUT "
        "refused by run as FORWARD_LOOP (message carries 3 dead-letter headers (max 3): a "
        "forward loop)"
    )
    assert out[1] == "2 passed, 1 failed"
    assert dlq_test(cases, "--max-hops", "4", code=ExitCode.OK).out == "3 passed, 0 failed\n"

    define(qm, "APP.OUT")
    load(
        qm,
        [
            _hops(dead_letter(tag="THREE"), 3),
            _hops(dead_letter(reason=2035, tag="NOHEADER"), 3),
            _hops(dead_letter(tag="TWO"), 2),
        ],
    )
    run = run_cli(table, "--max-hops", "3")
    assert [e["reason_name"] for e in run.events("put_failed")] == ["FORWARD_LOOP"]
    assert (depth(qm, "APP.OUT"), depth(qm, DLQ)) == (2, 1)


def test_hops_is_checked_as_written(write: Write, dlq_test: DlqTest) -> None:
    """HOPS is a count from 1 to 100 (C314); with more than one MQDLH the matched MQDLH's
    Format is MQDEAD, so another FORMAT is an error (C315); both exit 2."""
    write("r.rul", "ACTION(DISCARD)\n")
    cases = write(
        "c.yaml",
        "rules: r.rul\ntests:\n  - name: a\n    message: {HOPS: 0}\n"
        "    expect: {action: DISCARD}\n"
        "  - name: b\n    message: {hops: 2, FORMAT: MQSTR}\n    expect: {action: DISCARD}\n",
    )
    err = dlq_test(cases, code=ExitCode.USAGE).err
    assert f"{cases}:4:21: error[C314]: HOPS '0' is not a count from 1 to 100" in err
    assert f"{cases}:7:32: error[C315]: FORMAT 'MQSTR' cannot be the MQDLH's Format" in err
    read = read_cases(
        "tests:\n  - name: a\n    message: {HOPS: 4}\n    expect: {action: IGNORE}\n", "x"
    )
    (case,) = read.cases
    assert header_depth(case.message) == 4
    assert message_fields(case.message)["FORMAT"] == "MQDEAD"


PUTAUT = """\
rules: r.rul
tests:
  - name: with the sender's authority
    message: {REASON: MQRC_Q_FULL, USERID: app1}
    expect: {action: FWD, fwdq: APP.OUT, putaut: CTX}
  - name: a user id padded as MQ pads it
    message: {REASON: MQRC_Q_FULL, USERID: "app1 "}
    expect: {action: FWD, fwdq: APP.OUT, putaut: CTX}
  - name: no user id
    message: {REASON: MQRC_Q_FULL}
    expect: {action: FWD, fwdq: APP.OUT, putaut: CTX}
  - name: the handler's own authority
    message: {REASON: MQRC_Q_FULL, USERID: app1}
    expect: {action: FWD, putaut: CTX}
"""


def test_putaut_ctx_with_no_usable_user_id_is_refused_as_run_refuses_it(
    write: Write, dlq_test: DlqTest, qm, run_cli: RunCli
) -> None:
    """PUTAUT(CTX) puts with the message's UserIdentifier as the alternate user ("For the
    DLQ handler to put messages on queues with the authority of the user ID in the
    message context, you must also be authorized to assume the identity of other users",
    IBM MQ, Invoking the dead-letter queue handler,
    https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queue-invoking-dead-letter-handler).
    A blank one ``run`` refuses (UNUSABLE_USERID) and the message stays: the case says
    so. A user id written with trailing blanks is the one ``run`` gets (MQ pads the
    field): usable. ``putaut`` checks the rule's PUTAUT. ``run`` itself refuses the
    message without a user id and forwards the other."""
    table = "WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(APP.OUT) PUTAUT(CTX) RETRY(1)\n"
    write("r.rul", table)
    cases = write("c.yaml", PUTAUT)
    out = dlq_test(cases, code=ExitCode.FAILURE).out.splitlines()
    table_path = str(Path(cases).parent / "r.rul")
    assert out == [
        (
            f"{cases}:9:5: FAIL no user id: expected FWD APP.OUT PUTAUT(CTX), got FWD APP.OUT "
            "refused by run as UNUSABLE_USERID (PUTAUT(CTX): UserIdentifier '' is not usable) "
            f"PUTAUT(CTX) ({table_path}:2)"
        ),
        "3 passed, 1 failed",
    ]
    write("r.rul", table.replace("PUTAUT(CTX)", "PUTAUT(DEF)"))
    out = dlq_test(cases, code=ExitCode.FAILURE).out
    assert "FAIL the handler's own authority: expected FWD PUTAUT(CTX), got FWD APP.OUT " in out
    assert "PUTAUT(DEF)" in out
    assert out.endswith("0 passed, 4 failed\n")

    define(qm, "APP.OUT")
    load(qm, [dead_letter(user="app1", tag="USER"), dead_letter(user="", tag="NOUSER")])
    run = run_cli(table)
    assert [e["reason_name"] for e in run.events("put_failed")] == ["UNUSABLE_USERID"]
    assert (depth(qm, "APP.OUT"), depth(qm, DLQ)) == (1, 1)


def test_putaut_is_checked_as_written(write: Write, dlq_test: DlqTest) -> None:
    """``putaut`` is DEF or CTX (C311), with RETRY or FWD only (C310); exit 2."""
    write("r.rul", "ACTION(DISCARD)\n")
    cases = write(
        "c.yaml",
        "rules: r.rul\ntests:\n  - name: a\n    expect: {action: FWD, putaut: ALT}\n"
        "  - name: b\n    expect: {action: IGNORE, putaut: CTX}\n",
    )
    err = dlq_test(cases, code=ExitCode.USAGE).err
    assert "error[C311]: putaut 'ALT' is not DEF or CTX" in err
    assert "error[C310]: putaut applies to ACTION(RETRY) and ACTION(FWD) only" in err


def test_generate_writes_the_run_it_decided_for(tmp_path: Path, dlq_test: DlqTest) -> None:
    """--generate with --inputqm and --max-hops decides for that run and writes it as the
    file's ``run:``, so the snapshot passes when run back as it is; run back for another
    --max-hops, the cases whose refusal depended on it fail."""
    out = tmp_path / "snap.yaml"
    generate = [str(DEMO), "--generate", str(BACKLOG), "--output", str(out)]
    dlq_test(*generate, "--inputqm", "QM1", "--max-hops", "1", code=ExitCode.OK)
    text = out.read_text()
    assert "\nrun:\n  inputqm: QM1\n  max_hops: 1\ntests:\n" in text
    loops = text.count("refused: FORWARD_LOOP")
    assert loops > 0
    assert dlq_test(str(out), code=ExitCode.OK).out == "193 passed, 0 failed\n"
    lines = dlq_test(str(out), "--max-hops", "5", code=ExitCode.FAILURE).out.splitlines()
    assert lines[-1] == f"{193 - loops} passed, {loops} failed"


def test_a_refused_forward_still_names_its_target(write: Write, dlq_test: DlqTest) -> None:
    """A refused FWD keeps the target it was to go to: ``fwdq: MY.DLQ, refused:
    FORWARD_LOOP`` passes, and a wrong ``fwdq`` beside the right refusal fails; a target
    whose name is unusable has none, so only ``refused`` can be stated for it."""
    write("r.rul", "INPUTQ(MY.DLQ)\nACTION(FWD) FWDQ(&REPLYQ)\n")
    cases = write(
        "c.yaml",
        "rules: r.rul\ntests:\n"
        "  - name: loop\n    message: {REPLYQ: MY.DLQ}\n"
        "    expect: {action: FWD, fwdq: MY.DLQ, refused: FORWARD_LOOP}\n"
        "  - name: wrong queue\n    message: {REPLYQ: MY.DLQ}\n"
        "    expect: {action: FWD, fwdq: OTHER, refused: FORWARD_LOOP}\n"
        "  - name: blank\n    expect: {action: FWD, refused: INVALID_TARGET}\n",
    )
    out = dlq_test(cases, code=ExitCode.FAILURE).out.splitlines()
    assert len(out) == 2
    assert (
        "FAIL wrong queue: expected FWD OTHER refused by run as FORWARD_LOOP, got FWD MY.DLQ "
        "refused by run as FORWARD_LOOP" in out[0]
    )
    assert out[1] == "2 passed, 1 failed"


def test_the_local_queue_manager_by_name_or_blank_is_one(write: Write, dlq_test: DlqTest) -> None:
    """Started on QM1 (INPUTQM), ``run`` puts to FWDQM(QM1) as to the local queue manager,
    as it does to FWDQM(' '): ``fwdqm: ""`` and ``fwdqm: QM1`` both hold for either; a
    remote queue manager is only itself."""
    write("r.rul", "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(A) FWDQM(QM1)\nACTION(FWD) FWDQ(A)\n")
    cases = write(
        "c.yaml",
        "rules: r.rul\nrun: {inputqm: QM1}\ntests:\n"
        "  - name: named, expected blank\n    message: {REASON: MQRC_Q_FULL}\n"
        "    expect: {action: FWD, fwdqm: ''}\n"
        "  - name: blank, expected named\n    expect: {action: FWD, fwdqm: QM1}\n"
        "  - name: blank, expected remote\n    expect: {action: FWD, fwdqm: QM2}\n",
    )
    out = dlq_test(cases, code=ExitCode.FAILURE).out.splitlines()
    assert len(out) == 2
    assert "FAIL blank, expected remote: expected FWD @QM2" in out[0]
    assert out[1] == "2 passed, 1 failed"


@pytest.mark.parametrize("max_hops", ["1", "5"])
def test_a_generated_snapshot_is_what_run_decides(
    tmp_path: Path, qm, run_cli: RunCli, max_hops: str, dlq_test: DlqTest
) -> None:
    """The differential check of the whole: the shipped backlog decided by rules/demo.rul
    for ``run --max-hops N`` (--generate), and ``run --dry-run --max-hops N`` itself on
    the same messages loaded on QM1: for every dead letter, the rule, action, refusal
    and target ``run`` logs (dry_run_decision) are the ones its case states. With
    --max-hops 1 every FWD HEADER(YES) is refused as FORWARD_LOOP, in both."""
    out = tmp_path / "snap.yaml"
    generate = [str(DEMO), "--generate", str(BACKLOG), "--output", str(out)]
    dlq_test(*generate, "--max-hops", max_hops, code=ExitCode.OK)
    cases = {c["name"]: c for c in yaml.safe_load(out.read_text())["tests"]}
    load(qm, read_dump(BACKLOG))
    run = run_cli(DEMO.read_text(), "--dry-run", "--max-hops", max_hops)
    decided = {e["msgid"]: e for e in run.events("dry_run_decision")}
    refused = 0
    for name, case in cases.items():
        e, m = case["expect"], case["message"]
        if e["action"] == "IGNORE" and name not in decided:
            continue
        got = decided[name]
        assert (got["action"], got["rule_line"] or "none") == (e["action"], e["rule"]), name
        assert got.get("refused") == e.get("refused"), name
        refused += "refused" in e
        if "refused" in e or e["action"] == "DISCARD":
            assert got["target"] is None, name
        elif e["action"] == "RETRY":
            assert got["target"] == f"{m['DESTQ']}@{m.get('DESTQM') or 'QM1'}", name
        elif e["action"] == "FWD":
            assert got["target"] == f"{e['fwdq']}@{e.get('fwdqm') or 'QM1'}", name
    assert (refused > 0) == (max_hops == "1")


SHIPPED = sorted((ROOT / "rules").glob("*.cases.yaml"))


@pytest.mark.parametrize("cases_file", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_case_is_what_run_decides(cases_file: Path, qm, run_cli: RunCli) -> None:
    """Every case of the shipped case files at attempt count 0, its message put on QM1's
    DLQ, and ``run --dry-run`` with the table: for each, run logs the case's outcome (the
    rule, the action, the refusal, the target) and the case passes: a passing case is
    what run does."""
    read = read_cases(cases_file.read_bytes(), str(cases_file))
    assert read.ok
    assert read.rules is not None
    table = cases_file.parent / read.rules
    ruleset = compile_rules_or_raise(table.read_text(encoding="utf-8"))
    how = run_as(read.run, ruleset.control)
    fresh = [c for c in read.cases if c.attempts == 0]
    results = run_cases(Matcher(ruleset), fresh, how)
    ids = {}
    for n, case in enumerate(fresh):
        msg_id = f"CASE{n:020d}".encode()
        ids[msg_id.hex()] = case.name
        load(qm, [case.message.with_md(case.message.md.replace(msg_id=msg_id))], queue=DLQ)
    run = run_cli(table.read_text(encoding="utf-8"), "--dry-run")
    assert run.rc in (ExitCode.OK, ExitCode.PARTIAL), run.err
    decided = {ids[e["msgid"]]: e for e in run.events("dry_run_decision")}
    for r in results:
        assert r.passed, r.case.name
        o, got = r.outcome, decided.get(r.case.name)
        if got is None:
            assert o.decision.action.kind == "IGNORE", r.case.name
            continue
        assert (got["action"], got["rule_line"]) == (o.decision.action.kind, o.rule_line)
        assert got.get("refused") == o.refusal, r.case.name
        if o.refusal is None and o.target is not None:
            assert got["target"] == f"{o.target.queue}@{o.target.qmgr or 'QM1'}", r.case.name


def test_generated_on_stdout_names_its_table_wherever_it_is_saved(
    tmp_path: Path, dlq_test: DlqTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--generate to stdout (redirected into a file anywhere) names the table by its
    absolute path: saved in another directory, beside a table of the same relative name,
    the cases still run against the table they were generated from, and pass."""
    (tmp_path / "rules").mkdir()
    table = tmp_path / "rules" / "t.rul"
    table.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY)\nACTION(DISCARD)\n")
    monkeypatch.chdir(tmp_path)
    argv = ["rules/t.rul", "--generate", str(BACKLOG)]
    text = dlq_test(*argv, code=ExitCode.OK).out
    assert f"\nrules: {json.dumps(str(table))}\n" in text or f"\nrules: {table}\n" in text
    saved = tmp_path / "snapshots"
    (saved / "rules").mkdir(parents=True)
    (saved / "rules" / "t.rul").write_text("ACTION(IGNORE)\n")  # another table, same name
    (saved / "t.yaml").write_text(text)
    assert dlq_test(str(saved / "t.yaml"), code=ExitCode.OK).out == "193 passed, 0 failed\n"


UNNAMED_QMGR = """\
rules: r.rul
tests:
  - name: to the DLQ at QM1
    message: {DESTQ: SYSTEM.DEAD.LETTER.QUEUE, DESTQM: QM1}
    expect: {action: RETRY}
  - name: to an application queue at QM1
    message: {DESTQ: APP.Q, DESTQM: QM1}
    expect: {action: RETRY}
"""


def test_a_retry_to_the_dlq_at_a_named_qmgr_needs_inputqm_to_pass(
    write: Write, dlq_test: DlqTest, qm, run_cli: RunCli
) -> None:
    """Without INPUTQM the case does not say which queue manager ``run`` is started on:
    a RETRY to SYSTEM.DEAD.LETTER.QUEUE at QM1 is a loop that ``run`` on QM1 refuses
    (FORWARD_LOOP: shown below on the embedded QM1) and a remote put for ``run`` on any
    other queue manager. The case fails, saying so and how to decide it (INPUTQM),
    instead of passing as a plain RETRY; with ``run: {inputqm: QM1}`` it is refused as run
    refuses it. RETRY: "try again to put the message on its destination queue" (IBM MQ,
    DLQ action keywords, https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=i-dlq-action-
    keywords); INPUTQM: "the name of the queue manager that owns the DLQ" (""" + (
        CONTROL_DATA_PAGE + ")."
    )
    table = "WAIT(NO)\nACTION(RETRY) RETRY(1)\n"
    write("r.rul", table)
    cases = write("c.yaml", UNNAMED_QMGR)
    out = dlq_test(cases, code=ExitCode.FAILURE).out.splitlines()
    assert out[0].startswith(f"{cases}:3:5: FAIL to the DLQ at QM1: expected RETRY, got RETRY (")
    assert (
        "SYSTEM.DEAD.LETTER.QUEUE@QM1 is the input dead-letter queue of run started on QM1"
        in (out[0])
    )
    assert "give INPUTQM" in out[0]
    assert out[-1] == "1 passed, 1 failed"
    got = json.loads(
        dlq_test(cases, "--inputqm", "QM1", "--format", "json", code=ExitCode.FAILURE).out
    )["files"][0]["cases"][0]
    assert (got["missed"], got["got"]["refused"]) == (["refused"], "FORWARD_LOOP")

    define(qm, "APP.Q")
    load(qm, [dead_letter(destq="SYSTEM.DEAD.LETTER.QUEUE", destqm="QM1", tag="LOOP")])
    run = run_cli(table)
    assert [e["reason_name"] for e in run.events("put_failed")] == ["FORWARD_LOOP"]


def test_coverage_does_not_count_a_rule_only_refused_cases_reach(
    write: Write, dlq_test: DlqTest
) -> None:
    """A rule covered only by cases whose put ``run`` refuses (the message stays on the
    DLQ) is not covered: ``--coverage`` says how many of its cases run refuses and lists
    it as not covered, and ``--fail-under`` counts it out."""
    write("r.rul", "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\nACTION(DISCARD)\n")
    cases = write(
        "c.yaml",
        "rules: r.rul\nrun: {inputqm: QM1}\ntests:\n"
        "  - name: loop\n"
        "    message: {REASON: MQRC_Q_FULL, DESTQ: SYSTEM.DEAD.LETTER.QUEUE}\n"
        "    expect: {action: RETRY, refused: FORWARD_LOOP}\n"
        "  - name: other\n    message: {REASON: 2035}\n    expect: {action: DISCARD}\n",
    )
    out = dlq_test(
        cases, "--coverage", "--fail-under", "60", code=ExitCode.FAILURE
    ).out.splitlines()
    table = str(Path(cases).parent / "r.rul")
    assert out[0] == f"coverage of {table}: 1 of 2 rules decided a case (50.0%)"
    assert out[1].endswith("(1 refused by run)")
    assert "  rules whose every case run refuses (not covered): 1" in out
    assert out[-1] == "2 passed, 0 failed"


def test_generate_takes_run_on_the_queue_manager_the_dump_came_from(
    write: Write, tmp_path: Path, dlq_test: DlqTest
) -> None:
    """``test TABLE --generate DUMP`` of a dump unloaded from QM1's DLQ (its header's
    ``* Qmgr  = QM1``, ``* Queue = SYSTEM.DEAD.LETTER.QUEUE``; IBM's dmpmqmsg, https://
    www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q117660_.html: "-m
    QueueManagerName: The name of the queue manager on which the queue, or queues,
    exist"), with neither the table nor the command line naming INPUTQ/INPUTQM, writes
    its cases for ``run`` on QM1 (``run: {inputq, inputqm}``): a RETRY back onto that DLQ
    is then the FORWARD_LOOP ``run`` on QM1 refuses, and the cases read back pass (the
    round trip no longer fails for want of INPUTQM)."""
    write("r.rul", "ACTION(RETRY) RETRY(1)\n")
    dump = tmp_path / "dlq.dmp"
    write_dump(
        dump,
        [
            dead_letter(destq="APP.Q", destqm="QM1", tag="APP"),
            dead_letter(destq=DLQ, destqm="QM1", tag="LOOP"),
        ],
        qmgr="QM1",
        queue=DLQ,
    )
    out = tmp_path / "c.yaml"
    table = str(tmp_path / "r.rul")
    dlq_test(table, "--generate", str(dump), "--output", str(out), code=ExitCode.OK)
    data = yaml.safe_load(out.read_text())
    assert data["run"] == {"inputq": DLQ, "inputqm": "QM1"}
    assert [c["expect"].get("refused") for c in data["tests"]] == [None, "FORWARD_LOOP"]
    assert dlq_test(str(out), code=ExitCode.OK).out.endswith("2 passed, 0 failed\n")


def test_generate_leaves_out_a_group_run_leaves_whole(
    tmp_path: Path, qm, run_cli: RunCli, dlq_test: DlqTest
) -> None:
    """A group moves whole or stays whole ("retrieve the entire group with the same
    getting application instance", IBM MQ, Grouping logical messages,
    https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html):
    ``run`` leaves on the DLQ every member of a group one of whose members the table
    IGNOREs (here implicitly), and of a group not all of whose members are there. A
    case holds one message, not its group, so --generate leaves such members out, counted
    ("3 in a group run leaves whole"), where it wrote each as a case of its own that the
    table forwards (a snapshot that passed while ``run`` forwarded none of them). A group
    run moves, and a single message, get their cases; ``run`` on the same messages places
    each as its case says and leaves the three."""
    table = "WAIT(NO)\nDESTQ(APP.*) ACTION(FWD) FWDQ(PARK)\n"
    (tmp_path / "t.rul").write_text(table)
    define(qm, "PARK")

    def member(tag: str, gid: bytes, seq: int, last: bool, destq: str = "APP.Q") -> Message:
        flags = MQMF_LAST_MSG_IN_GROUP if last else MQMF_MSG_IN_GROUP
        return dead_letter(
            tag, tag=tag, destq=destq, group_id=gid, msg_seq_number=seq, msg_flags=flags
        )

    ignored, partial, moved = (g.ljust(24, b"\x00") for g in (b"IGNORED", b"PARTIAL", b"MOVED"))
    messages = [
        member("IGN1", ignored, 1, False),
        member("IGN2", ignored, 2, True, destq="OTHER.Q"),  # no rule: the implicit IGNORE
        member("PART1", partial, 1, False),  # its last member never came
        member("MOVE1", moved, 1, False),
        member("MOVE2", moved, 2, True),
        dead_letter("single", tag="SINGLE"),
    ]
    dump = tmp_path / "dlq.dmp"
    write_dump(dump, messages, qmgr="QM1", queue=DLQ)
    out = tmp_path / "snap.yaml"
    err = dlq_test(
        str(tmp_path / "t.rul"), "--generate", str(dump), "--output", str(out), code=ExitCode.OK
    ).err
    assert "3 cases from 6 messages" in err
    assert "3 left out (3 in a group run leaves whole)" in err
    cases = {c["name"]: c["expect"] for c in yaml.safe_load(out.read_text())["tests"]}
    ids = {m.md.msg_id.hex(): m for m in messages}
    assert set(cases) == {m.md.msg_id.hex() for m in messages[3:]}  # MOVE1, MOVE2, single
    assert all(e["action"] == "FWD" and e["fwdq"] == "PARK" for e in cases.values())
    dlq_test(str(out), code=ExitCode.OK)
    load(qm, messages)
    run = run_cli(table)
    assert run.rc == ExitCode.OK, run.err
    assert {m.md.msg_id.hex() for m in browse(qm, "PARK")} == set(cases)
    assert {m.md.msg_id.hex() for m in browse(qm, DLQ)} == set(ids) - set(cases)
