"""MQGMO_CONVERT's conversion (dlqhandler.qmgr.embedded.conversion) of the MQ header
formats: each header field by field, then the data after it by its own Format.

IBM, Processing conventions (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=exit-processing-conventions)
lists the built-in formats the queue manager converts ("MQFMT_DEAD_LETTER_HEADER",
"MQFMT_RF_HEADER_2", "MQFMT_STRING", "MQFMT_XMIT_Q_HEADER"); MQMD Format
(https://www.ibm.com/docs/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097520_.html): MQFMT_NONE
data "at the end of the message (that is, preceded by one or more MQ header structures)"
gives "Completion code MQCC_OK" and "The MQ header structures are converted".
"""

from __future__ import annotations

from dlqhandler.mq import MQMD
from dlqhandler.mq.mqdlh import MQDLH, decode_mqdlh, encode_mqdlh
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.mq.rfh2 import MQRFH2, decode_rfh2, encode_rfh2, folders_of
from dlqhandler.qmgr.embedded.conversion import convert
from dlqhandler.qmgr.embedded.xqh import decode_xqh, encode_xqh


def test_mqfmt_none_after_an_mqdlh_is_left_and_the_header_converted() -> None:
    """MQDEAD whose data after the MQDLH is MQFMT_NONE: the MQDLH in the target CCSID and
    encoding, the bytes after it untouched, MQCC_OK (reason 0).
    IBM, MQMD Format (https://www.ibm.com/docs/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097520_.html):
    "The MQ header structures are converted"."""
    dlh = MQDLH(reason=2085, dest_q_name="GONE", coded_char_set_id=819, format="")
    body = encode_mqdlh(dlh, encoding=546, ccsid=819) + b"\x00\x01\xff"
    out = convert(MQMD(format="MQDEAD", coded_char_set_id=819), body, ccsid=500, encoding=273)
    assert (out.reason, out.md.coded_char_set_id, out.md.encoding) == (0, 500, 273)
    got = decode_mqdlh(out.body, encoding=273, ccsid=500)
    assert (got.reason, got.dest_q_name, got.coded_char_set_id) == (2085, "GONE", 819)
    assert out.body[172:] == b"\x00\x01\xff"


def test_an_mqrfh2_is_converted_and_its_name_value_data_kept() -> None:
    """MQHRF2 then MQSTR: the MQRFH2 fixed part in the target encoding, its folders still
    readable (NameValueData stays in NameValueCCSID 1208), the string after it converted.
    IBM, Processing conventions
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=exit-processing-conventions):
    "MQFMT_RF_HEADER_2"."""
    rfh2 = MQRFH2(
        encoding=546,
        coded_char_set_id=819,
        format="MQSTR",
        folders=folders_of((Property("Color", PropertyType.STRING, "red"),)),
    )
    body = encode_rfh2(rfh2, encoding=546, ccsid=819) + "Grüße".encode("latin-1")
    out = convert(MQMD(format="MQHRF2", coded_char_set_id=819), body, ccsid=1208, encoding=273)
    assert (out.reason, out.md.encoding) == (0, 273)
    got, end = decode_rfh2(out.body, encoding=273, ccsid=1208)
    assert (got.coded_char_set_id, got.encoding, got.format) == (1208, 273, "MQSTR")
    assert got.folders == rfh2.folders
    assert out.body[end:] == "Grüße".encode()


def test_an_mqxqh_and_its_mqmd_are_converted_the_message_after_it_is_not() -> None:
    """MQXMIT: the MQXQH and the MQMD inside it in the target CCSID and encoding; the
    message data after it as it was (it is the remote queue manager's to convert).
    IBM, Processing conventions
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=exit-processing-conventions):
    "MQFMT_XMIT_Q_HEADER"."""
    inner = MQMD(format="MQSTR", coded_char_set_id=819, reply_to_q="R")
    body = encode_xqh("APP.IN", "QM2", inner) + "é".encode("latin-1")
    out = convert(MQMD(format="MQXMIT", coded_char_set_id=819), body, ccsid=500, encoding=273)
    assert out.reason == 0
    xqh, rest = decode_xqh(out.body, encoding=273, ccsid=500)
    assert (xqh.remote_q_name, xqh.remote_q_mgr_name, xqh.md.reply_to_q) == ("APP.IN", "QM2", "R")
    assert rest == "é".encode("latin-1")


def test_data_after_a_header_that_cannot_be_converted_keeps_its_description() -> None:
    """MQDLH then MQSTR with a character the target lacks: the MQDLH converted, the data
    after it unconverted with the MQDLH's CodedCharSetId still 1208, MQRC_NOT_CONVERTED.
    IBM, MQMD Format (https://www.ibm.com/docs/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097520_.html):
    "The MQ header structures are converted"."""
    dlh = MQDLH(reason=2053, coded_char_set_id=1208, format="MQSTR")
    body = encode_mqdlh(dlh, encoding=546, ccsid=819) + "€".encode()
    out = convert(MQMD(format="MQDEAD", coded_char_set_id=819), body, ccsid=500, encoding=546)
    assert (out.reason, out.md.coded_char_set_id) == (2119, 500)
    got = decode_mqdlh(out.body, encoding=546, ccsid=500)
    assert (got.coded_char_set_id, out.body[172:]) == (1208, "€".encode())
