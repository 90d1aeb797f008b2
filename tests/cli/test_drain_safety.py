"""What `dlqhandler drain` and `dlqhandler report` are given is checked before Spark
starts, and nothing they read is ever put at risk (issue 28).

Each case runs the real command in a subprocess whose SPARK_HOME is an empty
directory: had the command started Spark, it would die with a launcher error and
a traceback. Instead it prints one clear message and exits with the documented
code, and every file it was given is still on disk, byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import PutOptions, browse_all

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules" / "demo.rul"
SAMPLE = ROOT / "samples" / "backlog-small.dmp"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def dlq(
    command: str, *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `dlqhandler COMMAND ARGS` where Spark cannot start."""
    spark_home = cwd / "no-spark-here"
    spark_home.mkdir(exist_ok=True)
    home = cwd / "dlq-home"
    home.mkdir(exist_ok=True)
    full = {
        **os.environ,
        "SPARK_HOME": str(spark_home),
        "DLQHANDLER_HOME": str(home),
        **(env or {}),
    }
    full.pop("PYSPARK_GATEWAY_PORT", None)
    full.pop("DLQHANDLER_QMGR", None)
    return subprocess.run(
        [sys.executable, "-m", "dlqhandler", command, *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def assert_clean(
    proc: subprocess.CompletedProcess[str], code: int, command: str, *needles: str
) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert "Exception" not in proc.stderr
    assert f"dlqhandler {command}: " in proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def snapshot(top: Path) -> dict[str, str]:
    """Every file below ``top`` (not following symlinks) and its content's hash."""
    return {
        str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(top.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _setup(tmp_path: Path) -> Path:
    """The issue's reproduction: the dump and the rules table inside /tmp/x."""
    x = tmp_path / "x"
    x.mkdir()
    shutil.copy(SAMPLE, x / "backlog-small.dmp")
    shutil.copy(RULES, x / "demo.rul")
    return x


# Each case: how the output, the inputs and the rules are spelt (relative to tmp_path),
# after making what the case needs; all point into, or around, the directory x.
def _plain(t: Path) -> list[str]:
    return ["--rules", "x/demo.rul", "--input", "x/backlog-small.dmp", "--output", "x"]


def _absolute(t: Path) -> list[str]:
    return [
        "--rules",
        str(t / "x/demo.rul"),
        "--input",
        str(t / "x/backlog-small.dmp"),
        "--output",
        str(t / "x"),
    ]


def _rules_only(t: Path) -> list[str]:
    """The input is elsewhere; only the rules table is inside the output."""
    other = t / "other"
    other.mkdir()
    shutil.copy(SAMPLE, other / "in.dmp")
    return ["--rules", "x/demo.rul", "--input", "other/in.dmp", "--output", "x"]


def _output_symlink(t: Path) -> list[str]:
    """--output is a symlink to the directory holding the inputs."""
    (t / "link").symlink_to(t / "x")
    return ["--rules", "x/demo.rul", "--input", "x/backlog-small.dmp", "--output", "link"]


def _input_symlink(t: Path) -> list[str]:
    """The input is a symlink outside the output to a file inside it."""
    (t / "in.dmp").symlink_to(t / "x/backlog-small.dmp")
    shutil.copy(RULES, t / "r.rul")
    return ["--rules", "r.rul", "--input", "in.dmp", "--output", "x"]


def _file_uris(t: Path) -> list[str]:
    """file: URIs (absolute and relative) for both sides, with .. on the way."""
    return [
        "--rules",
        "x/demo.rul",
        "--input",
        f"file://{t}/x/../x/backlog-small.dmp",
        "--output",
        "file:x",
    ]


def _directory_input(t: Path) -> list[str]:
    """The input is the directory itself (and a glob into it)."""
    return ["--rules", "x/demo.rul", "--input", "x", "x/*.dmp", "--output", "x"]


def _output_inside_input_dir(t: Path) -> list[str]:
    """The output is a (non-empty) directory inside the input directory."""
    (t / "x" / "out").mkdir()
    (t / "x" / "out" / "old.dmp").write_bytes(b"previous run\n")
    shutil.copy(RULES, t / "r.rul")
    return ["--rules", "r.rul", "--input", "x", "--output", "x/out"]


def _parent_of_everything(t: Path) -> list[str]:
    """The output is an ancestor of the inputs (their grandparent)."""
    return ["--rules", "x/demo.rul", "--input", "x/backlog-small.dmp", "--output", "."]


CASES = [
    _plain,
    _absolute,
    _rules_only,
    _output_symlink,
    _input_symlink,
    _file_uris,
    _directory_input,
    _output_inside_input_dir,
    _parent_of_everything,
]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__.strip("_") for c in CASES])
def test_overwrite_never_deletes_what_the_drain_reads(tmp_path: Path, case: object) -> None:
    """drain --overwrite with an output that is, holds or is inside what the run reads
    (however spelt: relative, absolute, symlinks, file: URIs, directories, globs):
    exit USAGE naming both, before Spark starts, every file still on disk unchanged
    and no staging directory left."""
    _setup(tmp_path)
    argv = case(tmp_path)  # type: ignore[operator]
    before = snapshot(tmp_path)
    proc = dlq("drain", *argv, "--overwrite", cwd=tmp_path)
    assert_clean(
        proc, ExitCode.USAGE, "drain", "which this run reads", "give an --output outside the inputs"
    )
    assert snapshot(tmp_path) == before
    assert not list(tmp_path.rglob(".*dlqhandler-*"))
    messages = list(read_dump(tmp_path / "x" / "backlog-small.dmp"))
    assert len(messages) == 200
    assert len({m.md.msg_id for m in messages}) == 200


def test_report_output_never_holds_what_it_reads(tmp_path: Path) -> None:
    """report --overwrite with the inputs, --rules and --compare tables inside the output:
    exit USAGE naming what it reads; nothing deleted."""
    x = _setup(tmp_path)
    shutil.copy(RULES, x / "old.rul")
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(SAMPLE, other / "in.dmp")
    before = snapshot(tmp_path)
    for argv, what in (
        (["--input", "x/backlog-small.dmp"], "--input"),
        (["--input", "other/in.dmp", "--rules", "x/demo.rul"], "--rules"),
        (["--input", "other/in.dmp", "--rules", "other/../x/../x/demo.rul"], "--rules"),
        (["--input", "other/in.dmp", "--rules", str(RULES), "--compare", "x/old.rul"], "--compare"),
    ):
        proc = dlq("report", *argv, "--output", "x", "--overwrite", cwd=tmp_path)
        assert_clean(proc, ExitCode.USAGE, "report", what, "which this run reads")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("option", "value", "why"),
    [
        ("--catch-all", "BAD Q$", "contains characters not allowed"),
        ("--catch-all", "Q" * 51, "is 51 characters long (at most 48)"),
        ("--catch-all", "", "is blank"),
        ("--queue", "BAD Q#", "contains characters not allowed"),
        ("--status-queue", "A" * 49, "is 49 characters long"),
        ("-m", "QM 1", "contains characters not allowed"),
        ("-m", "M" * 49, "is 49 characters long"),
    ],
)
def test_drain_refuses_names_mq_would_refuse(
    tmp_path: Path, option: str, value: str, why: str
) -> None:
    """Every queue and queue-manager name given to drain is checked by the MQ-name rule
    `run` applies: exit USAGE with the option, the name and why, before Spark starts
    (and before any queue manager is touched); no output directory is created."""
    source = (
        ["-m", "QM1"]
        if option in ("--queue", "--status-queue")
        else ([] if option == "-m" else ["--input", str(SAMPLE)])
    )
    proc = dlq(
        "drain", "--rules", str(RULES), *source, option, value, "--output", "out", cwd=tmp_path
    )
    assert_clean(proc, ExitCode.USAGE, "drain", f"{option} {value!r} {why}", "not a valid MQ name")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--input", "{sample}", "--queue", "APP.DLQ"], "--queue names a queue to browse"),
        (["--input", "{sample}", "--status-queue", "MY.STATUS"], "--status-queue names"),
    ],
    ids=["queue-without-m", "status-queue-offline"],
)
def test_drain_refuses_an_option_it_would_ignore(tmp_path: Path, argv: list[str], why: str) -> None:
    """--queue without -m (there is no queue to browse) and --status-queue without -m (a
    dump carries no attempt counts; with -m the snapshot drain reads them, with --apply it
    also updates them) are refused with exit USAGE before Spark starts, as report refuses
    --queue without -m: before, the drain ran and ignored them, so a user who named a
    status queue got RETRY counts that were never read."""
    args = [a.replace("{sample}", str(SAMPLE)) for a in argv]
    proc = dlq("drain", "--rules", str(RULES), *args, "--output", "out", cwd=tmp_path)
    assert_clean(proc, ExitCode.USAGE, "drain", why)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("option", "value"), [("--queue", "BAD Q#"), ("-m", "QM 1"), ("--queue", "Q" * 49)]
)
def test_report_refuses_names_mq_would_refuse(tmp_path: Path, option: str, value: str) -> None:
    """report --queue 'BAD Q#' is USAGE "not a valid MQ name" (it was 4, unknown object),
    before any queue manager is opened."""
    argv = ["-m", "QM1", option, value] if option == "--queue" else [option, value]
    proc = dlq("report", *argv, "--output", "out", cwd=tmp_path)
    assert_clean(proc, ExitCode.USAGE, "report", f"{option} {value!r}", "not a valid MQ name")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [
        ("drain", "--partitions", "0"),
        ("drain", "--partitions", "-3"),
        ("drain", "--partitions", "99999999999999999999999"),
        ("drain", "--split-mb", "0"),
        ("drain", "--split-mb", "-1"),
        ("drain", "--split-mb", "99999999999999999999999"),
        ("drain", "--split-mb", "1.5"),
        ("report", "--top", "99999999999999999999999"),
        ("report", "--top", "0"),
        ("report", "--top", "-1"),
        ("report", "--split-mb", "0"),
        ("report", "--split-mb", str(1 << 60)),
    ],
)
def test_numbers_out_of_range_are_usage_errors(
    tmp_path: Path, command: str, option: str, value: str
) -> None:
    """Every numeric option of drain and report is range-checked by the parser: exit
    USAGE naming the option and the range, before Spark starts, nothing written."""
    rules = ["--rules", str(RULES)] if command == "drain" else []
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dlqhandler",
            command,
            *rules,
            "--input",
            str(SAMPLE),
            "--output",
            str(tmp_path / "out"),
            option,
            value,
        ],
        env={**os.environ, "SPARK_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == ExitCode.USAGE, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"argument {option}" in proc.stderr
    assert "out of range" in proc.stderr or "not a whole number" in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-00:01", "0001-01-01T00:00:00+23:59"]
)
def test_as_of_beyond_the_calendar_is_a_usage_error(tmp_path: Path, text: str) -> None:
    """report --as-of that leaves the calendar once taken to UTC: exit USAGE before
    Spark starts (it was an OverflowError after 25 s of Spark work)."""
    proc = dlq("report", "--input", str(SAMPLE), "--as-of", text, "--output", "out", cwd=tmp_path)
    assert_clean(proc, ExitCode.USAGE, "report", "--as-of", "outside the calendar")
    assert not (tmp_path / "out").exists()


