"""Every action, substitutions, PUTAUT, loops, dry run and batching, through the CLI."""

from __future__ import annotations

import json

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.constants import MQFB_COA
from tests.worker.helpers import DLQ, STATUS, RunCli, dead_letter, define, depth, load, mqsc

ACTIONS = """\
RETRYINT(0) WAIT(NO)
DESTQ(RETRY.OK) ACTION(RETRY)
DESTQ(FWD.YES) ACTION(FWD) FWDQ(TARGET.YES) HEADER(YES)
DESTQ(FWD.NO) ACTION(FWD) FWDQ(TARGET.NO) HEADER(NO)
DESTQ(GONE) ACTION(DISCARD)
DESTQ(KEEP) ACTION(IGNORE)
"""


def test_every_action_moves_each_message_to_its_one_place(qm, ledger, run_cli: RunCli) -> None:
    """RETRY strips the MQDLH and restores Format/Encoding/CCSID on DestQName; FWD
    HEADER(YES) forwards byte for byte, HEADER(NO) stripped; DISCARD removes; IGNORE
    and no match (implicit IGNORE) leave the message; context passes unchanged."""
    define(qm, "RETRY.OK", "TARGET.YES", "TARGET.NO")
    retry = dead_letter("retry me", destq="RETRY.OK", fmt="MQHRF2", encoding=273, ccsid=500)
    fwd_yes = dead_letter(b"\x00\x01binary", destq="FWD.YES", fmt="", ccsid=819)
    fwd_no = dead_letter("plain text", destq="FWD.NO", encoding=785, ccsid=1047)
    gone = dead_letter("discard me", destq="GONE")
    keep = dead_letter("keep me", destq="KEEP")
    nomatch = dead_letter("nobody wants me", destq="NOMATCH")
    load(qm, [retry, fwd_yes, fwd_no, gone, keep, nomatch])
    book = ledger()

    run = run_cli(ACTIONS)

    assert run.rc == 0, run.err
    book.check(["RETRY.OK", "TARGET.YES", "TARGET.NO"], discarded=[gone.md.msg_id])
    assert book.where(retry) == "RETRY.OK"
    assert book.where(fwd_yes) == "TARGET.YES"
    assert book.where(fwd_no) == "TARGET.NO"
    assert book.where(keep) == book.where(nomatch) == "SYSTEM.DEAD.LETTER.QUEUE"
    assert (
        run.summary("retried"),
        run.summary("forwarded"),
        run.summary("discarded"),
        run.summary("ignored"),
        run.summary("left on the queue"),
    ) == (1, 2, 1, 2, 2)
    assert "AMQ8708: Dead-letter queue handler started to process" in run.out
    assert "AMQ8709: Dead-letter queue handler ending." in run.out
    [retried] = run.events("message_retried")
    assert (retried["rule_line"], retried["target"], retried["outcome"]) == (
        2,
        "RETRY.OK@QM1",
        "ok",
    )
    assert retried["msgid"] == retry.md.msg_id.hex()
    assert retried["destq"] == "RETRY.OK"
    implicit = run.events("message_ignored", implicit=True)
    assert {e["msgid"] for e in implicit} == {nomatch.md.msg_id.hex()}
    assert run.events("handler_ended")[0]["reason"] == "wait_expired"


SUBSTITUTIONS = """\
RETRYINT(0) WAIT(NO)
USERID('destq') ACTION(FWD) FWDQ(&DESTQ) HEADER(NO)
USERID('replyq') ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)
USERID('destqm') ACTION(FWD) FWDQ(REMOTE.Q) FWDQM(&DESTQM)
ACTION(FWD) FWDQ(CATCH)
"""


