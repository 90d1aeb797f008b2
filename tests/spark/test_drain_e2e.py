"""The drain end to end: files in, dmpmqmsg outputs loaded into a real embedded
queue manager, conservation by MsgId and by content; catch-all, dry run, safe
file names, apply mode on the queue manager (spark-submit: test_drain_runs)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.errors import MQIError
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import GetOptions, PutOptions

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
DEMO_RULES = ROOT / "rules" / "demo.rul"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _h(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def backlog_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Message]]:
    messages = list(generate_backlog(600, seed=21))
    path = tmp_path_factory.mktemp("in") / "backlog.dmp"
    write_dump(path, messages)
    return path, messages


def _outputs(out: Path) -> dict[str, list[Message]]:
    manifest = json.loads((out / "manifest.json").read_text())
    files = {o["file"]: list(read_dump(out / o["file"])) for o in manifest["outputs"]}
    if manifest["remaining"]["file"]:
        files[manifest["remaining"]["file"]] = list(read_dump(out / "remaining.dmp"))
    return files


def _audit(spark: Any, out: Path) -> dict[str, dict[str, Any]]:
    rows = spark.read.parquet(str(out / "audit")).collect()
    return {r["msgid"]: r.asDict() for r in rows}


def test_offline_drain_conserves_every_message(
    spark: Any, tmp_path: Path, backlog_file: tuple[Path, list[Message]]
) -> None:
    """Every input message is in exactly one output file, or discarded, or remaining;
    headers are stripped exactly for RETRY/HEADER(NO), bytes identical otherwise."""
    src, messages = backlog_file
    out = tmp_path / "out"
    assert (
        cli_main(["drain", "--rules", str(DEMO_RULES), "--input", str(src), "--output", str(out)])
        == 0
    )
    manifest = json.loads((out / "manifest.json").read_text())
    audit = _audit(spark, out)
    assert len(audit) == len(messages)
    seen: Counter[bytes] = Counter()
    for file, msgs in _outputs(out).items():
        for m in msgs:
            seen[m.md.msg_id] += 1
            row = audit[m.md.msg_id.hex().upper()]
            original = next(x for x in messages if x.md.msg_id == m.md.msg_id)
            if row["disposition"] == "RETRY" or (
                row["disposition"] == "FWD" and file.startswith("q-") and m.md.format != "MQDEAD"
            ):
                assert m.body == original.body[MQDLH_LENGTH_1:], file
            else:
                assert _h(m.body) == _h(original.body), file
    discarded = [k for k, r in audit.items() if r["disposition"] == "DISCARD"]
    assert manifest["discarded"] == len(discarded)
    assert set(seen.values()) <= {1}
    assert len(seen) + len(discarded) == len(messages)
    assert not {bytes.fromhex(d) for d in discarded} & set(seen)
    assert manifest["totals"]["messages"] == len(messages)
    assert manifest["rules_sha256"] == hashlib.sha256(DEMO_RULES.read_bytes()).hexdigest()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["totals"] == manifest["totals"]


def test_outputs_load_into_an_embedded_queue_manager(
    spark: Any,
    tmp_path: Path,
    backlog_file: tuple[Path, list[Message]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each output file loads with `dlqhandler qm dmpmqmsg -o`; queue depths equal the
    manifest counts and the loaded MQMDs keep MsgId and context."""
    src, _messages = backlog_file
    out = tmp_path / "out"
    assert (
        cli_main(
            [
                "drain",
                "--rules",
                str(DEMO_RULES),
                "--input",
                str(src),
                "--output",
                str(out),
                "--catch-all",
                "DLQ.CATCHALL",
            ]
        )
        == 0
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["remaining"]["messages"] == 0
    assert manifest["remaining"]["file"] is None
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    admin = qm.admin()
    for o in manifest["outputs"]:
        if not admin.queues(o["queue"], generic=False):
            admin.define_queue(o["queue"], {"MAXDEPTH": 100000})
    for o in manifest["outputs"]:
        if o["qmgr"]:
            continue  # remote targets: loaded by the administrator on that queue manager
        assert (
            cli_main(["qm", "dmpmqmsg", "-m", "QM1", "-o", o["queue"], "-f", str(out / o["file"])])
            == 0
        )
    for o in manifest["outputs"]:
        if not o["qmgr"]:
            expected = sum(
                x["messages"]
                for x in manifest["outputs"]
                if x["queue"] == o["queue"] and not x["qmgr"]
            )
            assert qm.inquire_queue(o["queue"]).curdepth == expected
    qm.disconnect()


def test_catch_all_takes_what_would_stay(spark: Any, tmp_path: Path) -> None:
    """IGNORE, no match and non-DLH messages go to the catch-all queue with their
    header (bytes unchanged), so nothing unexplained stays on the DLQ."""
    md = MQMD(format="MQSTR", msg_id=b"\x01" * 24)
    plain = Message(md.replace(msg_id=b"\x02" * 24), b"no header at all")
    dl = Message.dead_letter(md, b"payload", reason=2053, dest_q_name="APP.X")
    ignored = Message.dead_letter(
        md.replace(msg_id=b"\x03" * 24), b"p2", reason=2085, dest_q_name="APP.Y"
    )
    src = tmp_path / "in.dmp"
    write_dump(src, [dl, plain, ignored])
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY)\nREASON(2085) ACTION(IGNORE)\n")
    out = tmp_path / "out"
    assert (
        cli_main(
            [
                "drain",
                "--rules",
                str(rules),
                "--input",
                str(src),
                "--output",
                str(out),
                "--catch-all",
                "DLQ.CATCHALL",
            ]
        )
        == 0
    )
    files = _outputs(out)
    catch = files["q-DLQ.CATCHALL@LOCAL.dmp"]
    assert {m.md.msg_id for m in catch} == {b"\x02" * 24, b"\x03" * 24}
    assert {m.body for m in catch} == {plain.body, ignored.body}
    assert [m.body for m in files["q-APP.X@LOCAL.dmp"]] == [b"payload"]


