"""MQRFH2, the rules and formatting header 2: how properties travel in message data.

Layout (IBM "MQRFH2 - Rules and formatting header 2"): a 36-byte fixed part -
StrucId ``'RFH '``, Version 2, StrucLength (the whole header, a multiple of 4),
Encoding, CodedCharSetId and Format (of what follows the header), Flags,
NameValueCCSID - then pairs of NameValueLength (MQLONG) and NameValueData, one
folder each. The fixed part's integers are in the encoding of the structure
before it (the MQMD), and so are its text fields' CCSID; NameValueData is text
in NameValueCCSID (1208 UTF-8; 1200/13488/17584 UTF-16 in the byte order of the
integers; or a single-byte CCSID we know), padded with blanks to a multiple of 4.

A folder is ``<name>`` ... ``</name>``, holding properties ``<prop dt='i4'>5</prop>``
and groups of them (``<grp><prop>x</prop></grp>``). The ``dt`` types are IBM's
"Mapping property data types to MQRFH2 data types": ``boolean`` (0/1),
``bin.hex``, ``i1`` ``i2`` ``i4`` ``i8`` (``int`` read as ``i8``), ``r4`` ``r8``
and ``string`` (also the type of an element without ``dt``); a null value is
``xsi:nil='true'``. The XML is parsed here, by a small reader of exactly this
syntax (elements, the two attributes, the five XML entities and character
references): no DTD, no entity expansion, nothing a message could use to reach
beyond itself. Anything else is a :class:`~dlqhandler.errors.DecodeError` that
says what is wrong and at which byte of the message data.

:func:`folders_of` and :func:`properties_of` map between folders and message
properties (:mod:`dlqhandler.mq.properties`): a folder other than ``usr``
prefixes its properties' names (``jms.Dst``), ``usr`` does not; a group is a
``.`` in the name.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from dlqhandler.errors import DecodeError
from dlqhandler.mq._struct import Field, Layout
from dlqhandler.mq.ccsid import codec_for, int_order
from dlqhandler.mq.properties import (
    PROPERTY_FOLDERS,
    Property,
    PropertyType,
    format_float,
    parse_float,
)

__all__ = [
    "MQFMT_RF_HEADER_2",
    "MQRFH2",
    "MQRFH_STRUC_LENGTH_FIXED_2",
    "Folder",
    "decode_rfh2",
    "dt_of",
    "encode_rfh2",
    "folders_of",
    "is_property_folder",
    "properties_of",
    "typed_property",
]

MQFMT_RF_HEADER_2 = "MQHRF2"  # canonical form of "MQHRF2  "
MQRFH_STRUC_ID = "RFH "
MQRFH_STRUC_LENGTH_FIXED_2 = 36
_UTF16 = frozenset({1200, 13488, 17584})
_Fail = Callable[[str, int], DecodeError]

LAYOUT = Layout(
    "MQRFH2",
    (
        Field("struc_id", "StrucId", "char", 4),
        Field("version", "Version", "long"),
        Field("struc_length", "StrucLength", "long"),
        Field("encoding", "Encoding", "long"),
        Field("coded_char_set_id", "CodedCharSetId", "long"),
        Field("format", "Format", "char", 8),
        Field("flags", "Flags", "long"),
        Field("name_value_ccsid", "NameValueCCSID", "long"),
    ),
)
assert LAYOUT.size == MQRFH_STRUC_LENGTH_FIXED_2


@dataclass(frozen=True, slots=True)
class Folder:
    """One NameValueData folder: its name, its own attributes, its properties (names
    relative to the folder; a group is a ``.``)."""

    name: str
    properties: tuple[Property, ...] = ()
    attributes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class MQRFH2:
    """A decoded MQRFH2 (Encoding, CodedCharSetId and Format describe what follows)."""

    encoding: int = 273
    coded_char_set_id: int = -2  # MQCCSI_INHERIT
    format: str = ""
    flags: int = 0
    name_value_ccsid: int = 1208
    folders: tuple[Folder, ...] = ()


# -- bytes ------------------------------------------------------------------------------
def _text_codec(ccsid: int, order: str) -> str:
    if ccsid in _UTF16:
        return "utf_16_be" if order == ">" else "utf_16_le"
    return codec_for(ccsid)


def decode_rfh2(data: bytes, *, encoding: int, ccsid: int, start: int = 0) -> tuple[MQRFH2, int]:
    """Decode the MQRFH2 at ``data[start:]``; returns it and where it ends.

    ``encoding``/``ccsid``: of the structure before it (the MQMD's). Raises
    :class:`DecodeError` (the data kept, the offset where it went wrong) for a
    truncated or inconsistent header, a folder that is not the syntax above, or a
    property of a type IBM does not define.
    """
    raw = bytes(data)

    def fail(why: str, offset: int) -> DecodeError:
        return DecodeError(f"MQRFH2 at offset {start}: {why}", raw=raw, offset=offset)

    if len(raw) - start < MQRFH_STRUC_LENGTH_FIXED_2:
        raise fail(f"truncated: {max(0, len(raw) - start)} bytes, the fixed part is 36", len(raw))
    try:
        order = int_order(encoding, version_probe=raw[start + 4 : start + 8])
        (struc_id, version, length, enc, cs, fmt, flags, nv_ccsid) = LAYOUT.values(
            raw, order, ccsid, start=start
        )
    except DecodeError as exc:
        raise fail(str(exc), exc.offset) from exc
    if struc_id != MQRFH_STRUC_ID.rstrip():
        raise fail(f"StrucId is {raw[start : start + 4]!r}, not 'RFH '", start)
    if version != 2:
        raise fail(f"Version is {version}, not 2", start + 4)
    if length < MQRFH_STRUC_LENGTH_FIXED_2 or length % 4 or start + length > len(raw):
        raise fail(
            f"bad StrucLength {length} (at least 36, a multiple of 4, and at most"
            f" the {len(raw) - start} bytes there are)",
            start + 8,
        )
    end = start + length
    try:
        codec = _text_codec(nv_ccsid, order)
    except DecodeError as exc:
        raise fail(f"NameValueCCSID {nv_ccsid}: {exc}", start + 32) from exc
    folders: list[Folder] = []
    pos = start + MQRFH_STRUC_LENGTH_FIXED_2
    while pos < end:
        if end - pos < 4:
            raise fail(
                f"{end - pos} bytes left at offset {pos}, too few for a NameValueLength", pos
            )
        size = int.from_bytes(raw[pos : pos + 4], "big" if order == ">" else "little", signed=True)
        if size < 0 or pos + 4 + size > end:
            raise fail(
                f"NameValueLength {size} at offset {pos} runs past the end of the"
                f" header (StrucLength {length})",
                pos,
            )
        pos += 4
        try:
            text = raw[pos : pos + size].decode(codec)
        except UnicodeDecodeError as exc:
            raise fail(
                f"NameValueData not valid in CCSID {nv_ccsid}: {exc.reason}", pos + exc.start
            ) from exc
        folder = _parse_folder(text, _folder_fail(fail, pos, text, codec))
        if folder is not None:
            folders.append(folder)
        pos += size
    return MQRFH2(enc, cs, fmt, flags, nv_ccsid, tuple(folders)), end


def _folder_fail(fail: _Fail, pos: int, text: str, codec: str) -> _Fail:
    """A folder's errors: the byte offset of the character they name."""

    def folder_fail(why: str, at: int) -> DecodeError:
        return fail(f"folder at offset {pos}: {why}", pos + len(text[:at].encode(codec)))

    return folder_fail


def encode_rfh2(rfh2: MQRFH2, *, encoding: int, ccsid: int) -> bytes:
    """The bytes of ``rfh2`` in the given (MQMD) encoding and CCSID."""
    order = int_order(encoding)
    codec = _text_codec(rfh2.name_value_ccsid, order)
    pad = " ".encode(codec)
    chunks: list[bytes] = []
    for folder in rfh2.folders:
        try:
            text = _folder_xml(folder).encode(codec)
        except UnicodeEncodeError as exc:
            raise DecodeError(
                f"MQRFH2 folder {folder.name!r}: not writable in CCSID {rfh2.name_value_ccsid}"
            ) from exc
        while len(text) % 4:
            text += pad
        chunks.append(
            len(text).to_bytes(4, "big" if order == ">" else "little", signed=True) + text
        )
    body = b"".join(chunks)
    fixed = LAYOUT.pack_values(
        [
            MQRFH_STRUC_ID,
            2,
            MQRFH_STRUC_LENGTH_FIXED_2 + len(body),
            rfh2.encoding,
            rfh2.coded_char_set_id,
            rfh2.format,
            rfh2.flags,
            rfh2.name_value_ccsid,
        ],
        order,
        ccsid,
    )
    return fixed + body


# -- folders <-> properties -------------------------------------------------------------
_FOLDER_ORDER = ("mcd", "jms", "mq", "mqext", "mq_usr", "mqps", "usr")


# A folder of the application's own holding message properties: IBM reads "Any folder
# marked with the content='properties' attribute" as properties (like <mq_usr>).
PROPERTIES_CONTENT = ("content", "properties")


def folder_of(name: str) -> tuple[str, str]:
    """(folder, name within it) of a property name, as IBM maps them (*Mapping property
    names to MQRFH2 folder and element names*): ``Property`` is in ``<usr>``,
    ``folder.Property`` in a folder ``<folder>`` of its own, ``folder.group.Property`` in
    a group of that folder. (A ``usr.`` prefix is dropped before a name is kept:
    :func:`dlqhandler.mq.properties.canonical_name`.)"""
    head, dot, rest = name.partition(".")
    if dot and head and rest:
        return head, rest
    return "usr", name


def is_property_folder(folder: Folder) -> bool:
    """Whether IBM reads ``folder``'s elements as message properties: one of the property
    folders without attributes, or any folder marked ``content='properties'``."""
    if folder.attributes == (PROPERTIES_CONTENT,):
        return True
    return not folder.attributes and (folder.name == "usr" or folder.name in PROPERTY_FOLDERS)


def folders_of(properties: Iterable[Property]) -> tuple[Folder, ...]:
    """The folders that carry ``properties`` (IBM's JMS order: mcd, jms, ..., then the
    application's own folders, marked ``content='properties'``, then usr)."""
    by_folder: dict[str, list[Property]] = {}
    for prop in properties:
        folder, inner = folder_of(prop.name)
        by_folder.setdefault(folder, []).append(Property(inner, prop.type, prop.value))
    order = {name: (i, "") for i, name in enumerate(_FOLDER_ORDER)}
    own = (order["usr"][0] - 0.5, "")

    def place(name: str) -> tuple[float, str]:
        return order.get(name) or (own[0], name)

    return tuple(
        Folder(name, tuple(props), () if name in order else (PROPERTIES_CONTENT,))
        for name, props in sorted(by_folder.items(), key=lambda kv: place(kv[0]))
    )


def properties_of(folders: Iterable[Folder]) -> tuple[Property, ...]:
    """The message properties ``folders`` carry (a name seen twice: the last value)."""
    out: dict[str, Property] = {}
    for folder in folders:
        prefix = "" if folder.name == "usr" else folder.name + "."
        for prop in folder.properties:
            name = prefix + prop.name
            out.pop(name, None)
            out[name] = Property(name, prop.type, prop.value)
    return tuple(out.values())


# -- the XML of one folder --------------------------------------------------------------
_DT = {
    PropertyType.BOOLEAN: "boolean",
    PropertyType.BYTE_STRING: "bin.hex",
    PropertyType.INT8: "i1",
    PropertyType.INT16: "i2",
    PropertyType.INT32: "i4",
    PropertyType.INT64: "i8",
    PropertyType.FLOAT32: "r4",
    PropertyType.FLOAT64: "r8",
    PropertyType.STRING: "string",
}
_TYPE_OF_DT = {v: k for k, v in _DT.items()} | {"int": PropertyType.INT64}
# What a float property holds: beyond it a number is refused, not made infinity (the
# words Infinity and inf stand for that), as IBM's MQSETMP refuses a value that does not
# fit its type (MQRC_PROPERTY_TYPE_ERROR).
_FLOAT_RANGE = {
    PropertyType.FLOAT32: "a 32-bit float: at most 3.4028235e38 either side of 0",
    PropertyType.FLOAT64: "a 64-bit float: at most 1.7976931348623157e308 either side of 0",
}
_INT_BITS = {
    PropertyType.INT8: 8,
    PropertyType.INT16: 16,
    PropertyType.INT32: 32,
    PropertyType.INT64: 64,
}
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})


