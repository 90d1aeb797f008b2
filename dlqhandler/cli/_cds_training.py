"""The training run of the Spark class-data archive (:mod:`dlqhandler.spark.cds`).

    python -m dlqhandler.cli._cds_training ARCHIVE MASTER

One JVM, told to archive at exit the classes it loaded, runs a drain, a dry run and a
report with a comparison on a small generated backlog, through the commands themselves,
so that what every plan of theirs loads is archived. ``dlqhandler.spark.cds.build`` runs
it in a process of its own and renames the archive into place.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.spark.cds import LOGGING

# The training run's table: every action and the header options, so that the classes
# of each plan the drain and the report make are loaded and archived.
_TRAINING_RULES = """\
INPUTQ(SYSTEM.DEAD.LETTER.QUEUE)
REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)
REASON(MQRC_PUT_INHIBITED) ACTION(FWD) FWDQ(&DESTQ) HEADER(NO)
DESTQ(PAYROLL.*) ACTION(FWD) FWDQ(PAYROLL.OLD) FWDQM(QM1)
FORMAT(MQSTR) ACTION(DISCARD)
ACTION(FWD) FWDQ(CATCH.ALL) HEADER(YES)
"""
_OLD_RULES = "REASON(MQRC_Q_FULL) ACTION(RETRY)\nACTION(FWD) FWDQ(CATCH.ALL)\n"


def _train(archive: Path, master: str) -> int:
    """One JVM that archives at exit what a drain, a dry run and a report loaded."""
    from dlqhandler.cli import main
    from dlqhandler.formats.backlog import write_backlog
    from dlqhandler.spark.session import BUILT_SESSION, get_session, stop_session

    options = BUILT_SESSION["spark.driver.defaultJavaOptions"]
    spark = get_session(
        master,
        app_name="dlqhandler-cds",
        extra={
            "spark.driver.defaultJavaOptions": f"{options} -XX:ArchiveClassesAtExit={archive}"
            f" {LOGGING}"
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory(prefix="dlqhandler-cds-") as tmp:
        work = Path(tmp)
        dump = work / "backlog.dmp"
        with dump.open("wb") as stream:
            write_backlog(stream, 500, seed=5)
        (work / "new.rul").write_text(_TRAINING_RULES, encoding="utf-8")
        (work / "old.rul").write_text(_OLD_RULES, encoding="utf-8")
        rules = ["--rules", str(work / "new.rul")]
        runs = (
            ["drain", *rules, "--input", str(dump), "--output", str(work / "d")],
            ["drain", *rules, "--input", str(dump), "--output", str(work / "n"), "--dry-run"],
            [
                "report",
                "--input",
                str(dump),
                *rules,
                "--compare",
                str(work / "old.rul"),
                "--output",
                str(work / "r"),
            ],
        )
        for argv in runs:
            with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
                code = main([*argv, "--master", master])
            if code != 0:
                sys.stderr.write(f"training run failed: dlqhandler {' '.join(argv)} exit {code}\n")
                return ExitCode.FAILURE
    stop_session(spark, timeout=900.0)  # the JVM writes the archive as it exits
    return ExitCode.OK


if __name__ == "__main__":
    raise SystemExit(_train(Path(sys.argv[1]), sys.argv[2]))
