"""MQ object-name rules: queue and queue-manager names.

Names taken from messages (``DestQName``, ``ReplyToQ``...) are untrusted: a
substituted forward target must be checked before it is used. A queue or
queue-manager name is 1 to 48 characters of ``A-Z a-z 0-9 . / _ %``; a blank
queue-manager name means the local queue manager.
"""

from __future__ import annotations

import re

__all__ = [
    "MQ_CHANNEL_NAME_LENGTH",
    "MQ_NAME_CHARS",
    "MQ_Q_MGR_NAME_LENGTH",
    "MQ_Q_NAME_LENGTH",
    "NAME_RULE",
    "is_valid_qmgr_name",
    "is_valid_queue_name",
    "validate_channel_name",
    "validate_qmgr_name",
    "validate_queue_name",
]

MQ_Q_NAME_LENGTH = 48
MQ_Q_MGR_NAME_LENGTH = 48
MQ_CHANNEL_NAME_LENGTH = 20
MQ_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%"

NAME_RULE = "1-48 characters of A-Z a-z 0-9 . / _ %"  # the rule, as messages state it

_NAME = re.compile(r"[A-Za-z0-9./_%]{1,48}")


def is_valid_queue_name(name: str) -> bool:
    """True when ``name`` is a usable queue name (1-48 valid characters)."""
    return _NAME.fullmatch(name) is not None


def is_valid_qmgr_name(name: str) -> bool:
    """True when ``name`` is a non-blank, valid queue-manager name."""
    return _NAME.fullmatch(name) is not None


def _why(name: str, limit: int) -> str:
    if not name.strip(" "):
        return "is blank"
    if len(name) > limit:
        return f"is {len(name)} characters long (at most {limit})"
    bad = sorted({c for c in name if c not in MQ_NAME_CHARS})
    shown = ", ".join(repr(c) for c in bad[:5])
    return f"contains characters not allowed in MQ names ({shown})"


def validate_queue_name(name: str, what: str = "queue name") -> str:
    """``name`` if it is a valid queue name, else ``ValueError`` saying why.

    ``what`` names the value in the message (``"DestQName"``, ``"FWDQ"``...).
    """
    if is_valid_queue_name(name):
        return name
    raise ValueError(f"{what} {name!r} {_why(name, MQ_Q_NAME_LENGTH)}")


def validate_qmgr_name(name: str, what: str = "queue manager name") -> str:
    """``name`` if valid, ``""`` if blank (the local queue manager), else ``ValueError``."""
    if not name.strip(" "):
        return ""
    if is_valid_qmgr_name(name):
        return name
    raise ValueError(f"{what} {name!r} {_why(name, MQ_Q_MGR_NAME_LENGTH)}")


def validate_channel_name(name: str, what: str = "channel name") -> str:
    """``name`` if it is a valid channel name (1-20 characters of the MQ name set), else
    ``ValueError`` saying why: IBM's library would truncate or refuse a longer one."""
    if name and len(name) <= MQ_CHANNEL_NAME_LENGTH and all(c in MQ_NAME_CHARS for c in name):
        return name
    raise ValueError(
        f"{what} {name!r} {_why(name, MQ_CHANNEL_NAME_LENGTH)}: not a valid MQ "
        f"channel name (1-{MQ_CHANNEL_NAME_LENGTH} characters of "
        "A-Z a-z 0-9 . / _ %)"
    )