def _folder_xml(folder: Folder) -> str:
    attrs = "".join(f' {k}="{v.translate(_ESCAPES)}"' for k, v in folder.attributes)
    out = [f"<{folder.name}{attrs}>"]
    _elements(out, [(p.name.split("."), p) for p in folder.properties])
    out.append(f"</{folder.name}>")
    return "".join(out)


def _elements(out: list[str], items: Sequence[tuple[list[str], Property]]) -> None:
    """Write properties in order; adjacent ones in the same group share its element."""
    i = 0
    while i < len(items):
        path, prop = items[i]
        if len(path) == 1:
            out.append(_element(path[0], prop))
            i += 1
            continue
        j = i
        while j < len(items) and len(items[j][0]) > 1 and items[j][0][0] == path[0]:
            j += 1
        out.append(f"<{path[0]}>")
        _elements(out, [(p[1:], q) for p, q in items[i:j]])
        out.append(f"</{path[0]}>")
        i = j


def _element(tag: str, prop: Property) -> str:
    if prop.type is PropertyType.NULL:
        return f"<{tag} xsi:nil='true'></{tag}>"
    value = prop.value
    if prop.type is PropertyType.BOOLEAN:
        text = "1" if value else "0"
    elif prop.type is PropertyType.BYTE_STRING:
        assert isinstance(value, bytes)
        text = value.hex()
    elif isinstance(value, float):
        text = format_float(value)
    else:
        text = str(value).translate(_ESCAPES)
    dt = "" if prop.type is PropertyType.STRING else f" dt='{_DT[prop.type]}'"
    return f"<{tag}{dt}>{text}</{tag}>"


