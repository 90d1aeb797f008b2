"""``dlqhandler qm ...`` end to end: subprocesses for a few, ``cli.main`` for the rest."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main
from dlqhandler.errors import MQIError
from dlqhandler.formats.dmpmqmsg import DumpWriter, read_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions, connect
from tests.worker.helpers import DLQ

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / ".venv" / "bin" / "dlqhandler"
SAMPLE = ROOT / "samples" / "backlog-small.dmp"


@pytest.fixture
def home(empty_home: Path) -> Path:
    """The qm tests create their own queue managers: an empty home."""
    return empty_home


def run(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(CLI)] if CLI.exists() else [sys.executable, "-m", "dlqhandler"]
    return subprocess.run(
        [*command, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "DLQHANDLER_HOME": str(home)},
        timeout=120,
        check=False,
    )


def without_created(path: Path) -> list[bytes]:
    lines = path.read_bytes().splitlines(keepends=True)
    assert lines[0].startswith(b"* DMPMQMSG Version:9.4 Created:")
    return lines[1:]


def test_create_mqsc_list_delete_as_subprocesses(home: Path) -> None:
    """crtmqm, runmqsc (exit 0, then non-zero naming the failing line), dspmq, dltmqm."""
    created = run(home, "qm", "create", "QM1", "--deadq", "APP.DLQ")
    assert created.returncode == 0, created.stderr
    assert "IBM MQ queue manager 'QM1' created." in created.stdout
    ok = run(
        home,
        "qm",
        "mqsc",
        "QM1",
        stdin="DEFINE QLOCAL(APP.IN) MAXDEPTH(3)\nDISPLAY QLOCAL(APP.*) CURDEPTH\n",
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "   QUEUE(APP.IN)                           CURDEPTH(0)\n" in ok.stdout
    assert "All valid MQSC commands were processed." in ok.stdout
    bad = run(
        home, "qm", "mqsc", "QM1", stdin="* two commands\nDISPLAY QMGR\nDELETE QLOCAL(NO.SUCH)\n"
    )
    assert bad.returncode != 0
    assert "One valid MQSC command could not be processed." in bad.stdout
    assert "MQSC command 2 at line 3 failed: AMQ8147E" in bad.stderr
    listed = run(home, "qm", "list")
    assert re.fullmatch(r"QMNAME\(QM1\) {47}STATUS\(Ended normally\)\n", listed.stdout)
    deleted = run(home, "qm", "delete", "QM1")
    assert deleted.returncode == 0, deleted.stderr
    assert run(home, "qm", "list").stdout == ""
    again = run(home, "qm", "delete", "QM1")
    assert again.returncode != 0
    assert "does not exist" in again.stderr


def test_put_and_browse(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """qm put (plain and as a dead letter) and qm browse list what is on a queue."""
    assert main(["qm", "create", "QM1"]) == 0
    put = ["qm", "put", "-m", "QM1", "-q", DLQ, "--data", "order 42"]
    assert main([*put, "--dlq-reason", "2053", "--dest", "APP.IN", "--count", "2"]) == 0
    capsys.readouterr()
    assert main(["qm", "browse", "-m", "QM1", "-q", "SYSTEM.DEAD.LETTER.QUEUE"]) == 0
    out = capsys.readouterr().out
    assert out.count("reason 2053 dest APP.IN@QM1") == 2
    assert out.endswith("2 message(s) on SYSTEM.DEAD.LETTER.QUEUE\n")


def _varied_messages() -> list[Message]:
    ctx: dict[str, Any] = {
        "user_identifier": "origuser",
        "put_appl_type": 11,
        "put_appl_name": "orders.exe",
        "put_date": "20240102",
        "put_time": "03040506",
        "appl_identity_data": "ident",
        "appl_origin_data": "orig",
        "accounting_token": bytes(range(32)),
    }
    return [
        Message(
            MQMD(
                format="MQSTR",
                priority=5,
                persistence=1,
                msg_id=b"M1".ljust(24, b"\0"),
                correl_id=b"C1".ljust(24, b"\0"),
                coded_char_set_id=1208,
                reply_to_q="APP.REPLY",
                reply_to_q_mgr="QM9",
                report=256,
                **ctx,
            ),
            b"hello, world",
        ),
        Message(
            MQMD(
                format="",
                priority=0,
                persistence=0,
                msg_id=b"\xff" * 24,
                coded_char_set_id=819,
                encoding=273,
                msg_type=1,  # (a request names its reply-to queue: IBM's 2027 otherwise)
                reply_to_q="APP.REPLY",
                feedback=0,
                **ctx,
            ),
            bytes(range(256)) * 3,
        ),
        Message(
            MQMD(
                format="MQSTR",
                priority=3,
                persistence=0,
                msg_id=b"M3".ljust(24, b"\0"),
                coded_char_set_id=37,
                group_id=b"G".ljust(24, b"\0"),
                msg_seq_number=2,
                offset=0,
                msg_flags=16,
                original_length=-1,
                **ctx,
            ),
            b"",
        ),
    ]


def test_dmpmqmsg_load_then_unload_is_identical(home: Path, tmp_path: Path) -> None:
    """-o loads with set-all context keeping every MQMD field; -i (browse) and then -I
    (destructive) unload files identical to the loaded one apart from the Created time."""
    assert main(["qm", "create", "QM1"]) == 0
    with connect("QM1") as qm:
        qm.admin().define_queue("APP.IN", {"MSGDLVSQ": "FIFO"})
    source = tmp_path / "in.dmp"
    with (
        source.open("wb") as f,
        DumpWriter(f, qmgr="QM1", queue="APP.IN", created=datetime(2024, 1, 1)) as writer,
    ):
        for message in _varied_messages():
            writer.write(message)
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", str(source)]) == 0
    browsed, got = tmp_path / "browsed.dmp", tmp_path / "got.dmp"
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-i", "APP.IN", "-f", str(browsed)]) == 0
    with connect("QM1") as qm:
        assert qm.inquire_queue("APP.IN").curdepth == 3  # -i browses
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-I", "APP.IN", "-f", str(got)]) == 0
    with connect("QM1") as qm:
        assert qm.inquire_queue("APP.IN").curdepth == 0  # -I gets
    assert without_created(browsed) == without_created(source)
    assert without_created(got) == without_created(source)
    assert [m.md for m in read_dump(got)] == [m.md for m in _varied_messages()]


@pytest.mark.parametrize("which", ["-i", "-I"])
def test_dmpmqmsg_unload_never_overwrites_a_file_unless_forced(
    home: Path, tmp_path: Path, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unload (-i browse, -I destructive) never destroys an existing file by accident:
    with -f an existing file is refused (exit 2, file and queue unchanged), a queue that
    cannot be opened (a mistyped name, 2085) leaves the file as it was even with -F, and
    -F overwrites it. IBM's dmpmqmsg page (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/
    com.ibm.mq.ref.adm.doc/q117660_.html): "Using -F on a target file forces output to a
    file if it already exists. The program does not ask you if the file should be
    overwritten." (with -f it asks; this tool cannot ask, so it refuses)."""
    assert main(["qm", "create", "QM1"]) == 0
    with connect("QM1") as qm:
        qm.admin().define_queue("APP.IN", {"MSGDLVSQ": "FIFO"})
    source = tmp_path / "in.dmp"
    with source.open("wb") as f, DumpWriter(f, qmgr="QM1", queue="APP.IN") as writer:
        for message in _varied_messages():
            writer.write(message)
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", str(source)]) == 0
    earlier = tmp_path / "earlier.dmp"
    earlier.write_bytes(source.read_bytes())
    kept = earlier.read_bytes()
    capsys.readouterr()

    assert main(["qm", "dmpmqmsg", "-m", "QM1", which, "APP.IN", "-f", str(earlier)]) == 2
    assert "exists and -f does not overwrite a file" in capsys.readouterr().err
    assert earlier.read_bytes() == kept
    with connect("QM1") as qm:
        assert qm.inquire_queue("APP.IN").curdepth == 3

    assert main(["qm", "dmpmqmsg", "-m", "QM1", which, "APP.INN", "-F", str(earlier)]) == 4
    assert earlier.read_bytes() == kept

    assert main(["qm", "dmpmqmsg", "-m", "QM1", which, "APP.IN", "-F", str(earlier)]) == 0
    assert [m.md for m in read_dump(earlier)] == [m.md for m in _varied_messages()]
    with connect("QM1") as qm:
        assert qm.inquire_queue("APP.IN").curdepth == (3 if which == "-i" else 0)


