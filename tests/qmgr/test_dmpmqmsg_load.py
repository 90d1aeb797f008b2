"""``qm dmpmqmsg -o`` and ``decode`` on files that stop early or loads that stop early.

Nothing half-loaded, nothing loaded twice: a cut-off file loads nothing of its
last message; a load that stops (queue full, bad line) commits what came
before, prints IBM's Read/Written counts and names the first message not
loaded; ``-r FIRST..`` resumes it without duplicates.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import connect
from tests.worker.helpers import browse, identity

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "backlog-small.dmp"
CLI = ROOT / ".venv" / "bin" / "dlqhandler"
COUNTS = re.compile(
    r"Read    - Files:   1  Messages: *(\d+)  Bytes: *\d+\n"
    r"Written - Files:   0  Messages: *(\d+)  Bytes: *\d+\n"
)


def _on_queue(queue: str) -> list[tuple[bytes, str]]:
    """MsgId and payload hash of every message on the queue of QM1, in order (browsed)."""
    with connect("QM1") as qm:
        return [identity(m) for m in browse(qm, queue)]


def _mqsc(text: str) -> None:
    with connect("QM1") as qm:
        for line in text.splitlines():
            name, attrs = line.split(" ", 1)
            qm.admin().define_queue(name, dict(a.split("=") for a in attrs.split()))


def _messages(n: int) -> list[Message]:
    return [
        Message(
            MQMD(msg_id=f"LOAD{i:04d}".encode().ljust(24, b"\0"), format="MQSTR"),
            f"message {i} ".encode() * (i % 7 + 1),
        )
        for i in range(1, n + 1)
    ]


def _counts(err: str) -> tuple[str, ...]:
    """The (read, written) message counts of IBM's two statistics lines."""
    m = COUNTS.search(err)
    assert m is not None, err
    return m.groups()


def _load(path: Path, *extra: str) -> int:
    return main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", str(path), *extra])


@pytest.fixture
def qm1(home: Path) -> None:
    assert main(["qm", "create", "QM1"]) == 0


def test_decode_refuses_a_file_cut_mid_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: the sample cut at byte 20010 (inside message 15, no final newline)
    exits 2 naming file, line and message 15, after printing messages 1-14 only."""
    cut = tmp_path / "t.dmp"
    cut.write_bytes(SAMPLE.read_bytes()[:20010])
    assert main(["decode", str(cut)]) == 2
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()] == [str(i) for i in range(1, 15)]
    assert re.search(rf"{re.escape(str(cut))}:\d+: message 15: the file is cut off", err), err


def test_a_file_cut_after_a_whole_data_line_is_refused_too(tmp_path: Path) -> None:
    """A cut exactly at a line end leaves no sign but the missing empty line dmpmqmsg
    writes after every message: still an error naming that message, nothing of it read."""
    full = tmp_path / "full.dmp"
    write_dump(full, [Message(MQMD(), b"x" * 100), Message(MQMD(), b"y" * 100)])
    data = full.read_bytes()
    cut = tmp_path / "cut.dmp"
    cut.write_bytes(data[: data.rindex(b"\nX ") + 1 + 52 + 1])  # through one whole X line
    with pytest.raises(Exception, match=r"cut\.dmp:\d+: message 2: the file is cut off after"):
        list(read_dump(cut))
    assert [m.body for m in read_dump(full)] == [b"x" * 100, b"y" * 100]


def test_load_of_a_cut_file_loads_nothing_of_the_cut_message(
    qm1: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """qm dmpmqmsg -o of the cut sample puts messages 1-14 whole and nothing of 15: exit 6,
    the counts, and the -r that resumes after the file is copied again."""
    _mqsc("APP.IN MAXDEPTH=1000 MSGDLVSQ=FIFO")
    cut = tmp_path / "t.dmp"
    cut.write_bytes(SAMPLE.read_bytes()[:20010])
    assert _load(cut, "-t", "4") == 6
    err = capsys.readouterr().err
    assert "message 15: the file is cut off" in err
    assert "no message from index 15 on was loaded" in err
    assert "-r 15.." in err
    assert _counts(err) == ("14", "14")
    whole = [identity(m) for m in read_dump(SAMPLE)]
    assert _on_queue("APP.IN") == whole[:14]
    assert _load(SAMPLE, "-r", "15..") == 0  # the file copied again: resume
    assert _on_queue("APP.IN") == whole


def test_queue_full_stops_the_load_names_the_first_message_and_resumes(
    qm1: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MAXDEPTH 5, 20 messages, -t 3: five committed, message 6 named, exit 6; after
    raising MAXDEPTH, -r 6.. loads the rest: all 20 once each, in order."""
    _mqsc("APP.IN MAXDEPTH=5 MSGDLVSQ=FIFO")
    source = tmp_path / "in.dmp"
    messages = _messages(20)
    write_dump(source, messages)
    assert _load(source, "-t", "3") == 6
    err = capsys.readouterr().err
    assert "putting message 6 onto APP.IN: MQRC_Q_FULL (2053)" in err
    assert "5 message(s) committed to APP.IN; no message from index 6 on was loaded" in err
    assert _counts(err) == ("6", "5")
    with connect("QM1") as qm:
        qm.admin().alter_queue("APP.IN", {"MAXDEPTH": 100})
    assert _load(source, "-r", "6..", "-t", "3") == 0
    err = capsys.readouterr().err
    assert "Processing message indexes 6 onwards." in err
    assert _counts(err) == ("20", "15")
    assert _on_queue("APP.IN") == [identity(m) for m in messages]


