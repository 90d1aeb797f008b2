"""One-off actions (``dlqhandler run --action``) and their audit trail, end to end on the
embedded queue manager through the CLI."""

from __future__ import annotations

import calendar
import io
import json
import os
import signal
import subprocess
import time
from typing import Any

import pytest
from structlog.testing import capture_logs

from dlqhandler.cli import main
from dlqhandler.cli._oneoff import Progress
from dlqhandler.mq.ages import parse_duration
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP, MQRC_Q_FULL
from dlqhandler.worker.selection import Selector
from dlqhandler.worker.stats import RunStats
from tests.worker.helpers import (
    DLQ,
    DLQHANDLER,
    Run,
    alter,
    browse,
    dead_letter,
    define,
    depth,
    load,
)

AUDIT = "DLQHANDLER.AUDIT"
# The one-off most tests run: retry the MQRC_Q_FULL dead letters, in one pass.
RETRY_FULL = ("run", "--match", "REASON(MQRC_Q_FULL)", "--action", "retry", "--no-watch")


@pytest.fixture
def cli(home, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """``dlqhandler ARGS`` in-process; a :class:`Run` out (logs captured as events)."""
    import dlqhandler.cli.run as run_module

    def run(*argv: str) -> Run:
        capsys.readouterr()
        with monkeypatch.context() as m:
            m.setattr(run_module, "configure_logging", lambda **_: None)
            with capture_logs() as logs:
                rc = main(list(argv))
        captured = capsys.readouterr()
        return Run(rc, captured.out, captured.err, list(logs))

    return run


def _records(qm) -> list[dict[str, Any]]:
    return [json.loads(m.body) for m in browse(qm, AUDIT)]


def _backlog(qm) -> tuple[list, list]:
    full = [
        dead_letter(f"full {i}", reason=MQRC_Q_FULL, destq="APP.Q", tag=f"FULL{i}")
        for i in range(3)
    ]
    other = [
        dead_letter(f"other {i}", reason=2085, destq="GONE.Q", tag=f"OTHER{i}") for i in range(2)
    ]
    load(qm, [full[0], other[0], full[1], other[1], full[2]])
    return full, other


def test_a_one_off_retry_moves_the_selected_messages_each_with_its_audit_record(
    qm, ledger, cli
) -> None:
    """`run --match 'REASON(MQRC_Q_FULL)' --action retry --reason ...` needs no table: it
    retries exactly the selected messages (conservation by MsgId and payload), leaves the
    others, says how many moved, and puts one audit record per action, whose fields say
    who, when, the command, the reason and, per message, its ids, MQDLH reason and
    destination, the action, the target and the outcome. `dlqhandler audit` prints them
    (JSON and text, filtered by --msgid and --since) without removing any."""
    define(qm, "APP.Q")
    full, other = _backlog(qm)
    book = ledger()

    run = cli(*RETRY_FULL, "--reason", "APP.Q has room again (INC-42)")

    assert run.rc == 0, run.err
    placed = book.check(["APP.Q"])
    assert {m.md.msg_id for m in placed["APP.Q"]} == {m.md.msg_id for m in full}
    assert {m.md.msg_id for m in placed[DLQ]} == {m.md.msg_id for m in other}
    assert "3 message(s) moved, each with its audit record on DLQHANDLER.AUDIT" in run.err
    records = _records(qm)
    assert sorted(r["msgid"] for r in records) == sorted(m.md.msg_id.hex() for m in full)
    first = next(r for r in records if r["msgid"] == full[0].md.msg_id.hex())
    assert first["correlid"] == full[0].md.correl_id.hex()
    assert first["reason"] == "APP.Q has room again (INC-42)"
    assert (first["action"], first["target"], first["outcome"]) == ("RETRY", "APP.Q@QM1", "ok")
    assert (first["dlh_reason"], first["dlh_reason_name"]) == (MQRC_Q_FULL, "MQRC_Q_FULL")
    assert (first["destq"], first["destqmgr"], first["qmgr"]) == ("APP.Q", "QM1", "QM1")
    assert first["command"][:3] == ["dlqhandler", "run", "--match"]
    assert first["os_user"]
    assert first["version"] == 1

    shown = cli("audit", "--format", "json")
    assert shown.rc == 0, shown.err
    lines = [json.loads(line) for line in shown.out.splitlines()]
    assert [r["msgid"] for r in lines] == [r["msgid"] for r in records]
    assert {r["mq_user"] for r in lines} == {records and lines[0]["mq_user"]}
    assert lines[0]["mq_user"]
    one = cli("audit", "--msgid", full[1].md.msg_id.hex(), "--format", "json")
    assert [json.loads(x)["msgid"] for x in one.out.splitlines()] == [full[1].md.msg_id.hex()]
    text = cli("audit", "--since", "1h")
    assert text.rc == 0
    assert len(text.out.splitlines()) == 3
    assert "INC-42" in text.out
    assert cli("audit", "--since", "2999-01-01").out == ""
    assert cli("audit", "--msgid", "00").out == ""  # no dead letter has that MsgId
    assert len(browse(qm, AUDIT)) == 3  # browsed, never got


def test_a_one_off_forward_without_header_and_a_discard_by_age(qm, ledger, cli) -> None:
    """`--action fwd:QUEUE --header no` forwards the selected messages with the MQDLH
    stripped; `--older-than 7d --action discard` discards by the time a message was
    dead-lettered (every test message is from 2024), `--newer-than 2h` selects none of
    them; each action has its audit record."""
    define(qm, "ARCHIVE.Q")
    full, other = _backlog(qm)
    book = ledger()

    fwd = cli(
        "run",
        "--match",
        "DESTQ(GONE.Q)",
        "--action",
        "fwd:ARCHIVE.Q",
        "--header",
        "no",
        "--reason",
        "keep a copy",
        "--no-watch",
    )
    assert fwd.rc == 0, fwd.err
    none = cli(
        "run", "--newer-than", "2h", "--action", "discard", "--reason", "new ones", "--no-watch"
    )
    assert none.rc == 0, none.err
    assert "0 message(s) moved" in none.err
    old = cli(
        "run", "--older-than", "7d", "--action", "discard", "--reason", "expired data", "--no-watch"
    )
    assert old.rc == 0, old.err

    placed = book.check(["ARCHIVE.Q"], discarded=[m.md.msg_id for m in full])
    assert {m.md.msg_id for m in placed["ARCHIVE.Q"]} == {m.md.msg_id for m in other}
    assert all(m.md.format.strip() != "MQDEAD" for m in browse(qm, "ARCHIVE.Q"))
    records = _records(qm)
    assert [(r["action"], r["target"]) for r in records] == (
        [("FWD", "ARCHIVE.Q@QM1")] * 2 + [("DISCARD", None)] * 3
    )
    assert [r["msgid"] for r in records[2:]] == [m.md.msg_id.hex() for m in full]


def test_a_dry_run_needs_no_reason_and_changes_nothing(qm, ledger, cli) -> None:
    """A one-off --dry-run without --reason is allowed: it says what it would move and
    changes nothing, and leaves no audit record."""
    define(qm, "APP.Q")
    _backlog(qm)
    book = ledger()

    run = cli("run", "--match", "REASON(MQRC_Q_FULL)", "--action", "retry", "--dry-run")

    assert run.rc == 0, run.err
    assert "3 message(s) would be moved (dry run)" in run.err
    book.check(["APP.Q"])
    assert browse(qm, "APP.Q") == []
    assert len(browse(qm, DLQ)) == 5


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--match", "REASON(MQRC_Q_FULL)", "--action", "retry"], "needs --reason"),
        (
            ["--match", "REASON(MQRC_Q_FULL)", "--action", "requeue", "--reason", "x"],
            "is not an action",
        ),
        (
            ["--match", "REASON(MQRC_Q_FULL)", "--action", "fwd:BAD QUEUE!", "--reason", "x"],
            "fwd:QUEUE@QMGR",
        ),
        (
            ["--match", "REASON(MQRC_Q_FULL)", "--action", "fwd:OK.Q@", "--reason", "x"],
            "queue manager after '@' is empty",
        ),
        (
            ["--match", "REASON(MQRC_Q_FULL)", "--action", "fwd:" + "Q" * 49, "--reason", "x"],
            "fwd:QUEUE",
        ),
        (
            ["--older-than", "seven days", "--action", "discard", "--reason", "x"],
            "--older-than 'seven days' is not a duration",
        ),
        (["--newer-than", "2", "--action", "discard", "--reason", "x"], "is not a duration"),
        (
            ["--older-than", "7d", "--newer-than", "2h", "--action", "discard", "--reason", "x"],
            "--newer-than 2h is shorter than --older-than 7d",
        ),
        (["--action", "discard", "--reason", "x"], "needs a selector"),
        (
            [
                "--match",
                "REASON(MQRC_Q_FULL)",
                "--action",
                "retry",
                "--header",
                "no",
                "--reason",
                "x",
            ],
            "--header goes with --action fwd",
        ),
        (
            ["--match", "REASON(MQRC_Q_FULL)", "--action", "discard", "--reason", " "],
            "--reason is empty",
        ),
        (
            [
                "--match",
                "REASON(MQRC_Q_FULL)",
                "--action",
                "retry",
                "--reason",
                "x",
                "--audit-queue",
                "AUDIT;Q",
            ],
            "--audit-queue",
        ),
    ],
)
def test_bad_one_off_options_are_refused_before_anything_moves(qm, ledger, cli, args, says) -> None:
    """An unknown --action, a malformed fwd: target (MQ name rules), an age that is not a
    duration or a --newer-than shorter than --older-than (an empty window), an action
    without a selector or without --reason (not a dry run), --header without fwd:, an
    empty reason, an audit queue that is not an MQ name: exit 2 with a message naming
    the option, nothing moved, no audit record."""
    define(qm, "APP.Q")
    _backlog(qm)
    book = ledger()

    run = cli("run", *args)

    assert run.rc == 2
    assert says in run.err
    assert "Traceback" not in run.err
    book.check(["APP.Q"])
    assert len(browse(qm, DLQ)) == 5


