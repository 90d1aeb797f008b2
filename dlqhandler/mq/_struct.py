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

    def unpack(self, raw: bytes, order: str, ccsid: int, *, start: int = 0) -> dict[str, Any]:
        """Decode ``raw[start:start+size]`` into a dict of attribute values."""
        if len(raw) - start < self.size:
            raise DecodeError(
                f"{self.name} truncated: need {self.size} bytes, have {max(0, len(raw) - start)}",
                raw=bytes(raw), offset=len(raw))
        values = self._structs[order].unpack_from(raw, start)
        out: dict[str, Any] = dict(zip(self._attrs, values, strict=True))
        for i, f in self._chars:
            try:
                out[f.attr] = decode_text(values[i], ccsid)
            except DecodeError as exc:
                raise DecodeError(f"{self.name}.{f.ibm}: {exc}", raw=bytes(raw),
                                  offset=start + self.offsets[f.attr]) from exc
        return out

    def pack(self, values: dict[str, Any], order: str, ccsid: int) -> bytes:
        """Encode attribute values; text is blank padded in the given CCSID."""
        items: list[Any] = []
        for f in self.fields:
            v = values[f.attr]
            if f.kind == "char":
                items.append(encode_text(v, f.length, ccsid, field=f"{self.name}.{f.ibm}"))
            elif f.kind == "byte":
                if len(v) > f.length:
                    raise DecodeError(f"{self.name}.{f.ibm} longer than {f.length} bytes")
                items.append(bytes(v).ljust(f.length, b"\x00"))
            else:
                items.append(int(v))
        try:
            return self._structs[order].pack(*items)
        except struct.error as exc:
            raise DecodeError(f"{self.name}: {exc}") from exc
