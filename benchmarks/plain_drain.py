"""What a competent user would write instead of the drain: one process, no dlqhandler.

    python benchmarks/plain_drain.py DUMP OUTDIR

Iterates the lines of a dmpmqmsg file, ``binascii.unhexlify``s the X lines, cuts the
MQMD attributes it needs from the A lines and the MQDLH fields with
``struct.unpack_from`` (both byte orders), takes the first matching rule of the
table below (rules/demo.rul by hand) and appends the record to one dmpmqmsg file per
target (the A lines as read; RETRY and HEADER(NO) rewrite FMT/ENC/CCS and the X lines
without the 172-byte MQDLH). Messages it cannot decode (EBCDIC, no MQDLH) stay in
remaining.dmp. Prints messages and seconds. The drain benchmark runs it as a floor.
"""

from __future__ import annotations

import binascii
import struct
import sys
import time
from pathlib import Path

Q_FULL, PUT_INHIBITED, NOT_AUTHORIZED, TOO_BIG = 2053, 2051, 2035, 2030
REPORT, NOT_PERSISTENT = 2, 0


def escape(name: str) -> str:
    """A queue name as one plain file name, as the drain names its files: every
    character outside ``[A-Za-z0-9._-]`` as ``~XX`` (MQ allows ``/`` and ``%``)."""
    return "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "._-") else f"~{ord(ch):02X}" for ch in name
    )


def decide(
    reason: int, msg_type: int, persistence: int, destq: str, destqm: str
) -> tuple[str, str | None, bool]:
    """(action, target queue, strip header) for rules/demo.rul."""
    if reason in (Q_FULL, PUT_INHIBITED):
        return "RETRY", destq, True
    if reason == NOT_AUTHORIZED:
        return "FWD", "DLQ.SECURITY", False
    if reason == TOO_BIG:
        return "FWD", "DLQ.TOOBIG", False
    if msg_type == REPORT and persistence == NOT_PERSISTENT:
        return "DISCARD", None, False
    if destqm == "BBBB.1":
        return "FWD", destq, True
    return "FWD", "DLQ.CATCHALL", False


def main(src: str, out_dir: str) -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, object] = {}
    n = 0
    start = time.perf_counter()

    def emit(name: str, lines: list[bytes]) -> None:
        f = files.get(name)
        if f is None:
            f = files[name] = (out / name).open("wb")
            f.write(b"* DMPMQMSG Version:9.4 Created:plain\n\n")  # type: ignore[attr-defined]
        f.write(b"".join(lines) + b"\n")  # type: ignore[attr-defined]

    def finish(attrs: list[bytes], xs: list[bytes]) -> None:
        nonlocal n
        n += 1
        a = {line[2:5]: line[6:].rstrip(b"\r\n") for line in attrs}
        body = binascii.unhexlify(b"".join(x[2:].rstrip(b"\r\n") for x in xs))
        enc = int(a[b"ENC"])
        order = ">" if enc & 15 == 1 else "<"
        if body[:4] != b"DLH " or int(a[b"CCS"]) in (37, 500, 1047):
            emit("remaining.dmp", attrs + xs)
            return
        (reason,) = struct.unpack_from(order + "i", body, 8)
        destq = body[12:60].rstrip(b" \0").decode("latin-1")
        destqm = body[60:108].rstrip(b" \0").decode("latin-1")
        action, target, strip = decide(reason, int(a[b"MST"]), int(a[b"PER"]), destq, destqm)
        if action == "DISCARD" or target is None:
            return
        if strip:
            denc, dccs = struct.unpack_from(order + "ii", body, 108)
            fmt = body[116:124]
            attrs = [
                b"A ENC %d\n" % denc
                if x.startswith(b"A ENC")
                else b"A CCS %d\n" % dccs
                if x.startswith(b"A CCS")
                else b"A FMT " + fmt + b"\n"
                if x.startswith(b"A FMT")
                else x
                for x in attrs
            ]
            digits = binascii.hexlify(body[172:]).upper()
            xs = [b"X " + digits[i : i + 50] + b"\n" for i in range(0, max(len(digits), 1), 50)]
        emit(f"q-{escape(target)}@LOCAL.dmp", attrs + xs)

    attrs: list[bytes] = []
    xs: list[bytes] = []
    with open(src, "rb") as f:
        for line in f:
            c = line[:1]
            if c == b"A":
                if xs:
                    finish(attrs, xs)
                    attrs, xs = [], []
                attrs.append(line)
            elif c == b"X":
                xs.append(line)
        if xs:
            finish(attrs, xs)
    for f in files.values():
        f.close()  # type: ignore[attr-defined]
    took = time.perf_counter() - start
    print(f"{n} messages in {took:.1f} s: {n / took:.0f} msg/s")
    return n


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
