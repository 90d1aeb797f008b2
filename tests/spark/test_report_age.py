"""``dlqhandler report --older-than/--newer-than``: the messages ``run`` would select by
the same options, counted; the Spark column form of the put-time rule against the
Python one; bad options refused before Spark starts."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.ages import AgeWindow, put_at
from dlqhandler.spark.messages import read_messages
from dlqhandler.spark.report.ages import put_epoch_query
from dlqhandler.spark.report.build import ReportOptions, build_report, facts
from dlqhandler.spark.sql import FRAME, sql_over
from dlqhandler.worker.selection import Selector

pytestmark = pytest.mark.spark

AS_OF = datetime(2024, 11, 28, 12, 0, 0, tzinfo=UTC)
HOUR, DAY = 3600.0, 86400.0


def _stamp(age: float) -> tuple[str, str]:
    """MQ's PutDate and PutTime (HHMMSSTH) of a message ``age`` seconds before AS_OF."""
    at = AS_OF - timedelta(seconds=age)
    return at.strftime("%Y%m%d"), at.strftime("%H%M%S") + f"{at.microsecond // 10000:02d}"


# tag -> (MQDLH PutDate, PutTime, MQMD PutDate, PutTime); no MQDLH when the tag says so
_CASES: dict[str, tuple[str, str, str, str]] = {
    "30d": (*_stamp(30 * DAY), *_stamp(40 * DAY)),  # the MQMD's (the original put) is older
    "8d": (*_stamp(8 * DAY), *_stamp(9 * DAY)),
    "7d exactly": (*_stamp(7 * DAY), "", ""),
    "7d less 0.01s": (*_stamp(7 * DAY - 0.01), "", ""),
    "3d": (*_stamp(3 * DAY), "", ""),
    "2h and 0.01s": (*_stamp(2 * HOUR + 0.01), "", ""),
    "2h exactly": (*_stamp(2 * HOUR), "", ""),
    "1h": (*_stamp(HOUR), *_stamp(20 * DAY)),
    "10m": (*_stamp(600), "", ""),
    "blank MQDLH date, MQMD 10d": ("", "", *_stamp(10 * DAY)),
    "blank MQDLH date, no MQMD date": ("        ", "", "", ""),
    "month 13": ("20241301", "10000000", *_stamp(10 * DAY)),
    "30 February": ("20240230", "10000000", "", ""),
    "7-digit time": ("20241120", "1000000", "", ""),
    "second 60 (= 21 Nov 00:00:00)": ("20241120", "23596000", "", ""),
    "no MQDLH, MQMD 12d": ("", "", *_stamp(12 * DAY)),
    "no MQDLH, MQMD 1h": ("", "", *_stamp(HOUR)),
}


def _messages() -> list[Message]:
    out = []
    for i, (tag, (date, time, md_date, md_time)) in enumerate(_CASES.items()):
        md = MQMD(
            format="MQSTR",
            msg_id=f"AGE{i:02d}".encode().ljust(24, b"\x00"),
            put_date=md_date,
            put_time=md_time,
            put_appl_name="aged",
        )
        if tag.startswith("no MQDLH"):
            out.append(Message(md, tag.encode()))
        else:
            out.append(
                Message.dead_letter(
                    md, tag.encode(), reason=2053, dest_q_name="APP.Q", put_date=date, put_time=time
                )
            )
    return out


def _tag(msg_id: bytes) -> str:
    return list(_CASES)[int(msg_id[3:5])]


@pytest.fixture(scope="module")
def backlog(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Message]]:
    """The cases in a dump, and the messages as the Python reader reads them back."""
    path = tmp_path_factory.mktemp("report-age") / "aged.dmp"
    write_dump(path, _messages())
    read = []
    for m in read_dump(path):
        try:
            read.append(decode_dead_letter(m.md, m.body))
        except MalformedMessageError:
            read.append(m)
    return path, read