def test_dmpmqmsg_refuses_a_destructive_unload_in_lossy_text_mode(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-I with -d t is refused (exit 2, no file, every message still on the queue): -dt's
    T lines do not load back byte for byte (a CR LF comes back as LF, a message gains a
    final LF), so a destructive unload in it would lose what it removes. -i -d t (a
    browse, for reading) still works, and the file it writes is not the original bytes.
    IBM's dmpmqmsg page (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q117660_.html):
    "using -I deletes messages from the queue (destructive get)"."""
    assert main(["qm", "create", "QM1"]) == 0
    with connect("QM1") as qm:
        qm.admin().define_queue("APP.IN", {})
    source = tmp_path / "in.dmp"
    crlf = Message(MQMD(format="MQSTR", msg_id=b"\x01" * 24), b"line one\r\nline two")
    with source.open("wb") as f, DumpWriter(f, qmgr="QM1", queue="APP.IN") as writer:
        writer.write(crlf)
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.IN", "-f", str(source)]) == 0
    capsys.readouterr()
    text = tmp_path / "text.dmp"
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-I", "APP.IN", "-f", str(text), "-d", "t"]) == 2
    assert "does not load back byte for byte" in capsys.readouterr().err
    assert not text.exists()
    with connect("QM1") as qm:
        assert qm.inquire_queue("APP.IN").curdepth == 1
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-i", "APP.IN", "-f", str(text), "-d", "t"]) == 0
    assert [m.body for m in read_dump(text)] != [crlf.body]


def test_dmpmqmsg_destructive_unload_that_fails_leaves_no_message_twice(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """-I -t 10 whose file fills up (ENOSPC) at the 16th message: the first 10 were
    committed (removed) after a flush, the batch in hand is backed out, and the file is
    cut back to those 10, so each of the 30 messages is either in the file or on the
    queue, never both (the file used to keep the 5 written of the failed batch, which a
    load would put a second time), and the note says how many were removed.
    IBM's dmpmqmsg page (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q117660_.html):
    "using -I deletes messages from the queue (destructive get)", -t "Transaction message
    limit"."""
    import contextlib
    import errno

    import dlqhandler.cli.qm as qm_cli

    assert main(["qm", "create", "QM1"]) == 0
    with connect("QM1") as qm:
        qm.admin().define_queue("APP.IN", {"MSGDLVSQ": "FIFO"})
        for i in range(30):
            qm.put1(
                "APP.IN",
                Message(MQMD(format="MQSTR", msg_id=bytes([i + 1]) * 24), b"m%d" % i),
                PutOptions(syncpoint=False, context="set_all"),
            )
    real_open = qm_cli.open_file

    class Full:
        """The file, full after the header and 15 messages (one write() each)."""

        def __init__(self, f: Any) -> None:
            self.f, self.writes, self.name = f, 0, f.name

        def write(self, data: bytes) -> int:
            self.writes += 1
            if self.writes > 16:
                raise OSError(errno.ENOSPC, "No space left on device")
            return int(self.f.write(data))

        def flush(self) -> None:
            self.f.flush()

        def __getattr__(self, name: str) -> Any:  # tell, seekable...: the file's own
            return getattr(self.f, name)

    @contextlib.contextmanager
    def full_open(name: str, *, write: bool, overwrite: bool = False) -> Any:
        with real_open(name, write=write, overwrite=overwrite) as f:
            yield Full(f)

    monkeypatch.setattr(qm_cli, "open_file", full_open)
    dump = tmp_path / "out.dmp"
    capsys.readouterr()
    code = main(["qm", "dmpmqmsg", "-m", "QM1", "-I", "APP.IN", "-t", "10", "-f", str(dump)])
    assert code == 2
    assert "10 message(s) were removed from APP.IN" in capsys.readouterr().err
    in_file = [m.md.msg_id for m in read_dump(dump)]
    with connect("QM1") as qm:
        q = qm.open("APP.IN", input=False, browse=True)
        on_queue = []
        options = GetOptions(browse="first", syncpoint=False)
        while True:
            try:
                on_queue.append(q.get(options).md.msg_id)
            except MQIError:
                break
            options = GetOptions(browse="next", syncpoint=False)
    assert in_file == [bytes([i + 1]) * 24 for i in range(10)]
    assert on_queue == [bytes([i + 1]) * 24 for i in range(10, 30)]


def test_dmpmqmsg_round_trips_the_shipped_backlog(home: Path, tmp_path: Path) -> None:
    """The sample backlog (200 dead letters) loads and unloads through subprocesses with
    everything equal but the header time, the Expiry that counted down meanwhile (by no
    more than the tenths of a second between the load and the unload) and the
    BackoutCount, which MQPUT ignores (reloaded messages start again at 0)."""
    assert run(home, "qm", "create", "QM1").returncode == 0
    fifo = run(
        home, "qm", "mqsc", "QM1", stdin="ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) MSGDLVSQ(FIFO)\n"
    )
    assert fifo.returncode == 0, fifo.stdout
    started = time.monotonic()
    loaded = run(
        home, "qm", "dmpmqmsg", "-m", "QM1", "-o", "SYSTEM.DEAD.LETTER.QUEUE", "-f", str(SAMPLE)
    )
    assert loaded.returncode == 0, loaded.stderr
    unload = subprocess.run(
        [str(CLI), "qm", "dmpmqmsg", "-m", "QM1", "-i", "SYSTEM.DEAD.LETTER.QUEUE", "-f", "-"],
        capture_output=True,
        env={**os.environ, "DLQHANDLER_HOME": str(home)},
        timeout=120,
        check=True,
    )
    on_queue = time.monotonic() - started  # no message was on the queue longer
    out_path = tmp_path / "out.dmp"
    out_path.write_bytes(unload.stdout)
    before, after = without_created(SAMPLE), without_created(out_path)
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        if old.startswith(b"A EXP ") and old != b"A EXP -1\n":
            counted = int(old.split()[2]) - int(new.split()[2])  # tenths of a second
            assert 0 <= counted <= on_queue * 10 + 1, (old, new, on_queue)
        elif old.startswith(b"A BOC "):
            assert new == b"A BOC 0\n"
        else:
            assert old == new
    depth = run(
        home, "qm", "mqsc", "QM1", stdin="DISPLAY QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) CURDEPTH\n"
    )
    assert "CURDEPTH(200)" in depth.stdout


def test_dmpmqmsg_loads_from_standard_input(home: Path, tmp_path: Path) -> None:
    """-f - reads the dump from stdin (a pipe), as dmpmqmsg's stdin/stdout names do."""
    assert run(home, "qm", "create", "QM1").returncode == 0
    loaded = subprocess.run(
        [str(CLI), "qm", "dmpmqmsg", "-m", "QM1", "-o", "APP.MISSING", "-f", "-"],
        input=SAMPLE.read_bytes(),
        capture_output=True,
        env={**os.environ, "DLQHANDLER_HOME": str(home)},
        timeout=120,
        check=False,
    )
    assert loaded.returncode != 0
    assert b"MQRC_UNKNOWN_OBJECT_NAME" in loaded.stderr
    loaded = subprocess.run(
        [str(CLI), "qm", "dmpmqmsg", "-m", "QM1", "-o", "SYSTEM.DEAD.LETTER.QUEUE", "-f", "-"],
        input=SAMPLE.read_bytes(),
        capture_output=True,
        timeout=120,
        check=True,
        env={**os.environ, "DLQHANDLER_HOME": str(home)},
    )
    assert b"Read    - Files:   1  Messages:   200  Bytes:" in loaded.stderr
    with connect("QM1") as qm:
        assert qm.inquire_queue("SYSTEM.DEAD.LETTER.QUEUE").curdepth == 200


def test_dmpmqmsg_default_context_on_load(home: Path, tmp_path: Path) -> None:
    """-C d loads with default context: the loader's identity replaces the file's."""
    assert main(["qm", "create", "QM1"]) == 0
    source = tmp_path / "in.dmp"
    with source.open("wb") as f, DumpWriter(f) as writer:
        writer.write(_varied_messages()[0])
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-o", DLQ, "-C", "d", "-f", str(source)]) == 0
    with connect("QM1") as qm:
        got = qm.open("SYSTEM.DEAD.LETTER.QUEUE").get()
        qm.commit()
        assert got.md.user_identifier == qm.user != "origuser"
    assert got.md.put_appl_type == 6
    assert got.md.msg_id == b"M1".ljust(24, b"\0")


def test_dmpmqmsg_needs_exactly_one_direction(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-i, -I and -o are mutually exclusive, and one is required (exit 2, as argparse)."""
    with pytest.raises(SystemExit) as exc:
        main(["qm", "dmpmqmsg", "-m", "QM1", "-i", "A", "-o", "B", "-f", "x"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main(["qm", "dmpmqmsg", "-m", "QM1", "-f", "x"])
    capsys.readouterr()


def test_commands_on_a_missing_queue_manager_fail(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Connecting to a queue manager that does not exist reports MQRC_Q_MGR_NAME_ERROR."""
    assert main(["qm", "browse", "-m", "NOPE", "-q", "Q"]) != 0
    assert "MQRC_Q_MGR_NAME_ERROR" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("Body.x=1", "MQRC_PROPERTY_NAME_ERROR (2442)"),
        ("n:i1=300", "'300' is out of the range of dt='i1' (-128 to 127)"),
        ("n:int32=1", "unknown property type dt='int32'"),
        ("n", "expected NAME[:TYPE]=VALUE"),
        ("n:null=x", "a null property with a value"),
    ],
)
def test_put_refuses_a_bad_property_before_connecting(
    home: Path, capsys: pytest.CaptureFixture[str], spec: str, problem: str
) -> None:
    """qm put --property: a name IBM forbids, a value that is not its type, an unknown
    type: usage error (exit 2) naming the property and the fault; nothing is put."""
    assert main(["qm", "create", "QM1"]) == 0
    with pytest.raises(SystemExit) as exc:
        main(["qm", "put", "-m", "QM1", "-q", DLQ, "--data", "x", "--property", spec])
    assert exc.value.code == 2
    assert problem in capsys.readouterr().err
    with connect("QM1") as qm:
        assert qm.inquire_queue("SYSTEM.DEAD.LETTER.QUEUE").curdepth == 0


