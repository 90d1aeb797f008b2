"""Table-driven codec for fixed-layout MQ structures (MQMD, MQDLH).

A structure is a list of :class:`Field`: integers (MQLONG), text (MQCHARn,
blank padded, decoded through the CCSID in force) and opaque bytes (MQBYTEn).
One compiled ``struct.Struct`` per byte order does the packing; text fields are
converted separately so one layout serves every CCSID.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Literal

from dlqhandler.errors import DecodeError
from dlqhandler.mq.ccsid import decode_text, encode_text

Kind = Literal["long", "char", "byte"]


@dataclass(frozen=True, slots=True)
class Field:
    attr: str  # Python attribute name (snake_case)
    ibm: str  # IBM field name (CamelCase), for messages
    kind: Kind
    length: int = 4


class Layout:
    """A compiled structure layout: ``unpack``/``pack`` in either byte order."""

    def __init__(self, name: str, fields: tuple[Field, ...]) -> None:
        self.name = name
        self.fields = fields
        fmt = "".join("i" if f.kind == "long" else f"{f.length}s" for f in fields)
        self._structs = {order: struct.Struct(order + fmt) for order in "<>"}
        self.size = self._structs["<"].size
        offsets: dict[str, int] = {}
        pos = 0
        for f in fields:
            offsets[f.attr] = pos
            pos += f.length
        self.offsets = offsets
        self._attrs = tuple(f.attr for f in fields)
        self._chars = tuple((i, f) for i, f in enumerate(fields) if f.kind == "char")
        self._encoded = tuple((i, f) for i, f in enumerate(fields) if f.kind != "long")

    def unpack(self, raw: bytes, order: str, ccsid: int, *, start: int = 0) -> dict[str, Any]:
        """Decode ``raw[start:start+size]`` into a dict of attribute values."""
        return dict(zip(self._attrs, self.values(raw, order, ccsid, start=start), strict=True))

    def values(self, raw: bytes, order: str, ccsid: int, *, start: int = 0) -> list[Any]:
        """Decode ``raw[start:start+size]`` into the field values, in layout order
        (what a value object built positionally takes: no dict on the hot path)."""
        if len(raw) - start < self.size:
            raise DecodeError(
                f"{self.name} truncated: need {self.size} bytes, have {max(0, len(raw) - start)}",
                raw=bytes(raw),
                offset=len(raw),
            )
        values = list(self._structs[order].unpack_from(raw, start))
        for i, f in self._chars:
            try:
                values[i] = decode_text(values[i], ccsid)
            except DecodeError as exc:
                raise DecodeError(
                    f"{self.name}.{f.ibm}: {exc}",
                    raw=bytes(raw),
                    offset=start + self.offsets[f.attr],
                ) from exc
        return values

    def pack(self, values: dict[str, Any], order: str, ccsid: int) -> bytes:
        """Encode attribute values; text is blank padded in the given CCSID."""
        return self.pack_values([values[attr] for attr in self._attrs], order, ccsid)

    def pack_values(self, values: list[Any], order: str, ccsid: int) -> bytes:
        """Encode field values given in layout order (``values`` is changed in place)."""
        for i, f in self._encoded:
            v = values[i]
            if f.kind == "char":
                values[i] = encode_text(v, f.length, ccsid, field=f"{self.name}.{f.ibm}")
            elif len(v) != f.length or type(v) is not bytes:
                if len(v) > f.length:
                    raise DecodeError(f"{self.name}.{f.ibm} longer than {f.length} bytes")
                values[i] = bytes(v).ljust(f.length, b"\x00")
        try:
            return self._structs[order].pack(*values)
        except struct.error as exc:
            raise DecodeError(f"{self.name}: {exc}") from exc
