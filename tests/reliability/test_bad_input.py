"""Bad input never crashes anything: fuzzed rules tables, MQDLH/MQMD images and dmpmqmsg
files raise only our own errors, with positions in range; malformed dead letters stay on
the DLQ, byte for byte, and are reported; a 100 MB message goes through; a rules file
that is rewritten while it is read, or replaced by garbage, never replaces the last good
table with a bad one.

The property tests of ``tests/rules`` and ``tests/mq`` are re-run here at scale
(``DLQ_REL_FUZZ`` rules cases, default 100000; ``DLQ_REL_CODEC_FUZZ`` cases per decoder
and for the dmpmqmsg reader, default 5000) with their own assertions;
``DLQ_REL_BIG_MB`` sizes the big message.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from dlqhandler.errors import DumpFormatError, MalformedMessageError
from dlqhandler.formats.dmpmqmsg import DumpWriter, read_dump, write_dump
from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1
from dlqhandler.qmgr import EmbeddedQueueManager
from dlqhandler.rules import RuleSet, compile_rules
from dlqhandler.worker import RulesReloader
from dlqhandler.worker.reload import MAX_LOGGED_DIAGNOSTICS
from tests.mq import test_codec_properties as codecs
from tests.mq.helpers import raised
from tests.mq.strategies import ANY_CCSID, ANY_ENCODING, DLH_IMAGE, MD_IMAGE, images
from tests.reliability.knobs import Figures, knob
from tests.rules import test_properties as rules_props
from tests.worker.helpers import (
    DLQ,
    Ledger,
    RunCli,
    alter,
    dead_letter,
    define,
    digest,
    load,
    until,
)


def _scaled(test: Any, examples: int, **strategies: Any) -> int:
    """Run a property test's own body (its @given stripped) on ``examples`` new cases;
    returns how many ran."""
    inner = test.hypothesis.inner_test
    ran = [0]

    @functools.wraps(inner)
    def counted(*args: Any, **kwargs: Any) -> None:
        ran[0] += 1
        inner(*args, **kwargs)

    given(**strategies)(
        settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(counted)
    )()
    return ran[0]


# -- fuzzing at scale ---------------------------------------------------------------


@pytest.mark.reliability
def test_rules_compiler_fuzz_at_scale(figures: Figures) -> None:
    """DLQ_REL_FUZZ (default 100000) generated tables - half arbitrary text, half text
    made of the language's own pieces - give diagnostics only, never an exception, and
    every position points into the input (tests/rules/test_properties.py's checks)."""
    total = knob("DLQ_REL_FUZZ", 100_000)
    ran = _scaled(
        rules_props.test_arbitrary_text_gives_only_diagnostics,
        total // 2,
        text=st.text(max_size=400),
    )
    ran += _scaled(
        rules_props.test_language_like_text_gives_only_diagnostics,
        total - total // 2,
        text=rules_props.language_like,
    )
    assert ran >= total * 0.9
    figures(rules_cases=ran)


@pytest.mark.reliability
def test_codec_fuzz_at_scale(figures: Figures) -> None:
    """DLQ_REL_CODEC_FUZZ (default 5000) damaged or random images per decoder:
    MQMD, MQDLH and whole dead letters raise only DecodeError / MalformedMessageError
    keeping the raw bytes (tests/mq/test_codec_properties.py's checks)."""
    n = knob("DLQ_REL_CODEC_FUZZ", 5_000)
    enc, ccsid = ANY_ENCODING, ANY_CCSID
    ran = {
        "mqmd": _scaled(
            codecs.test_decode_mqmd_raises_only_decode_error,
            n,
            raw=images(MD_IMAGE),
            encoding=enc,
            ccsid=ccsid,
        ),
        "mqdlh": _scaled(
            codecs.test_decode_mqdlh_raises_only_malformed_message_error,
            n,
            raw=images(DLH_IMAGE),
            encoding=enc,
            ccsid=ccsid,
        ),
        "dead_letter": _scaled(
            codecs.test_decode_dead_letter_raises_only_malformed_message_error,
            n,
            raw=images(DLH_IMAGE),
            encoding=enc,
            ccsid=ccsid,
            fmt=st.sampled_from(("MQDEAD", "MQSTR", "")),
        ),
    }
    dumps = _scaled(test_dump_reader_raises_only_dump_format_error, n, raw=_dump_images())
    # As for the rules: a generator that silently produces few cases must fail the run.
    assert all(count >= n * 0.9 for count in ran.values()), ran
    assert dumps >= n * 0.9, dumps
    figures(codec_cases=ran, dump_cases=dumps)


# -- the dmpmqmsg reader --------------------------------------------------------------


def _valid_dump() -> bytes:
    out = io.BytesIO()
    messages = [
        dead_letter(b"payload \x00\xff" * 7, tag="DUMP"),
        Message(MQMD(format="MQSTR", msg_id=b"M" * 24, priority=4), b"plain text"),
    ]
    with DumpWriter(out, qmgr="QM1", queue=DLQ) as writer:
        for m in messages:
            writer.write(m)
    return out.getvalue()


_DUMP = _valid_dump()


@st.composite
def _damaged_dump(draw: st.DrawFn) -> bytes:
    """A valid dump cut short, with bytes overwritten, lines dropped or doubled."""
    lines = _DUMP.splitlines(keepends=True)
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(("drop", "double", "junk", "cut")))
        if action == "drop":
            del lines[i]
        elif action == "double":
            lines.insert(i, lines[i])
        elif action == "junk":
            lines[i] = draw(st.binary(max_size=40)) + b"\n"
        else:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        if not lines:
            break
    raw = bytearray(b"".join(lines))
    for _ in range(draw(st.integers(0, 3))):
        if raw:
            raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
    return bytes(raw)