def test_bad_hex_line_with_t_commits_before_it_and_resumes(
    qm1: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad X line in message 8 with -t 3: messages 1-7 committed (none of 8), exit 6,
    message 8 named; the repaired file loaded with -r 8.. completes it without duplicates."""
    _mqsc("APP.IN MAXDEPTH=100 MSGDLVSQ=FIFO")
    messages = _messages(12)
    good = tmp_path / "good.dmp"
    write_dump(good, messages)
    lines = good.read_bytes().split(b"\n")
    x_lines = [i for i, line in enumerate(lines) if line.startswith(b"X ")]
    starts = [i for i, line in enumerate(lines) if line.startswith(b"A VER")]
    bad_at = next(i for i in x_lines if i > starts[7])  # the first X line of message 8
    lines[bad_at] = b"X 4G" + lines[bad_at][4:]
    bad = tmp_path / "bad.dmp"
    bad.write_bytes(b"\n".join(lines))
    assert _load(bad, "-t", "3") == 6
    err = capsys.readouterr().err
    assert f"bad.dmp:{bad_at + 1}: message 8: badly formed hex data" in err
    assert "-r 8.." in err
    assert _counts(err) == ("7", "7")
    assert _on_queue("APP.IN") == [identity(m) for m in messages[:7]]
    assert _load(good, "-r", "8..") == 0
    assert _on_queue("APP.IN") == [identity(m) for m in messages]


@pytest.mark.parametrize(("after", "per_uow"), [(12, "5"), (7, "3"), (12, "1")])
def test_junk_after_a_message_names_the_next_and_the_advice_loads_no_message_twice(
    qm1: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], after: int, per_uow: str
) -> None:
    """A line that is not a dump line after message N's data lines (N the last message,
    or one in the middle), at any -t: messages 1..N are whole and committed, exit 6; the
    error says "after message N" (not "message N", which was loaded) and the hint names
    N+1, the first message NOT committed; following it on the repaired file loads every
    message exactly once (issue 33, class 3: the hint used to name N, loaded twice).
    IBM, dmpmqmsg (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q117660_.html):
    the message range option, "-r x..y"."""
    _mqsc("APP.IN MAXDEPTH=100 MSGDLVSQ=FIFO")
    messages = _messages(12)
    good = tmp_path / "good.dmp"
    write_dump(good, messages)
    lines = good.read_bytes().split(b"\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(b"A VER")]
    at = starts[after] - 1 if after < len(messages) else len(lines) - 1
    lines.insert(at, b"junk here")
    bad = tmp_path / "bad.dmp"
    bad.write_bytes(b"\n".join(lines))
    assert _load(bad, "-t", per_uow) == 6
    err = capsys.readouterr().err
    assert (
        f"bad.dmp:{at + 1}: after message {after}: expected a message ('A' or 'N' line), "
        "found 'junk here'"
    ) in err
    assert f"{after} message(s) committed to APP.IN; no message from index {after + 1} on" in err
    hint = re.search(r"resume without duplicates with: -r (\S+)", err)
    assert hint is not None, err
    assert hint[1] == f"{after + 1}.."
    assert _counts(err) == (str(after), str(after))
    assert _on_queue("APP.IN") == [identity(m) for m in messages[:after]]
    assert _load(good, "-r", hint[1], "-t", per_uow) == 0  # the advice, on the repaired file
    assert _on_queue("APP.IN") == [identity(m) for m in messages]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("3", [3]),
        ("3..5", [3, 4, 5]),
        ("5..3", [3, 4, 5]),
        ("3#2", [3, 4]),
        ("#2", [1, 2]),
        ("..2", [1, 2]),
        ("9..", [9, 10]),
    ],
)
def test_message_range_selects_as_dmpmqmsg_does(
    qm1: None, tmp_path: Path, spec: str, expected: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    """-r x, x..y (either order), x#n, #n, ..y and x.. load exactly those message indexes."""
    _mqsc("APP.IN MAXDEPTH=100 MSGDLVSQ=FIFO")
    messages = _messages(10)
    source = tmp_path / "in.dmp"
    write_dump(source, messages)
    assert _load(source, "-r", spec) == 0
    assert _on_queue("APP.IN") == [identity(messages[i - 1]) for i in expected]
    capsys.readouterr()


