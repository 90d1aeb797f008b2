"""Issue 28, the non-Spark CLI: nothing a user types may load the wrong messages, load twice,
write a name MQ would refuse, or leave a partial file.

* ``qm dmpmqmsg -r``: every form IBM documents (``x``, ``x..y``, ``x..``, ``..y``, ``x#n``,
  ``#n``) loads exactly those message indexes; ``x#0`` and ``#0`` load nothing; a load that
  stops inside a range names the ``-r`` that finishes that range and no more.
* Every queue and queue-manager name given to ``samples``, ``qm`` and ``lint`` passes the one
  MQ-name rule (:mod:`dlqhandler.mq.names`) or the command exits 2 saying why, before it
  touches anything; ``samples generate`` writes aside and renames, so a failed run leaves
  no partial file.
* Every numeric option of the non-Spark commands is range-checked (exit 2).
* ``--channel`` (at most 20 characters) and ``--conn-name`` (IBM's ``host(port)`` list) are
  checked before IBM's library sees them.

Every case runs the real CLI (``dlqhandler.cli.main``) on a real embedded queue manager and
real files, and checks the exit code, the message and the messages by MsgId and payload.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.cli import build_parser, main
from dlqhandler.errors import ConfigError
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import connect, list_qmgrs
from dlqhandler.qmgr.ibmmq.config import ibmmq_settings_from_env
from tests.cli.helpers import command_parsers
from tests.worker.helpers import browse, identity

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / ".venv" / "bin" / "dlqhandler"
DEMO_RULES = ROOT / "rules" / "demo.rul"
LONG = "Q" * 49
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


def _messages(n: int) -> list[Message]:
    return [
        Message(
            MQMD(msg_id=f"RANGE{i:03d}".encode().ljust(24, b"\0"), format="MQSTR"),
            f"payload of message {i} ".encode() * i,
        )
        for i in range(1, n + 1)
    ]


def _define(queue: str, **attrs: int | str) -> None:
    with connect("QM1") as qm:
        qm.admin().define_queue(queue, {"MSGDLVSQ": "FIFO", **attrs})


def _on_queue(queue: str) -> list[tuple[bytes, str]]:
    """MsgId and payload hash of every message on the queue of QM1, in order (browsed)."""
    with connect("QM1") as qm:
        return [identity(m) for m in browse(qm, queue)]


def _load(path: Path, *extra: str) -> int:
    return main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", str(path), *extra])


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
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
    ],
)
def test_each_range_form_loads_exactly_its_messages(
    home: Path, tmp_path: Path, spec: str, expected: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
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
    assert _on_queue("APP.IN") == [identity(messages[i - 1]) for i in expected]
    m = WRITTEN.search(err)
    assert m is not None, err
    assert int(m[1]) == len(expected)
    assert source.read_bytes() == before  # the file is only read


@pytest.mark.parametrize(
    "spec", ["0", "0#3", "0..4", "..0", "4..0", "#", "..", "3#", "#x", "-1", "2..3..4", "1#-1", ""]
)
def test_a_range_that_is_not_a_form_or_starts_at_0_is_refused(
    home: Path, tmp_path: Path, spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
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


@pytest.mark.parametrize(
    ("spec", "first_cut", "left"),
    [
        ("3..8", [3, 4, 5], "6..8"),
        ("2#6", [2, 3, 4], "5..7"),
        ("..7", [1, 2, 3], "4..7"),
        ("4..", [4, 5, 6], "7.."),
    ],
)
def test_a_stopped_range_resumes_to_its_end_and_never_loads_twice(
    home: Path,
    tmp_path: Path,
    spec: str,
    first_cut: list[int],
    left: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
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
    assert _on_queue("APP.IN") == [identity(messages[i - 1]) for i in first_cut]
    hint = RESUME.search(err)
    assert hint is not None, err
    assert hint[1] == left
    with connect("QM1") as qm:
        qm.admin().alter_queue("APP.IN", {"MAXDEPTH": 100})
    assert _load(source, "-r", hint[1], "-t", "2") == 0
    capsys.readouterr()
    wanted = [i for i in range(1, 11) if i in _range_members(spec)]
    assert _on_queue("APP.IN") == [identity(messages[i - 1]) for i in wanted]


def _range_members(spec: str) -> set[int]:
    """The oracle for the resume test's ranges, written out by hand."""
    return {
        "3..8": {3, 4, 5, 6, 7, 8},
        "2#6": {2, 3, 4, 5, 6, 7},
        "..7": set(range(1, 8)),
        "4..": set(range(4, 11)),
    }[spec]