def _dump_images() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=400),
        _damaged_dump(),
        st.text(max_size=200).map(lambda t: ("* DMPMQMSG\n" + t).encode()),
    )


@settings(max_examples=300, deadline=None)
@given(raw=_dump_images())
@example(raw=b"* DMPMQMSG\nN")  # end of file on the last line (it was reported one past)
@example(raw=b"* DMPMQMSG\nN\n")
def test_dump_reader_raises_only_dump_format_error(raw: bytes) -> None:
    """Random bytes, damaged dumps and text after a valid header: the reader yields
    messages or raises DumpFormatError naming a line of the file, nothing else."""
    messages: list[Message] = []
    error = raised(lambda: messages.extend(read_dump(io.BytesIO(raw), name="fuzz.dmp")))
    if error is not None:
        assert isinstance(error, DumpFormatError), error
        assert error.path == "fuzz.dmp"
        assert 1 <= error.line <= raw.count(b"\n") + 1, (error.line, str(error))
        assert error.detail


# -- malformed dead letters in the handler ---------------------------------------------


def _with_dlh(raw: bytes, tag: str) -> Message:
    """A message claiming Format MQDEAD whose data is ``raw``."""
    return Message(
        MQMD(
            format="MQDEAD",
            encoding=546,
            coded_char_set_id=1208,
            persistence=1,
            msg_id=f"BAD {tag:<20}".encode()[:24],
            user_identifier="rogue",
            priority=0,
        ),
        raw,
    )


def _malformed() -> list[Message]:
    good = dead_letter(b"x" * 64).body
    version = struct.pack("<l", 9)
    return [
        _with_dlh(good[: MQDLH_LENGTH_1 - 1], "truncated"),
        _with_dlh(good[:10], "short"),
        _with_dlh(b"", "empty"),
        _with_dlh(b"XLH " + good[4:], "strucid"),
        _with_dlh(good[:4] + version + good[8:], "version"),
        _with_dlh(good[:4] + b"\xff\xff\xff\xff" + good[8:], "version2"),
        _with_dlh(os.urandom(4096), "random"),
        _with_dlh(b"DLH " + os.urandom(300), "randomtail"),
    ]


def test_malformed_dead_letters_are_left_in_place_and_reported(
    qm: EmbeddedQueueManager, ledger: Callable[[], Ledger], run_cli: RunCli
) -> None:
    """Truncated MQDLHs, a wrong StrucId, a wrong Version, random bytes: each is left on
    the DLQ byte for byte and reported by MsgId with the decoder's reason, while the
    good messages around them are forwarded."""
    define(qm, "CATCH")
    bad = _malformed()
    for m in bad:
        with pytest.raises(MalformedMessageError) as exc:
            decode_dead_letter(m.md, m.body)
        assert exc.value.raw == m.body
    good = [dead_letter(f"good{i}") for i in range(4)]
    load(qm, [good[0], *bad[:4], good[1], *bad[4:], *good[2:]])
    book = ledger()

    run = run_cli("WAIT(NO)\nACTION(FWD) FWDQ(CATCH) HEADER(YES)\n")

    assert run.rc == 0, run.err
    placed = book.check(["CATCH"])
    assert len(placed["CATCH"]) == len(good)
    assert {m.md.msg_id for m in placed[DLQ]} == {m.md.msg_id for m in bad}
    reported = {e["msgid"]: e for e in run.events("message_without_dlh")}
    assert set(reported) == {m.md.msg_id.hex() for m in bad}
    assert all(e["detail"] for e in reported.values())
    assert run.summary("without MQDLH") == len(bad)