@pytest.mark.parametrize("spec", ["0", "x", "3..x", "#", "..", "3#", "-2", "0..0"])
def test_bad_message_range_is_a_usage_error(
    qm1: None, spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An -r that is not x, x..y, x.., ..y, x#n or #n is refused by the parser (exit 2)."""
    with pytest.raises(SystemExit) as exc:
        main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", "x", "-r", spec])
    assert exc.value.code == 2
    assert "-r" in capsys.readouterr().err


def test_missing_file_is_a_clear_error_not_a_traceback(
    qm1: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """-f /nonexistent.dmp: 'cannot open' with the reason, exit 2, counts, no traceback."""
    assert (
        main(
            [
                "qm",
                "dmpmqmsg",
                "-m",
                "QM1",
                "-o",
                "SYSTEM.DEAD.LETTER.QUEUE",
                "-f",
                "/nonexistent.dmp",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "cannot open /nonexistent.dmp: No such file or directory" in err
    assert "Traceback" not in err
    assert "Read    - Files:   0  Messages:     0  Bytes:         0" in err


def test_zero_or_negative_t_is_refused(qm1: None, capsys: pytest.CaptureFixture[str]) -> None:
    """-t 0 and -t -3 are usage errors, not silently 1."""
    for value in ("0", "-3"):
        with pytest.raises(SystemExit) as exc:
            main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "Q", "-f", "x", "-t", value])
        assert exc.value.code == 2
        assert "must be 1 or more" in capsys.readouterr().err


def test_a_cut_file_on_a_pipe_is_named_as_precisely(home: Path, tmp_path: Path) -> None:
    """Read from standard input (a pipe, no seeking), the cut sample gives the same
    'line L: message 15' as from the file, from decode and from qm dmpmqmsg -f -, which
    loads messages 1-14 only and exits 6."""
    cut = SAMPLE.read_bytes()[:20010]
    (tmp_path / "t.dmp").write_bytes(cut)
    command = [str(CLI)] if CLI.exists() else [sys.executable, "-m", "dlqhandler"]
    env = {**os.environ, "DLQHANDLER_HOME": str(home)}

    def cli(*args: str, data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [*command, *args], input=data, capture_output=True, env=env, timeout=120, check=False
        )

    from_file = cli("decode", str(tmp_path / "t.dmp"))
    where = re.search(rb":(\d+): message 15: the file is cut off", from_file.stderr)
    assert where is not None, from_file.stderr
    piped = cli("decode", "-", data=cut)
    assert piped.returncode == 2
    assert b"-:" + where.group(1) + b": message 15: the file is cut off" in piped.stderr
    assert cli("qm", "create", "QM1").returncode == 0
    loaded = cli(
        "qm", "dmpmqmsg", "-m", "QM1", "-o", "SYSTEM.DEAD.LETTER.QUEUE", "-f", "-", data=cut
    )
    assert loaded.returncode == 6
    assert b": message 15: the file is cut off" in loaded.stderr
    assert b"Written - Files:   0  Messages:    14" in loaded.stderr
