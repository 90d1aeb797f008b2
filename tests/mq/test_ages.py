"""The age rule ``run`` and ``report`` share: put times, durations, the window."""

from __future__ import annotations

import calendar

import pytest

from dlqhandler.errors import ConfigError
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.ages import AgeWindow, dead_lettered_at, duration_text, put_at

NOON = float(calendar.timegm((2024, 11, 21, 12, 0, 0, 0, 0, 0)))


@pytest.mark.parametrize(
    ("date", "time", "want"),
    [
        ("20241121", "12000000", NOON),
        ("20241121", "120000", NOON),
        ("20241121", "12000001", NOON + 0.01),
        (" 20241121 ", "12000099 ", NOON + 0.99),
        ("20241121", "11596000", NOON),  # second 60: the next minute, as timegm counts it
        ("20240229", "000000", float(calendar.timegm((2024, 2, 29, 0, 0, 0, 0, 0, 0)))),
        ("00010101", "000000", -62135596800.0),
        ("20230229", "000000", None),  # not a leap year
        ("20241301", "000000", None),
        ("00000101", "000000", None),
        ("20241121", "240000", None),
        ("20241121", "126000", None),
        ("20241121", "120062", None),
        ("20241121", "1200000", None),  # 7 digits: neither HHMMSS nor HHMMSSTH
        ("2024112", "120000", None),
        ("\t20241121", "120000", None),  # only blanks are ignored
        ("20241121\n", "120000", None),
        ("２０２４１１２１", "120000", None),  # ASCII digits only
        ("", "", None),
    ],
)
def test_put_at_reads_mq_put_date_and_time_or_says_none(
    date: str, time: str, want: float | None
) -> None:
    """PutDate YYYYMMDD and PutTime HHMMSS[TH] in GMT, blanks at either end ignored, a
    real date and time (seconds to 61), hundredths counted; anything else is None."""
    assert put_at(date, time) == want


def test_dead_lettered_at_takes_the_mqdlh_time_else_the_mqmd_time() -> None:
    """The MQDLH's PutDate/PutTime; a blank MQDLH PutDate (or no MQDLH) falls back to the
    MQMD's; an MQDLH PutDate that is not a date does not."""
    md = MQMD(format="MQSTR", put_date="20241101", put_time="00000000")
    mqmd_time = put_at("20241101", "00000000")

    def dead(date: str) -> Message:
        return Message.dead_letter(
            md, b"x", reason=2053, dest_q_name="Q", put_date=date, put_time="12000000"
        )

    assert dead_lettered_at(dead("20241121")) == NOON
    assert dead_lettered_at(dead("        ")) == mqmd_time
    assert dead_lettered_at(Message(md, b"x")) == mqmd_time
    assert dead_lettered_at(dead("20241321")) is None


def test_the_window_admits_ages_between_its_bounds_inclusive() -> None:
    """--older-than is a lower bound on the age, --newer-than an upper one, both
    inclusive; no readable time is never admitted; no bound admits everything."""
    window = AgeWindow.parse("1d", "2d")
    assert (window.older_than, window.newer_than) == (86400.0, 172800.0)
    assert window.admits(NOON, NOON + 86400)
    assert window.admits(NOON, NOON + 172800)
    assert not window.admits(NOON, NOON + 86399.99)
    assert not window.admits(NOON, NOON + 172800.01)
    assert not window.admits(None, NOON)
    assert AgeWindow().admits(None, NOON)
    assert not AgeWindow().active
    assert AgeWindow.parse("3d", "3d").admits(NOON, NOON + 3 * 86400)
    assert window.describe() == "dead-lettered at least 1d and at most 2d ago"
    assert [duration_text(s) for s in (604800, 1209600, 5400, 90, 0.5)] == [
        "7d",
        "14d",
        "90m",
        "90s",
        "0.5s",
    ]


@pytest.mark.parametrize(
    ("older", "newer", "says"),
    [
        ("seven days", None, "--older-than 'seven days' is not a duration"),
        (None, "2", "--newer-than '2' is not a duration"),
        ("-1d", None, "--older-than '-1d' is a negative age: an age counts back from now"),
        (
            "7d",
            "2h",
            (
                "--newer-than 2h is shorter than --older-than 7d: no message can be both; "
                "for messages dead-lettered between 2h and 7d ago give --older-than 2h "
                "--newer-than 7d"
            ),
        ),
    ],
)
def test_bad_windows_are_refused_with_the_fix(
    older: str | None, newer: str | None, says: str
) -> None:
    """A duration that is not a number and a unit, a negative one (an age counts back
    from now), or a --newer-than shorter than the --older-than (no message could be in
    it): ConfigError saying what to write."""
    with pytest.raises(ConfigError) as caught:
        AgeWindow.parse(older, newer)
    assert says in str(caught.value)