def test_dry_run_writes_only_audit_and_summary(
    spark: Any, tmp_path: Path, backlog_file: tuple[Path, list[Message]]
) -> None:
    """--dry-run simulates rule coverage: audit, summary and manifest, no dump files."""
    src, messages = backlog_file
    out = tmp_path / "out"
    assert (
        cli_main(
            [
                "drain",
                "--rules",
                str(DEMO_RULES),
                "--input",
                str(src),
                "--output",
                str(out),
                "--dry-run",
            ]
        )
        == 0
    )
    assert not list(out.glob("*.dmp"))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["totals"]["messages"] == len(messages)
    assert sum(r["chosen"] for r in summary["by_rule"]) + summary["totals"]["unmatched"] + summary[
        "totals"
    ]["no_dlh"] == len(messages)


def test_file_names_from_queue_names_stay_inside_the_output(spark: Any, tmp_path: Path) -> None:
    """Queue names with '/', '%', '..' become escaped flat file names inside DIR."""
    md = MQMD(format="MQSTR")
    names = ["A/B%C", "..", "../X", "DLQ/../../etc"]
    msgs = [
        Message.dead_letter(
            md.replace(msg_id=bytes([i + 1]) * 24), b"x", reason=2053, dest_q_name=n
        )
        for i, n in enumerate(names)
    ]
    src = tmp_path / "in.dmp"
    write_dump(src, msgs)
    rules = tmp_path / "r.rul"
    rules.write_text("ACTION(RETRY)\n")
    out = tmp_path / "out"
    assert (
        cli_main(["drain", "--rules", str(rules), "--input", str(src), "--output", str(out)]) == 0
    )
    produced = sorted(p.name for p in out.iterdir() if p.suffix == ".dmp")
    assert all(p.parent == out for p in out.glob("*.dmp"))
    assert not (tmp_path / "X").exists()
    assert not (tmp_path / "etc").exists()
    assert "q-A~2FB~25C@LOCAL.dmp" in produced
    assert "q-..@LOCAL.dmp" in produced
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(o["queue"] for o in manifest["outputs"]) == sorted(names)