# -- a 100 MB message ------------------------------------------------------------------


@pytest.mark.reliability
def test_a_100_mb_message_is_decoded_dumped_and_moved(
    qm: EmbeddedQueueManager,
    ledger: Callable[[], Ledger],
    run_cli: RunCli,
    tmp_path: Path,
    figures: Figures,
) -> None:
    """A dead letter of DLQ_REL_BIG_MB (default 100) MiB in all: the decoder reads it,
    dmpmqmsg writes and reads it back byte for byte (a copy cut in the middle reads as
    a DumpFormatError or a shorter message, never a crash), and the handler forwards it
    without its MQDLH, intact."""
    size = knob("DLQ_REL_BIG_MB", 100) << 20
    payload = os.urandom(1 << 20) * ((size - MQDLH_LENGTH_1) >> 20)
    payload += os.urandom(size - MQDLH_LENGTH_1 - len(payload))
    big = dead_letter(payload, destq="BIG.Q", fmt="MQSTR", priority=0, tag="BIG")
    assert len(big.body) == size
    started = time.monotonic()
    assert decode_dead_letter(big.md, big.body).dlh is not None
    with pytest.raises(MalformedMessageError):
        decode_dead_letter(big.md, b"XLH " + big.body[4:])

    dump = tmp_path / "big.dmp"
    write_dump(dump, [big], qmgr="QM1", queue=DLQ)
    [back] = list(read_dump(dump))
    assert digest(back.body) == digest(big.body)
    with dump.open("r+b") as f:
        f.truncate(dump.stat().st_size // 2 + 1)
    cut: list[Message] = []
    error = raised(lambda: cut.extend(read_dump(dump)))
    if error is None:  # no length field in the format: a cut at a line end reads as a
        assert len(cut[0].body) < len(big.body)  # shorter message
    else:
        assert isinstance(error, DumpFormatError)
        assert error.line > 1
    dump.unlink()
    dump_seconds = time.monotonic() - started

    alter(qm, DLQ, maxmsgl=104_857_600)
    define(qm, "BIG.OUT", maxmsgl=104_857_600)
    qm.admin().alter_qmgr({"MAXMSGL": 104_857_600})
    load(qm, [big])
    del payload, back
    book = ledger()
    started = time.monotonic()
    run = run_cli("WAIT(NO)\nDESTQ(BIG.Q) ACTION(FWD) FWDQ(BIG.OUT) HEADER(NO)\n")
    assert run.rc == 0, run.err
    placed = book.check(["BIG.OUT"])
    [moved] = placed["BIG.OUT"]
    assert hashlib.sha256(moved.body).digest() == hashlib.sha256(big.body[MQDLH_LENGTH_1:]).digest()
    figures(
        message_bytes=size,
        decode_and_dump_seconds=round(dump_seconds, 1),
        handler_seconds=round(time.monotonic() - started, 1),
    )


# -- the rules file under hot reload -----------------------------------------------------

GOOD_A = "RETRYINT(5) WAIT(YES)\n" + "".join(
    f"DESTQ(APP.{i}) ACTION(FWD) FWDQ(A.{i})\n" for i in range(40)
)
GOOD_B = "RETRYINT(5) WAIT(YES)\n" + "".join(
    f"DESTQ(APP.{i}) ACTION(FWD) FWDQ(B.{i})\n" for i in range(40)
)
GARBAGE = [
    os.urandom(2048),
    b"\x00" * 512,
    b"\xff\xfe" + "ACTION(FWD) FWDQ(X)\n".encode("utf-16-le"),
    GOOD_A.encode()[: len(GOOD_A) // 3] + b"ACTION(FW",
    b"RETRYINT(5) WAIT(YES)\nDESTQ(APP.*) ACTION(FWD) FWDQ(\x1b[2J)\n",
    GOOD_A.encode() * 3 + b"\x80\x81 ACTION(EXEC) CMD(rm -rf /)\n",
]


def _reloader(path: Path, installed: list[RuleSet], **kw: Any) -> RulesReloader:
    first = compile_rules(path.read_text(), source=str(path)).ruleset
    assert first is not None
    return RulesReloader(path, installed.append, current_sha256=first.sha256, **kw)


def test_garbage_rules_file_keeps_the_last_good_table(tmp_path: Path) -> None:
    """Random bytes, NULs, UTF-16, a table cut mid-token, control characters, unknown
    keywords, a file that vanished or became a directory: each reload is rejected and
    the last good table stays in use; the good table after them is taken."""
    path = tmp_path / "live.rul"
    path.write_text(GOOD_A)
    installed: list[RuleSet] = []
    reloader = _reloader(path, installed)
    kept = reloader.sha256
    for junk in GARBAGE:
        path.write_bytes(junk)
        assert reloader.reload_now() is False, junk[:40]
        assert reloader.sha256 == kept
    path.unlink()
    assert reloader.reload_now() is False
    path.mkdir()
    assert reloader.reload_now() is False
    path.rmdir()
    assert installed == []
    assert reloader.rejected == len(GARBAGE) + 2
    path.write_text(GOOD_B)
    assert reloader.reload_now() is True
    [table] = installed
    assert table.sha256 == reloader.sha256 == hashlib.sha256(GOOD_B.encode()).hexdigest()


def test_a_rules_file_rewritten_while_it_is_read(tmp_path: Path, figures: Figures) -> None:
    """A writer rewrites the file in small pieces (as `cat > file` does) while the
    watcher and repeated SIGHUP-style reloads read it: nothing raises, every table
    installed compiled without errors, and once the writer stops the last complete
    table is the one in use."""
    path = tmp_path / "live.rul"
    path.write_text(GOOD_A)
    installed: list[RuleSet] = []
    reloader = _reloader(path, installed, debounce_s=0.1)
    reloader.start()
    done = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for i in range(30):
                text = (GOOD_B if i % 2 == 0 else GOOD_A).encode()
                with path.open("wb") as f:
                    for start in range(0, len(text), 97):
                        f.write(text[start : start + 97])
                        f.flush()
                        time.sleep(0.002)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            done.set()

    def hammer() -> None:
        try:
            while not done.is_set():
                reloader.reload_now("SIGHUP")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer), threading.Thread(target=hammer)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        final = hashlib.sha256(GOOD_A.encode()).hexdigest()
        until(lambda: reloader.sha256 == final, "the last complete table is not in use")
    finally:
        reloader.stop()
    assert not errors, errors
    # Only tables without errors were installed (a complete one, or a prefix that
    # happens to be a valid table); the last one installed is the final file.
    assert installed
    assert all(0 < len(t.rules) <= 40 for t in installed)
    assert installed[-1].sha256 == final
    figures(reloads_accepted=reloader.accepted, reloads_rejected=reloader.rejected)


def test_big_rules_garbage_is_rejected_without_flooding_the_log(tmp_path: Path) -> None:
    """A rules file replaced by 2 MB of random bytes (some 50000 problems) is rejected
    with only the first MAX_LOGGED_DIAGNOSTICS diagnostics logged and the rest
    counted; the last good table stays."""
    path = tmp_path / "live.rul"
    path.write_text(GOOD_A)
    installed: list[RuleSet] = []
    reloader = _reloader(path, installed)
    path.write_bytes(os.urandom(2 << 20))
    with capture_logs() as logs:
        assert reloader.reload_now() is False
    diagnostics = [e for e in logs if e["event"] == "rules_diagnostic"]
    assert len(diagnostics) == MAX_LOGGED_DIAGNOSTICS
    [failed] = [e for e in logs if e["event"] == "rules_reload_failed"]
    assert failed["diagnostics_not_logged"] > 10_000
    assert installed == []


def test_only_our_errors_escape_the_compiler_on_binary_input() -> None:
    """Binary junk decoded as the reloader decodes it (UTF-8, errors replaced) gives
    diagnostics, not exceptions."""
    for junk in GARBAGE:
        result = compile_rules(junk.decode("utf-8", errors="replace"), source="junk")
        assert result.ruleset is None
        assert result.diagnostics