_NAME = re.compile(r"[^\s<>/=&\"'!?]+")
_ATTR = re.compile(r"\s+([^\s<>/=&\"'!?]+)\s*=\s*(?:\"([^\"<]*)\"|'([^'<]*)')")
_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_BLANKS = " \x00"


class _Reader:
    """A cursor over one folder's text; ``fail(why, index)`` makes the error."""

    def __init__(self, text: str, fail: _Fail) -> None:
        self.text = text
        self.pos = 0
        self.fail = fail

    def error(self, why: str, at: int | None = None) -> DecodeError:
        return self.fail(why, self.pos if at is None else at)

    def skip_ws(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        self.pos = pos

    def expect(self, literal: str) -> None:
        if not self.text.startswith(literal, self.pos):
            raise self.error(f"expected {literal!r}")
        self.pos += len(literal)

    def name(self) -> str:
        m = _NAME.match(self.text, self.pos)
        if m is None:
            raise self.error("expected a name")
        self.pos = m.end()
        return m.group()

    def start_tag(self) -> tuple[str, dict[str, str], bool]:
        """``<name attr='v' ...>`` or ``.../>``: (name, attributes, empty)."""
        self.expect("<")
        tag = self.name()
        attrs: dict[str, str] = {}
        while True:
            m = _ATTR.match(self.text, self.pos)
            if m is None:
                break
            attrs[m.group(1)] = self.unescape(
                m.group(2) if m.group(2) is not None else m.group(3), m.start(2)
            )
            self.pos = m.end()
        self.skip_ws()
        if self.text.startswith("/>", self.pos):
            self.pos += 2
            return tag, attrs, True
        self.expect(">")
        return tag, attrs, False

    def end_tag(self, tag: str) -> None:
        at = self.pos
        self.expect("</")
        if self.name() != tag:
            raise self.error(f"end tag does not close <{tag}>", at)
        self.skip_ws()
        self.expect(">")

    def unescape(self, text: str, at: int) -> str:
        if "&" not in text:
            return text

        def one(m: re.Match[str]) -> str:
            if m.group(1):
                return _NAMED[m.group(1)]
            code = int(m.group(2)) if m.group(2) else int(m.group(3), 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise self.error(f"character reference {m.group()} is no character", at + m.start())
            return chr(code)

        out = _ENTITY.sub(one, text)
        if "&" in _ENTITY.sub("", text):
            raise self.error(
                "'&' that is not one of XML's five entities or a character reference",
                at + text.index("&"),
            )
        return out


def _parse_folder(text: str, fail: _Fail) -> Folder | None:
    """One folder's NameValueData (None when it holds only blanks): a folder of plain
    properties (what JMS and MQSETMP write) by :func:`_flat_folder`, anything else (and
    every error) by the reader."""
    flat = _flat_folder(text)
    return flat if flat is not None else _read_folder(text, fail)


_WS = r"[ \t\r\n]*"
_TAG = r"""[^\s<>/=&"'!?]+"""
_FLAT_OPEN = re.compile(rf"{_WS}<({_TAG})>")
_FLAT_ELEMENT = re.compile(
    rf"""{_WS}<({_TAG})(?: dt=(?:'([^'<&]*)'|"([^"<&]*)")|( xsi:nil=(?:'true'|"true")))?>"""
    r"([^<&]*)</\1>"
)


def _flat_folder(text: str) -> Folder | None:
    """The folder if it is flat (no attributes but ``dt`` or ``xsi:nil='true'``, no
    groups, no entities): the same Folder the reader makes, in one regex pass; else None."""
    m = _FLAT_OPEN.match(text)
    if m is None:
        return None
    tag, pos, props = m.group(1), m.end(), []
    match = _FLAT_ELEMENT.match
    while (e := match(text, pos)) is not None:
        dt = e.group(2) if e.group(2) is not None else e.group(3)
        if e.group(4) is not None:  # xsi:nil='true': null, and nothing inside
            if e.group(5):
                return None
            props.append(Property(e.group(1), PropertyType.NULL, None))
            pos = e.end()
            continue
        if dt == "null":
            return None
        try:
            props.append(typed_property(e.group(1), "string" if dt is None else dt, e.group(5)))
        except ValueError:
            return None  # (the reader says what is wrong, and where)
        pos = e.end()
    rest = text[pos:].lstrip(" \t\r\n")
    close = f"</{tag}>"
    if not rest.startswith(close) or rest[len(close) :].strip(" \t\r\n\x00"):
        return None
    return Folder(tag, tuple(props))


def _read_folder(text: str, fail: _Fail) -> Folder | None:
    """One folder's NameValueData by the reader (None when it holds only blanks)."""
    r = _Reader(text, fail)
    r.skip_ws()
    if text[r.pos :].strip(_BLANKS) == "":
        return None
    tag, attrs, empty = r.start_tag()
    props: list[Property] = []
    if not empty:
        _children(r, tag, "", props)
    rest = text[r.pos :]
    if rest.strip(_BLANKS + "\t\r\n"):
        raise r.error("only blanks may follow the folder's end tag")
    return Folder(tag, tuple(props), tuple(attrs.items()))


def _children(r: _Reader, parent: str, prefix: str, props: list[Property]) -> None:
    """Elements up to ``</parent>``; properties appended with their group path."""
    while True:
        r.skip_ws()
        if r.text.startswith("</", r.pos):
            r.end_tag(parent)
            return
        if not r.text.startswith("<", r.pos):
            raise r.error(f"text inside <{parent}>, which holds elements")
        at = r.pos
        tag, attrs, empty = r.start_tag()
        name = prefix + tag
        if empty:
            props.append(_property(r, name, attrs, "", at))
            continue
        value_at = r.pos
        lt = r.text.find("<", r.pos)
        if lt < 0:
            raise r.error(f"<{tag}> is not closed")
        if r.text.startswith("</", lt) or r.text[r.pos : lt].strip(" \t\r\n"):
            value = r.unescape(r.text[r.pos : lt], r.pos)
            r.pos = lt
            r.end_tag(tag)
            props.append(_property(r, name, attrs, value, value_at))
        else:
            if attrs.keys() & {"dt", "xsi:nil"}:
                raise r.error(f"<{tag}> has a type but holds elements", at)
            _children(r, tag, name + ".", props)


def _property(r: _Reader, name: str, attrs: dict[str, str], text: str, at: int) -> Property:
    nil = attrs.get("xsi:nil")
    if nil is not None:
        if nil != "true":
            raise r.error(f"{name}: xsi:nil='{nil}' (only 'true' is allowed)", at)
        if text:
            raise r.error(f"{name}: a null property with a value", at)
        return Property(name, PropertyType.NULL, None)
    dt = attrs.get("dt", "string")
    try:
        if dt == "null":  # (null is xsi:nil in a folder, not a dt)
            raise ValueError("unknown property type dt='null'")
        return typed_property(name, dt, text)
    except ValueError as exc:
        raise r.error(f"{name}: {exc}", at) from None


def dt_of(kind: PropertyType) -> str:
    """The MQRFH2 ``dt`` name of a property type (``null`` for MQTYPE_NULL)."""
    return "null" if kind is PropertyType.NULL else _DT[kind]


def typed_property(name: str, dt: str, text: str) -> Property:
    """A property from its MQRFH2 ``dt`` type and value text (``null``: no value);
    ValueError says what is wrong. (The name is not checked here: see properties.)"""
    if dt == "null":
        if text:
            raise ValueError("a null property with a value")
        return Property(name, PropertyType.NULL, None)
    kind = _TYPE_OF_DT.get(dt)
    if kind is None:
        raise ValueError(f"unknown property type dt='{dt[:32]}'")
    if kind is PropertyType.STRING:
        return Property(name, kind, text)
    value_text = text.strip(" \t\r\n")

    def bad() -> ValueError:
        return ValueError(f"{value_text[:40]!r} is not a valid dt='{dt}' value")

    def out_of_range(limits: str) -> ValueError:
        return ValueError(f"{value_text[:40]!r} is out of the range of dt='{dt}' ({limits})")

    value: bool | bytes | int | float
    if kind is PropertyType.BOOLEAN:
        lowered = value_text.lower()
        if lowered not in ("0", "1", "true", "false"):
            raise bad()
        value = lowered in ("1", "true")
    elif kind is PropertyType.BYTE_STRING:
        if len(value_text) % 2 or not re.fullmatch(r"[0-9A-Fa-f]*", value_text):
            raise bad()
        value = bytes.fromhex(value_text)
    elif kind in _INT_BITS:
        bits = _INT_BITS[kind]
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        if not re.fullmatch(r"[+-]?[0-9]+", value_text):
            raise bad()
        if len(value_text.lstrip("+-").lstrip("0")) > 20:  # beyond any MQTYPE_INT64
            raise out_of_range(f"{low} to {high}")
        value = int(value_text)
        if not low <= value <= high:
            raise out_of_range(f"{low} to {high}")
    else:
        try:
            value = parse_float(value_text)
        except ValueError:
            raise bad() from None
        except OverflowError:
            raise out_of_range(_FLOAT_RANGE[kind]) from None
        if kind is PropertyType.FLOAT32:
            try:
                value = struct.unpack("<f", struct.pack("<f", value))[0]
            except OverflowError:
                raise out_of_range(_FLOAT_RANGE[kind]) from None
    return Property(name, kind, value)