def test_apply_moves_messages_on_the_queue_manager(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--apply -m QM moves each message in its own unit of work; a message another
    process holds in an open unit of work is skipped, never duplicated."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    for q in ("APP.ORDERS", "DLQ.CATCHALL"):
        qm.admin().define_queue(q, {"MAXDEPTH": 10000})
    md = MQMD(format="MQSTR", persistence=1)
    msgs = [
        Message.dead_letter(
            md.replace(msg_id=i.to_bytes(24, "big")),
            f"m{i}".encode(),
            reason=2053 if i % 3 else 2085,
            dest_q_name="APP.ORDERS" if i % 4 else "APP.MISSING",
        )
        for i in range(1, 41)
    ]
    for m in msgs:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    other = connect("QM1", home=home)  # a "daemon" holding one message in its UOW
    held = other.open(DLQ).get(GetOptions(msg_id=msgs[0].md.msg_id, syncpoint=True))
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\n")
    out = tmp_path / "out"
    code = cli_main(
        [
            "drain",
            "--rules",
            str(rules),
            "-m",
            "QM1",
            "--apply",
            "--catch-all",
            "DLQ.CATCHALL",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    other.backout()
    other.disconnect()
    depth = {q: qm.inquire_queue(q).curdepth for q in (DLQ, "APP.ORDERS", "DLQ.CATCHALL")}
    to_orders = [
        m
        for m in msgs[1:]
        if m.md.msg_id != held.md.msg_id
        and int.from_bytes(m.md.msg_id, "big") % 3
        and int.from_bytes(m.md.msg_id, "big") % 4
    ]
    assert depth[DLQ] == 1  # only the held message
    assert depth["APP.ORDERS"] == len(to_orders)
    assert depth["DLQ.CATCHALL"] == len(msgs) - 1 - len(to_orders)
    audit = {r["msgid"]: r for r in spark.read.parquet(str(out / "audit")).collect()}
    assert msgs[0].md.msg_id.hex().upper() not in audit  # invisible to the snapshot
    assert len(audit) == len(msgs) - 1
    got = qm.open("APP.ORDERS").get(GetOptions(browse="first", syncpoint=False))
    assert got.md.format == "MQSTR"
    assert got.body.startswith(b"m")
    with pytest.raises(MQIError):
        qm.open(DLQ).get(GetOptions(msg_id=msgs[1].md.msg_id, syncpoint=False, browse="first"))
    qm.disconnect()


@pytest.mark.parametrize("propctl", ["COMPAT", "FORCE"])
def test_apply_retries_a_dead_letter_with_properties_as_run_does(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, propctl: str
) -> None:
    """Issue 33, class 2: dead letters with message properties on a DLQ defined
    PROPCTL(FORCE) come off it with an MQRFH2 in front of the MQDLH (MQMD Format MQHRF2).
    `drain -m --apply` finds their MQDLH as `run` does and retries them to their
    destination with their properties, as on a PROPCTL(COMPAT) DLQ: nothing goes to the
    catch-all, the summary says retried 3. IBM: "FORCE: Properties are always returned in
    the message data in an MQRFH2 header"
    (https://www.ibm.com/docs/en/ibm-mq/9.4?topic=queues-propctl)."""
    from dlqhandler.mq.properties import Property, PropertyType

    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    for q in ("APP.IN", "DLQ.CATCHALL"):
        qm.admin().define_queue(q, {})
    qm.admin().alter_queue(DLQ, {"PROPCTL": propctl})
    props = (Property("OrderType", PropertyType.STRING, "express"),)
    msgs = [
        Message.dead_letter(
            MQMD(format="MQSTR", msg_id=i.to_bytes(24, "big")),
            f"order {i}".encode(),
            reason=2053,
            dest_q_name="APP.IN",
            dest_q_mgr_name="QM1",
            properties=props,
        )
        for i in range(1, 4)
    ]
    for m in msgs:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n")
    out = tmp_path / "out"
    code = cli_main(["drain", "--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)])

    assert code == 0
    totals = json.loads((out / "summary.json").read_text())["totals"]
    assert (totals["retried"], totals["catch_all"]) == (3, 0), totals
    depth = {q: qm.inquire_queue(q).curdepth for q in (DLQ, "APP.IN", "DLQ.CATCHALL")}
    assert depth == {DLQ: 0, "APP.IN": 3, "DLQ.CATCHALL": 0}
    q = qm.open("APP.IN")
    got = [q.get(GetOptions(syncpoint=False)) for _ in msgs]
    assert [m.md.msg_id for m in got] == [m.md.msg_id for m in msgs]
    assert [m.body for m in got] == [m.strip_dead_letter_header().body for m in msgs]
    assert all(m.md.format == "MQSTR" for m in got)
    assert all(m.properties == props for m in got)
    qm.disconnect()


def test_apply_skips_a_message_taken_after_the_snapshot(tmp_path: Path) -> None:
    """A message in the snapshot that a daemon takes before the executor gets to it
    is skipped (outcome 'skipped'): not moved, not duplicated."""
    from dlqhandler.rules import Matcher, compile_rules
    from dlqhandler.spark.drain.apply import apply_message

    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    qm.admin().define_queue("APP.ORDERS", {})
    msg = Message.dead_letter(
        MQMD(format="MQSTR", msg_id=b"\x07" * 24), b"x", reason=2053, dest_q_name="APP.ORDERS"
    )
    qm.put1(DLQ, msg, PutOptions(syncpoint=False, context="set_all"))
    daemon = connect("QM1", home=home)
    daemon.open(DLQ).get(GetOptions(msg_id=msg.md.msg_id, syncpoint=True))
    ruleset = compile_rules("ACTION(RETRY)\n").ruleset
    assert ruleset is not None
    q = qm.open(DLQ)
    outcome = apply_message(
        qm, q, Matcher(ruleset), msg.md.msg_id, msg.md.correl_id, input_queue=DLQ, catch_all=None
    )
    assert outcome.outcome == "skipped"
    assert qm.inquire_queue("APP.ORDERS").curdepth == 0
    daemon.commit()  # the daemon's own move wins; the DLQ is empty, no duplicate
    assert qm.inquire_queue(DLQ).curdepth == 0
    daemon.disconnect()
    qm.disconnect()


def test_outputs_keep_input_order_across_many_splits(
    spark: Any, tmp_path: Path, backlog_file: tuple[Path, list[Message]]
) -> None:
    """Tasks write part files per target and split; the driver joins them in input
    order: within every output file the messages are in the order of the input, and
    no part file is left behind."""
    from dlqhandler.rules import compile_rules
    from dlqhandler.spark.drain.job import DrainConfig, run_drain

    src, messages = backlog_file
    ruleset = compile_rules(DEMO_RULES.read_text()).ruleset
    assert ruleset is not None
    out = tmp_path / "out"
    result = run_drain(
        spark, ruleset, DrainConfig(output=out, inputs=(str(src),), split_bytes=32 << 10)
    )
    position = {m.md.msg_id: i for i, m in enumerate(messages)}
    files = _outputs(out)
    assert len(files) >= 2
    total = 0
    for file, msgs in files.items():
        order = [position[m.md.msg_id] for m in msgs]
        assert order == sorted(order), file
        total += len(msgs)
    assert total + result.manifest["discarded"] == len(messages)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["audit", "manifest.json", "summary.json", *files]
    )
