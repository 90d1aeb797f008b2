"""Issue 28, the non-Spark CLI: nothing a user types may load the wrong messages, load twice,
write a name MQ would refuse, or leave a partial file.

* ``qm dmpmqmsg -r``: every form IBM documents (``x``, ``x..y``, ``x..``, ``..y``, ``x#n``,
  ``#n``) loads exactly those message indexes; ``x#0`` and ``#0`` load nothing; a load that
  stops inside a range names the ``-r`` that finishes that range and no more.

Every case runs the real CLI (``dlqhandler.cli.main``) on a real embedded queue manager and
real files, and checks the exit code, the message and the messages by MsgId and payload.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, connect

WRITTEN = re.compile(r"Written - Files: *\d+  Messages: *(\d+)")
RESUME = re.compile(r"resume without duplicates with: -r (\S+)")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private $DLQHANDLER_HOME holding a fresh queue manager QM1."""
    path = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(path))
    monkeypatch.delenv("DLQHANDLER_QMGR", raising=False)
    assert main(["qm", "create", "QM1"]) == 0
    return path


def _identity(message: Message) -> tuple[bytes, str]:
    return message.md.msg_id, hashlib.sha256(message.body).hexdigest()


def _messages(n: int) -> list[Message]:
    return [Message(MQMD(msg_id=f"RANGE{i:03d}".encode().ljust(24, b"\0"), format="MQSTR"),
                    f"payload of message {i} ".encode() * i) for i in range(1, n + 1)]


def _define(queue: str, **attrs: int | str) -> None:
    with connect("QM1") as qm:
        qm.admin().define_queue(queue, {"MSGDLVSQ": "FIFO", **attrs})


def _on_queue(queue: str) -> list[tuple[bytes, str]]:
    """MsgId and payload hash of every message on the queue, in order (browsed)."""
    out = []
    with connect("QM1") as qm:
        q = qm.open(queue, input=False, browse=True)
        options = GetOptions(browse="first", syncpoint=False)
        for _ in range(qm.inquire_queue(queue).curdepth):
            out.append(_identity(q.get(options)))
            options = GetOptions(browse="next", syncpoint=False)
        q.close()
    return out


def _load(path: Path, *extra: str) -> int:
    return main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", str(path), *extra])


@pytest.mark.parametrize(("spec", "expected"), [
    ("4", [4]),
    ("3..6", [3, 4, 5, 6]),
    ("6..3", [3, 4, 5, 6]),
    ("8..", [8, 9, 10]),
    ("..3", [1, 2, 3]),
    ("4#3", [4, 5, 6]),
    ("#2", [1, 2]),
    ("1#1", [1]),
    ("10#1", [10]),
    ("9#5", [9, 10]),
    ("10#0", []),
    ("1#0", []),
    ("#0", []),
    ("12", []),
])
def test_each_range_form_loads_exactly_its_messages(
        home: Path, tmp_path: Path, spec: str, expected: list[int],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each -r form of IBM's dmpmqmsg loads exactly the messages it names, once, in file
    order; x#0 and #0 ask for zero messages and load none (exit 0, Written 0): never N-1
    and N as before."""
    _define("APP.IN", MAXDEPTH=100)
    messages = _messages(10)
    source = tmp_path / "in.dmp"
    write_dump(source, messages)
    before = source.read_bytes()
    assert _load(source, "-r", spec) == 0
    err = capsys.readouterr().err
    assert _on_queue("APP.IN") == [_identity(messages[i - 1]) for i in expected]
    m = WRITTEN.search(err)
    assert m is not None, err
    assert int(m[1]) == len(expected)
    assert source.read_bytes() == before  # the file is only read


@pytest.mark.parametrize("spec", ["0", "0#3", "0..4", "..0", "4..0", "#", "..", "3#", "#x",
                                  "-1", "2..3..4", "1#-1", ""])
def test_a_range_that_is_not_a_form_or_starts_at_0_is_refused(
        home: Path, tmp_path: Path, spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An -r that is not one of IBM's forms, or names message index 0 (indexes start at 1),
    is a usage error (exit 2) naming -r, before anything is loaded."""
    _define("APP.IN", MAXDEPTH=100)
    source = tmp_path / "in.dmp"
    write_dump(source, _messages(3))
    with pytest.raises(SystemExit) as exc:
        _load(source, "-r", spec)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument -r: invalid message range" in err
    assert _on_queue("APP.IN") == []


@pytest.mark.parametrize(("spec", "first_cut", "left"), [
    ("3..8", [3, 4, 5], "6..8"),
    ("2#6", [2, 3, 4], "5..7"),
    ("..7", [1, 2, 3], "4..7"),
    ("4..", [4, 5, 6], "7.."),
])
def test_a_stopped_range_resumes_to_its_end_and_never_loads_twice(
        home: Path, tmp_path: Path, spec: str, first_cut: list[int], left: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A ranged load that stops (queue full after 3) commits what it put, exits 6 and names
    the -r that finishes the SAME range; running that -r loads the rest: every message of
    the range exactly once, none outside it."""
    _define("APP.IN", MAXDEPTH=3)
    messages = _messages(10)
    source = tmp_path / "in.dmp"
    write_dump(source, messages)
    assert _load(source, "-r", spec, "-t", "2") == 6
    err = capsys.readouterr().err
    assert "MQRC_Q_FULL" in err
    assert _on_queue("APP.IN") == [_identity(messages[i - 1]) for i in first_cut]
    hint = RESUME.search(err)
    assert hint is not None, err
    assert hint[1] == left
    with connect("QM1") as qm:
        qm.admin().alter_queue("APP.IN", {"MAXDEPTH": 100})
    assert _load(source, "-r", hint[1], "-t", "2") == 0
    capsys.readouterr()
    wanted = [i for i in range(1, 11) if i in _range_members(spec)]
    assert _on_queue("APP.IN") == [_identity(messages[i - 1]) for i in wanted]


def _range_members(spec: str) -> set[int]:
    """The oracle for the resume test's ranges, written out by hand."""
    return {"3..8": {3, 4, 5, 6, 7, 8}, "2#6": {2, 3, 4, 5, 6, 7},
            "..7": set(range(1, 8)), "4..": set(range(4, 11))}[spec]


def test_a_bad_message_before_the_range_resumes_at_the_range(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file whose message 2 is damaged, loaded with -r 5..6: nothing is loaded, exit 6,
    and the resume -r is 5..6 (not 2.., which would load messages outside the range)."""
    _define("APP.IN", MAXDEPTH=100)
    messages = _messages(8)
    good = tmp_path / "good.dmp"
    write_dump(good, messages)
    lines = good.read_bytes().split(b"\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(b"A VER")]
    bad_at = next(i for i, line in enumerate(lines) if i > starts[1] and line.startswith(b"X "))
    lines[bad_at] = b"X 4G" + lines[bad_at][4:]  # message 2's first data line
    bad = tmp_path / "bad.dmp"
    bad.write_bytes(b"\n".join(lines))
    assert _load(bad, "-r", "5..6") == 6
    err = capsys.readouterr().err
    hint = RESUME.search(err)
    assert hint is not None, err
    assert hint[1] == "5..6"
    assert _on_queue("APP.IN") == []
    assert _load(good, "-r", hint[1]) == 0
    capsys.readouterr()
    assert _on_queue("APP.IN") == [_identity(messages[4]), _identity(messages[5])]
