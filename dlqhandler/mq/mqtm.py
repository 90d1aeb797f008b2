"""MQTM, the trigger message, and MQTMC2, its character form for started applications.

A queue manager writes an MQTM (684 bytes, Format ``MQTRIG``) on an
initiation queue when a trigger event occurs. A trigger monitor reads it and
starts the application, passing an MQTMC2: the same fields as characters,
with the integers replaced (Version ``"   2"``, ApplType always blanks) and the
queue manager name added at the end, 732 characters in all. On UNIX the
trigger monitor passes it as one argument, which is what
:meth:`MQTMC2.from_argv` parses (a triggered ``dlqhandler run`` takes its
queue and queue manager from there).

Layouts (IBM MQ ``cmqc.h``)::

    MQTM   StrucId 'TM  '  MQCHAR4    MQTMC2  StrucId 'TMC '  MQCHAR4
           Version 1       MQLONG             Version '   2'  MQCHAR4
           QName           MQCHAR48           QName           MQCHAR48
           ProcessName     MQCHAR48           ProcessName     MQCHAR48
           TriggerData     MQCHAR64           TriggerData     MQCHAR64
           ApplType        MQLONG             ApplType        MQCHAR4 (blanks)
           ApplId          MQCHAR256          ApplId          MQCHAR256
           EnvData         MQCHAR128          EnvData         MQCHAR128
           UserData        MQCHAR128          UserData        MQCHAR128
                                              QMgrName        MQCHAR48

Text fields hold canonical text (cut at the first NUL, trailing blanks
removed), as everywhere in :mod:`dlqhandler.mq`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from dlqhandler.errors import DecodeError
from dlqhandler.mq._struct import Field, Layout
from dlqhandler.mq.ccsid import QMGR_CCSID, int_order

__all__ = [
    "MQFMT_TRIGGER",
    "MQTM",
    "MQTMC2",
    "MQTMC2_LENGTH_1",
    "MQTMC2_LENGTH_2",
    "MQTMC_STRUC_ID",
    "MQTM_LENGTH_1",
    "MQTM_STRUC_ID",
    "decode_mqtm",
    "decode_mqtmc2",
    "encode_mqtm",
    "encode_mqtmc2",
    "looks_like_mqtmc2",
]

MQTM_STRUC_ID = "TM  "
MQTM_VERSION_1 = 1
MQTM_LENGTH_1 = 684
MQTMC_STRUC_ID = "TMC "
MQTMC2_LENGTH_1 = 684  # version "   1": no QMgrName
MQTMC2_LENGTH_2 = 732
MQFMT_TRIGGER = "MQTRIG"  # canonical form of "MQTRIG  "
_MQENC_NATIVE = 546

_COMMON = (
    Field("q_name", "QName", "char", 48),
    Field("process_name", "ProcessName", "char", 48),
    Field("trigger_data", "TriggerData", "char", 64),
)
_TAIL = (
    Field("appl_id", "ApplId", "char", 256),
    Field("env_data", "EnvData", "char", 128),
    Field("user_data", "UserData", "char", 128),
)
LAYOUT = Layout(
    "MQTM",
    (
        Field("struc_id", "StrucId", "char", 4),
        Field("version", "Version", "long"),
        *_COMMON,
        Field("appl_type", "ApplType", "long"),
        *_TAIL,
    ),
)
LAYOUT_C2 = Layout(
    "MQTMC2",
    (
        Field("struc_id", "StrucId", "char", 4),
        Field("version", "Version", "char", 4),
        *_COMMON,
        Field("appl_type", "ApplType", "char", 4),
        *_TAIL,
        Field("q_mgr_name", "QMgrName", "char", 48),
    ),
)
assert LAYOUT.size == MQTM_LENGTH_1
assert LAYOUT_C2.size == MQTMC2_LENGTH_2
# Character offsets and lengths of MQTMC2 fields (one character per byte).
_C2_FIELDS = tuple((f.attr, LAYOUT_C2.offsets[f.attr], f.length) for f in LAYOUT_C2.fields)


@dataclass(frozen=True, slots=True)
class MQTM:
    """A decoded trigger message (``appl_type`` is an MQAT_* value, 6 = UNIX)."""

    q_name: str = ""
    process_name: str = ""
    trigger_data: str = ""
    appl_type: int = 0
    appl_id: str = ""
    env_data: str = ""
    user_data: str = ""
    version: int = MQTM_VERSION_1

    def replace(self, **changes: Any) -> MQTM:
        return dataclasses.replace(self, **changes)

    def to_mqtmc2(self, q_mgr_name: str) -> MQTMC2:
        """The MQTMC2 a trigger monitor passes on: ApplType blank, QMgrName added."""
        return MQTMC2(
            q_name=self.q_name,
            process_name=self.process_name,
            trigger_data=self.trigger_data,
            appl_id=self.appl_id,
            env_data=self.env_data,
            user_data=self.user_data,
            q_mgr_name=q_mgr_name,
        )


def encode_mqtm(tm: MQTM, *, encoding: int = _MQENC_NATIVE, ccsid: int = QMGR_CCSID) -> bytes:
    """The 684-byte image of ``tm``; integers in ``encoding``, text in ``ccsid``.

    Raises :class:`DecodeError` when a field does not fit (QName over 48 bytes...).
    """
    values = {f.name: getattr(tm, f.name) for f in dataclasses.fields(tm)}
    values["struc_id"] = MQTM_STRUC_ID
    return LAYOUT.pack(values, int_order(encoding), ccsid)


def decode_mqtm(data: bytes, *, encoding: int = _MQENC_NATIVE, ccsid: int = QMGR_CCSID) -> MQTM:
    """Decode the MQTM at the start of ``data`` (a trigger message's body).

    Raises :class:`DecodeError` (keeping the bytes) when ``data`` is shorter
    than 684 bytes or does not hold a version-1 MQTM.
    """
    raw = bytes(data)
    if len(raw) < MQTM_LENGTH_1:
        raise DecodeError(
            f"message data is {len(raw)} bytes, shorter than an MQTM (684)",
            raw=raw,
            offset=len(raw),
        )
    order = int_order(encoding, version_probe=raw[4:8])
    values = LAYOUT.unpack(raw, order, ccsid)
    if values.pop("struc_id") != MQTM_STRUC_ID.rstrip():
        raise DecodeError(
            f"data does not start with an MQTM (StrucId is {raw[:4]!r}, "
            f"expected 'TM  ' in CCSID {ccsid})",
            raw=raw,
            offset=0,
        )
    if values["version"] != MQTM_VERSION_1:
        raise DecodeError(f"MQTM Version {values['version']} is not 1", raw=raw, offset=4)
    return MQTM(**values)


@dataclass(frozen=True, slots=True)
class MQTMC2:
    """The character form of a trigger message, as a trigger monitor passes it.

    ``version`` is 2 (732 characters, with QMgrName) or 1 (684, without).
    ``appl_type`` is the MQCHAR4 field, blanks in everything IBM MQ writes.
    """

    q_name: str = ""
    process_name: str = ""
    trigger_data: str = ""
    appl_id: str = ""
    env_data: str = ""
    user_data: str = ""
    q_mgr_name: str = ""
    appl_type: str = ""
    version: int = 2

    def replace(self, **changes: Any) -> MQTMC2:
        return dataclasses.replace(self, **changes)

    @property
    def length(self) -> int:
        return MQTMC2_LENGTH_2 if self.version == 2 else MQTMC2_LENGTH_1

    def to_argv(self) -> str:
        """The structure as one command-line argument: every field blank padded.

        Raises :class:`DecodeError` when a field is longer than its length.
        """
        values = self._values()
        parts = []
        for attr, _offset, length in _C2_FIELDS:
            if attr == "q_mgr_name" and self.version == 1:
                break
            text = values[attr]
            if len(text) > length or "\x00" in text:
                raise DecodeError(f"MQTMC2.{attr}: {text!r} does not fit {length} characters")
            parts.append(text.ljust(length))
        return "".join(parts)

    @classmethod
    def from_argv(cls, arg: str) -> MQTMC2:
        """Parse the MQTMC2 a trigger monitor passed as an argument.

        The argument starts with ``TMC `` and Version ``   2`` (732 characters)
        or ``   1`` (684, no QMgrName). A shorter argument is padded with
        blanks (a shell or a person may have dropped trailing blanks); a
        longer one, or one that is not an MQTMC2, raises :class:`DecodeError`.
        Field text is canonical (cut at a NUL, trailing blanks removed); names
        are not validated here.
        """
        raw = arg.encode("utf-8", "surrogateescape")
        if not arg.startswith(MQTMC_STRUC_ID):
            raise DecodeError(
                f"not an MQTMC2: does not start with 'TMC ' ({arg[:8]!r})", raw=raw, offset=0
            )
        version = _c2_version(arg[4:8])
        if version is None:
            raise DecodeError(
                f"MQTMC2 Version {arg[4:8]!r} is not '   1' or '   2'", raw=raw, offset=4
            )
        limit = MQTMC2_LENGTH_2 if version == 2 else MQTMC2_LENGTH_1
        if len(arg) > limit:
            raise DecodeError(
                f"MQTMC2 version {version} is {limit} characters, the argument has {len(arg)}",
                raw=raw,
                offset=limit,
            )
        text = arg.ljust(limit)
        values: dict[str, Any] = {}
        for attr, offset, length in _C2_FIELDS:
            if offset >= limit or attr in ("struc_id", "version"):
                continue
            field = text[offset : offset + length]
            nul = field.find("\x00")
            values[attr] = (field[:nul] if nul >= 0 else field).rstrip(" ")
        return cls(version=version, **values)

    def _values(self) -> dict[str, str]:
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        values["struc_id"] = MQTMC_STRUC_ID
        values["version"] = f"{self.version:>4}"
        return values


def _c2_version(field: str) -> int | None:
    return {"   1": 1, "   2": 2}.get(field)


def encode_mqtmc2(tmc: MQTMC2, *, ccsid: int = QMGR_CCSID) -> bytes:
    """The binary MQTMC2 (732 bytes, or 684 for version 1) in ``ccsid``."""
    if tmc.version not in (1, 2):
        raise DecodeError(f"MQTMC2 Version {tmc.version} is not 1 or 2")
    image = LAYOUT_C2.pack(tmc._values(), "<", ccsid)
    return image[: tmc.length]


def decode_mqtmc2(data: bytes, *, ccsid: int = QMGR_CCSID) -> MQTMC2:
    """Decode a binary MQTMC2 (version 2: 732 bytes; version 1: 684)."""
    raw = bytes(data)
    if len(raw) < 8:
        raise DecodeError("MQTMC2 truncated before Version", raw=raw, offset=len(raw))
    head = LAYOUT_C2.unpack(raw.ljust(LAYOUT_C2.size, b"\x00"), "<", ccsid)
    if head.pop("struc_id") != MQTMC_STRUC_ID.rstrip():
        raise DecodeError(
            f"data does not start with an MQTMC2 (StrucId is {raw[:4]!r})", raw=raw, offset=0
        )
    version = _c2_version(head.pop("version"))
    if version is None:
        raise DecodeError(f"MQTMC2 Version {raw[4:8]!r} is not '   1' or '   2'", raw=raw, offset=4)
    need = MQTMC2_LENGTH_2 if version == 2 else MQTMC2_LENGTH_1
    if len(raw) < need:
        raise DecodeError(
            f"MQTMC2 version {version} needs {need} bytes, have {len(raw)}",
            raw=raw,
            offset=len(raw),
        )
    if version == 1:
        head["q_mgr_name"] = ""
    return MQTMC2(version=version, **head)


def looks_like_mqtmc2(arg: str) -> bool:
    """True when a command-line argument is an MQTMC2 (what a trigger monitor passes).

    runmqdlq-style programs use this to tell ``run "<MQTMC2>"`` from
    ``run INPUTQ [INPUTQM]``: no queue name starts with ``TMC `` (a blank is
    not valid in MQ names).
    """
    return arg.startswith(MQTMC_STRUC_ID) and _c2_version(arg[4:8]) is not None