@pytest.mark.parametrize(
    "audit_attrs", [{"put": "DISABLED"}, {"maxdepth": 1}], ids=["put-inhibited", "full"]
)
def test_an_action_whose_audit_record_cannot_be_put_is_backed_out(
    qm, ledger, cli, audit_attrs
) -> None:
    """An audit queue that is put-inhibited (or full) takes no record: the action is
    backed out with it, never done without its record; the message stays on the DLQ, the
    failure is reported (exit 6, the reason counted as AUDIT_MQRC_...). With room for one
    record, exactly one message moves and has its record."""
    define(qm, "APP.Q")
    define(qm, AUDIT, **audit_attrs)
    _full, _other = _backlog(qm)
    book = ledger()

    run = cli(*RETRY_FULL, "--reason", "audited or not at all")

    assert run.rc == 6, run.err
    placed = book.check(["APP.Q"])
    moved = {m.md.msg_id for m in placed.get("APP.Q", [])}
    records = [json.loads(m.body) for m in browse(qm, AUDIT)]
    assert {r["msgid"] for r in records} == {i.hex() for i in moved}
    assert len(moved) == (0 if "put" in audit_attrs else 1)
    assert len(placed[DLQ]) == 5 - len(moved)
    failed = run.events("audit_put_failed")
    assert failed
    assert failed[0]["reason_name"] in ("AUDIT_MQRC_PUT_INHIBITED", "AUDIT_MQRC_Q_FULL")
    assert "left on SYSTEM.DEAD.LETTER.QUEUE" in run.err


