"""The :class:`Message` value object: a descriptor, the data, and the MQDLH view.

``body`` is always the message data exactly as it sits on the queue, MQDLH
included, so ``HEADER(YES)`` forwarding is byte-for-byte. ``dlh`` is the decoded
header when the data starts with one. :meth:`Message.strip_dead_letter_header`
gives the original message back (what RETRY and ``HEADER(NO)`` put).
``properties`` are the message properties that travel beside the data (what a
message handle holds, :mod:`dlqhandler.mq.properties`); every derived message
keeps them, so a forward or a retry carries them on.

A dead letter got with its properties in an MQRFH2 in front of the MQDLH (a DLQ
defined ``PROPCTL(FORCE)``, or a get with ``MQGMO_PROPERTIES_FORCE_MQRFH2``: MQMD
Format ``MQHRF2``, the MQRFH2's Format ``MQDEAD``) is decoded by
:func:`decode_dead_letter` into what a get with a message handle returns: the
MQRFH2's properties in ``properties``, ``body`` the MQDLH and the data behind it,
and the MQMD's Format, Encoding and CodedCharSetId those the MQRFH2 held for the
MQDLH. IBM chains headers that way (each header's Format, Encoding and
CodedCharSetId describe what follows it; the MQDLH's fields are "in the character
set and encoding ... specified in the header structure that precedes the MQDLH").
See docs/properties.md, "A DLQ defined PROPCTL(FORCE)".
"""

from __future__ import annotations

from dataclasses import dataclass

from dlqhandler.errors import DecodeError, MalformedMessageError
from dlqhandler.mq.ccsid import QMGR_CCSID, encode_text, int_order
from dlqhandler.mq.mqdlh import (
    MQDLH,
    MQDLH_LENGTH_1,
    MQFMT_DEAD_LETTER_HEADER,
    decode_mqdlh,
    encode_mqdlh,
)
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import Property
from dlqhandler.mq.rfh2 import MQFMT_RF_HEADER_2, decode_rfh2, is_property_folder, properties_of

__all__ = ["Message", "decode_dead_letter", "stripped_data"]


_MQCCSI_INHERIT = -2


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
    def dead_letter(
        cls,
        original: MQMD,
        payload: bytes,
        *,
        reason: int,
        dest_q_name: str,
        dest_q_mgr_name: str = "",
        put_appl_type: int = 7,
        put_appl_name: str = "",
        put_date: str = "",
        put_time: str = "",
        encoding: int | None = None,
        ccsid: int | None = None,
        properties: tuple[Property, ...] = (),
    ) -> Message:
        """Dead-letter ``original`` as a queue manager does.

        The MQDLH takes the original Encoding, CodedCharSetId and Format; the
        MQMD then describes the MQDLH (``encoding``/``ccsid``, by default the
        original's) and its Format becomes ``MQDEAD``.
        """
        enc = original.encoding if encoding is None else encoding
        cs = (original.coded_char_set_id or QMGR_CCSID) if ccsid is None else ccsid
        dlh = MQDLH(
            reason=reason,
            dest_q_name=dest_q_name,
            dest_q_mgr_name=dest_q_mgr_name,
            encoding=original.encoding,
            coded_char_set_id=original.coded_char_set_id or QMGR_CCSID,
            format=original.format,
            put_appl_type=put_appl_type,
            put_appl_name=put_appl_name,
            put_date=put_date,
            put_time=put_time,
        )
        md = original.replace(format=MQFMT_DEAD_LETTER_HEADER, encoding=enc, coded_char_set_id=cs)
        return cls(md, encode_mqdlh(dlh, encoding=enc, ccsid=cs) + payload, dlh, properties)

    def strip_dead_letter_header(self) -> Message:
        """The message without its MQDLH, Format/Encoding/CCSID restored.

        A message with no MQDLH is returned unchanged.
        """
        if self.dlh is None:
            return self
        md = self.md.replace(
            format=self.dlh.format,
            encoding=self.dlh.encoding,
            coded_char_set_id=self.dlh.coded_char_set_id,
        )
        return Message(md, self.body[MQDLH_LENGTH_1:], None, self.properties)

    def with_md(self, md: MQMD) -> Message:
        """The same data (and properties) under another descriptor."""
        return Message(md, self.body, self.dlh, self.properties)


