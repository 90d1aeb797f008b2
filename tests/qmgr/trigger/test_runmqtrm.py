"""The trigger monitor (``dlqhandler qm runmqtrm``) and the ops MQSC for a triggered DLQ.

The started application is a small Python script that records its argv (one
JSON file per start, named by its pid) in the folder EnvData names, so a test
sees what runmqtrm passed: the MQTMC2 as one 732-character argument, then the
EnvData words.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.constants import (
    MQFB_APPL_CANNOT_BE_STARTED,
    MQFB_APPL_TYPE_ERROR,
    MQFB_TM_ERROR,
)
from dlqhandler.mq.mqtm import MQTM, MQTMC2, encode_mqtm
from dlqhandler.qmgr import PutOptions
from dlqhandler.qmgr.embedded.runmqtrm import MonitorOptions, TriggerMonitor
from dlqhandler.rules import compile_rules
from tests.qmgr.trigger.support import APPQ, INITQ, NOW, PROCESS, World

ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / ".venv" / "bin" / "dlqhandler"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
APP = """
import json, os, sys, time
args = sys.argv[1:]
folder = args[1]
path = os.path.join(folder, f"{os.getpid()}.json")
with open(path + ".tmp", "w", encoding="utf-8") as f:
    json.dump(args, f)
os.replace(path + ".tmp", path)
time.sleep(float(args[2]) if len(args) > 2 else 0)
"""


@pytest.fixture(autouse=True)
def _triggered_app_queue(world: World) -> None:
    """Every test here runs on QM1 with INIT.Q and the triggered APP.Q (FIRST)."""
    world.app_queue()


@pytest.fixture
def started(world: World, tmp_path: Path) -> Path:
    """APP.PROC now starts the recording script; returns the folder it records in."""
    script = tmp_path / "app.py"
    script.write_text(APP, encoding="utf-8")
    folder = tmp_path / "runs"
    folder.mkdir()
    applicid = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    assert len(applicid) <= 256
    assert len(str(folder)) <= 126
    world.qm.admin().alter_process(PROCESS, {"APPLICID": applicid, "ENVRDATA": str(folder)})
    return folder


def runs(folder: Path) -> list[list[str]]:
    """The argv (after the script) of every start recorded in ``folder``."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def cli(home: Path, *args: str) -> list[str]:
    command = [str(CLI)] if CLI.exists() else [sys.executable, "-m", "dlqhandler"]
    return [*command, *args]


def env(home: Path) -> dict[str, str]:
    return {**os.environ, "DLQHANDLER_HOME": str(home), "DLQHANDLER_LOG_JSON": "1"}


