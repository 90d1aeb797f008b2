"""The :class:`Message` value object: a descriptor, the data, and the MQDLH view.

``body`` is always the message data exactly as it sits on the queue, MQDLH
included, so ``HEADER(YES)`` forwarding is byte-for-byte. ``dlh`` is the decoded
header when the data starts with one. :meth:`Message.strip_dead_letter_header`
gives the original message back (what RETRY and ``HEADER(NO)`` put).
``properties`` are the message properties that travel beside the data (what a
message handle holds, :mod:`dlqhandler.mq.properties`); every derived message
keeps them, so a forward or a retry carries them on.
"""

from __future__ import annotations

from dataclasses import dataclass

from dlqhandler.errors import MalformedMessageError
from dlqhandler.mq.ccsid import QMGR_CCSID
from dlqhandler.mq.mqdlh import (
    MQDLH,
    MQDLH_LENGTH_1,
    MQFMT_DEAD_LETTER_HEADER,
    decode_mqdlh,
    encode_mqdlh,
)
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import Property

__all__ = ["Message", "decode_dead_letter"]


def _data_ccsid(md: MQMD) -> int:
    return md.coded_char_set_id or QMGR_CCSID


@dataclass(frozen=True, slots=True)
class Message:
    """An MQ message: descriptor, raw data, the MQDLH if it has one, its properties."""

    md: MQMD
    body: bytes
    dlh: MQDLH | None = None
    properties: tuple[Property, ...] = ()

    @property
    def payload(self) -> bytes:
        """The data after the MQDLH (the whole body when there is none)."""
        return self.body[MQDLH_LENGTH_1:] if self.dlh is not None else self.body

    @classmethod
    def dead_letter(cls, original: MQMD, payload: bytes, *, reason: int, dest_q_name: str,
                    dest_q_mgr_name: str = "", put_appl_type: int = 7,
                    put_appl_name: str = "", put_date: str = "", put_time: str = "",
                    encoding: int | None = None, ccsid: int | None = None,
                    properties: tuple[Property, ...] = ()) -> Message:
        """Dead-letter ``original`` as a queue manager does.

        The MQDLH takes the original Encoding, CodedCharSetId and Format; the
        MQMD then describes the MQDLH (``encoding``/``ccsid``, by default the
        original's) and its Format becomes ``MQDEAD``.
        """
        enc = original.encoding if encoding is None else encoding
        cs = (original.coded_char_set_id or QMGR_CCSID) if ccsid is None else ccsid
        dlh = MQDLH(reason=reason, dest_q_name=dest_q_name, dest_q_mgr_name=dest_q_mgr_name,
                    encoding=original.encoding,
                    coded_char_set_id=original.coded_char_set_id or QMGR_CCSID,
                    format=original.format, put_appl_type=put_appl_type,
                    put_appl_name=put_appl_name, put_date=put_date, put_time=put_time)
        md = original.replace(format=MQFMT_DEAD_LETTER_HEADER, encoding=enc,
                              coded_char_set_id=cs)
        return cls(md, encode_mqdlh(dlh, encoding=enc, ccsid=cs) + payload, dlh, properties)

    def strip_dead_letter_header(self) -> Message:
        """The message without its MQDLH, Format/Encoding/CCSID restored.

        A message with no MQDLH is returned unchanged.
        """
        if self.dlh is None:
            return self
        md = self.md.replace(format=self.dlh.format, encoding=self.dlh.encoding,
                             coded_char_set_id=self.dlh.coded_char_set_id)
        return Message(md, self.body[MQDLH_LENGTH_1:], None, self.properties)

    def with_md(self, md: MQMD) -> Message:
        """The same data (and properties) under another descriptor."""
        return Message(md, self.body, self.dlh, self.properties)


def decode_dead_letter(md: MQMD, body: bytes, properties: tuple[Property, ...] = ()
                       ) -> Message:
    """Decode a message taken from a dead-letter queue (``properties``: its own).

    Raises :class:`~dlqhandler.errors.MalformedMessageError` (keeping the raw
    bytes) when the data does not start with a valid MQDLH; never anything else.
    """
    try:
        dlh = decode_mqdlh(body, encoding=md.encoding, ccsid=_data_ccsid(md))
    except MalformedMessageError as exc:
        if md.format == MQFMT_DEAD_LETTER_HEADER:
            raise
        raise MalformedMessageError(f"MQMD Format is {md.format!r}, not 'MQDEAD'; {exc}",
                                    raw=exc.raw, offset=exc.offset) from exc
    return Message(md, bytes(body), dlh, properties)
