"""The two back ends of the rules compiler agree: Spark column expressions vs the
Python matcher, for every message of generated backlogs and for many tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.rules import compile_rules
from dlqhandler.spark.classify import classify
from dlqhandler.spark.messages import read_messages
from tests.spark.decisions import python_decision, random_tables

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
_KEYS = ("chosen_line", "action", "target_q", "target_qm", "target_valid")


def _conformance_tables() -> list[str]:
    tables = []
    for path in sorted((ROOT / "tests" / "conformance").glob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            given = group["given"]
            text = given if isinstance(given, str) else "\n".join(given) + "\n"
            if compile_rules(text).ruleset is not None:
                tables.append(text)
    return tables


def _crafted() -> list[Message]:
    """Names that stress the translation: % and _, blanks, bad substitutions."""
    out = []
    specs = [
        ("A%B_C", "QM1", "R.Q"),
        ("AXB_C", "QM1", ""),
        ("A*_*", "AAAA.QM1", "../../etc/x"),
        ("APP.ORDERS", "", "bad\x01name"),
        ("PAYROLL.IN", "BBBB.1", "X" * 48),
        ("pay.low", "aaaa.qm1", "APP.NOTIFY.REPLY"),
        ("A B", "QM1", " LEADING"),
    ]
    for i, (dest, destqm, reply) in enumerate(specs):
        md = MQMD(
            format="MQSTR",
            persistence=i % 2,
            reply_to_q=reply,
            reply_to_q_mgr=destqm,
            user_identifier="app1" if i % 2 else "svc_ship",
            msg_id=bytes([i + 1]) * 24,
        )
        out.append(
            Message.dead_letter(
                md,
                b"crafted",
                reason=(2053, 2085, 2051)[i % 3],
                dest_q_name=dest,
                dest_q_mgr_name=destqm,
            )
        )
    return out


@pytest.fixture(scope="module")
def backlog(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[Message]]:
    messages = list(generate_backlog(1500, seed=7)) + _crafted()
    path = tmp_path_factory.mktemp("diff") / "backlog.dmp"
    write_dump(path, messages)
    frame = read_messages(spark, [path], split_bytes=1 << 20).cache()
    return frame, messages


def _compare(spark_frame: Any, messages: list[Message], tables: list[str]) -> None:
    rulesets = [compile_rules(t, input_queue="SYSTEM.DEAD.LETTER.QUEUE").ruleset for t in tables]
    frame = spark_frame
    for i, rs in enumerate(rulesets):
        assert rs is not None
        frame = classify(frame, rs, input_queue="SYSTEM.DEAD.LETTER.QUEUE", local_qmgr="QM1")
        frame = frame.withColumnsRenamed({k: f"{k}_{i}" for k in _KEYS}).drop(
            "matched_lines", "header", "disposition", "out_q", "out_qm", "strip_header"
        )
    cols = ["md_msg_id"] + [f"{k}_{i}" for i in range(len(rulesets)) for k in _KEYS]
    rows = {bytes(r["md_msg_id"]): r for r in frame.select(*cols).collect()}
    assert len(rows) == len(messages)
    mismatches = []
    for msg in messages:
        row = rows[msg.md.msg_id]
        for i, rs in enumerate(rulesets):
            assert rs is not None
            expected = python_decision(rs, msg)
            got = tuple(row[f"{k}_{i}"] for k in _KEYS)
            if got[1] not in ("RETRY", "FWD"):
                got = (got[0], got[1], None, None, None)
            elif got[4] is False:
                got = (got[0], got[1], None, None, False)
            if got != expected:
                mismatches.append((tables[i], msg.md.msg_id.hex(), expected, got))
    kinds = {(m[2][1], m[3][1]) for m in mismatches}
    assert (len(mismatches), kinds, mismatches[:3]) == (0, set(), [])


def test_conformance_tables_classify_identically(backlog: tuple[Any, list[Message]]) -> None:
    """Every compilable conformance table: Spark and Python choose the same rule,
    action and substituted target for every message (1500 generated + crafted)."""
    frame, messages = backlog
    tables = _conformance_tables()
    assert len(tables) > 40
    for start in range(0, len(tables), 25):
        _compare(frame, messages, tables[start : start + 25])


def test_random_tables_classify_identically(backlog: tuple[Any, list[Message]]) -> None:
    """Random tables with wildcards, %/_ names, substitutions and loops agree too."""
    frame, messages = backlog
    tables = random_tables(60, seed=11)
    for start in range(0, len(tables), 30):
        _compare(frame, messages, tables[start : start + 30])


def test_shipped_tables_classify_identically(backlog: tuple[Any, list[Message]]) -> None:
    """The tables in rules/ agree between the back ends."""
    frame, messages = backlog
    tables = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "rules").glob("*.rul"))]
    _compare(frame, messages, tables)


def test_the_oracle_does_not_read_a_decode_bug_as_agreement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Python side maps only decode's documented error, MalformedMessageError (no
    MQDLH), to the implicit IGNORE the Spark side gives such a message (no rule's
    condition holds without ``has_dlh``); any other exception from the decoder
    propagates, so a decode bug fails the comparison instead of reading as IGNORE."""
    ruleset = compile_rules("ACTION(FWD) FWDQ(CATCH.ALL)\n").ruleset
    assert ruleset is not None
    plain = Message(MQMD(format="MQSTR", msg_id=b"\x01" * 24), b"no header here")
    assert python_decision(ruleset, plain) == (None, "IGNORE", None, None, None)

    def broken(md: MQMD, body: bytes) -> Message:
        raise IndexError("a decoder bug")

    monkeypatch.setattr("tests.spark.decisions.decode_dead_letter", broken)
    with pytest.raises(IndexError, match="a decoder bug"):
        python_decision(ruleset, plain)
