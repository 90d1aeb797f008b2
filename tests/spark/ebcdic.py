"""MQDLH text in every byte value of every Latin EBCDIC code page the drain takes: the
messages the JVM decoder's and the data source's tests compare with the Python reader."""

from __future__ import annotations

import codecs

from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.ccsid import codec_for
from dlqhandler.mq.mqdlh import MQDLH, MQFMT_DEAD_LETTER_HEADER, encode_mqdlh

__all__ = ["APPL_NAME", "LATIN_EBCDIC", "ebcdic_letters", "same_everywhere"]

LATIN_EBCDIC = (37, 273, 277, 278, 280, 284, 285, 297, 500, 1047, 1140, 1141, 1148)
APPL_NAME = slice(128, 156)  # MQDLH PutApplName, 28 bytes


def same_everywhere(byte: int) -> bool:
    """The test's own view of the invariant set: a byte every Latin EBCDIC code page
    decodes to one printable ASCII character."""
    chars = {codecs.decode(bytes([byte]), codec_for(c)) for c in LATIN_EBCDIC}
    return len(chars) == 1 and " " <= next(iter(chars)) <= "~"


def ebcdic_letters() -> list[Message]:
    """For each code page, dead letters whose PutApplName holds every byte 1-255 (in
    28-byte slices), in both integer byte orders."""
    alike = bytes(b for b in range(1, 256) if same_everywhere(b))
    every = bytes(range(1, 256))
    names = [
        part[i : i + 28].ljust(28, b"\x40")
        for part in (every, alike)
        for i in range(0, len(part), 28)
    ]
    out = []
    n = 0
    for ccsid in LATIN_EBCDIC:
        for encoding in (785, 273):
            for chunk in names:
                n += 1
                md = MQMD(
                    format=MQFMT_DEAD_LETTER_HEADER,
                    encoding=encoding,
                    coded_char_set_id=ccsid,
                    msg_id=b"EBC" + n.to_bytes(21, "big"),
                )
                dlh = MQDLH(
                    reason=2053,
                    dest_q_name="APP.Q",
                    dest_q_mgr_name="QMZ",
                    encoding=encoding,
                    coded_char_set_id=ccsid,
                    format="MQSTR",
                    put_appl_type=1,
                    put_appl_name="X",
                    put_date="20261125",
                    put_time="12000000",
                )
                image = bytearray(encode_mqdlh(dlh, encoding=encoding, ccsid=ccsid))
                image[APPL_NAME] = chunk
                out.append(Message(md, bytes(image) + b"\xc8\xc9"))
    return out
