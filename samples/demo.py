"""`make demo`: the newest finished piece of dlqhandler, run end to end.

Today: read the shipped dead-letter backlog ``samples/backlog-small.dmp`` (a
dmpmqmsg file) with the streaming reader, decode every MQDLH in whatever
encoding and code page it was written, and summarise the backlog the way an
administrator triaging a DLQ wants to see it: by reason, by destination, and
how many messages have no dead-letter header at all. Later issues move this
forward to the handler on the embedded queue manager.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats import read_dump
from dlqhandler.mq import decode_dead_letter
from dlqhandler.mq.constants import reason_name

SAMPLE = Path(__file__).resolve().parent / "backlog-small.dmp"


def main() -> int:
    by_reason: Counter[str] = Counter()
    by_dest: Counter[str] = Counter()
    by_encoding: Counter[str] = Counter()
    no_dlh: list[str] = []
    total = 0
    for message in read_dump(SAMPLE):
        total += 1
        try:
            dlh = decode_dead_letter(message.md, message.body).dlh
        except MalformedMessageError as exc:
            no_dlh.append(f"{message.md.msg_id.hex().upper()}: {exc}")
            continue
        assert dlh is not None
        by_reason[f"{reason_name(dlh.reason)} ({dlh.reason})"] += 1
        by_dest[f"{dlh.dest_q_name}@{dlh.dest_q_mgr_name}"] += 1
        by_encoding[f"Encoding {message.md.encoding}, CCSID {message.md.coded_char_set_id}"] += 1

    print(f"{SAMPLE.name}: {total} messages, {total - len(no_dlh)} with an MQDLH\n")
    _table("By reason", by_reason)
    _table("By destination (top 10)", Counter(dict(by_dest.most_common(10))))
    _table("MQDLH written in", by_encoding)
    print(f"Without a valid MQDLH: {len(no_dlh)} (runmqdlq leaves these on the DLQ)")
    for line in no_dlh[:3]:
        print(f"  {line}")
    return 0


def _table(title: str, counts: Counter[str]) -> None:
    print(title)
    for key, n in counts.most_common():
        print(f"  {n:>5}  {key}")
    print()


if __name__ == "__main__":
    raise SystemExit(main())
