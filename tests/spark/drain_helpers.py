"""Running `dlqhandler drain` as a user does (a process of its own) and checking
that every message is conserved: by MsgId and by payload hash."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq import Message
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import PutOptions

ROOT = Path(__file__).resolve().parents[2]
DEMO_RULES = ROOT / "rules" / "demo.rul"


def drain_env(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        **extra,
    }
    env.pop("PYSPARK_GATEWAY_PORT", None)
    return env


def run_drain(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dlqhandler", "drain", *args],
        cwd=cwd,
        env=env or drain_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def payload_hash(m: Message) -> str:
    """The application data's hash: the body after an MQDLH, if the message has one."""
    body = m.body[MQDLH_LENGTH_1:] if m.md.format.strip() == "MQDEAD" else m.body
    return hashlib.sha256(body).hexdigest()


def browse(qm: Any, queue: str) -> list[Message]:
    """Every message on ``queue`` of the queue manager ``qm``, browsed (nothing taken)."""
    from dlqhandler.qmgr.port import browse_all

    handle = qm.open(queue, input=False, browse=True)
    try:
        return list(browse_all(handle))
    finally:
        handle.close()


def audit_rows(out: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    return pq.read_table(out / "audit").to_pylist()  # type: ignore[no-any-return]


def assert_conserved(messages: list[Message], out: Path) -> dict[str, Any]:
    """Every input message is in exactly one output file (same payload), or
    discarded according to the audit; the manifest names exactly the files in DIR."""
    manifest: dict[str, Any] = json.loads((out / "manifest.json").read_text())
    files = [o["file"] for o in manifest["outputs"]]
    if manifest["remaining"]["file"]:
        files.append(manifest["remaining"]["file"])
    assert sorted(p.name for p in out.glob("*.dmp")) == sorted(files)
    original = {m.md.msg_id: payload_hash(m) for m in messages}
    assert len(original) == len(messages)
    seen: Counter[bytes] = Counter()
    for name in files:
        for m in read_dump(out / name):
            seen[m.md.msg_id] += 1
            assert payload_hash(m) == original[m.md.msg_id], name
    discarded = {
        bytes.fromhex(r["msgid"]) for r in audit_rows(out) if r["disposition"] == "DISCARD"
    }
    assert set(seen.values()) == {1}
    assert not discarded & set(seen)
    assert set(seen) | discarded == set(original)
    assert manifest["totals"]["messages"] == len(messages)
    return manifest


def log_file_of(stdout: str) -> Path:
    """The Spark log the summary names."""
    m = re.search(r"Spark log: (\S+)", stdout)
    assert m, stdout
    return Path(m.group(1))


def stage_events(stderr: str) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for line in stderr.splitlines()
        if line.startswith('{"event": "drain_stage"')
    ]


def qm1_holding(
    home: Path, monkeypatch: Any, messages: list[Message], queues: tuple[str, ...] = ("APP.Y",)
) -> None:
    """QM1, an embedded queue manager in ``home`` (made the commands' DLQHANDLER_HOME,
    DLQHANDLER_QMGR unset), with ``queues`` defined and ``messages`` put on its DLQ as
    they are (their context kept)."""
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    monkeypatch.delenv("DLQHANDLER_QMGR", raising=False)
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    try:
        for q in queues:
            qm.admin().define_queue(q, {})
        for m in messages:
            qm.put1("SYSTEM.DEAD.LETTER.QUEUE", m, PutOptions(syncpoint=False, context="set_all"))
    finally:
        qm.disconnect()