def test_substitutions_resolve_from_the_message(qm, ledger, run_cli: RunCli) -> None:
    """&DESTQ/&DESTQM come from the MQDLH, &REPLYQ/&REPLYQM from the MQMD; a remote
    queue manager name resolves through the transmission queue of that name."""
    define(qm, "SUB.DEST", "SUB.REPLY", "CATCH")
    define(qm, "QM2", usage="XMITQ")
    destq = dead_letter("a", destq="SUB.DEST", user="destq")
    reply_local = dead_letter("b", user="replyq", reply_to_q="SUB.REPLY", reply_to_q_mgr="QM1")
    reply_remote = dead_letter("c", user="replyq", reply_to_q="THEIR.REPLY", reply_to_q_mgr="QM2")
    destqm = dead_letter("d", user="destqm", destqm="QM2")
    load(qm, [destq, reply_local, reply_remote, destqm])
    book = ledger()

    run = run_cli(SUBSTITUTIONS)

    assert run.rc == 0, run.err
    book.check(["SUB.DEST", "SUB.REPLY", "QM2", "CATCH"])
    assert book.where(destq) == "SUB.DEST"
    assert book.where(reply_local) == "SUB.REPLY"
    assert book.where(reply_remote) == "THEIR.REPLY@QM2"
    assert book.where(destqm) == "REMOTE.Q@QM2"
    assert run.summary("forwarded") == 4
    assert not run.events("put_failed")


def test_untrusted_names_fail_the_put_and_fall_through(qm, ledger, run_cli: RunCli) -> None:
    """Crafted DestQName/ReplyToQ/ReplyToQMgr values (path-like, control characters,
    blanks, non-MQ characters, an unknown queue manager) are put failures: counted,
    logged with the reason, then the next rule (the catch-all) takes over. Never a crash."""
    define(qm, "CATCH")
    crafted = [
        dead_letter("1", user="destq", destq="../../etc/x"),  # valid MQ characters: 2085
        dead_letter("2", user="destq", destq="BAD\x1b[2J\nQ"),
        dead_letter("3", user="destq", destq=""),
        dead_letter("4", user="destq", destq="QUEUE.\u00c9T\u00c9"),
        dead_letter("5", user="destq", destq="X" * 48),  # valid but unknown: 2085
        dead_letter("6", user="replyq", reply_to_q=""),
        dead_letter("7", user="replyq", reply_to_q="Q WITH BLANKS"),
        dead_letter("8", user="replyq", reply_to_q="OK.Q", reply_to_q_mgr="NO.SUCH.QM"),
        dead_letter("9", user="destqm", destqm="QM\x07\tTAB"),
    ]
    load(qm, crafted)
    book = ledger()

    run = run_cli(SUBSTITUTIONS)

    assert run.rc == 0, run.err
    placed = book.check(["CATCH"])
    assert len(placed["CATCH"]) == len(crafted)
    failures = run.events("put_failed")
    assert len(failures) == len(crafted)
    reasons = sorted(e["reason_name"] for e in failures)
    assert reasons == sorted(
        ["MQRC_UNKNOWN_OBJECT_NAME"] * 2 + ["INVALID_TARGET"] * 6 + ["MQRC_UNKNOWN_REMOTE_Q_MGR"]
    )
    blank = next(e for e in failures if e["msgid"] == crafted[2].md.msg_id.hex())
    assert "blank" in blank["detail"]
    assert run.summary("forwarded") == len(crafted)
    assert depth(qm, STATUS) == 0  # success cleared every attempt record


def test_log_lines_escape_names_taken_from_messages(qm, run_cli: RunCli) -> None:
    """A queue name with terminal escapes and a newline cannot forge or colour log
    lines: the console output shows it escaped, and JSON output stays one event a line."""
    define(qm, "CATCH")
    load(qm, [dead_letter("x", user="destq", destq="BAD\x1b[31m\nforged: event")])

    console = run_cli(SUBSTITUTIONS, "--log-format", "console", rendered=True)

    assert console.rc == 0
    assert "\x1b" not in console.err
    assert not any(line.startswith("forged") for line in console.err.splitlines())
    assert "put_failed" in console.err
    assert "\\x1b" in console.err

    load(qm, [dead_letter("y", user="destq", destq="BAD\x1b[31m\nforged: event")])
    as_json = run_cli(SUBSTITUTIONS, "--log-format", "json", rendered=True)
    assert all(line.startswith("{") for line in as_json.err.splitlines() if "forged" in line)
    lines = [json.loads(line) for line in as_json.err.splitlines() if line.startswith("{")]
    [failed] = [e for e in lines if e["event"] == "put_failed"]
    assert "\n" not in failed["destq"]
    assert "\x1b" not in failed["destq"]


