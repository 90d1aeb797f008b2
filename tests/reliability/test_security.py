"""Security: what the rest of the suite does not already prove.

Already covered elsewhere (not repeated): crafted DestQName/ReplyToQ through the handler
(tests/worker/test_actions.py), PUTAUT(CTX) with 2035 and fall-through in the handler
(same file), escaped log lines for a crafted queue name (same file), file names from
'/', '%' and '..' in the drain (tests/spark/test_drain_e2e.py), owner-only files of the
embedded queue manager (tests/qmgr/test_store.py), credentials in the IBM MQ adapter's
logs, reprs and errors (tests/qmgr/test_ibmmq_adapter.py), no I/O or eval in rules/
(tests/test_architecture.py).

Added here: the same properties for any name (hypothesis), the drain's apply path
(untrusted names and PUTAUT(CTX)), the rules language given hostile text, credentials
and the command line, and owner-only files under a permissive umask.
"""

from __future__ import annotations

import builtins
import functools
import io
import json
import os
import re
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dlqhandler.errors import ConfigError
from dlqhandler.logs import configure_logging, get_logger
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.names import is_valid_qmgr_name, is_valid_queue_name
from dlqhandler.qmgr import EmbeddedQueueManager, connect, create_qmgr
from dlqhandler.rules import (
    Action,
    InvalidTargetError,
    Matcher,
    ResolvedTarget,
    compile_rules,
    resolve_target,
)
from dlqhandler.spark.drain.apply import apply_message
from dlqhandler.spark.drain.outputs import safe_path, target_file_name
from tests.conformance.messages import build_message
from tests.mq.helpers import raised
from tests.worker.helpers import DLQ, DLQHANDLER, ROOT, Ledger, dead_letter, define, load

# Names an attacker can put in a dead letter's MQDLH or MQMD.
HOSTILE = st.one_of(
    st.text(max_size=60),
    st.sampled_from(
        [
            "../../etc/x",
            "..",
            ".",
            "/etc/passwd",
            "a/../../b",
            "%2e%2e%2f",
            "Q\x00",
            "Q\n",
            "\x1b[2J",
            " ",
            "",
            "A" * 49,
            "A" * 48,
            "Q WITH BLANKS",
            "~",
            "q-x@y",
            "CON",
            "nul.dmp",
            "\u202eevil",
        ]
    ),
    st.lists(st.sampled_from(["..", "/", "%", ".", "A", "~", "\\", "\x7f"]), max_size=30).map(
        "".join
    ),
)


@settings(max_examples=500, deadline=None)
@given(queue=HOSTILE, qmgr=HOSTILE)
def test_drain_file_names_are_one_plain_name_inside_the_output(
    queue: str, qmgr: str, tmp_path_factory: Any
) -> None:
    """Any (queue, queue manager) pair becomes one flat file name of safe characters,
    not hidden, always inside the output directory."""
    name = target_file_name(queue, qmgr)
    assert re.fullmatch(r"q-[A-Za-z0-9._~-]*@[A-Za-z0-9._~-]+\.dmp", name), name
    assert "/" not in name
    assert "\x00" not in name
    base = tmp_path_factory.getbasetemp()
    assert safe_path(base, name).parent == base.resolve()


@pytest.mark.parametrize("name", ["../x.dmp", "a/b.dmp", "/etc/passwd", "..", ""])
def test_safe_path_refuses_anything_but_a_plain_name(tmp_path: Path, name: str) -> None:
    """The last guard before a file is opened refuses path-like names outright."""
    with pytest.raises(ConfigError):
        safe_path(tmp_path, name)


def _resolve_into(out: list[ResolvedTarget], action: Action, msg: Message) -> None:
    out.append(resolve_target(action, msg))


# What fits a 48-byte MQDLH/MQMD name field in CCSID 819.
IN_A_FIELD = HOSTILE.map(lambda s: "".join(c for c in s if ord(c) < 256)[:48])


@settings(max_examples=500, deadline=None)
@given(destq=IN_A_FIELD, destqm=IN_A_FIELD, replyq=IN_A_FIELD, replyqm=IN_A_FIELD)
def test_untrusted_names_never_reach_a_put_unvalidated(
    destq: str, destqm: str, replyq: str, replyqm: str
) -> None:
    """RETRY and FWD with &DESTQ/&REPLYQ substitutions: the target is a valid MQ name or
    InvalidTargetError; never anything else."""
    msg = build_message({"DESTQ": destq, "DESTQM": destqm, "REPLYQ": replyq, "REPLYQM": replyqm})
    for action in (
        Action("RETRY"),
        Action("FWD", "&DESTQ", "&DESTQM"),
        Action("FWD", "&REPLYQ", "&REPLYQM"),
        Action("FWD", "LIT.Q", "&REPLYQM"),
    ):
        targets: list[ResolvedTarget] = []
        error = raised(functools.partial(_resolve_into, targets, action, msg))
        if error is not None:
            assert isinstance(error, InvalidTargetError), error
            assert error.field
            continue
        [target] = targets
        assert is_valid_queue_name(target.queue), target
        assert target.qmgr == "" or is_valid_qmgr_name(target.qmgr), target