# window -> the tags it selects (by hand, from the cases above)
_OLD = {
    "30d",
    "8d",
    "7d exactly",
    "blank MQDLH date, MQMD 10d",
    "second 60 (= 21 Nov 00:00:00)",
    "no MQDLH, MQMD 12d",
}
_NEW = {"2h exactly", "1h", "10m", "no MQDLH, MQMD 1h"}
_WINDOWS: list[tuple[str | None, str | None, set[str]]] = [
    ("7d", None, _OLD),
    (None, "2h", _NEW),
    ("2h", "7d", {"7d exactly", "7d less 0.01s", "3d", "2h and 0.01s", "2h exactly"}),
    ("3d", "3d", {"3d"}),
]
_NO_TIME = 4  # blank everywhere, month 13, 30 February, 7-digit time


@pytest.mark.parametrize(("older", "newer", "tags"), _WINDOWS)
def test_the_report_selects_what_run_selects_and_counts_what_it_left_out(
    spark: Any,
    backlog: tuple[Path, list[Message]],
    older: str | None,
    newer: str | None,
    tags: set[str],
) -> None:
    """With --older-than, --newer-than or both, the Spark selection picks exactly the
    messages run's Selector picks at the same reference time (bounds inclusive, to the
    hundredth; a blank MQDLH PutDate falls back to the MQMD's; no readable time: left
    out), the expected ones; the report counts only them and says how many each cause
    left out."""
    path, read = backlog
    window = AgeWindow.parse(older, newer)
    options = ReportOptions(as_of=AS_OF, ages=window)
    frame = facts(read_messages(spark, [str(path)]), options)
    statuses = {bytes(r.md_msg_id): r.age_status for r in frame.collect()}
    spark_selected = {_tag(k) for k, s in statuses.items() if s == "selected"}

    run = Selector(
        older_than=window.older_than, newer_than=window.newer_than, clock=AS_OF.timestamp
    )
    assert spark_selected == {_tag(m.md.msg_id) for m in read if run.selects(m)} == tags

    report = build_report(read_messages(spark, [str(path)]), options)
    left = report["selection"]["left_out_by_cause"]
    assert report["total"] == report["selection"]["selected"] == len(tags)
    assert left["no_put_time"] == _NO_TIME
    assert left["too_new"] == sum(s == "too_new" for s in statuses.values())
    assert left["too_old"] == sum(s == "too_old" for s in statuses.values())
    assert report["selection"]["left_out"] == len(_CASES) - len(tags)
    assert (left["too_new"] > 0) == (older is not None)
    assert (left["too_old"] > 0) == (newer is not None)
    assert report["no_dlh"] == sum(t.startswith("no MQDLH") for t in tags)
    assert sum(a["count"] for a in report["age"]) == report["total"] - report["no_dlh"]
    if older == "7d":  # the age bucket holds what the selector holds
        assert {a["bucket"]: a["count"] for a in report["age"]}[">7d"] == len(tags) - 1


def _random_field(rng: random.Random, width: int) -> str:
    """A PutDate (width 8) or PutTime-like text: mostly plausible, often just wrong."""
    kind = rng.randrange(10)
    if kind == 0:
        return rng.choice(
            [
                "",
                " " * width,
                "2024-11-2",
                "12:00:00",
                "\t20241120",
                "20241120\n",
                "２０２４１１２０",
                "1e+05000",
                "00000000",
                "99991231",
                "00010101",
                " 120000 ",
                "1200000",
                "120000\n",
            ]
        )
    digits = "".join(rng.choice("0123456789") for _ in range(rng.choice([width, width, 6, 7, 9])))
    if kind < 5:  # a real date or time, sometimes blank-padded
        if width == 8:
            digits = (
                f"{rng.choice([1, 1969, 1970, 2000, 2023, 2024, 2100, 9999]):04d}"
                f"{rng.randint(1, 12):02d}{rng.randint(1, 31):02d}"
            )
        else:
            digits = (
                f"{rng.randint(0, 24):02d}{rng.randint(0, 60):02d}"
                f"{rng.randint(0, 62):02d}" + rng.choice(["", f"{rng.randint(0, 99):02d}"])
            )
        return rng.choice(["", " ", "  "]) + digits + rng.choice(["", " "])
    return digits


