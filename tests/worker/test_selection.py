"""--msgid / --match selectors and the --max-rate token bucket."""

from __future__ import annotations

import threading

import pytest

from dlqhandler.errors import ConfigError
from dlqhandler.mq import MQMD, Message
from dlqhandler.worker.selection import RateLimiter, Selector


def _msg(msg_id: bytes, reason: int, dest: str) -> Message:
    return Message.dead_letter(
        MQMD(format="MQSTR", msg_id=msg_id, persistence=1), b"x", reason=reason, dest_q_name=dest
    )


def test_match_uses_the_rules_language() -> None:
    """A --match pattern is compiled by the rules compiler: wildcards and symbols work."""
    s = Selector.parse(None, "REASON(MQRC_Q_FULL) DESTQ(APP.*)")
    assert s.active
    assert s.selects(_msg(b"\x01" * 24, 2053, "APP.ORDERS"))
    assert not s.selects(_msg(b"\x02" * 24, 2053, "PAYROLL.IN"))
    assert not s.selects(_msg(b"\x03" * 24, 2051, "APP.ORDERS"))


def test_msgid_selects_exactly_that_message() -> None:
    """--msgid HEX selects one message (short ids are NUL padded like MQ)."""
    s = Selector.parse(["01" * 24, "AB"], None)
    assert s.selects(_msg(b"\x01" * 24, 2053, "Q"))
    assert s.selects(_msg(b"\xab" + bytes(23), 2053, "Q"))
    assert not s.selects(_msg(b"\x02" * 24, 2053, "Q"))


@pytest.mark.parametrize(
    ("ids", "match"),
    [(["zz"], None), (["00" * 25], None), (None, "REASON(NOPE)"), (None, "ACTION(FWD)")],
)
def test_bad_selectors_are_clear_errors(ids: list[str] | None, match: str | None) -> None:
    """Bad hex, over-long ids and invalid patterns raise ConfigError naming the option."""
    with pytest.raises(ConfigError) as info:
        Selector.parse(ids, match)
    assert "--" in str(info.value)


def test_no_selector_selects_everything() -> None:
    """Without options every message is selected."""
    s = Selector.parse(None, None)
    assert not s.active
    assert s.selects(_msg(b"\x09" * 24, 1, "Q"))


def test_rate_limiter_spaces_acquisitions() -> None:
    """At 5/s with a burst of 1, ten acquisitions take 9 intervals of 0.2 s (fake time)."""
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    rl = RateLimiter(5, burst=1, clock=lambda: now[0], sleep=sleep)
    for _ in range(10):
        assert rl.acquire()
    assert now[0] == pytest.approx(1.8, abs=0.01)


def test_rate_limiter_gives_up_when_stopping() -> None:
    """A stop event ends the wait (graceful shutdown is not held up by the limit)."""
    stop = threading.Event()
    stop.set()
    rl = RateLimiter(0.001, burst=1, clock=lambda: 0.0, sleep=lambda s: None)
    assert rl.acquire(stop)
    assert not rl.acquire(stop)
    with pytest.raises(ConfigError):
        RateLimiter(0)
