"""A message's MQMD as it is stored: one image, encoded at MQPUT, decoded at MQGET.

A browse then a get of the same message decode the same stored image once, and
a pass-all put of the MQMD a get returned reuses that image instead of encoding
it again. What MQGET returns beside the image is worked out here too: the
stored BackoutCount, the Expiry left, the message's properties.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD, decode_mqmd, encode_mqmd
from dlqhandler.qmgr.embedded.handle import StoredRow
from dlqhandler.qmgr.embedded.propctl import decode_stored

__all__ = ["encode_image", "stored_message"]

_decode_image = functools.lru_cache(maxsize=64)(decode_mqmd)
# The MQMDs MQGET returned unchanged, with the image they came from: {id(md): (md, image)}.
_IMAGES: dict[int, tuple[MQMD, bytes]] = {}
_IMAGES_MAX = 64


def encode_image(md: MQMD) -> bytes:
    """The stored image of ``md`` (the one it was read from, when a get returned it)."""
    known = _IMAGES.get(id(md))
    return known[1] if known is not None and known[0] is md else encode_mqmd(md)


def stored_message(row: StoredRow, clock: Callable[[], float]) -> Message:
    """A stored row as MQGET returns it: BackoutCount, remaining Expiry, properties."""
    image, body, backout_count, expires_at, props = row
    md = _decode_image(image := bytes(image))
    changes: dict[str, int] = {}
    if backout_count != md.backout_count:
        changes["backout_count"] = backout_count
    if expires_at is not None:
        remaining = (expires_at - clock()) * 10
        changes["expiry"] = max(1, math.ceil(round(remaining, 6)))
    properties = () if props is None else decode_stored(bytes(props))
    if changes:
        return Message(md.replace(**changes), bytes(body), None, properties)
    if len(_IMAGES) >= _IMAGES_MAX:
        _IMAGES.clear()
    _IMAGES[id(md)] = (md, image)
    return Message(md, bytes(body), None, properties)
