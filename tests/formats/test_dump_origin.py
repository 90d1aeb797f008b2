"""The queue a dump was unloaded from, as its header names it (dump_origin)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlqhandler.formats.dmpmqmsg import dump_origin, write_dump

HEAD = b"* DMPMQMSG Version:9.4 Created:Thu Nov 21 10:15:34 2024\n"


def test_a_dump_unloaded_from_a_queue_names_its_queue_manager_and_queue(tmp_path: Path) -> None:
    """dmpmqmsg -m QM1 -i Q writes ``* Qmgr  = QM1`` and ``* Queue = Q`` after its header
    line (IBM's dmpmqmsg, https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/
    q117660_.html: "-i ... The name of the input queue"): dump_origin returns them, with
    LF or CRLF line ends; a dump written from a file (no such lines) has none."""
    path = tmp_path / "a.dmp"
    write_dump(path, [], qmgr="QM1", queue="SYSTEM.DEAD.LETTER.QUEUE")
    assert dump_origin(path) == ("QM1", "SYSTEM.DEAD.LETTER.QUEUE")
    path.write_bytes(HEAD.replace(b"\n", b"\r\n") + b"* Qmgr  = QM2\r\n* Queue = DLQ\r\n\r\n")
    assert dump_origin(path) == ("QM2", "DLQ")
    write_dump(path, [])
    assert dump_origin(path) is None


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (b"* Queue = DLQ\x1b[31m\n", None),  # not an MQ name: never used
        (b"* Queue = " + b"Q" * 49 + b"\n", None),  # longer than 48
        (b"* Qmgr  = QM 1\n* Queue = DLQ\n", ("", "DLQ")),  # a queue manager not valid: blank
        (b"* Queue = DLQ\n", ("", "DLQ")),
        (b"\nA VER 2\n* Queue = DLQ\n", None),  # after the header block: a comment, not it
    ],
)
def test_a_header_name_that_is_not_a_valid_mq_name_is_not_taken(
    tmp_path: Path, lines: bytes, expected: tuple[str, str] | None
) -> None:
    """Header text is untrusted: a queue name that is not 1-48 characters of A-Z a-z 0-9
    . / _ % gives no origin, an invalid queue manager name counts as none, and only the
    comment lines right after the header line are read."""
    path = tmp_path / "a.dmp"
    path.write_bytes(HEAD + lines)
    assert dump_origin(path) == expected
