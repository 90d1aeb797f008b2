"""The MQ data model: constants, MQMD/MQDLH/MQRFH2 codecs, the Message value object,
groups, ages and MQ's naming rules.

The lowest floor: it imports only :mod:`dlqhandler.errors`, never a queue manager, a file
format, the rules or a third-party MQ client."""

from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.mq.mqdlh import MQDLH, MQDLH_LENGTH_1, decode_mqdlh, encode_mqdlh
from dlqhandler.mq.mqmd import MQMD, MQMD_LENGTH_1, MQMD_LENGTH_2, decode_mqmd, encode_mqmd

__all__ = [
    "MQDLH",
    "MQDLH_LENGTH_1",
    "MQMD",
    "MQMD_LENGTH_1",
    "MQMD_LENGTH_2",
    "Message",
    "decode_dead_letter",
    "decode_mqdlh",
    "decode_mqmd",
    "encode_mqdlh",
    "encode_mqmd",
]