@pytest.mark.parametrize("which", ["-i", "-I"])
def test_a_range_on_an_unload_is_refused_not_ignored(
    home: Path, tmp_path: Path, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """-r with an unload (-i browse, -I destructive) is refused (exit 2) before connecting,
    rather than ignored: no file is written and every message stays on the queue."""
    _define("APP.IN", MAXDEPTH=100)
    messages = _messages(5)
    source = tmp_path / "in.dmp"
    write_dump(source, messages)
    assert _load(source) == 0
    capsys.readouterr()
    out = tmp_path / "out.dmp"
    assert main(["qm", "dmpmqmsg", "-m", "QM1", which, "APP.IN", "-f", str(out), "-r", "2..3"]) == 2
    assert "-r selects messages of a load (-o) only" in capsys.readouterr().err
    assert not out.exists()
    assert _on_queue("APP.IN") == [identity(m) for m in messages]


def test_a_bad_message_before_the_range_resumes_at_the_range(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    assert _on_queue("APP.IN") == [identity(messages[4]), identity(messages[5])]


# --- names --------------------------------------------------------------------------------


def _state(home: Path) -> tuple[list[str], list[tuple[bytes, str]]]:
    """What a refused command must leave as it was: the queue managers and APP.IN's
    messages (by MsgId and payload)."""
    return [q.name for q in list_qmgrs(home)], _on_queue("APP.IN")


@pytest.mark.parametrize(
    "argv",
    [
        ["qm", "create", "QM 1"],
        ["qm", "create", LONG],
        ["qm", "create", "QM2", "--deadq", "BAD Q$"],
        ["qm", "delete", "QM 1"],
        ["qm", "mqsc", "QM#1"],
        ["qm", "dmpmqmsg", "-m", "QM 1", "-i", "APP.IN", "-f", "{out}"],
        ["qm", "dmpmqmsg", "-m", "QM1", "-i", "BAD Q$", "-f", "{out}"],
        ["qm", "dmpmqmsg", "-m", "QM1", "-I", LONG, "-f", "{out}"],
        ["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP IN", "-f", "{dump}"],
        ["qm", "runmqtrm", "-m", "QM1", "-q", "BAD Q$", "--once"],
        ["qm", "runmqtrm", "-m", LONG, "--once"],
        ["qm", "put", "-m", "QM1", "-q", "APP.IN\x1b[2J"],
        ["qm", "put", "-m", "QM 1", "-q", "APP.IN"],
        ["qm", "put", "-m", "QM1", "-q", "APP.IN", "--reply-to-q", "RE PLY"],
        ["qm", "put", "-m", "QM1", "-q", "APP.IN", "--dlq-reason", "2053", "--dest", LONG],
        ["qm", "put", "-m", "QM1", "-q", "APP.IN", "--dlq-reason", "2053", "--dest-qmgr", "QM 1"],
        ["qm", "browse", "-m", "QM1", "-q", "BAD Q$"],
        ["samples", "generate", "--qmgr", "QM 1", "-o", "{out}"],
        ["samples", "generate", "--qmgr", LONG, "-o", "{out}"],
        ["samples", "generate", "--queue", "BAD Q$", "-o", "{out}"],
        ["lint", "--input-queue", "BAD Q$", "{rules}"],
        ["lint", "--input-queue", LONG, "{rules}"],
    ],
)
def test_a_name_mq_would_refuse_is_a_usage_error_and_changes_nothing(
    home: Path, tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A queue or queue-manager name MQ would refuse (a blank, a '$', 49 characters, an ESC)
    exits 2 naming the option, the name and the rule (never an internal field such as
    'A RTM'), and leaves everything as it was: no file written, no queue manager created or
    deleted, no message put or taken."""
    _define("APP.IN", MAXDEPTH=100)
    dump = tmp_path / "in.dmp"
    messages = _messages(3)
    write_dump(dump, messages)
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", str(dump)]) == 0
    capsys.readouterr()
    before = _state(home)
    out = tmp_path / "out.dmp"
    argv = [a.format(out=out, dump=dump, rules=DEMO_RULES).replace("\\x1b", "\x1b") for a in argv]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "not a valid MQ name (1-48 characters of A-Z a-z 0-9 . / _ %)" in err
    assert "RTM" not in err
    assert "\x1b" not in err  # the name is shown escaped, never raw to the terminal
    assert not out.exists()
    assert _state(home) == before
    assert before[1] == [identity(m) for m in messages]


def test_generate_header_names_are_the_names_given(tmp_path: Path) -> None:
    """Valid names reach the file header whole: --qmgr QM_1.A and a 48-character --queue."""
    out = tmp_path / "b.dmp"
    queue = "Q" * 48
    assert (
        main(
            [
                "samples",
                "generate",
                "--count",
                "2",
                "--qmgr",
                "QM_1.A",
                "--queue",
                queue,
                "-o",
                str(out),
            ]
        )
        == 0
    )
    lines = out.read_bytes().split(b"\n")
    assert lines[1] == b"* Qmgr  = QM_1.A"
    assert lines[2] == b"* Queue = " + queue.encode()


def _limit_file_size(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _generate_in_64_kib(out: Path, *, home: Path) -> subprocess.CompletedProcess[str]:
    """``dlqhandler samples generate --count 500 -o OUT`` in a process whose files may not
    grow past 64 KiB (RLIMIT_FSIZE): its write fails midway with EFBIG."""
    return subprocess.run(
        [str(CLI), "samples", "generate", "--count", "500", "-o", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "DLQHANDLER_HOME": str(home)},
        check=False,
        preexec_fn=lambda: _limit_file_size(64 * 1024),
    )


def test_a_failed_generate_leaves_no_partial_file_and_the_old_one_intact(tmp_path: Path) -> None:
    """samples generate writes aside and renames: when the write fails midway (a 64 KiB file
    size limit, EFBIG), it exits 2 saying so, no partial or temporary file is left, and a
    file already at --output is exactly as it was."""
    out = tmp_path / "b.dmp"
    out.write_bytes(b"the earlier file\n")
    proc = _generate_in_64_kib(out, home=tmp_path / "home")
    assert proc.returncode == 2, proc.stderr
    assert f"cannot write {out}: File too large" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert out.read_bytes() == b"the earlier file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.dmp"]


def test_a_generate_to_a_new_file_that_fails_leaves_nothing(tmp_path: Path) -> None:
    """The same failure with no earlier file: exit 2 and no file at all."""
    out = tmp_path / "new.dmp"
    proc = _generate_in_64_kib(out, home=tmp_path / "home")
    assert proc.returncode == 2, proc.stderr
    assert list(tmp_path.iterdir()) == []


# --- numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["decode", "--limit", "-1", "{dump}"], "--limit"),
        (["decode", "--limit", "x", "{dump}"], "--limit"),
        (["qm", "browse", "-m", "QM1", "-q", "APP.IN", "--limit", "-1"], "--limit"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--count", "0"], "--count"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--count", "-3"], "--count"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--priority", "10"], "--priority"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--priority", "-2"], "--priority"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--expiry", "0"], "--expiry"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--expiry", "-5"], "--expiry"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--expiry", "99999999999"], "--expiry"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--dlq-reason", "-1"], "--dlq-reason"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--dlq-reason", "2147483648"], "--dlq-reason"),
        (["qm", "put", "-m", "QM1", "-q", "APP.IN", "--format", "MQSTRING1"], "--format"),
        (["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", "{dump}", "-t", "0"], "-t"),
        (["qm", "runmqtrm", "-m", "QM1", "--wait", "-1"], "--wait"),
        (["qm", "runmqtrm", "-m", "QM1", "--wait", "nan"], "--wait"),
        (["qm", "runmqtrm", "-m", "QM1", "--stop-timeout", "inf"], "--stop-timeout"),
        (["run", "--trigger-backoff", "-1"], "--trigger-backoff"),
        (["run", "--trigger-backoff-base", "nan"], "--trigger-backoff-base"),
        (["run", "--batch-size", "0"], "--batch-size"),
        (["run", "--status-queue", "BAD Q$"], "--status-queue"),
    ],
)
def test_an_out_of_range_number_is_a_usage_error_and_changes_nothing(
    home: Path, tmp_path: Path, argv: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A numeric option out of its range (negative counts and limits, a priority past 9,
    an Expiry of 0 or past MQLONG, nan or inf seconds) exits 2 naming the option and the
    range, before anything is read, put or taken."""
    _define("APP.IN", MAXDEPTH=100)
    dump = tmp_path / "in.dmp"
    write_dump(dump, _messages(2))
    before = _state(home)
    with pytest.raises(SystemExit) as exc:
        main([a.format(dump=dump) for a in argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}" in err
    assert "Traceback" not in err
    assert _state(home) == before


def test_decode_limit_0_prints_nothing_and_a_limit_prints_that_many(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """decode --limit 0 prints no message line (exit 0); --limit 2 prints messages 1 and 2."""
    dump = tmp_path / "in.dmp"
    write_dump(dump, _messages(4))
    assert main(["decode", "--limit", "0", str(dump)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["decode", "--limit", "2", str(dump)]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == ["1", "2"]


# Options checked in their command's handler rather than by an argparse type (exit 2 too),
# and --seed, for which every whole number is a seed.
_CHECKED_IN_HANDLER = {
    ("dlqhandler samples generate", "--count"),
    ("dlqhandler run", "--max-rate"),
    ("dlqhandler run", "--metrics-port"),
    ("dlqhandler samples generate", "--seed"),
}


def test_no_numeric_option_of_the_non_spark_commands_takes_any_number() -> None:
    """The class, not the example: no option of run, lint, qm, samples or decode is a bare
    int or float (which would take -1, 0, nan or inf); each has a range-checking type from
    cli/_types.py, or is checked by its handler (listed above)."""
    bare = []
    for path, parser in command_parsers(build_parser()):
        if path.split()[1:2] in (["drain"], ["report"]):
            continue  # the Spark commands: issue 28's other half
        for action in parser._actions:
            if action.type in (int, float):
                flag = action.option_strings[0] if action.option_strings else action.dest
                if (path, flag) not in _CHECKED_IN_HANDLER:
                    bare.append(f"{path} {flag}")
    assert bare == []


# --- IBM MQ client channel ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--channel", "C" * 21, "--conn-name", "mq1(1414)"], "is 21 characters long (at most 20)"),
        (["--channel", "APP SVRCONN", "--conn-name", "mq1(1414)"], "not a valid MQ channel name"),
        (["--channel", "", "--conn-name", "mq1(1414)"], "not a valid MQ channel name"),
        (["--channel", "APP.SVRCONN", "--conn-name", "mq1(1414"], "entry 1 'mq1(1414' is not"),
        (["--channel", "APP.SVRCONN", "--conn-name", "mq1:1414"], "is not host(port)"),
        (["--channel", "APP.SVRCONN", "--conn-name", "mq1(1414),"], "entry 2 '' is not"),
        (["--channel", "APP.SVRCONN", "--conn-name", "mq1(0)"], "port 0 is not a TCP port"),
        (
            ["--channel", "APP.SVRCONN", "--conn-name", "mq1(1414),mq2(70000)"],
            "entry 2 port 70000 is not a TCP port",
        ),
        (["--channel", "APP.SVRCONN", "--conn-name", "mq1(port)"], "is not host(port)"),
        (["--channel", "APP.SVRCONN", "--conn-name", "my host(1414)"], "is not host(port)"),
        (["--channel", "APP.SVRCONN", "--conn-name", "h" * 265], "265 characters long"),
    ],
)
@pytest.mark.parametrize(
    "command", [["run"], ["drain", "--rules", "{rules}", "--input", "{rules}", "--output", "{out}"]]
)
def test_channel_and_conn_name_are_checked_before_ibm_mq(
    tmp_path: Path,
    argv: list[str],
    said: str,
    command: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--channel longer than 20 characters or outside the MQ name set, and a --conn-name
    that is not IBM's 'host(port)[,host(port)...]' (a missing parenthesis, a colon, an empty
    entry, a port outside 1-65535, a blank, past 264 characters) exit 2 with what is wrong,
    from the parser: IBM's library is never loaded and nothing is written."""
    for name in [m for m in sys.modules if m == "ibmmq" or m.startswith("ibmmq.")]:
        monkeypatch.delitem(sys.modules, name)  # an earlier test of this process loaded it
    out = tmp_path / "out"
    full = [a.format(rules=DEMO_RULES, out=out) for a in command]
    with pytest.raises(SystemExit) as exc:
        main([*full, "--backend", "ibmmq", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert said in err
    assert "argument --" in err
    assert "ibmmq" not in sys.modules
    assert not out.exists()


@pytest.mark.parametrize(
    "conn_name",
    [
        "mq1(1414)",
        "mq1.example.com(1414),mq2(1415)",
        "10.0.0.1(1414)",
        "mq1",
        "2001:db8::1(1414)",
        "mq1(1414), mq2(1414)",
    ],
)
def test_well_formed_conn_names_and_channels_are_accepted(conn_name: str) -> None:
    """IBM's forms pass the same check: host(port), a list, an IPv4 or IPv6 address, a host
    without a port (1414), a space after a comma; a 20-character channel is accepted."""
    settings = ibmmq_settings_from_env(
        env={"DLQHANDLER_MQ_CONN_NAME": conn_name, "DLQHANDLER_MQ_CHANNEL": "C" * 20}
    )
    assert settings.conn_name == conn_name
    assert settings.channel == "C" * 20


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"DLQHANDLER_MQ_CONN_NAME": "mq1(1414)", "DLQHANDLER_MQ_CHANNEL": "C" * 21},
            "21 characters long",
        ),
        (
            {"DLQHANDLER_MQ_CONN_NAME": "mq1(99999)", "DLQHANDLER_MQ_CHANNEL": "APP.SVRCONN"},
            "port 99999",
        ),
        ({"MQSERVER": "APP.SVRCONN/TCP/mq1(1414"}, "entry 1 'mq1(1414' is not"),
        ({"MQSERVER": "APP SVR/TCP/mq1(1414)"}, "not a valid MQ channel name"),
    ],
)
def test_the_environment_gets_the_same_check(env: dict[str, str], said: str) -> None:
    """The same rules apply to DLQHANDLER_MQ_CHANNEL, DLQHANDLER_MQ_CONN_NAME and MQSERVER:
    a ConfigError saying what is wrong, before any MQCONNX."""
    with pytest.raises(ConfigError, match=re.escape(said)):
        ibmmq_settings_from_env(env=env)