APPLY_RULES = """\
DESTQ(CTX.Q) ACTION(FWD) FWDQ(TARGET) PUTAUT(CTX)
DESTQ(*) ACTION(RETRY) RETRY(1)
ACTION(FWD) FWDQ(CATCH) HEADER(YES)
"""


def test_drain_apply_checks_names_and_put_authority(qm: EmbeddedQueueManager) -> None:
    """The drain's apply path (Spark executors): crafted DestQNames are refused before
    any put and fall through to the catch-all rule; PUTAUT(CTX) puts as the message's
    user, and 2035 falls through too; nothing is lost or doubled."""
    define(qm, "TARGET", "CATCH", "OK.Q")
    qm.admin().set_authrec("TARGET", "app1", add=["BROWSE", "INQ"])
    crafted = [
        dead_letter("c", destq=q, user="mallory")
        for q in ("../../etc/x", "BAD\x1b[2J\nQ", "", "A" * 48, "Q WITH BLANKS")
    ]
    denied = dead_letter("denied", destq="CTX.Q", user="app1")
    allowed = dead_letter("allowed", destq="CTX.Q", user="ok1")
    fine = dead_letter("fine", destq="OK.Q")
    load(qm, [*crafted, denied, allowed, fine])
    book = Ledger.of(qm)
    ruleset = compile_rules(APPLY_RULES).ruleset
    assert ruleset is not None
    q = qm.open(DLQ, input=True, browse=False)
    try:
        outcomes = {
            m.md.msg_id: apply_message(
                qm,
                q,
                Matcher(ruleset),
                m.md.msg_id,
                m.md.correl_id,
                input_queue=DLQ,
                catch_all=None,
            )
            for m in book.original.values()
        }
    finally:
        q.close()
    book.check(["TARGET", "CATCH", "OK.Q"])
    assert {book.where(m) for m in crafted} == {"CATCH"}
    assert book.where(denied) == "CATCH"
    assert book.where(allowed) == "TARGET"
    assert book.where(fine) == "OK.Q"
    assert all(o.outcome == "ok" for o in outcomes.values()), outcomes


HOSTILE_TABLES = [
    "ACTION(FWD) FWDQ(/etc/passwd)\n",
    "ACTION(FWD) FWDQ(&{__import__('os').system('touch PWNED')})\n",
    "ACTION(FWD) FWDQ($(touch PWNED))\n",
    "ACTION(FWD) FWDQ(`touch PWNED`)\n",
    "INCLUDE(/etc/passwd)\nACTION(DISCARD)\n",
    "@/etc/passwd\n",
    "DESTQ(__import__) ACTION(FWD) FWDQ(&DESTQ) FWDQM(&REPLYQM)\n",
    "ACTION(FWD) FWDQ('{0.__class__}') HEADER(YES)\n",
    "REASON(__builtins__) ACTION(DISCARD)\n",
    "ACTION(FWD) FWDQ(%(x)s) FWDQM(${HOME})\n",
]