_F32 = "a 32-bit float: at most 3.4028235e38 either side of 0"
_F64 = "a 64-bit float: at most 1.7976931348623157e308 either side of 0"
_I64 = "-9223372036854775808 to 9223372036854775807"


@pytest.mark.parametrize(
    ("spec", "limits"),
    [
        ("F:r4=1e999", _F32),
        ("F:r4=1e39", _F32),
        ("F:r4=-3.5e38", _F32),
        ("F:r8=1e309", _F64),
        ("F:r8=-1e999", _F64),
        ("F:i1=128", "-128 to 127"),
        ("F:i2=-32769", "-32768 to 32767"),
        ("F:i4=2147483648", "-2147483648 to 2147483647"),
        ("F:i8=9223372036854775808", _I64),
        ("F:i8=123456789012345678901234567890", _I64),
        ("F:int=-9223372036854775809", _I64),
    ],
)
def test_put_refuses_a_property_value_out_of_its_types_range(
    home: Path, capsys: pytest.CaptureFixture[str], spec: str, limits: str
) -> None:
    """Issue 33, class 8: out of range is refused for every numeric type, floats as well
    as integers (r4 1e999 was stored as inf while 1e39 was refused): exit 2 naming the
    property, its value and the type's range; the queue stays empty."""
    assert main(["qm", "create", "QM1"]) == 0
    capsys.readouterr()
    argv = ["qm", "put", "-m", "QM1", "-q", "SYSTEM.DEAD.LETTER.QUEUE", "--data", "x"]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--property", spec])
    assert exc.value.code == 2
    value = spec.split("=", 1)[1]
    dt = spec.split(":", 1)[1].split("=", 1)[0]
    assert (
        f"argument --property: {spec!r}: {value!r} is out of the range of dt='{dt}' ({limits})"
        in capsys.readouterr().err
    )
    with connect("QM1") as qm:
        assert qm.inquire_queue("SYSTEM.DEAD.LETTER.QUEUE").curdepth == 0


def test_put_takes_the_ends_of_each_range_and_the_infinity_words(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The largest r4, the words Infinity and inf (Java's text for an infinite float)
    and the ends of the integer ranges are values: put (exit 0) and browsed back."""
    assert main(["qm", "create", "QM1"]) == 0
    props = ["A:r4=3.4028235e38", "B:r8=-Infinity", "C:r4=inf", "D:i1=-128", "E:i8=+0009"]
    argv = ["qm", "put", "-m", "QM1", "-q", "SYSTEM.DEAD.LETTER.QUEUE", "--data", "x"]
    assert main([*argv, *[w for p in props for w in ("--property", p)]]) == 0
    capsys.readouterr()
    assert main(["qm", "browse", "-m", "QM1", "-q", "SYSTEM.DEAD.LETTER.QUEUE"]) == 0
    out = capsys.readouterr().out
    for line in (
        "A (r4) = 3.4028234663852886e+38",
        "B (r8) = -inf",
        "C (r4) = inf",
        "D (i1) = -128",
        "E (i8) = 9",
    ):
        assert line in out