def test_non_dump_input_is_a_usage_error_from_both(tmp_path: Path) -> None:
    """A file named as --input that is not a dmpmqmsg file: exit USAGE from drain and
    report alike (README: "an input file ... not valid" is 2), named, before Spark."""
    notes = tmp_path / "readme.txt"
    notes.write_text("these are the DLQ dumps of last week\n")
    empty = tmp_path / "empty.dmp"
    empty.write_bytes(b"")
    for name, why in ((notes, "not a dmpmqmsg file"), (empty, "empty file")):
        proc = dlq(
            "drain",
            "--rules",
            str(RULES),
            "--input",
            str(SAMPLE),
            str(name),
            "--output",
            "out",
            cwd=tmp_path,
        )
        assert_clean(proc, ExitCode.USAGE, "drain", str(name), why)
        proc = dlq("report", "--input", str(name), "--output", "out", cwd=tmp_path)
        assert_clean(proc, ExitCode.USAGE, "report", str(name), why)
    assert not (tmp_path / "out").exists()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An embedded queue manager QM1 with 20 dead letters and a GET(DISABLED) queue."""
    home = tmp_path / "dlq-home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    try:
        qm.admin().define_queue("SHUT", {"GET": "DISABLED"})
        for m in list(read_dump(SAMPLE))[:20]:
            qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    finally:
        qm.disconnect()
    return home


def _dlq_contents(home: Path) -> list[tuple[bytes, bytes]]:
    qm = connect("QM1", home=home)
    try:
        handle = qm.open(DLQ, input=False, browse=True)
        try:
            return [(m.md.msg_id, m.body) for m in browse_all(handle)]
        finally:
            handle.close()
    finally:
        qm.disconnect()


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["-m", "NOSUCHQM"], "NOSUCHQM"),
        (["-m", "QM1", "--queue", "NO.SUCH.Q"], "NO.SUCH.Q"),
        (["-m", "QM1", "--queue", "SHUT"], "SHUT"),
        (["-m", "QM1", "--backend", "ibmmq"], "ibmmq"),
    ],
)
def test_drain_queue_manager_errors_are_connection_errors(
    tmp_path: Path, home: Path, argv: list[str], needle: str
) -> None:
    """drain -m on a missing queue manager or queue, a GET(DISABLED) queue, or the IBM
    MQ backend without its client: one clean line and exit CONNECTION_ERROR (as `run`
    says it), before Spark starts; the dead-letter queue is exactly as it was."""
    before = _dlq_contents(home)
    for extra in ([], ["--apply"]):
        proc = dlq("drain", "--rules", str(RULES), *argv, *extra, "--output", "out", cwd=tmp_path)
        assert_clean(proc, ExitCode.CONNECTION_ERROR, "drain", "cannot browse", needle)
        assert not (tmp_path / "out").exists()
    assert _dlq_contents(home) == before


def test_directory_of_no_dumps_is_a_usage_error_naming_each_file(tmp_path: Path) -> None:
    """A directory input holding no dmpmqmsg file: exit USAGE naming what it holds and
    why each was left out, before Spark starts."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "readme.txt").write_text("nothing here\n")
    (src / "empty.dmp").write_bytes(b"")
    for command, rules in (("drain", ["--rules", str(RULES)]), ("report", [])):
        proc = dlq(command, *rules, "--input", "in", "--output", "out", cwd=tmp_path)
        assert_clean(
            proc,
            ExitCode.USAGE,
            command,
            "no input files",
            "in/readme.txt: not a dmpmqmsg file",
            "in/empty.dmp: empty file",
        )
    assert not (tmp_path / "out").exists()