PUTAUT = """\
RETRYINT(0) WAIT(NO)
DESTQ(CTX.Q) ACTION(FWD) FWDQ(TARGET) PUTAUT(CTX)
DESTQ(DEF.Q) ACTION(FWD) FWDQ(TARGET) PUTAUT(DEF)
ACTION(FWD) FWDQ(CATCH)
"""


def test_putaut_ctx_puts_with_the_message_users_authority(qm, ledger, run_cli: RunCli) -> None:
    """PUTAUT(CTX) puts as the message's UserIdentifier: an authority record that
    denies that user gives 2035 and the fall-through; PUTAUT(DEF) uses the handler's
    own authority, so the same user's message goes through."""
    define(qm, "TARGET", "CATCH")
    qm.admin().set_authrec("TARGET", "app1", add=["BROWSE", "INQ"])
    denied = dead_letter("denied", destq="CTX.Q", user="app1")
    allowed = dead_letter("allowed", destq="CTX.Q", user="ok1")
    own = dead_letter("own authority", destq="DEF.Q", user="app1")
    load(qm, [denied, allowed, own])
    book = ledger()

    run = run_cli(PUTAUT)

    assert run.rc == 0, run.err
    book.check(["TARGET", "CATCH"])
    assert book.where(denied) == "CATCH"
    assert book.where(allowed) == book.where(own) == "TARGET"
    [failed] = run.events("put_failed")
    assert (failed["msgid"], failed["reason_code"], failed["rule_line"]) == (
        denied.md.msg_id.hex(),
        2035,
        2,
    )
    assert "MQRC_NOT_AUTHORIZED" in run.out


def test_a_forward_to_the_input_dlq_is_refused_as_a_loop(qm, ledger, run_cli: RunCli) -> None:
    """FWDQ naming the DLQ being processed is refused (never put back on the DLQ),
    counted as a loop, and the next rule takes over; the table compiles with a warning."""
    define(qm, "CATCH")
    load(qm, [dead_letter(f"m{i}") for i in range(3)])
    book = ledger()

    run = run_cli(
        "RETRYINT(0) WAIT(NO)\n"
        "ACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)\n"
        "ACTION(FWD) FWDQ(CATCH)\n"
    )

    assert run.rc == 0, run.err
    assert len(book.check(["CATCH"])["CATCH"]) == 3
    assert run.summary("forward loops refused") == 3
    assert {e["reason_name"] for e in run.events("put_failed")} == {"FORWARD_LOOP"}
    assert "SYSTEM.DEAD.LETTER.QUEUE" in run.err  # the compile-time warning


def test_a_target_that_is_an_alias_of_the_input_dlq_is_refused_as_a_loop(
    qm, home, ledger, run_cli: RunCli
) -> None:
    """A FWDQ, or a RETRY's DestQName, naming a QALIAS whose TARGET is the DLQ being
    processed puts the message straight back on it: MQ resolves an alias to its base
    queue ("when you specify the name of an alias queue ... the call resolves the name
    either to a local queue or to a transmission queue", IBM MQ, Name resolution,
    https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html). Such a put is refused
    as a loop (FORWARD_LOOP, in a dry run too) and the next rule takes over, as for the
    DLQ named outright. Before, a dry run said "would be forwarded" and a WAIT(NO) run
    forwarded the messages round and round (99,750 puts in 30 s) and never ended."""
    mqsc(
        home,
        "DEFINE QALIAS(DLQ.ALIAS) TARGET(SYSTEM.DEAD.LETTER.QUEUE)\n"
        "DEFINE QALIAS(DLQ.ALIAS2) TARGET(DLQ.ALIAS)\n"
        "DEFINE QLOCAL(CATCH)\n",
    )
    load(
        qm,
        [dead_letter(f"m{i}") for i in range(2)]
        + [dead_letter("r", reason=2051, destq="DLQ.ALIAS2")],
    )
    book = ledger()
    table = (
        "RETRYINT(0) WAIT(NO)\n"
        "REASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(5)\n"
        "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(DLQ.ALIAS) HEADER(YES)\n"
        "ACTION(FWD) FWDQ(CATCH)\n"
    )

    dry = run_cli(table, "--dry-run")
    assert dry.summary("forward loops refused") == 3, dry.out
    assert dry.summary("would be forwarded") == 0  # not "forwarded" to the alias
    assert dry.rc == ExitCode.PARTIAL
    assert depth(qm, "SYSTEM.DEAD.LETTER.QUEUE") == 3

    run = run_cli(table)
    assert run.rc == 0, run.err
    assert len(book.check(["CATCH"])["CATCH"]) == 3
    # the two FWDs once each, the RETRY each of its RETRY(5) tries, then the catch-all
    assert run.summary("forward loops refused") == 2 + 5
    failed = run.events("put_failed")
    assert {e["reason_name"] for e in failed} == {"FORWARD_LOOP"}
    assert all("the queue the input dead-letter queue" in e["detail"] for e in failed)


