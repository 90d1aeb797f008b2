"""`dlqhandler run`: out-of-range options and invalid names are refused before anything is
touched; a dry run counts what the run would refuse; a run that leaves messages it could
not act on says so with exit code 6 (PARTIAL); a missing queue manager is 4 everywhere."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from tests.worker.helpers import DLQ, RunCli, dead_letter, define, depth, load

FWD_WITH_HEADER = "WAIT(NO)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n"


@pytest.mark.parametrize(
    "option",
    [["--max-hops", "0"], ["--max-hops", "-1"], ["--batch-size", "0"], ["--batch-size", "-3"]],
)
def test_out_of_range_counts_are_refused(qm, ledger, run_cli: RunCli, option: list[str]) -> None:
    """--max-hops 0, --batch-size 0 and -3 are usage errors (exit 2) naming the option,
    like --max-rate 0; they are no longer silently taken as 1. Nothing is touched."""
    load(qm, [dead_letter("stays")])
    book = ledger()
    with pytest.raises(SystemExit) as exc:
        run_cli(FWD_WITH_HEADER, *option)
    assert exc.value.code == ExitCode.USAGE
    book.check([])


def test_dry_run_summary_agrees_with_the_run_on_refused_loops(qm, ledger, run_cli: RunCli) -> None:
    """--max-hops 1 refuses to forward a message that already carries an MQDLH: the dry
    run's summary says 'would be forwarded 0, forward loops refused 1, would fail 1' as
    the real run then does (forwarded 0, refused 1); both exit 6, nothing moves."""
    define(qm, "CATCH")
    load(qm, [dead_letter("looping")])
    book = ledger()

    dry = run_cli(FWD_WITH_HEADER, "--dry-run", "--max-hops", "1")
    real = run_cli(FWD_WITH_HEADER, "--max-hops", "1")

    assert dry.summary("would be forwarded") == 0
    assert dry.summary("forward loops refused") == 1
    assert dry.summary("would fail") == 1
    assert dry.events("dry_run_decision")[0]["refused"] == "FORWARD_LOOP"
    assert real.summary("forwarded") == 0
    assert real.summary("forward loops refused") == 1
    assert real.summary("failed, left") == 1
    assert (dry.rc, real.rc) == (ExitCode.PARTIAL, ExitCode.PARTIAL)
    book.check([])


def test_dry_run_counts_what_the_run_does(qm, ledger, run_cli: RunCli) -> None:
    """Without refusals the dry run's counts are the run's: 2 would be forwarded, then 2
    are forwarded; exit 0 both times."""
    define(qm, "CATCH")
    load(qm, [dead_letter("one"), dead_letter("two")])
    book = ledger()
    dry = run_cli(FWD_WITH_HEADER, "--dry-run")
    real = run_cli(FWD_WITH_HEADER)
    assert (dry.summary("would be forwarded"), dry.summary("would fail")) == (2, 0)
    assert (real.summary("forwarded"), real.summary("failed, left")) == (2, 0)
    assert (dry.rc, real.rc) == (ExitCode.OK, ExitCode.OK)
    book.check(["CATCH"])


def test_a_run_whose_actions_fail_exits_partial(qm, ledger, run_cli: RunCli) -> None:
    """Every forward fails with MQRC_UNKNOWN_OBJECT_NAME (2085): the messages stay, the
    run says how many it could not act on and exits 6 (PARTIAL), not 0."""
    load(qm, [dead_letter("a"), dead_letter("b")])
    book = ledger()
    run = run_cli("WAIT(NO)\nACTION(FWD) FWDQ(NO.SUCH.QUEUE)\n")
    assert run.rc == ExitCode.PARTIAL
    assert run.summary("failed, left") == 2
    assert "2 message(s) left on SYSTEM.DEAD.LETTER.QUEUE because their action failed" in run.err
    assert depth(qm, DLQ) == 2
    book.check([])


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Q" * 49, "is 49 characters long (at most 48)"),
        ("APP IN", "contains characters not allowed in MQ names (' ')"),
        ("APP#IN", "contains characters not allowed in MQ names ('#')"),
    ],
)
def test_invalid_input_queue_name_is_reported_before_connecting(
    home: Path, run_cli: RunCli, name: str, why: str
) -> None:
    """No queue manager exists at all: an invalid INPUTQ is still reported as an invalid
    name with the reason (exit 2), not as MQRC_UNKNOWN_OBJECT_NAME or a connection error."""
    run = run_cli("ACTION(DISCARD)\n", name)
    assert run.rc == ExitCode.USAGE
    assert f"INPUTQ {name!r} {why}: not a valid MQ name" in run.err
    assert "2085" not in run.err
    assert "AMQ8741" not in run.err


def test_a_missing_queue_manager_is_exit_4_from_every_command(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """run, qm mqsc, qm browse, qm put and qm dmpmqmsg on a queue manager that does not
    exist all exit 4 (CONNECTION_ERROR) naming MQRC_Q_MGR_NAME_ERROR."""
    rules = tmp_path / "r.rul"
    rules.write_text("ACTION(DISCARD)\n")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    commands = [
        ["run", DLQ, "NOPE", "--rules", str(rules), "--no-watch"],
        ["qm", "mqsc", "NOPE"],
        ["qm", "browse", "-m", "NOPE", "-q", DLQ],
        ["qm", "put", "-m", "NOPE", "-q", DLQ],
        ["qm", "dmpmqmsg", "-m", "NOPE", "-i", DLQ, "-f", str(tmp_path / "o.dmp")],
    ]
    for argv in commands:
        assert main(argv) == ExitCode.CONNECTION_ERROR, argv
        assert "Q_MGR_NAME_ERROR" in capsys.readouterr().err or argv[0] == "run"


@pytest.mark.parametrize(
    ("dlq", "held"),
    [("", True), ("DEFSOPT(EXCL)", None), ("NOSHARE", False)],
    ids=["MQOO_INPUT_EXCLUSIVE", "DEFSOPT(EXCL)", "NOSHARE"],
)
@pytest.mark.parametrize("backend", ["embedded", "ibmmq"])
def test_a_dlq_held_exclusively_elsewhere_stops_run_with_2042(
    qm, home: Path, run_cli: RunCli, backend: str, dlq: str, held: bool | None
) -> None:
    """Another handle holds the DLQ open for exclusive input (MQOO_INPUT_EXCLUSIVE; or
    MQOO_INPUT_AS_Q_DEF on a DEFSOPT(EXCL) DLQ; or MQOO_INPUT_SHARED on a NOSHARE one):
    ``dlqhandler run`` (which opens with MQOO_INPUT_AS_Q_DEF) stops with exit 4, an error
    naming MQRC_OBJECT_IN_USE (2042), the queue, and what to do, no traceback, and moves
    nothing; the same on the embedded back end and through IBM's library on the stand-in.
    Once the other handle closes, the same run forwards the message, on a DEFSOPT(EXCL) or
    NOSHARE DLQ too: alone, it is that queue's only reader, as runmqdlq is.

    IBM, 2042 MQRC_OBJECT_IN_USE
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041130_.html): "This
    arises if the request is for shared input, but the object is already open for
    exclusive input"."""
    from tests.mqi.build import load as load_standin

    define(qm, "CATCH", "DLQHANDLER.STATUS")  # (--backend ibmmq defines no queue)
    load(qm, [dead_letter("held")])
    standin = load_standin() if backend == "ibmmq" else None
    if standin is not None:
        standin.reset(home=home)
    try:
        if dlq:
            qm.admin().alter_queue(DLQ, {"DEFSOPT": "EXCL"} if "EXCL" in dlq else {"SHARE": dlq})
        holder = qm.open(DLQ, exclusive=held)
        args = ("--backend", backend, DLQ, "QM1")
        run = run_cli(FWD_WITH_HEADER, *args, rendered=True)
        assert run.rc == ExitCode.CONNECTION_ERROR, run.err
        assert "Unable to open queue SYSTEM.DEAD.LETTER.QUEUE" in run.err
        assert "MQRC_OBJECT_IN_USE (2042)" in run.err
        assert f"DISPLAY QSTATUS({DLQ}) TYPE(HANDLE)" in run.err
        assert "Traceback" not in run.err
        assert (depth(qm, DLQ), depth(qm, "CATCH")) == (1, 0)
        holder.close()
        run = run_cli(FWD_WITH_HEADER, *args, rendered=True)
        assert run.rc == ExitCode.OK, run.err
        assert (depth(qm, DLQ), depth(qm, "CATCH")) == (0, 1)
    finally:
        if standin is not None:
            assert not standin.errors, standin.errors
            standin.reset()