def run_dlqhandler(
    home: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``dlqhandler ARGS`` run to its end (two minutes at most) with ``home``'s queue
    managers, JSON logs on stderr."""
    return subprocess.run(
        cli(home, *args),
        input=stdin,
        env=env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def start_dlqhandler(home: Path, *args: str) -> subprocess.Popen[str]:
    """``dlqhandler ARGS`` started in the background, its stdout and stderr piped."""
    return subprocess.Popen(
        cli(home, *args), env=env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def events(stderr: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def wait_for(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def monitor(world: World, **options: object) -> TriggerMonitor:
    """An in-process trigger monitor on INIT.Q over its own connection."""
    return TriggerMonitor(world.connect(), MonitorOptions(initq=INITQ, **options))  # type: ignore[arg-type]


def test_runmqtrm_starts_the_process_with_an_mqtmc2_naming_queue_and_qmgr(
    world: World, started: Path
) -> None:
    """A message waits on APP.Q; `qm runmqtrm --once` opens INIT.Q (condition 13.3), gets
    the trigger message and starts APPLICID without a shell: argv is the MQTMC2 (732
    characters, parsed by MQTMC2.from_argv) then the ENVRDATA; the child is reaped."""
    world.put()
    done = run_dlqhandler(
        world.home, "qm", "runmqtrm", "-m", "QM1", "-q", INITQ, "--once", "--wait", "30"
    )
    assert done.returncode == 0, done.stderr
    [argv] = runs(started)
    assert len(argv) == 2
    assert len(argv[0]) == 732
    assert argv[1] == str(started)
    tmc2 = MQTMC2.from_argv(argv[0])
    assert (tmc2.q_name, tmc2.q_mgr_name, tmc2.process_name) == (APPQ, "QM1", PROCESS)
    assert (tmc2.trigger_data, tmc2.env_data, tmc2.user_data) == (
        f"data for {APPQ}",
        str(started),
        "user data",
    )
    seen = [e["event"] for e in events(done.stderr)]
    assert seen == [
        "trigger_monitor_started",
        "application_started",
        "application_ended",
        "trigger_monitor_stopped",
    ]
    assert events(done.stderr)[2]["returncode"] == 0
    assert done.stdout == ""


def test_runmqtrm_running_before_the_first_message_arrives(world: World, started: Path) -> None:
    """The monitor waits on INIT.Q; the first put on APP.Q (condition 3) starts the
    application; --once ends the monitor after it."""
    proc = start_dlqhandler(
        world.home, "qm", "runmqtrm", "-m", "QM1", "-q", INITQ, "--once", "--wait", "60"
    )
    try:
        wait_for(lambda: world.attr(INITQ, "IPPROCS") == "1")
        world.put()
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert [MQTMC2.from_argv(a[0]).q_name for a in runs(started)] == [APPQ]


def test_runmqtrm_stops_on_sigterm_and_reaps_its_application(world: World, started: Path) -> None:
    """SIGTERM while a started application runs: the monitor stops taking trigger messages,
    waits for the application, logs its end and exits 0."""
    world.qm.admin().alter_process(PROCESS, {"ENVRDATA": f"{started} 1.5"})
    proc = start_dlqhandler(
        world.home, "qm", "runmqtrm", "-m", "QM1", "-q", INITQ, "--stop-timeout", "30"
    )
    try:
        wait_for(lambda: world.attr(INITQ, "IPPROCS") == "1")
        world.put()
        wait_for(lambda: runs(started) != [])
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    seen = [e["event"] for e in events(err)]
    assert seen[-2:] == ["application_ended", "trigger_monitor_stopped"]
    assert events(err)[-1]["reason"] == "stopped"
    assert world.attr(INITQ, "IPPROCS") == "0"


def test_envdata_ampersand_starts_in_the_background_and_the_child_is_reaped(
    world: World, started: Path, logs: list[MutableMapping[str, Any]]
) -> None:
    """ENVRDATA ending in '&' (runmqtrm's convention): the application runs in the
    background with the other EnvData words as arguments, and is reaped before the
    monitor ends."""
    world.qm.admin().alter_process(PROCESS, {"ENVRDATA": f"{started} 0.3 &"})
    world.put()
    stats = monitor(world, once=True, wait=10).run()
    assert (stats.received, stats.started, stats.exit_codes) == (1, 1, [0])
    [argv] = runs(started)
    assert argv[1:] == [str(started), "0.3"]
    [start] = [e for e in logs if e["event"] == "application_started"]
    assert start["background"] is True


def test_the_command_comes_from_the_process_definition_not_the_message(
    world: World, started: Path, tmp_path: Path, logs: list[MutableMapping[str, Any]]
) -> None:
    """A forged trigger message on INIT.Q carrying its own ApplId: the monitor starts what
    APP.PROC defines, passes the definition's values in the MQTMC2 and logs the
    difference; the forged command never runs."""
    evil = tmp_path / "pwned"
    forged = MQTM(
        q_name=APPQ,
        process_name=PROCESS,
        appl_type=6,
        appl_id=f"/bin/touch {evil}",
        env_data="",
        user_data="forged",
    )
    world.qm.put1(INITQ, Message(MQMD(format="MQTRIG"), encode_mqtm(forged)), NOW)
    stats = monitor(world, once=True, wait=10).run()
    assert stats.started == 1
    assert not evil.exists()
    [argv] = runs(started)
    tmc2 = MQTMC2.from_argv(argv[0])
    assert (tmc2.appl_id, tmc2.user_data) == (
        world.qm.admin().processes(PROCESS)[0].attrs["APPLICID"],
        "user data",
    )
    [differs] = [e for e in logs if e["event"] == "trigger_message_differs_from_definitions"]
    assert differs["fields"] == ["ApplId", "EnvData", "UserData", "TriggerData"]


def test_trigger_messages_that_cannot_be_acted_on_go_to_the_dlq(
    world: World, started: Path, logs: list[MutableMapping[str, Any]]
) -> None:
    """Not an MQTM, a queue that does not name the process, an ApplType other than UNIX,
    an APPLICID that cannot be run or parsed: nothing starts and each trigger message goes
    to the DLQ with MQFB_TM_ERROR, MQFB_APPL_TYPE_ERROR or MQFB_APPL_CANNOT_BE_STARTED."""
    admin = world.qm.admin()
    admin.define_process("CICS.PROC", {"APPLTYPE": "CICS", "APPLICID": "CKTI"})
    admin.define_process("BAD.PROC", {"APPLICID": "/no/such/program"})
    admin.define_process("QUOTE.PROC", {"APPLICID": "unbalanced 'quote"})
    for queue, process in (
        ("APP.CICS", "CICS.PROC"),
        ("APP.BAD", "BAD.PROC"),
        ("APP.QUOTE", "QUOTE.PROC"),
    ):
        world.mqsc(f"DEFINE QLOCAL({queue}) TRIGGER INITQ({INITQ}) PROCESS({process})")
        world.put(queue)  # no monitor yet: it triggers when the monitor opens INIT.Q (13.3)
    world.qm.put1(INITQ, Message(MQMD(format="MQSTR"), b"not a trigger message"), NOW)
    forged = MQTM(q_name=APPQ, process_name="BAD.PROC", appl_type=6, appl_id="x")
    world.qm.put1(INITQ, Message(MQMD(format="MQTRIG"), encode_mqtm(forged)), NOW)
    stats = monitor(world, wait=0.5).run()
    assert (stats.received, stats.started, stats.rejected) == (5, 0, 5)
    assert runs(started) == []
    dead = [decode_dead_letter(m.md, m.body) for m in world.waiting(DLQ)]
    got = sorted((m.dlh.reason, m.dlh.dest_q_name) for m in dead if m.dlh)
    assert got == sorted(
        [
            (MQFB_TM_ERROR, INITQ),
            (MQFB_TM_ERROR, INITQ),
            (MQFB_APPL_TYPE_ERROR, INITQ),
            (MQFB_APPL_CANNOT_BE_STARTED, INITQ),
            (MQFB_APPL_CANNOT_BE_STARTED, INITQ),
        ]
    )
    assert len([e for e in logs if e["event"] == "trigger_message_rejected"]) == 5


OPS = ROOT / "ops" / "mqsc"


def test_ops_mqsc_files_run_cleanly_and_define_what_the_tables_need(world: World) -> None:
    """dlq-queues.mqsc and dlq-triggered.mqsc run through `qm mqsc` with exit 0, twice
    (REPLACE); afterwards every local FWDQ of the shipped rules tables exists and the DLQ
    is triggered FIRST through DLQ.INITQ and DLQ.HANDLER."""
    for _ in range(2):
        for name in ("dlq-queues.mqsc", "dlq-triggered.mqsc"):
            done = run_dlqhandler(
                world.home, "qm", "mqsc", "QM1", stdin=(OPS / name).read_text(encoding="utf-8")
            )
            assert done.returncode == 0, done.stdout + done.stderr
            assert "All valid MQSC commands were processed." in done.stdout
    needed: set[str] = {"DLQHANDLER.STATUS"}
    for table in sorted((ROOT / "rules").glob("*.rul")):
        ruleset = compile_rules(table.read_text(encoding="utf-8")).ruleset
        assert ruleset is not None, table
        needed |= {
            r.action.fwdq
            for r in ruleset.rules
            if r.action.fwdq and not r.action.fwdq.startswith("&") and not r.action.fwdqm
        }
    admin = world.qm.admin()
    assert {q for q in needed if not admin.queues(q, generic=False)} == set()
    dlq = admin.queue(DLQ).attrs
    assert (dlq["TRIGGER"], dlq["TRIGTYPE"], dlq["INITQ"], dlq["PROCESS"]) == (
        "TRIGGER",
        "FIRST",
        "DLQ.INITQ",
        "DLQ.HANDLER",
    )
    process = admin.processes("DLQ.HANDLER")[0].attrs
    assert (process["APPLTYPE"], process["APPLICID"]) == (
        "UNIX",
        "dlqhandler run --rules /etc/dlqhandler/rules.rul",
    )


def test_ops_triggered_dlq_starts_the_handler_process_end_to_end(
    world: World, tmp_path: Path
) -> None:
    """With ops/mqsc/dlq-triggered.mqsc applied (APPLICID pointed at the recording script),
    a dead letter on the empty DLQ makes runmqtrm on DLQ.INITQ start the process with an
    MQTMC2 naming SYSTEM.DEAD.LETTER.QUEUE and QM1 (what `dlqhandler run` will read)."""
    world.mqsc((OPS / "dlq-triggered.mqsc").read_text(encoding="utf-8"))
    script = tmp_path / "app.py"
    script.write_text(APP, encoding="utf-8")
    folder = tmp_path / "runs"
    folder.mkdir()
    world.qm.admin().alter_process(
        "DLQ.HANDLER",
        {
            "APPLICID": f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}",
            "ENVRDATA": str(folder),
        },
    )
    dead = Message.dead_letter(
        MQMD(format="MQSTR"), b"order 42", reason=2053, dest_q_name="APP.IN", dest_q_mgr_name="QM1"
    )
    world.qm.put1(DLQ, dead, PutOptions(syncpoint=False))
    done = run_dlqhandler(
        world.home, "qm", "runmqtrm", "-m", "QM1", "-q", "DLQ.INITQ", "--once", "--wait", "30"
    )
    assert done.returncode == 0, done.stderr
    [argv] = runs(folder)
    tmc2 = MQTMC2.from_argv(argv[0])
    assert (tmc2.q_name, tmc2.q_mgr_name, tmc2.process_name) == (DLQ, "QM1", "DLQ.HANDLER")
    assert world.depth(DLQ) == 1


def test_runmqtrm_on_an_unknown_initiation_queue_is_a_connection_error(world: World) -> None:
    """MQOPEN of the initiation queue fails (2085): exit code 4, the reason on stderr."""
    done = run_dlqhandler(
        world.home, "qm", "runmqtrm", "-m", "QM1", "-q", "NO.SUCH.Q", "--once", "--wait", "1"
    )
    assert done.returncode == 4
    assert "2085" in done.stderr