def test_an_input_queue_that_is_an_alias_is_no_way_round_the_loop_check(
    qm, home, ledger, run_cli: RunCli
) -> None:
    """Run on INPUTQ(DLQ.ALIAS), an alias of the DLQ (MQ resolves an alias to its base
    queue, IBM MQ, Name resolution,
    https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): a FWDQ naming the base
    queue lands where the messages are read from, and is refused as a loop too."""
    mqsc(home, "DEFINE QALIAS(DLQ.ALIAS) TARGET(SYSTEM.DEAD.LETTER.QUEUE)\n")
    define(qm, "CATCH")
    load(qm, [dead_letter(f"m{i}") for i in range(2)])
    book = ledger()
    run = run_cli(
        "INPUTQ(DLQ.ALIAS) RETRYINT(0) WAIT(NO)\n"
        "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)\n"
        "ACTION(FWD) FWDQ(CATCH)\n"
    )
    assert run.rc == 0, run.err
    assert len(book.check(["CATCH"])["CATCH"]) == 2
    assert run.summary("forward loops refused") == 2


def test_a_message_that_keeps_coming_back_is_left(qm, ledger, run_cli: RunCli) -> None:
    """A message already carrying --max-hops MQDLH headers (it was forwarded with its
    header and dead-lettered again, round and round) is not forwarded again."""
    define(qm, "ELSEWHERE")
    once = dead_letter("payload", destq="APP.Q")
    twice = Message.dead_letter(
        once.md, once.body, reason=2053, dest_q_name="ELSEWHERE", dest_q_mgr_name="QM1"
    )
    fresh = dead_letter("fresh")
    load(qm, [twice, fresh])
    book = ledger()

    run = run_cli(
        "RETRYINT(0) WAIT(NO)\nACTION(FWD) FWDQ(ELSEWHERE) HEADER(YES)\n", "--max-hops", "2"
    )

    assert run.rc == ExitCode.PARTIAL, run.err  # the looping message could not be acted on
    book.check(["ELSEWHERE"])
    assert book.where(twice) == "SYSTEM.DEAD.LETTER.QUEUE"
    assert book.where(fresh) == "ELSEWHERE"
    assert run.summary("forward loops refused") == 1


def test_dry_run_changes_nothing(qm, ledger, run_cli: RunCli) -> None:
    """--dry-run browses once and reports what each rule would do; no message moves,
    no attempt is recorded, no status queue is created, even with WAIT(YES)."""
    define(qm, "RETRY.OK", "TARGET.YES", "TARGET.NO")
    messages = load(
        qm,
        [
            dead_letter(destq=q)
            for q in ("RETRY.OK", "FWD.YES", "FWD.NO", "GONE", "KEEP", "NOWHERE")
        ],
    )
    book = ledger()
    table = ACTIONS.replace("WAIT(NO)", "WAIT(YES)")

    run = run_cli(table, "--dry-run")

    assert run.rc == 0, run.err
    placed = book.check(["RETRY.OK", "TARGET.YES", "TARGET.NO"])
    assert len(placed["SYSTEM.DEAD.LETTER.QUEUE"]) == len(messages)
    assert all(m.md.backout_count == 0 for m in placed["SYSTEM.DEAD.LETTER.QUEUE"])
    assert not qm.admin().queues(STATUS, generic=False)
    assert "dry run, nothing was changed" in run.out
    assert (
        run.summary("would be retried"),
        run.summary("would be forwarded"),
        run.summary("would be discarded"),
    ) == (1, 2, 1)
    decisions = run.events("dry_run_decision")
    assert {e["target"] for e in decisions} == {
        "RETRY.OK@QM1",
        "TARGET.YES@QM1",
        "TARGET.NO@QM1",
        None,
    }
    assert run.events("handler_ended")[0]["reason"] == "dry_run_done"