def test_a_run_with_a_table_given_a_reason_is_audited(qm, ledger, cli, tmp_path) -> None:
    """Any `run` given --reason (a rules table, no --action) leaves an audit record per
    action too."""
    define(qm, "APP.Q", "CATCH")
    full, other = _backlog(qm)
    book = ledger()
    rules = tmp_path / "t.rul"
    rules.write_text("WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\nACTION(FWD) FWDQ(CATCH)\n")

    run = cli("run", "--rules", str(rules), "--reason", "weekly clean-up", "--no-watch")

    assert run.rc == 0, run.err
    book.check(["APP.Q", "CATCH"])
    records = _records(qm)
    assert sorted((r["msgid"], r["action"]) for r in records) == sorted(
        [(m.md.msg_id.hex(), "RETRY") for m in full] + [(m.md.msg_id.hex(), "FWD") for m in other]
    )
    assert {r["reason"] for r in records} == {"weekly clean-up"}


def test_audit_refuses_bad_input(cli) -> None:
    """`dlqhandler audit` with a --since that is neither a time nor an age, or a --msgid
    that is not hex: exit 2, a message naming the option."""
    bad_since = cli("audit", "--since", "yesterday")
    assert bad_since.rc == 2
    assert "--since 'yesterday'" in bad_since.err
    bad_id = cli("audit", "--msgid", "zz")
    assert bad_id.rc == 2
    assert "--msgid" in bad_id.err


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_signal_stops_a_one_off_run_between_units_of_work_and_says_how_many_moved(
    home, qm, ledger, signum, code
) -> None:
    """SIGINT (Ctrl-C) or SIGTERM stops a paced one-off run between units of work: it says
    how many messages moved, loses and duplicates nothing, every message moved has its
    audit record (and only those), and its exit code says it was stopped before its pass
    was done (issue 33, class 7): 130 after SIGINT, 143 after SIGTERM, so a script tells
    an interrupted one-off from a finished one."""
    define(qm, "APP.Q")
    load(
        qm,
        [
            dead_letter(f"paced {i}", reason=MQRC_Q_FULL, destq="APP.Q", tag=f"P{i}")
            for i in range(40)
        ],
    )
    book = ledger()
    env = {**os.environ, "DLQHANDLER_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    env.pop("DLQHANDLER_QMGR", None)
    proc = subprocess.Popen(
        [
            str(DLQHANDLER),
            "run",
            "--match",
            "REASON(MQRC_Q_FULL)",
            "--action",
            "retry",
            "--reason",
            "paced",
            "--max-rate",
            "10",
            "--log-format",
            "json",
        ],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while len(browse(qm, "APP.Q")) < 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=60)

    assert proc.returncode == code, err
    placed = book.check(["APP.Q"])
    moved = len(placed.get("APP.Q", []))
    assert 5 <= moved < 40
    assert f"{moved} message(s) moved" in err
    assert "stopped between units of work, nothing lost" in err
    assert sorted(r["msgid"] for r in _records(qm)) == sorted(
        m.md.msg_id.hex() for m in placed["APP.Q"]
    )


def test_progress_is_shown_only_on_a_terminal() -> None:
    """The progress line is written only when the stream is a terminal, and ends with the
    final counts."""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stats = RunStats()
    stats.retried = 3
    tty, pipe = Tty(), io.StringIO()
    with Progress(stats, tty, interval=0.01):
        time.sleep(0.05)
    with Progress(stats, pipe, interval=0.01):
        time.sleep(0.05)
    assert tty.getvalue().endswith("\rmoved 3, failed 0, not selected 0 \n")
    assert pipe.getvalue() == ""


def test_age_selectors_use_the_time_the_message_was_dead_lettered() -> None:
    """--older-than and --newer-than compare the MQDLH PutDate/PutTime with now; both
    given, a message must be inside the window; durations take s, m, h, d, w."""
    msg = dead_letter("aged")  # dead-lettered 2024-11-21 06:00:01 UTC
    at = calendar.timegm((2024, 11, 21, 6, 0, 1, 0, 0, 0))
    day = 86400.0
    assert parse_duration("7d", "--older-than") == 7 * day
    assert parse_duration("1.5h", "--older-than") == 5400
    assert parse_duration("2w", "--older-than") == 14 * day
    assert Selector(older_than=7 * day, clock=lambda: at + 8 * day).selects(msg)
    assert not Selector(older_than=7 * day, clock=lambda: at + 6 * day).selects(msg)
    assert Selector(newer_than=2 * 3600, clock=lambda: at + 3600).selects(msg)
    assert not Selector(newer_than=2 * 3600, clock=lambda: at + 3 * 3600).selects(msg)
    window = Selector(older_than=day, newer_than=3 * day, clock=lambda: at + 2 * day)
    assert window.active
    assert window.selects(msg)


def _group_for_app_q(name: bytes, tag: str, seqs: tuple[int, ...], *, last: int) -> list:
    """Dead letters of group ``name`` (MQRC_Q_FULL, DESTQ APP.Q) with the sequence numbers
    ``seqs``; the member numbered ``last`` carries MQMF_LAST_MSG_IN_GROUP."""
    gid = name.ljust(24, b"\x00")
    return [
        dead_letter(
            f"member {seq}",
            reason=MQRC_Q_FULL,
            destq="APP.Q",
            tag=f"{tag}{seq}",
            group_id=gid,
            msg_seq_number=seq,
            msg_flags=MQMF_LAST_MSG_IN_GROUP if seq == last else MQMF_MSG_IN_GROUP,
        )
        for seq in seqs
    ]


def test_a_one_off_action_on_a_group_moves_it_whole_with_a_record_per_member(
    qm, ledger, cli
) -> None:
    """A group selected by a one-off action moves whole, in logical order, in one unit of
    work with one audit record per member; with its audit queue put-inhibited the whole
    group stays (no member moved, no record). IBM's "Grouping logical messages"
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/
    q026280_.html): "retrieve the entire group with the same getting application
    instance", in logical order, under syncpoint."""
    define(qm, "APP.Q")
    members = _group_for_app_q(b"GROUP AUDITED", "GRP", (1, 2, 3), last=3)
    load(qm, [members[2], members[0], members[1]])
    book = ledger()
    define(qm, AUDIT, put="DISABLED")

    held = cli(*RETRY_FULL, "--reason", "group")
    assert held.rc == 6, held.err
    assert browse(qm, "APP.Q") == []
    define(qm, AUDIT)
    moved = cli(*RETRY_FULL, "--reason", "group")

    assert moved.rc == 0, moved.err
    placed = book.check(["APP.Q"])
    assert [m.md.msg_id for m in placed["APP.Q"]] == [m.md.msg_id for m in members]
    assert [r["msgid"] for r in _records(qm)] == [m.md.msg_id.hex() for m in members]


@pytest.mark.parametrize("first", ["one-off", "table"])
@pytest.mark.parametrize("grouped", [False, True], ids=["single", "group"])
def test_a_one_off_action_acts_whatever_attempts_an_earlier_run_left(
    qm, ledger, cli, tmp_path, first, grouped
) -> None:
    """Issue 33, class 1: a one-off action is the administrator's explicit order. After a
    failed one-off (or a failed table run) left attempt records on the status queue, the
    next one-off acts on every selected message at once (neither RETRY(1)'s count nor
    RETRYINT holds it back), its success clears the records in its unit of work, and
    only a failure of its own counts (exit 6 again while the target still refuses)."""
    define(qm, "APP.Q", put="DISABLED")
    gid = b"GROUP RETRIED".ljust(24, b"\x00")
    messages = [
        dead_letter(
            f"order {i}",
            reason=MQRC_Q_FULL,
            destq="APP.Q",
            tag=f"ORD{i}",
            **(
                {
                    "group_id": gid,
                    "msg_seq_number": i,
                    "msg_flags": MQMF_LAST_MSG_IN_GROUP if i == 3 else MQMF_MSG_IN_GROUP,
                }
                if grouped
                else {}
            ),
        )
        for i in (1, 2, 3)
    ]
    load(qm, messages)
    book = ledger()
    if first == "one-off":
        failed = cli(*RETRY_FULL, "--reason", "try1")
    else:
        table = tmp_path / "t.rul"
        table.write_text("RETRYINT(3600) WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\n")
        failed = cli("run", "--rules", str(table), "--no-watch")
    assert failed.rc == 6, failed.err
    assert depth(qm, "DLQHANDLER.STATUS") > 0  # the failures were counted
    again = cli(*RETRY_FULL, "--reason", "still full")
    assert again.rc == 6, again.err  # its own attempt failed: reported, not ignored
    assert "0 message(s) moved" in again.err

    alter(qm, "APP.Q", put="ENABLED")
    moved = cli(*RETRY_FULL, "--reason", "room again")

    assert moved.rc == 0, moved.err
    assert "3 message(s) moved" in moved.err
    placed = book.check(["APP.Q"])
    assert [m.md.msg_id for m in placed["APP.Q"]] == [m.md.msg_id for m in messages]
    assert depth(qm, "DLQHANDLER.STATUS") == 0  # cleared with the move


def test_a_queue_name_typed_on_the_command_line_is_exact(qm, ledger, cli) -> None:
    """Issue 33, class 5: MQ names are case-sensitive, so `--action fwd:app.lower`
    forwards to the queue `app.lower`, never to `APP.LOWER` (both defined), and the audit
    record names it so. Only a rules table's own unquoted values (and --match, which is
    table syntax) are folded to upper case. IBM: "Queue names ... are case-sensitive"
    (https://www.ibm.com/docs/en/ibm-mq/9.4?topic=objects-rules-naming-mq)."""
    define(qm, "app.lower", "APP.LOWER")
    full, _other = _backlog(qm)
    book = ledger()

    run = cli(
        "run",
        "--match",
        "reason(MQRC_Q_FULL)",
        "--action",
        "fwd:app.lower",
        "--reason",
        "lower",
        "--no-watch",
    )

    assert run.rc == 0, run.err
    placed = book.check(["app.lower", "APP.LOWER"])
    assert {m.md.msg_id for m in placed["app.lower"]} == {m.md.msg_id for m in full}
    assert "APP.LOWER" not in placed
    assert {r["target"] for r in _records(qm)} == {"app.lower@QM1"}


def test_a_msgid_naming_a_member_of_an_incomplete_group_is_named_and_fails(qm, ledger, cli) -> None:
    """``--msgid`` naming a member of a group whose other members are not all on the DLQ:
    the group stays whole on the queue (nothing moved, no audit record) and the run says
    that the message is there but in a group left whole, naming the group, and exits 1,
    as for a MsgId that is not there, instead of only "selected none". IBM's "Grouping
    logical messages" (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/
    com.ibm.mq.dev.doc/q026280_.html): the getter uses MQGMO_ALL_MSGS_AVAILABLE "This
    ensures that processing does not start until all the messages within the group have
    arrived"; the handler moves a group whole or not at all."""
    define(qm, "APP.Q")
    present = _group_for_app_q(b"GROUP HALF THERE", "HALF", (1, 2), last=3)  # 3 never came
    gid = present[0].md.group_id
    load(qm, present)
    book = ledger()
    named = present[1].md.msg_id

    done = cli("run", "--msgid", named.hex(), "--action", "retry", "--reason", "one", "--no-watch")

    assert done.rc == 1, done.err
    assert f"MsgId {named.hex()} is on" in done.err
    assert f"in group {gid.hex()}, which was left whole" in done.err
    assert "no message with MsgId" not in done.err
    assert browse(qm, "APP.Q") == []
    book.check([])
    assert _records(qm) == []