def decode_dead_letter(md: MQMD, body: bytes, properties: tuple[Property, ...] = ()) -> Message:
    """Decode a message taken from a dead-letter queue (``properties``: its own).

    The data starts with an MQDLH, or with an MQRFH2 whose Format is ``MQDEAD`` (MQMD
    Format ``MQHRF2``: a dead letter with message properties on a DLQ defined
    PROPCTL(FORCE)): the message is then returned as a get with a message handle
    returns it (see the module docstring). This is the one way every path finds a
    dead letter's MQDLH: the handler, one-off actions, ``drain --apply``, ``decode``,
    ``qm browse``, and the ``dmpmqmsg`` Spark data source's JVM twin
    (``jvm/DumpMessage.java``, which gives the same values and error text). Raises
    :class:`~dlqhandler.errors.MalformedMessageError` (keeping the raw bytes, the
    offset of the fault) when neither is there; never anything else.
    """
    if md.format == MQFMT_RF_HEADER_2:
        return _behind_rfh2(md, bytes(body), properties)
    try:
        dlh = decode_mqdlh(body, encoding=md.encoding, ccsid=_data_ccsid(md))
    except MalformedMessageError as exc:
        if md.format == MQFMT_DEAD_LETTER_HEADER:
            raise
        raise MalformedMessageError(
            f"MQMD Format is {md.format!r}, not 'MQDEAD'; {exc}", raw=exc.raw, offset=exc.offset
        ) from exc
    return Message(md, bytes(body), dlh, properties)


def _behind_rfh2(md: MQMD, body: bytes, properties: tuple[Property, ...]) -> Message:
    """The dead letter behind the MQRFH2 at the start of ``body``, its properties
    kept as properties; a damaged header, a header that is not in front of an
    MQDLH, or one that holds more than properties is refused, never half-read."""
    where = "MQMD Format is 'MQHRF2'"
    try:
        rfh2, end = decode_rfh2(body, encoding=md.encoding, ccsid=_data_ccsid(md))
    except DecodeError as exc:
        raise MalformedMessageError(
            f"{where}; {exc} (at byte {exc.offset} of the data)", raw=body, offset=exc.offset
        ) from exc
    if rfh2.format != MQFMT_DEAD_LETTER_HEADER:
        raise MalformedMessageError(
            f"{where}, and the MQRFH2's Format is {rfh2.format!r}, not 'MQDEAD': no MQDLH"
            f" behind it",
            raw=body,
            offset=24,
        )
    others = [f.name for f in rfh2.folders if not is_property_folder(f)]
    if others:
        raise MalformedMessageError(
            f"{where}: the MQRFH2 in front of the MQDLH holds folder {others[0]!r}, which"
            " is not message properties (only mcd, jms, usr, mq, mqext, mq_usr, mqps are)",
            raw=body,
            offset=36,
        )
    ccsid = (
        md.coded_char_set_id
        if rfh2.coded_char_set_id == _MQCCSI_INHERIT
        else rfh2.coded_char_set_id
    )
    inner = md.replace(
        format=MQFMT_DEAD_LETTER_HEADER, encoding=rfh2.encoding, coded_char_set_id=ccsid
    )
    try:
        dlh = decode_mqdlh(body[end:], encoding=inner.encoding, ccsid=_data_ccsid(inner))
    except MalformedMessageError as exc:
        raise MalformedMessageError(
            f"{where}; behind the MQRFH2 (StrucLength {end}), {exc}",
            raw=body,
            offset=end + exc.offset,
        ) from exc
    names = {p.name for p in properties}
    carried = (*properties, *(p for p in properties_of(rfh2.folders) if p.name not in names))
    return Message(inner, body[end:], dlh, carried)


def stripped_data(md: MQMD, body: bytes) -> tuple[MQMD, bytes]:
    """The descriptor and data of a dead letter without its MQDLH, as bytes: what RETRY
    and ``HEADER(NO)`` write to a dump file (the drain's outputs).

    The structure before the MQDLH is told what follows it now. That is the MQMD
    (:meth:`Message.strip_dead_letter_header`), or, for a dead letter with its MQRFH2 in
    front of the MQDLH (see the module docstring), the MQRFH2: kept byte for byte but
    its Encoding, CodedCharSetId and Format, which become the MQDLH's, while the MQMD
    stays as it was (Format ``MQHRF2``), so the properties travel on in the data as a
    get without a message handle returns them. Raises
    :class:`~dlqhandler.errors.MalformedMessageError` as :func:`decode_dead_letter`
    does, and :class:`~dlqhandler.errors.DecodeError` for an MQDLH
    Format the MQMD's CCSID cannot hold.
    """
    decoded = decode_dead_letter(md, body)
    dlh = decoded.dlh
    assert dlh is not None
    end = len(body) - len(decoded.body)
    if end == 0:
        stripped = decoded.strip_dead_letter_header()
        return stripped.md, stripped.body
    order = int_order(md.encoding, version_probe=body[4:8])
    told = dlh.encoding.to_bytes(4, "big" if order == ">" else "little", signed=True)
    told += dlh.coded_char_set_id.to_bytes(4, "big" if order == ">" else "little", signed=True)
    told += encode_text(dlh.format, 8, _data_ccsid(md), field="MQRFH2.Format")
    return md, body[:12] + told + body[28:end] + decoded.payload