def test_empty_output_whose_parent_is_read_only_says_why(tmp_path: Path) -> None:
    """An empty, writable --output in a read-only parent: refused, saying the run is
    staged beside the output (and why); the output stays as it was (as root, without
    the capabilities that bypass permissions)."""
    parent = tmp_path / "ro"
    out = parent / "out"
    out.mkdir(parents=True)
    out.chmod(0o777)
    parent.chmod(0o555)
    tmp_path.chmod(0o755)
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot test permissions")
        caps = "-dac_override,-dac_read_search"
        prefix = [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}", "--"]
    env = {**os.environ, "SPARK_HOME": str(tmp_path / "none")}
    env.pop("PYSPARK_GATEWAY_PORT", None)
    try:
        proc = subprocess.run(
            [
                *prefix,
                sys.executable,
                "-m",
                "dlqhandler",
                "drain",
                "--rules",
                str(RULES),
                "--input",
                str(SAMPLE),
                "--output",
                str(out),
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert_clean(
            proc,
            ExitCode.USAGE,
            "drain",
            f"{out} is writable but its parent",
            "staged beside the output",
            "a directory you can write to",
        )
        assert list(out.iterdir()) == []
        assert sorted(p.name for p in parent.iterdir()) == ["out"]
    finally:
        parent.chmod(0o755)


def test_failure_handler_never_fails_on_a_dead_spark_error() -> None:
    """The drain's failure line is made while Spark runs; an error whose text can no
    longer be read (the JVM gone) still gives its type, never an exception."""
    from dlqhandler.spark.lifecycle import describe as _describe

    class DeadError(Exception):
        def __str__(self) -> str:
            raise AssertionError("py4j: the gateway is closed")

    first, detail = _describe(DeadError())
    assert first == "DeadError: DeadError"
    assert "DeadError" in detail


@pytest.mark.parametrize("alias_is", ["catch-all", "rules' last FWD"])
def test_apply_refuses_a_catch_all_that_is_an_alias_of_the_dlq(
    tmp_path: Path, alias_is: str
) -> None:
    """``drain --apply`` whose catch-all queue (``--catch-all``, or the table's last FWD
    that catches everything) is a QALIAS of the DLQ would put every message it catches
    back onto the DLQ: it is refused before anything moves (exit 2, Spark never starts),
    as ``run`` refuses such a target. IBM, *Name resolution*
    (https://www.ibm.com/docs/en/ibm-mq/9.4?topic=naming-name-resolution): "If the queue
    name is the name of an alias queue, the queue manager resolves it to the queue named
    in its TARGET attribute"."""
    home = tmp_path / "dlq-home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    qm.admin().define_alias("DLQ.ALIAS", {"TARGET": DLQ})
    loaded = list(read_dump(SAMPLE))[:5]
    for m in loaded:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    qm.disconnect()
    rules = tmp_path / "t.rul"
    if alias_is == "catch-all":
        rules.write_text("REASON(MQRC_Q_FULL) ACTION(DISCARD)\n", encoding="utf-8")
        extra = ["--catch-all", "DLQ.ALIAS"]
    else:
        rules.write_text("ACTION(FWD) FWDQ(DLQ.ALIAS) HEADER(YES)\n", encoding="utf-8")
        extra = []
    args = ["-m", "QM1", "--apply", "--rules", str(rules), "--output", str(tmp_path / "out")]
    proc = dlq("drain", *args, *extra, cwd=tmp_path)
    assert_clean(proc, ExitCode.USAGE, "drain", "catch-all queue DLQ.ALIAS resolves to " + DLQ)
    qm = connect("QM1", home=home)
    q = qm.open(DLQ, input=False, browse=True)
    assert sorted(m.md.msg_id for m in browse_all(q)) == sorted(m.md.msg_id for m in loaded)
    q.close()
    qm.disconnect()
