"""What a one-off run says when it is asked something it cannot do (issue 33, "unclear"):
each message says what is wrong, where, and how to fix it; nothing on the DLQ moves.

* ``--match`` holding ``ACTION`` (or any action or control keyword) was "duplicate
  keyword ACTION": it now says that a pattern only selects, and names ``--action``;
* ``--msgid ABC`` was "not hexadecimal" (it is: three digits) and now names the odd
  number of digits; a character that is no hex digit is named;
* ``--older-than -5d`` was argparse's "expected one argument": the value is taken and
  refused, an age being never negative (``run``, ``report`` and ``audit --since``);
* a one-off discard by MsgId of a message without an MQDLH (a plain message, a damaged
  MQRFH2 in front) moved 0 with no reason: the run now reports it
  (``message_without_dlh``, with what is wrong), as docs/properties.md says.

Every case runs the real CLI on a real embedded queue manager and checks the exit code,
the message and the DLQ's messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from dlqhandler.cli import main
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import EmbeddedQueueManager, PutOptions
from tests.worker.helpers import browse, define, identity

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _one_off(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str
) -> tuple[int, str, list[dict[str, Any]]]:
    """``dlqhandler run`` in-process: exit code, stderr and the log events."""
    import dlqhandler.cli.run as run_module

    capsys.readouterr()
    with monkeypatch.context() as m:
        m.setattr(run_module, "configure_logging", lambda **_: None)
        with capture_logs() as logs:
            code = main(["run", *argv])
    return code, capsys.readouterr().err, list(logs)


@pytest.fixture
def loaded(qm: EmbeddedQueueManager) -> list[tuple[bytes, str]]:
    """Three dead letters (MQRC_Q_FULL) on QM1's DLQ; what is on it."""
    for i in range(3):
        dead = Message.dead_letter(
            MQMD(format="MQSTR"), f"order {i}".encode(), reason=2053, dest_q_name="APP.IN"
        )
        qm.put1(DLQ, dead, PutOptions(syncpoint=False))
    return [identity(m) for m in browse(qm, DLQ)]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            ["--match", "REASON(MQRC_Q_FULL) ACTION(DISCARD)", "--action", "discard"],
            (
                "--match 'REASON(MQRC_Q_FULL) ACTION(DISCARD)' holds ACTION: a pattern only "
                "selects messages"
            ),
        ),
        (
            ["--match", "reason(MQRC_Q_FULL) fwdq(DLQ.X) retry(3)", "--action", "retry"],
            "holds FWDQ, RETRY: a pattern only selects messages",
        ),
        (["--match", "INPUTQ(Q) REASON(2053)", "--action", "retry"], "holds INPUTQ: a pattern"),
        (
            ["--msgid", "ABC", "--action", "discard"],
            (
                "--msgid 'ABC' has an odd number of hex digits (3): a MsgId is bytes, two hex "
                "digits each"
            ),
        ),
        (
            ["--msgid", "414D5G", "--action", "discard"],
            "--msgid '414D5G' is not hexadecimal: 'G' is not a hex digit",
        ),
        (
            ["--older-than", "-5d", "--action", "discard"],
            (
                "--older-than '-5d' is a negative age: an age counts back from now (5d: that "
                "long ago), so it cannot be negative; give it without the minus sign "
                "(--older-than 5d)"
            ),
        ),
        (
            ["--newer-than", "-1.5h", "--action", "discard"],
            "--newer-than '-1.5h' is a negative age",
        ),
        (
            ["--older-than=-2w", "--action", "discard"],
            "--older-than '-2w' is a negative age",
        ),
    ],
)
def test_a_selector_it_cannot_use_is_refused_saying_why(
    qm: EmbeddedQueueManager,
    loaded: list[tuple[bytes, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    words: str,
) -> None:
    """Exit 2, the message names the option, its value, what is wrong and the fix; the
    DLQ keeps every message (refused before anything is touched)."""
    code, err, _logs = _one_off(capsys, monkeypatch, DLQ, "QM1", *argv, "--reason", "test")
    assert code == 2, err
    assert words in err
    assert "expected one argument" not in err
    assert "duplicate keyword" not in err
    assert [identity(m) for m in browse(qm, DLQ)] == loaded


def test_a_keyword_inside_a_quoted_value_is_not_an_action(
    qm: EmbeddedQueueManager,
    loaded: list[tuple[bytes, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--match "DESTQ('ACTION(X)')" is a pattern (the table's parser reads the quoted
    value as a value): accepted, it selects nothing here, exit 0, nothing moves."""
    code, err, _logs = _one_off(
        capsys,
        monkeypatch,
        DLQ,
        "QM1",
        "--match",
        "DESTQ('ACTION(X)')",
        "--action",
        "discard",
        "--reason",
        "test",
    )
    assert code == 0, err
    assert "0 message(s) moved" in err
    assert [identity(m) for m in browse(qm, DLQ)] == loaded


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (["audit", "QM1", "--since", "-2h"], "--since '-2h' is a negative age"),
        (
            ["report", "-m", "QM1", "--older-than", "-5d", "--output", "{tmp}/r"],
            "--older-than '-5d' is a negative age",
        ),
    ],
)
def test_audit_and_report_refuse_a_negative_age_too(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    words: str,
) -> None:
    """The same rule for every age option: the value reaches it and is refused, exit 2."""
    assert main([w.replace("{tmp}", str(tmp_path)) for w in command]) == 2
    err = capsys.readouterr().err
    assert words in err
    assert "expected one argument" not in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("message", "detail"),
    [
        (Message(MQMD(format="MQSTR"), b"plain, no MQDLH"), "not 'MQDEAD'"),
        (
            Message(MQMD(format="MQHRF2"), b"RFH \x02\x00\x00\x00\x10\x00\x00\x00garbage"),
            "MQRFH2 at offset 0: truncated",
        ),
    ],
    ids=["plain", "damaged-rfh2"],
)
def test_a_message_without_an_mqdlh_named_by_msgid_is_left_saying_why(
    qm: EmbeddedQueueManager,
    loaded: list[tuple[bytes, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    message: Message,
    detail: str,
) -> None:
    """A one-off discard by MsgId of a message that has no valid MQDLH: nothing moves
    (exit 0, "0 message(s) moved", the summary's "without MQDLH"), and the run reports
    it: message_without_dlh with its MsgId and what is wrong, as a table run does
    (docs/properties.md); the dead letters not named stay quiet and untouched."""
    qm.put1(DLQ, message, PutOptions(syncpoint=False))
    before = [identity(m) for m in browse(qm, DLQ)]
    msgid = next(m.md.msg_id for m in browse(qm, DLQ) if identity(m) not in loaded)
    code, err, logs = _one_off(
        capsys,
        monkeypatch,
        DLQ,
        "QM1",
        "--msgid",
        msgid.hex(),
        "--action",
        "discard",
        "--reason",
        "clean up",
    )
    assert code == 0, err
    assert "0 message(s) moved" in err
    said = [e for e in logs if e["event"] == "message_without_dlh"]
    assert [e["msgid"] for e in said] == [msgid.hex()]
    assert detail in said[0]["detail"]
    assert [identity(m) for m in browse(qm, DLQ)] == before


def test_a_msgid_that_is_not_on_the_queue_is_named_and_fails(
    qm: EmbeddedQueueManager,
    loaded: list[tuple[bytes, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A one-off discard by two MsgIds, one on the DLQ and one not (moved already, a typo):
    the one found is discarded, the other is named as not on the queue and the run exits 1,
    not a silent success; a dry run of a MsgId not there says the same and exits 1."""
    there = browse(qm, DLQ)[0].md.msg_id
    gone = bytes(24 - 3) + b"\x01\x02\x03"
    code, err, _logs = _one_off(
        capsys,
        monkeypatch,
        DLQ,
        "QM1",
        "--msgid",
        there.hex(),
        "--msgid",
        gone.hex(),
        "--action",
        "discard",
        "--reason",
        "INC-7",
    )
    assert code == 1, err
    assert "1 message(s) moved" in err
    assert f"no message with MsgId {gone.hex()} is on {DLQ}" in err
    assert there.hex() not in err
    assert [identity(m) for m in browse(qm, DLQ)] == loaded[1:]
    code, err, _logs = _one_off(
        capsys, monkeypatch, DLQ, "QM1", "--msgid", "0102", "--action", "retry", "--dry-run"
    )
    assert code == 1, err
    assert f"no message with MsgId 0102{'00' * 22} is on {DLQ}" in err
    assert f"--msgid 0102 selected none of the 2 message(s) on {DLQ}: nothing was done" in err


@pytest.mark.parametrize(
    "selector",
    [["--match", "DESTQ(NOPE.*)"], ["--older-than", "7d"]],
    ids=["match", "age"],
)
def test_a_selector_that_selects_nothing_says_so(
    qm: EmbeddedQueueManager,
    loaded: list[tuple[bytes, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    selector: list[str],
) -> None:
    """A pattern or an age that selects none of the DLQ's messages is not silent: besides
    "0 message(s) moved" the run says the selector selected none of the 3 messages and
    nothing was done (exit 0: finding nothing to do is no failure); nothing moves. A
    selector that selects something does not say it."""
    code, err, _logs = _one_off(
        capsys, monkeypatch, DLQ, "QM1", *selector, "--action", "discard", "--reason", "x"
    )
    assert code == 0, err
    assert f"selected none of the 3 message(s) on {DLQ}: nothing was done" in err
    assert selector[0] in err.splitlines()[-1]
    assert [identity(m) for m in browse(qm, DLQ)] == loaded
    code, err, _logs = _one_off(
        capsys,
        monkeypatch,
        DLQ,
        "QM1",
        "--match",
        "DESTQ(APP.*)",
        "--action",
        "discard",
        "--dry-run",
    )
    assert code == 0, err
    assert "3 message(s) would be moved" in err
    assert "selected none" not in err


def test_a_msgid_that_selects_two_messages_acts_on_both_and_warns(
    qm: EmbeddedQueueManager,
    loaded: list[tuple[bytes, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An application that sets its own MsgId can put two messages alike: "Generally, no
    two messages should have the same message identifier, although this is not
    disallowed by the queue manager" (IBM MQ, MsgId (MQBYTE24),
    https://www.ibm.com/docs/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097550_.html). An
    administrator naming one MsgId expects one message: a one-off run whose ``--msgid``
    selects two acts on both, as docs/one-off-actions.md says, and now says so in a
    warning naming the MsgId and the count, the dry run beforehand too (before, "2
    message(s) moved" alone). A --msgid that selects one message gives no warning."""
    twin = Message.dead_letter(MQMD(format="MQSTR"), b"twin", reason=2053, dest_q_name="APP.IN")
    first = browse(qm, DLQ)[0].md.msg_id
    qm.put1(DLQ, twin.with_md(twin.md.replace(msg_id=first)), PutOptions(syncpoint=False))
    argv = (DLQ, "QM1", "--msgid", first.hex(), "--action", "discard")
    code, err, _logs = _one_off(capsys, monkeypatch, *argv, "--dry-run")
    assert code == 0, err
    assert "2 message(s) would be moved (dry run)" in err
    assert (
        f"warning: --msgid {first.hex()} selected 2 messages on {DLQ}, not one (an "
        "application put them with the same MsgId): the action would be taken on all 2 "
        "(dry run)"
    ) in err
    assert len(browse(qm, DLQ)) == 4
    code, err, _logs = _one_off(capsys, monkeypatch, *argv, "--reason", "INC-8")
    assert code == 0, err
    assert "2 message(s) moved" in err
    assert f"--msgid {first.hex()} selected 2 messages" in err
    assert "the action was taken on all 2;" in err
    assert [identity(m) for m in browse(qm, DLQ)] == loaded[1:]
    second = loaded[1][0]
    code, err, _logs = _one_off(
        capsys, monkeypatch, DLQ, "QM1", "--msgid", second.hex(), "--action", "discard",
        "--reason", "INC-9",
    )  # fmt: skip
    assert code == 0, err
    assert "1 message(s) moved" in err
    assert "warning" not in err


def _group_of_two(qm: EmbeddedQueueManager) -> bytes:
    """A complete group of two on the DLQ: member 1 MQRC_NOT_AUTHORIZED, member 2 (last)
    MQRC_Q_FULL; its GroupId."""
    group = b"GRP".ljust(24, b"\x00")
    for seq, flags, reason in ((1, 8, 2035), (2, 8 | 16, 2053)):
        md = MQMD(format="MQSTR", group_id=group, msg_seq_number=seq, msg_flags=flags)
        dead = Message.dead_letter(md, b"member", reason=reason, dest_q_name="APP.IN")
        qm.put1(DLQ, dead, PutOptions(syncpoint=False))
    return group


def test_a_group_selected_by_one_member_is_forwarded_whole_with_a_warning(
    qm: EmbeddedQueueManager,
    loaded: list[tuple[bytes, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A group is selected when any member is, and moves whole, as IBM has an application
    get a group: "retrieve the entire group with the same getting application instance"
    (IBM MQ, Grouping logical messages,
    https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html): a
    one-off forward whose --match selects one of a group's two members forwards both, and
    warns, naming the selector, the group and how many of its members were selected, the
    dry run first. The three ungrouped messages stay."""
    define(qm, "HOLD")
    group = _group_of_two(qm)
    argv = (DLQ, "QM1", "--match", "REASON(MQRC_NOT_AUTHORIZED)", "--action", "fwd:HOLD")
    words = (
        f"warning: --match 'REASON(MQRC_NOT_AUTHORIZED)' selected 1 of the 2 messages of group "
        f"{group.hex()} on {DLQ}: the action "
    )
    code, err, _logs = _one_off(capsys, monkeypatch, *argv, "--dry-run")
    assert code == 0, err
    assert words + "would be taken on all 2 (dry run), as a group moves whole" in err
    assert len(browse(qm, DLQ)) == 5
    code, err, _logs = _one_off(capsys, monkeypatch, *argv, "--reason", "INC-10")
    assert code == 0, err
    assert "2 message(s) moved" in err
    assert words + "was taken on all 2, as a group moves whole" in err
    assert [identity(m) for m in browse(qm, DLQ)] == loaded
    assert [m.md.msg_seq_number for m in browse(qm, "HOLD")] == [1, 2]


def test_a_discard_that_selects_part_of_a_group_leaves_the_group_and_fails(
    qm: EmbeddedQueueManager,
    loaded: list[tuple[bytes, str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A group moves whole or not at all ("retrieve the entire group", IBM MQ, Grouping
    logical messages,
    https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html),
    so a one-off discard whose --match selects one of a group's two members would remove a
    message nobody selected: the group is left on the DLQ, the run names the selector, the
    group and the member(s) not selected, and exits 1 (the dry run says it first). Before,
    both were discarded with a warning. Selecting every member discards the group."""
    group = _group_of_two(qm)
    argv = (DLQ, "QM1", "--match", "REASON(MQRC_NOT_AUTHORIZED)", "--action", "discard")
    words = (
        f"--match 'REASON(MQRC_NOT_AUTHORIZED)' selected 1 of the 2 messages of group "
        f"{group.hex()} on {DLQ}: a group moves whole or not at all, and discarding it would "
        "remove 1 message(s) not selected, so the group "
    )
    code, err, _logs = _one_off(capsys, monkeypatch, *argv, "--dry-run")
    assert code == 1, err
    assert words + "would be left (dry run) on the queue" in err
    code, err, logs = _one_off(capsys, monkeypatch, *argv, "--reason", "INC-10")
    assert code == 1, err
    assert words + "was left on the queue; to discard it, select every member" in err
    assert "0 message(s) moved" in err
    assert len(browse(qm, DLQ)) == 5
    assert any(e["event"] == "group_partly_selected" for e in logs)
    every = (DLQ, "QM1", "--match", "DESTQ(APP.IN)", "--action", "discard")
    code, err, _logs = _one_off(capsys, monkeypatch, *every, "--reason", "INC-11")
    assert code == 0, err
    assert "5 message(s) moved" in err
    assert browse(qm, DLQ) == []