@pytest.fixture
def no_io(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way to open a file or start a process raises (and is recorded)."""
    calls: list[str] = []

    def refuse(what: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(f"{what}{args[:1]}")
            raise AssertionError(f"the rules compiler called {what}")

        return call

    monkeypatch.setattr(builtins, "open", refuse("open"))
    monkeypatch.setattr(io, "open", refuse("io.open"))
    monkeypatch.setattr(os, "system", refuse("os.system"))
    monkeypatch.setattr(os, "popen", refuse("os.popen"))
    monkeypatch.setattr(subprocess, "Popen", refuse("Popen"))
    monkeypatch.setattr(Path, "read_text", refuse("Path.read_text"))
    monkeypatch.setattr(Path, "read_bytes", refuse("Path.read_bytes"))
    return calls


@pytest.mark.parametrize("text", HOSTILE_TABLES)
def test_the_rules_language_cannot_run_code_or_read_files(
    text: str, no_io: list[str], tmp_path: Path
) -> None:
    """Hostile rules text compiles to diagnostics or to a table of literal strings; the
    compiler and the matcher open no file and start no process."""
    result = compile_rules(text, source="hostile.rul")
    if result.ruleset is not None:
        decision = Matcher(result.ruleset).decide(build_message({"DESTQ": "APP.Q"}), 0)
        assert isinstance(decision.action.fwdq or "", str)
        round_trip = json.loads(result.ruleset.to_json())
        assert isinstance(round_trip, dict)
    assert no_io == []
    assert not (tmp_path / "PWNED").exists()
    assert not Path("PWNED").exists()


def test_no_command_line_option_takes_a_credential() -> None:
    """Credentials come only from the environment: no subcommand has an option for a
    password, token, secret or credential (so none can show in `ps`)."""
    import argparse

    from dlqhandler.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    options = {o for p in sub.choices.values() for a in p._actions for o in a.option_strings}
    options |= {o for a in parser._actions for o in a.option_strings}
    assert options, "no options found"
    suspicious = [o for o in options if re.search(r"pass|secret|token|cred|key", o, re.I)]
    assert suspicious == []


def test_credentials_in_the_environment_never_reach_logs(home: Path, tmp_path: Path) -> None:
    """A handler run at DEBUG with IBM MQ credentials in its environment (the embedded
    backend ignores them): the password appears nowhere in its output."""
    secret = "S3cr3t-Pa55w0rd-" + os.urandom(4).hex()
    rules = tmp_path / "r.rul"
    rules.write_text("WAIT(NO)\nACTION(DISCARD)\n")
    env = {
        **os.environ,
        "DLQHANDLER_HOME": str(home),
        "DLQHANDLER_MQ_USER": "dlqsvc",
        "DLQHANDLER_MQ_PASSWORD": secret,
        "DLQHANDLER_LOG_LEVEL": "DEBUG",
    }
    env.pop("DLQHANDLER_QMGR", None)
    proc = subprocess.run(
        [str(DLQHANDLER), "run", "--rules", str(rules), "--no-watch", "--log-level", "DEBUG"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert secret not in proc.stdout + proc.stderr
    assert "handler_started" in proc.stderr


def _modes(root: Path) -> dict[str, int]:
    return {
        str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode) for p in [root, *root.rglob("*")]
    }


def test_queue_manager_files_are_owner_only_under_a_permissive_umask(tmp_path: Path) -> None:
    """With umask 000, the embedded queue manager's folders are still 0700 and its files
    (database, WAL, shared memory, connection lock files) 0600."""
    old = os.umask(0)
    try:
        home = tmp_path / "home"
        create_qmgr(home, "QMU")
        qm = connect("QMU", home=home)
        try:
            load(qm, [dead_letter("x")])
            modes = _modes(home / "qmgrs")
        finally:
            qm.disconnect()
    finally:
        os.umask(old)
    folders = {k: v for k, v in modes.items() if (home / "qmgrs" / k).is_dir() or k == "."}
    files = {k: v for k, v in modes.items() if k not in folders}
    assert set(folders.values()) == {0o700}, folders
    assert files
    assert set(files.values()) == {0o600}, files
    assert any(k.endswith(".lock") for k in files), files


@settings(max_examples=300, deadline=None)
@given(value=st.text(max_size=80), fmt=st.sampled_from(["json", "console"]))
def test_any_logged_text_stays_one_line_without_control_characters(value: str, fmt: str) -> None:
    """Whatever a message carries (queue names, user ids), a log event stays one line
    with no raw control character, in both formats."""
    out = io.StringIO()
    configure_logging(level="INFO", json=fmt == "json", stream=out)
    try:
        get_logger("t").warning("put_failed", destq=value, user=value, msgid=b"\x00\n")
    finally:
        import structlog

        structlog.reset_defaults()
    text = out.getvalue()
    assert text.count("\n") == 1, repr(text)
    assert text.endswith("\n"), repr(text)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text), repr(text)
    if fmt == "json":
        assert json.loads(text)["destq"].encode() is not None


def test_a_hostile_message_md_does_not_change_the_put_target(qm: EmbeddedQueueManager) -> None:
    """A dead letter whose MQMD fields hold path-like text (UserIdentifier, ReplyToQ,
    ApplIdentityData) is forwarded by a literal FWDQ exactly there."""
    define(qm, "CATCH")
    md = MQMD(
        format="MQSTR",
        msg_id=b"H" * 24,
        user_identifier="../..",
        reply_to_q="../../etc/x",
        appl_identity_data="$(id)",
        priority=0,
    )
    msg = Message.dead_letter(md, b"x", reason=2053, dest_q_name="APP.Q")
    load(qm, [msg])
    ruleset = compile_rules("ACTION(FWD) FWDQ(CATCH)\n").ruleset
    assert ruleset is not None
    q = qm.open(DLQ, input=True, browse=False)
    try:
        outcome = apply_message(
            qm, q, Matcher(ruleset), md.msg_id, md.correl_id, input_queue=DLQ, catch_all=None
        )
    finally:
        q.close()
    assert (outcome.outcome, outcome.line, outcome.queue) == ("ok", 1, "CATCH")