def test_the_put_time_column_equals_the_python_rule_to_the_bit(spark: Any) -> None:
    """Over random and corner-case PutDate/PutTime texts (bad months and days, leap
    years, hour 24, second 60 and 62, years 0001 and 9999, 6-, 7- and 8-digit times,
    blank padding, tabs, line ends, non-ASCII digits) the Spark expression gives the
    same double as mq.ages.put_at, or null where it gives None."""
    rng = random.Random(26)
    pairs = [(_random_field(rng, 8), _random_field(rng, 8)) for _ in range(3000)]
    pairs += [
        ("20240229", "23595999"),
        ("20230229", "12000000"),
        ("20241120", "23596100"),
        ("20241120", "23596200"),
        ("00000101", "000000"),
        ("99991231", "235959"),
        ("20241120", "240000"),
        ("20241120", "006000"),
    ]
    frame = spark.createDataFrame(pairs, "d string, t string")
    query = put_epoch_query(FRAME, ["d", "t"], "d", "t")
    got = [r.put_epoch for r in sql_over(frame, query).collect()]
    want = [put_at(d, t) for d, t in pairs]
    assert got == want
    assert sum(w is not None for w in want) > 300  # enough real times to compare
    assert sum(w is None for w in want) > 1000


def test_report_cli_applies_the_selector_and_says_so(
    spark: Any,
    tmp_path: Path,
    backlog: tuple[Path, list[Message]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`dlqhandler report --older-than 7d --as-of T` measures ages at T: report.json's
    `selection` names the selector and the left-out counts, the summary says it, the
    page shows it, and every other count is of the selected messages."""
    path, _read = backlog
    out = tmp_path / "out"
    assert (
        cli_main(
            [
                "report",
                "--input",
                str(path),
                "--as-of",
                "2024-11-28T12:00:00Z",
                "--older-than",
                "7d",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    got = json.loads((out / "report.json").read_text())
    assert got["selection"] == {
        "older_than": "7d",
        "newer_than": None,
        "older_than_seconds": 7 * DAY,
        "newer_than_seconds": None,
        "described": "dead-lettered at least 7d ago",
        "selected": len(_OLD),
        "left_out": len(_CASES) - len(_OLD),
        "left_out_by_cause": {
            "too_new": len(_CASES) - len(_OLD) - _NO_TIME,
            "too_old": 0,
            "no_put_time": _NO_TIME,
        },
    }
    assert got["total"] == len(_OLD)
    assert got["newest"] == "2024-11-21T12:00:00Z"
    printed = capsys.readouterr().out
    assert (
        "selected: messages dead-lettered at least 7d ago (6); left out 11: 7 "
        "dead-lettered under 7d ago, 4 without a readable put time"
    ) in printed
    assert "left out (not dead-lettered at least 7d ago)" in (out / "report.html").read_text()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--older-than", "a week"], "--older-than 'a week' is not a duration"),
        (["--newer-than", "2"], "--newer-than '2' is not a duration"),
        (
            ["--older-than", "7d", "--newer-than", "2h"],
            "--newer-than 2h is shorter than --older-than 7d",
        ),
    ],
)
def test_bad_age_options_are_refused_before_spark_starts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    says: str,
) -> None:
    """A malformed duration, or a --newer-than shorter than --older-than (a window no
    message can be in: refused rather than reported empty), exits 2 with the problem
    and a fix, before any Spark session is asked for; nothing is written."""

    def no_spark(*_a: Any, **_k: Any) -> None:
        raise AssertionError("Spark was started")

    monkeypatch.setattr("dlqhandler.spark.session.get_session", no_spark)
    dump = tmp_path / "in.dmp"
    write_dump(dump, _messages())
    out = tmp_path / "out"
    assert cli_main(["report", "--input", str(dump), *args, "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert "Traceback" not in err
    assert not out.exists()
