"""`dlqhandler run` keeps message properties: a dead letter that carried them reaches
its target with the same properties (name, type, value), forwarded with or without its
MQDLH or retried, on the embedded queue manager."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.qmgr import connect
from tests.worker.helpers import JMS_PROPERTIES, RunCli, browse, dead_letter, define, load

RULES = """\
RETRYINT(0) WAIT(NO)
DESTQ(RETRY.OK) ACTION(RETRY)
DESTQ(FWD.YES) ACTION(FWD) FWDQ(TARGET.YES) HEADER(YES)
DESTQ(FWD.NO) ACTION(FWD) FWDQ(TARGET.NO) HEADER(NO)
DESTQ(REMOTE) ACTION(FWD) FWDQ(APP.IN) FWDQM(QM2) HEADER(NO)
"""
JMS = JMS_PROPERTIES


def test_forward_and_retry_keep_every_property(qm, ledger, run_cli: RunCli) -> None:
    """RETRY, FWD HEADER(YES), FWD HEADER(NO) and a forward through a transmission queue
    of property-bearing dead letters: each arrives once, with its data, context and the
    same properties; a message without properties arrives without any."""
    define(qm, "RETRY.OK", "TARGET.YES", "TARGET.NO")
    define(qm, "QM2", usage="XMITQ")
    messages = [
        dead_letter("retry me", destq="RETRY.OK", properties=JMS),
        dead_letter("forward whole", destq="FWD.YES", properties=JMS[:5]),
        dead_letter("forward stripped", destq="FWD.NO", properties=JMS[5:]),
        dead_letter("forward far", destq="REMOTE", properties=JMS),
        dead_letter("no properties", destq="FWD.NO"),
    ]
    load(qm, messages)
    book = ledger()
    assert [len(m.properties) for m in browse(qm, "SYSTEM.DEAD.LETTER.QUEUE")] == [14, 5, 9, 14, 0]

    run = run_cli(RULES)

    assert run.rc == 0, run.err
    book.check(["RETRY.OK", "TARGET.YES", "TARGET.NO", "QM2"])  # (compares properties)
    assert [book.where(m) for m in messages] == [
        "RETRY.OK",
        "TARGET.YES",
        "TARGET.NO",
        "APP.IN@QM2",
        "TARGET.NO",
    ]
    [retried] = browse(qm, "RETRY.OK")
    assert retried.properties == JMS
    assert retried.body == b"retry me"
    whole = browse(qm, "TARGET.YES")[0]
    assert whole.md.format == "MQDEAD"
    assert whole.properties == JMS[:5]
    assert [m.properties for m in browse(qm, "TARGET.NO")] == [JMS[5:], ()]
    assert run.summary("retried") == 1
    assert run.summary("forwarded") == 4


def test_properties_from_the_command_line_through_run(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`qm put --property` puts a dead letter with typed properties, `dlqhandler run`
    forwards it, and `qm browse` shows the target message's properties, escaped."""
    assert main(["qm", "create", "QM2"]) == 0
    with connect("QM2") as qm:
        define(qm, "TARGET")
    assert (
        main(
            [
                "qm",
                "put",
                "-m",
                "QM2",
                "-q",
                "SYSTEM.DEAD.LETTER.QUEUE",
                "--data",
                "x",
                "--dlq-reason",
                "2053",
                "--dest",
                "APP.IN",
                "--property",
                "OrderType=express\n",
                "--property",
                "Items:i4=7",
                "--property",
                "Urgent:boolean=1",
                "--property",
                "Coupon:null",
            ]
        )
        == 0
    )
    rules = home / "fwd.rul"
    rules.write_text("WAIT(NO)\nACTION(FWD) FWDQ(TARGET) HEADER(NO)\n")
    assert (
        main(
            [
                "run",
                "--rules",
                str(rules),
                "SYSTEM.DEAD.LETTER.QUEUE",
                "QM2",
                "--no-watch",
                "--log-format",
                "json",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["qm", "browse", "-m", "QM2", "-q", "TARGET"]) == 0
    out = capsys.readouterr().out
    assert "OrderType (string) = 'express\\n'" in out
    assert "Items (i4) = 7" in out
    assert "Urgent (boolean) = True" in out
    assert "Coupon (null) = None" in out