def test_batches_keep_failures_isolated(qm, ledger, run_cli: RunCli) -> None:
    """With --batch-size 10, a failed put inside a batch leaves only that message on the
    DLQ (with its attempt counted); the others in the same unit of work are delivered."""
    define(qm, "GOOD")
    define(qm, "BAD", put="DISABLED")
    messages = [dead_letter(f"m{i}", destq="BAD" if i % 3 == 0 else "GOOD") for i in range(25)]
    load(qm, messages)
    book = ledger()

    run = run_cli("RETRYINT(60) WAIT(NO)\nACTION(RETRY) RETRY(1)\n", "--batch-size", "10")

    assert run.rc == ExitCode.PARTIAL, run.err  # the BAD messages are left: their RETRY failed
    placed = book.check(["GOOD", "BAD"])
    bad = {m.md.msg_id for m in messages if m.dlh and m.dlh.dest_q_name == "BAD"}
    assert {m.md.msg_id for m in placed["SYSTEM.DEAD.LETTER.QUEUE"]} == bad
    assert len(placed["GOOD"]) == 25 - len(bad)
    assert len(run.events("put_failed", reason_code=2051)) == len(bad)
    assert depth(qm, STATUS) == len(bad)  # one durable record per failed message
    ended = run.events("handler_ended")[0]
    assert ended["commits"] <= 3  # 16 deliveries in batches of 10
    assert ended["backouts"] == 0


def test_context_survives_a_retry_with_an_mqmd_from_elsewhere(qm, ledger, run_cli: RunCli) -> None:
    """A message dead-lettered with its own ReplyToQ, Report and Priority is retried with
    all of them (and all context) unchanged (PASS_ALL_CONTEXT). Its Report asks for COA, so
    the retry's put makes the queue manager send one (IBM, Report,
    https://ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q097680_.htm: MQRO_COA "is
    generated by the queue manager that owns the destination queue, when the message is
    placed on the destination queue"); with ReplyToQMgr QM9 unknown here it is on the DLQ
    with an MQDLH (counted apart from the original), and the table's RETRY of it fails."""
    define(qm, "APP.Q")
    original = MQMD(
        format="MQSTR",
        coded_char_set_id=819,
        persistence=0,
        priority=7,
        report=0x0100,
        reply_to_q="MY.REPLY",
        reply_to_q_mgr="QM9",
        msg_id=b"CONTEXT".ljust(24, b"\x00"),
        correl_id=b"C" * 24,
        user_identifier="ctxuser",
        put_appl_name="ctx-app",
        put_appl_type=28,
        put_date="20240101",
        put_time="12345678",
        appl_identity_data="id",
        appl_origin_data="o",
        accounting_token=b"\x01" * 32,
    )
    load(
        qm,
        [
            Message.dead_letter(
                original, b"body", reason=2053, dest_q_name="APP.Q", dest_q_mgr_name=""
            )
        ],
    )
    book = ledger()

    run = run_cli("RETRYINT(0) WAIT(NO)\nACTION(RETRY)\n")

    # (the original is retried; the dead-lettered COA's own RETRY, to MY.REPLY at QM9,
    # fails for want of a route and leaves it on the DLQ: PARTIAL)
    assert run.rc == ExitCode.PARTIAL, run.err
    assert run.summary("retried") == 1
    assert run.summary("failed, left") == 1
    placed = book.check(["APP.Q"])
    [m] = placed["APP.Q"]
    assert (m.md.priority, m.md.report, m.md.reply_to_q, m.md.user_identifier) == (
        7,
        0x0100,
        "MY.REPLY",
        "ctxuser",
    )
    [coa] = book.generated
    assert (coa.queue, coa.message.md.feedback, coa.message.md.correl_id) == (
        DLQ,
        MQFB_COA,
        original.msg_id,
    )
    dlh = decode_dead_letter(coa.message.md, coa.message.body).dlh
    assert dlh is not None
    assert dlh.reason == 2087  # (MQRC_UNKNOWN_REMOTE_Q_MGR: no route to QM9)