@pytest.mark.parametrize("dlq", ["DEFSOPT(EXCL)", "NOSHARE"])
@pytest.mark.parametrize("backend", ["embedded", "ibmmq"])
def test_run_alone_on_an_exclusive_dlq_moves_singles_and_groups_whole(
    qm, home: Path, run_cli: RunCli, backend: str, dlq: str
) -> None:
    """On a DLQ defined DEFSOPT(EXCL) or NOSHARE, where every input open is exclusive,
    ``dlqhandler run`` alone is the queue's only reader, as runmqdlq is: it forwards single
    dead letters and a three-message group whole (each member once, in order), on the
    embedded back end and through IBM's library on the stand-in; nothing is left and
    nothing is duplicated.

    IBM, Shareability
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103540_.html):
    MQQA_NOT_SHAREABLE "An MQOPEN call with the MQOO_INPUT_SHARED option is treated as
    MQOO_INPUT_EXCLUSIVE"; 2042 MQRC_OBJECT_IN_USE
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041130_.html): "If the
    queue definition shows NOSHARE, then IBM MQ will make the input handle exclusive
    regardless of the options set by the application"."""
    from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
    from dlqhandler.qmgr import GetOptions
    from tests.mqi.build import load as load_standin

    define(qm, "CATCH", "DLQHANDLER.STATUS")
    gid = b"GROUP EXCL".ljust(24, b"\x00")
    group = [
        dead_letter(
            f"member {seq}",
            tag=f"EXG{seq}",
            group_id=gid,
            msg_seq_number=seq,
            msg_flags=MQMF_LAST_MSG_IN_GROUP if seq == 3 else MQMF_MSG_IN_GROUP,
        )
        for seq in (1, 2, 3)
    ]
    singles = [dead_letter(f"single {i}", tag=f"EXS{i}") for i in range(4)]
    load(qm, [singles[0], *group, *singles[1:]])
    qm.admin().alter_queue(DLQ, {"DEFSOPT": "EXCL"} if "EXCL" in dlq else {"SHARE": dlq})
    standin = load_standin() if backend == "ibmmq" else None
    if standin is not None:
        standin.reset(home=home)
    try:
        run = run_cli(FWD_WITH_HEADER, "--backend", backend, DLQ, "QM1", rendered=True)
        assert run.rc == ExitCode.OK, run.err
        assert (depth(qm, DLQ), depth(qm, "CATCH")) == (0, 7)
        got = qm.open("CATCH", input=True, browse=False)
        bodies = [got.get(GetOptions(syncpoint=False)).payload for _ in range(7)]
        got.close()
        members = [b for b in bodies if b"member" in b]
        assert len(bodies) == len(set(bodies)) == 7
        assert [m[-8:] for m in members] == [b"member 1", b"member 2", b"member 3"]
    finally:
        if standin is not None:
            assert not standin.errors, standin.errors
            standin.reset()
