"""The dmpmqmsg ``A`` attribute codes: one table shared by the reader and the writer.

The order is IBM's (the ``Flds[]`` table of the published qload/dmpmqmsg source):
the writer emits the lines in this order, the reader accepts every code in any
order. ``version`` gates a line on ``MQMD.Version`` when writing (VER and the
five group fields appear only for version 2). ``AIX``/``AOX`` (hex) and
``AID``/``AOD`` (characters) are two spellings of the same MQMD field; the
writer picks one with ``ctx_chars``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = ["ATTRIBUTES", "ATTRIBUTES_BY_CODE", "HEADER_PREFIXES", "Attribute", "Kind"]


class Kind(IntEnum):
    LONG = 0  # MQLONG written as %d
    CHAR = 1  # MQCHARn written as its bytes (our MQMD holds canonical text)
    BYTE = 2  # MQBYTEn written as upper-case hex
    CHAR_AS_HEX = 3  # an MQCHARn field (ApplIdentityData, ApplOriginData) written as hex


@dataclass(frozen=True, slots=True)
class Attribute:
    """One ``A`` line: its code, the :class:`~dlqhandler.mq.MQMD` attribute, how to write it."""

    code: str
    attr: str
    kind: Kind
    length: int
    version: int = 0  # written only when MQMD.Version >= version
    ctx_chars: bool | None = None  # AID/AOD (True) vs AIX/AOX (False); None: always

    @property
    def code_bytes(self) -> bytes:
        return self.code.encode("ascii")


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute("VER", "version", Kind.LONG, 4, version=2),
    Attribute("RPT", "report", Kind.LONG, 4),
    Attribute("MST", "msg_type", Kind.LONG, 4),
    Attribute("EXP", "expiry", Kind.LONG, 4),
    Attribute("FDB", "feedback", Kind.LONG, 4),
    Attribute("ENC", "encoding", Kind.LONG, 4),
    Attribute("CCS", "coded_char_set_id", Kind.LONG, 4),
    Attribute("FMT", "format", Kind.CHAR, 8),
    Attribute("PRI", "priority", Kind.LONG, 4),
    Attribute("PER", "persistence", Kind.LONG, 4),
    Attribute("MSI", "msg_id", Kind.BYTE, 24),
    Attribute("COI", "correl_id", Kind.BYTE, 24),
    Attribute("BOC", "backout_count", Kind.LONG, 4),
    Attribute("RTQ", "reply_to_q", Kind.CHAR, 48),
    Attribute("RTM", "reply_to_q_mgr", Kind.CHAR, 48),
    Attribute("USR", "user_identifier", Kind.CHAR, 12),
    Attribute("ACC", "accounting_token", Kind.BYTE, 32),
    Attribute("AID", "appl_identity_data", Kind.CHAR, 32, ctx_chars=True),
    Attribute("AIX", "appl_identity_data", Kind.CHAR_AS_HEX, 32, ctx_chars=False),
    Attribute("PAT", "put_appl_type", Kind.LONG, 4),
    Attribute("PAN", "put_appl_name", Kind.CHAR, 28),
    Attribute("PTD", "put_date", Kind.CHAR, 8),
    Attribute("PTT", "put_time", Kind.CHAR, 8),
    Attribute("AOD", "appl_origin_data", Kind.CHAR, 4, ctx_chars=True),
    Attribute("AOX", "appl_origin_data", Kind.CHAR_AS_HEX, 4, ctx_chars=False),
    Attribute("GRP", "group_id", Kind.BYTE, 24, version=2),
    Attribute("MSQ", "msg_seq_number", Kind.LONG, 4, version=2),
    Attribute("OFF", "offset", Kind.LONG, 4, version=2),
    Attribute("MSF", "msg_flags", Kind.LONG, 4, version=2),
    Attribute("ORL", "original_length", Kind.LONG, 4, version=2),
)

ATTRIBUTES_BY_CODE: dict[bytes, Attribute] = {a.code_bytes: a for a in ATTRIBUTES}

# The first line of a file must start (in column 1) with one of these.
HEADER_PREFIXES = (b"* DMPMQMSG", b"* QLOAD")
