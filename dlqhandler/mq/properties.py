"""Message properties: IBM's property types, name rules, and a message handle.

A property is a name, an MQTYPE_* type and a value (IBM MQ "Property data types
and values"): boolean, byte string, 8/16/32/64-bit integers, 32/64-bit floats,
string, and null. :class:`MessageHandle` is what MQCRTMH creates: a set of
properties with MQSETMP (:meth:`~MessageHandle.set`), MQINQMP
(:meth:`~MessageHandle.inquire`: a name or a ``%`` wildcard, MQIMPO_INQ_FIRST /
INQ_NEXT, MQIMPO_CONVERT_TYPE) and MQDLTMP (:meth:`~MessageHandle.delete`). The
queue managers store a message's properties as a tuple of :class:`Property`
(:attr:`dlqhandler.mq.message.Message.properties`); a get fills a handle, a put
takes one (``MQPMO.OriginalMsgHandle``).

Names follow IBM's "Property names" and "Property name restrictions", and the
reasons of MQRC_PROPERTY_NAME_ERROR (2442): a Java identifier in which ``.``
may appear but not first, not last and not twice in a row; not one of the
selector keywords (NULL, TRUE, ... ESCAPE, also after ``usr.``); not beginning
``JMS`` (except the synonyms the MQI may set), ``usr.JMS``, ``Body`` or
``Root`` (except ``Root.MQMD.``); an ``mq`` name other than ``mq_usr`` with at
most one ``.``; nothing beyond the Basic Multilingual Plane. A name longer than
4095 characters (MQ_MAX_PROPERTY_NAME_LENGTH) or empty is
MQRC_PROPERTY_NAME_LENGTH_ERR (2513). Setting a name that would make a group of
another property (``a.b`` set, then ``a.b.c``, or the other way round: IBM's
"mixed content") is 2442 too.

Choices where IBM's text leaves a case open (said here, as the issue asks):

* ``usr.`` is the folder of a name without a known folder prefix (IBM: the
  usr folder holds the application's properties), so ``usr.Color`` and
  ``Color`` are one property, kept under the shorter name.
* The JMS synonyms the MQI may set (JMSCorrelationID, JMSReplyTo, JMSType,
  JMSXGroupID, JMSXGroupSeq) are kept under their folder names (``jms.Cid``,
  ``jms.Rto``, ``mcd.Type``, ``jms.Gid``, ``jms.Seq``); ``Root.MQMD.`` names
  (MQMD fields as properties) are not supported here: MQRC_PROPERTY_NAME_ERROR.
* Type conversion on inquire (MQIMPO_CONVERT_TYPE) follows IBM's MQINQMP table:
  boolean to string ("TRUE"/"FALSE") or integer (1/0); integers to another
  integer size when the value fits, to boolean (non-zero is true), to string
  (decimal), to float; floats to the other float size, to string; strings to
  boolean ("TRUE"/"FALSE"/"1"/"0", any case), integer or float when the text
  is one (else MQRC_PROP_NUMBER_FORMAT_ERROR 2472), to a byte string when the
  text is hexadecimal; byte strings to string (two hexadecimal characters per
  byte). Any other pair is MQRC_PROP_CONV_NOT_SUPPORTED (2470). A null
  property is returned as null whatever type is asked for (it has no value to
  convert).
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from dlqhandler.mq.constants import (
    MQRC_HMSG_ERROR,
    MQRC_PROP_CONV_NOT_SUPPORTED,
    MQRC_PROP_NUMBER_FORMAT_ERROR,
    MQRC_PROPERTY_NAME_ERROR,
    MQRC_PROPERTY_NAME_LENGTH_ERR,
    MQRC_PROPERTY_NOT_AVAILABLE,
    MQRC_PROPERTY_TYPE_ERROR,
    MQRC_PROPERTY_VALUE_TOO_BIG,
    mqi_error,
)

__all__ = [
    "MAX_PROPERTY_NAME_LENGTH",
    "MessageHandle",
    "Property",
    "PropertyType",
    "PropertyValue",
    "canonical_name",
    "check_name",
    "convert",
    "make_property",
]

MAX_PROPERTY_NAME_LENGTH = 4095  # MQ_MAX_PROPERTY_NAME_LENGTH
# What MQINQMP/MQSETMP accept per value (IBM: properties of a message up to MAXMSGL).
MAX_PROPERTY_VALUE_LENGTH = 100 * 1024 * 1024

PropertyValue = bool | bytes | int | float | str | None


class PropertyType(IntEnum):
    """MQTYPE_* (cmqc.h values)."""

    NULL = 2
    BOOLEAN = 4
    BYTE_STRING = 8
    INT8 = 16
    INT16 = 32
    INT32 = 64
    INT64 = 128
    FLOAT32 = 256
    FLOAT64 = 512
    STRING = 1024


_INT_BITS = {
    PropertyType.INT8: 8,
    PropertyType.INT16: 16,
    PropertyType.INT32: 32,
    PropertyType.INT64: 64,
}
_FLOATS = (PropertyType.FLOAT32, PropertyType.FLOAT64)
_F32 = struct.Struct("<f")


@dataclass(frozen=True, slots=True)
class Property:
    """One message property (name canonical, value checked against its type)."""

    name: str
    type: PropertyType
    value: PropertyValue

    def same_as(self, other: Property) -> bool:
        """Equal by name, type and value (a NaN float equal to a NaN)."""
        if self.name != other.name or self.type != other.type:
            return False
        a, b = self.value, other.value
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return a == b


def _in_range(value: int, bits: int) -> bool:
    return -(1 << (bits - 1)) <= value < (1 << (bits - 1))


def make_property(name: str, type_: PropertyType | int, value: PropertyValue) -> Property:
    """A checked property (MQSETMP's checks): the name by IBM's rules (2442/2513), the
    type a known MQTYPE_* (2473), the value of that type and in its range (2473)."""
    name = canonical_name(check_name(name))
    try:
        kind = PropertyType(type_)
    except ValueError:
        raise mqi_error(MQRC_PROPERTY_TYPE_ERROR, f"{name}: type {type_}") from None
    return Property(name, kind, _checked_value(name, kind, value))


def _checked_value(name: str, kind: PropertyType, value: PropertyValue) -> PropertyValue:
    def bad(what: str) -> Exception:
        return mqi_error(MQRC_PROPERTY_TYPE_ERROR, f"{name}: {what}")

    if kind is PropertyType.NULL:
        if value is not None:
            raise bad("a null property has no value")
        return None
    if kind is PropertyType.BOOLEAN:
        if not isinstance(value, bool):
            raise bad(f"boolean value expected, got {type(value).__name__}")
        return value
    if kind in _INT_BITS:
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad(f"integer value expected, got {type(value).__name__}")
        if not _in_range(value, _INT_BITS[kind]):
            raise bad(f"{value} does not fit MQTYPE_{kind.name}")
        return value
    if kind in _FLOATS:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise bad(f"float value expected, got {type(value).__name__}")
        try:
            value = float(value)
        except OverflowError:  # an integer beyond any float
            raise bad(f"{value} does not fit MQTYPE_{kind.name}") from None
        if kind is PropertyType.FLOAT32:
            try:
                value = _F32.unpack(_F32.pack(value))[0]
            except OverflowError:
                raise bad(f"{value!r} does not fit MQTYPE_FLOAT32") from None
        return value
    if kind is PropertyType.BYTE_STRING:
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise bad(f"byte string expected, got {type(value).__name__}")
        value = bytes(value)
    elif not isinstance(value, str):
        raise bad(f"string expected, got {type(value).__name__}")
    elif any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise bad("a string property cannot hold lone surrogates")
    if len(value) > MAX_PROPERTY_VALUE_LENGTH:
        raise mqi_error(MQRC_PROPERTY_VALUE_TOO_BIG, f"{name}: {len(value)} bytes")
    return value


# -- names ------------------------------------------------------------------------------
_KEYWORDS = frozenset(
    {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"}
)
# The JMS names the MQI may set, and where they live (IBM "Property name restrictions").
JMS_SYNONYMS = {
    "JMSCorrelationID": "jms.Cid",
    "JMSReplyTo": "jms.Rto",
    "JMSType": "mcd.Type",
    "JMSXGroupID": "jms.Gid",
    "JMSXGroupSeq": "jms.Seq",
}


def _identifier_start(c: str) -> bool:
    return c.isalpha() or c in "_$" or _is_currency(c)


def _is_currency(c: str) -> bool:
    return unicodedata.category(c) == "Sc"


def _identifier_part(c: str) -> bool:
    return c.isalnum() or c in "_$" or _is_currency(c)


def check_name(name: str, *, wildcard: bool = False) -> str:
    """``name`` if IBM allows it as a property name, else MQIError 2442 or 2513.

    ``wildcard``: the name of an inquiry, which may end in ``%`` (all properties
    whose names begin with what is before it) or be ``%`` alone.
    """
    if not isinstance(name, str) or not name:
        raise mqi_error(MQRC_PROPERTY_NAME_LENGTH_ERR, "empty property name")
    if len(name) > MAX_PROPERTY_NAME_LENGTH:
        raise mqi_error(
            MQRC_PROPERTY_NAME_LENGTH_ERR, f"property name of {len(name)} characters (at most 4095)"
        )
    plain = name[:-1] if wildcard and name.endswith("%") else name
    if wildcard and not plain:
        return name

    def bad(why: str) -> Exception:
        return mqi_error(MQRC_PROPERTY_NAME_ERROR, f"{plain[:64]!r}: {why}")

    if any(ord(c) > 0xFFFF or 0xD800 <= ord(c) <= 0xDFFF for c in plain):
        raise bad("characters beyond the Basic Multilingual Plane")
    if plain.startswith(".") or (plain.endswith(".") and not wildcard):
        raise bad("'.' may not start or end a name")
    if ".." in plain:
        raise bad("'.' may not follow '.'")
    for part in plain.split("."):
        if part and not (_identifier_start(part[0]) and all(map(_identifier_part, part[1:]))):
            raise bad("not a Java identifier (letters, digits, '_', '$', '.')")
    upper = plain.upper()
    if upper in _KEYWORDS or (plain[:4] == "usr." and plain[4:].upper() in _KEYWORDS):
        raise bad("a selector keyword")
    if plain.startswith("usr.JMS"):
        raise bad("'usr.JMS' names are not valid")
    if plain.startswith("JMS") and plain not in JMS_SYNONYMS and not wildcard:
        raise bad("JMS names other than the MQI's synonyms are reserved")
    if plain.startswith(("Body", "Root")):
        raise bad(
            "names beginning 'Body' or 'Root' are reserved"
            + (
                " ('Root.MQMD.' names are not supported here)"
                if plain.startswith("Root.MQMD.")
                else ""
            )
        )
    if upper.startswith("MQ") and not upper.startswith("MQ_USR") and plain.count(".") > 1:
        raise bad("an 'mq' name may hold one '.' only")
    return name


def canonical_name(name: str) -> str:
    """The name a property is kept under: JMS synonyms by their folder names, a
    ``usr.`` prefix dropped (see the module docstring)."""
    name = JMS_SYNONYMS.get(name, name)
    if name.startswith("usr.") and len(name) > 4:
        return name[4:]
    return name


# -- conversion -------------------------------------------------------------------------
_HEX = re.compile(r"(?:[0-9A-Fa-f]{2})*")


def convert(prop: Property, wanted: PropertyType | int) -> Property:
    """``prop`` as type ``wanted`` (MQINQMP with MQIMPO_CONVERT_TYPE)."""
    try:
        want = PropertyType(wanted)
    except ValueError:
        raise mqi_error(MQRC_PROPERTY_TYPE_ERROR, f"type {wanted}") from None
    have, value = prop.type, prop.value
    if want is have or have is PropertyType.NULL:
        return prop

    def number_error() -> Exception:
        return mqi_error(
            MQRC_PROP_NUMBER_FORMAT_ERROR,
            f"{prop.name}: {str(value)[:64]!r} is not MQTYPE_{want.name}",
        )

    def out(v: PropertyValue) -> Property:
        try:
            return Property(prop.name, want, _checked_value(prop.name, want, v))
        except Exception:
            raise number_error() from None

    if have is PropertyType.BOOLEAN:
        if want is PropertyType.STRING:
            return out("TRUE" if value else "FALSE")
        if want in _INT_BITS:
            return out(int(bool(value)))
    elif have in _INT_BITS:
        assert isinstance(value, int)
        if want in _INT_BITS or want in _FLOATS:
            return out(value)
        if want is PropertyType.BOOLEAN:
            return out(value != 0)
        if want is PropertyType.STRING:
            return out(str(value))
    elif have in _FLOATS:
        assert isinstance(value, float)
        if want in _FLOATS:
            return out(value)
        if want is PropertyType.STRING:
            return out(format_float(value))
    elif have is PropertyType.BYTE_STRING:
        assert isinstance(value, bytes)
        if want is PropertyType.STRING:
            return out(value.hex().upper())
    elif have is PropertyType.STRING:
        assert isinstance(value, str)
        text = value.strip()
        if want is PropertyType.BOOLEAN:
            if text.upper() in ("TRUE", "1"):
                return out(True)
            if text.upper() in ("FALSE", "0"):
                return out(False)
            raise number_error()
        if want in _INT_BITS:
            if not re.fullmatch(r"[+-]?[0-9]+", text):
                raise number_error()
            return out(int(text))
        if want in _FLOATS:
            try:
                return out(parse_float(text))
            except (ValueError, OverflowError):
                raise number_error() from None
        if want is PropertyType.BYTE_STRING:
            if not _HEX.fullmatch(text):
                raise number_error()
            return out(bytes.fromhex(text))
    raise mqi_error(
        MQRC_PROP_CONV_NOT_SUPPORTED, f"{prop.name}: MQTYPE_{have.name} to MQTYPE_{want.name}"
    )


def format_float(value: float) -> str:
    """A float as text the way Java writes it for the special values (NaN, Infinity)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def parse_float(text: str) -> float:
    """Text to float: decimal or exponent notation, NaN, [+-]Infinity (ValueError if not).

    A number beyond a 64-bit float's range (``1e999``) is OverflowError, never infinity:
    only the words ``Infinity`` and ``inf`` stand for it (as Java writes it)."""
    if not re.fullmatch(
        r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
        r"|NaN|nan|[+-]?(?:Infinity|inf)",
        text,
    ):
        raise ValueError(text)
    value = float(text)
    if math.isinf(value) and "n" not in text:  # a number, not the word: out of range
        raise OverflowError(text)
    return value


# -- the handle -------------------------------------------------------------------------
class MessageHandle:
    """A message handle (MQCRTMH): properties in the order they were set.

    The inquiry cursor of MQIMPO_INQ_NEXT is the handle's: it moves to the property
    an inquiry returned, and starts again at the first with MQIMPO_INQ_FIRST or an
    inquiry of another name.
    """

    __slots__ = ("_cursor", "_deleted", "_props")

    def __init__(self, properties: Iterable[Property] = ()) -> None:
        self._props: dict[str, Property] = {p.name: p for p in properties}
        self._cursor: tuple[str, str] | None = None  # (pattern, last name returned)
        self._deleted = False

    # MQDLTMH
    def delete(self) -> None:
        """MQDLTMH: the handle is gone; any later call is MQRC_HMSG_ERROR."""
        self._props.clear()
        self._deleted = True

    def _check(self) -> None:
        if self._deleted:
            raise mqi_error(MQRC_HMSG_ERROR, "the message handle was deleted")

    @property
    def properties(self) -> tuple[Property, ...]:
        """What the handle holds, in order (what a put with it carries)."""
        self._check()
        return tuple(self._props.values())

    def replace_all(self, properties: Iterable[Property]) -> None:
        """What a get with MQGMO_PROPERTIES_IN_HANDLE does: the message's properties
        replace the handle's."""
        self._check()
        self._props = {p.name: p for p in properties}
        self._cursor = None

    # MQSETMP
    def set(
        self, name: str, value: PropertyValue, type_: PropertyType | int | None = None
    ) -> Property:
        """MQSETMP: set (or replace) a property. ``type_`` defaults from the value
        (bool, bytes, int as MQTYPE_INT64, float as MQTYPE_FLOAT64, str, None)."""
        self._check()
        if type_ is None:
            type_ = _type_of(value)
        prop = make_property(name, type_, value)
        prefix = prop.name + "."
        for other in self._props:
            if other != prop.name and (
                other.startswith(prefix) or prop.name.startswith(other + ".")
            ):
                raise mqi_error(
                    MQRC_PROPERTY_NAME_ERROR,
                    f"{prop.name!r} and {other!r}: a property cannot also be a"
                    " group of properties (mixed content)",
                )
        self._props[prop.name] = prop
        return prop

    # MQDLTMP
    def delete_property(self, name: str) -> None:
        """MQDLTMP: delete the first property that matches ``name`` (``%`` wildcard);
        MQRC_PROPERTY_NOT_AVAILABLE when none does."""
        self._check()
        for prop in self._matching(check_name(name, wildcard=True)):
            del self._props[prop.name]
            return
        raise mqi_error(MQRC_PROPERTY_NOT_AVAILABLE, name[:64])

    # MQINQMP
    def inquire(
        self,
        name: str = "%",
        *,
        next: bool = False,
        under_cursor: bool = False,
        type_: PropertyType | int | None = None,
    ) -> Property:
        """MQINQMP: the first property matching ``name`` (``next``: MQIMPO_INQ_NEXT, the
        one after the last returned for the same name; ``under_cursor``:
        MQIMPO_INQ_PROP_UNDER_CURSOR, the one the last inquiry returned, or failed on
        because its value did not fit), converted to ``type_`` when given
        (MQIMPO_CONVERT_TYPE). MQRC_PROPERTY_NOT_AVAILABLE (2471) when there is none."""
        self._check()
        pattern = check_name(name, wildcard=True)
        if under_cursor:
            current = self._props.get(self._cursor[1]) if self._cursor is not None else None
            if current is None:
                raise mqi_error(MQRC_PROPERTY_NOT_AVAILABLE, "no property under the cursor")
            return current if type_ is None else convert(current, type_)
        after = (
            self._cursor[1]
            if next and self._cursor is not None and self._cursor[0] == pattern
            else None
        )
        matches = self._matching(pattern)
        if after is not None:
            names = [p.name for p in matches]
            matches = matches[names.index(after) + 1 :] if after in names else []
        if not matches:
            raise mqi_error(MQRC_PROPERTY_NOT_AVAILABLE, name[:64])
        found = matches[0]
        self._cursor = (pattern, found.name)
        return found if type_ is None else convert(found, type_)

    def _matching(self, pattern: str) -> list[Property]:
        if pattern.endswith("%"):
            stem, usr_only = pattern[:-1], pattern.startswith("usr.")
            if usr_only:
                stem = stem[4:]
            return [
                p
                for p in self._props.values()
                if p.name.startswith(stem) and (not usr_only or _in_usr(p.name))
            ]
        wanted = canonical_name(pattern)
        prop = self._props.get(wanted)
        return [] if prop is None else [prop]


# Folders that are not ``usr``: a name beginning with one of these is in that folder.
PROPERTY_FOLDERS = frozenset({"jms", "mcd", "mqext", "mq", "mq_usr", "mqps"})
# Every MQRFH2 folder whose elements are message properties (the others are data).
ALL_PROPERTY_FOLDERS = PROPERTY_FOLDERS | {"usr"}


def _in_usr(name: str) -> bool:
    # IBM maps ``folder.name`` to a folder of its own, whatever the folder: only a name
    # without a dot is in <usr> (see dlqhandler.mq.rfh2.folder_of).
    return "." not in name


def _type_of(value: PropertyValue) -> PropertyType:
    if value is None:
        return PropertyType.NULL
    if isinstance(value, bool):
        return PropertyType.BOOLEAN
    if isinstance(value, (bytes, bytearray, memoryview)):
        return PropertyType.BYTE_STRING
    if isinstance(value, int):
        return PropertyType.INT64
    if isinstance(value, float):
        return PropertyType.FLOAT64
    if isinstance(value, str):
        return PropertyType.STRING
    raise mqi_error(MQRC_PROPERTY_TYPE_ERROR, f"no property type for {type(value).__name__}")
