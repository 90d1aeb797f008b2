"""The ``dmpmqmsg`` data source and message properties: dead letters with an MQRFH2 in
FRONT of the MQDLH (MQMD Format MQHRF2; what a DLQ defined PROPCTL(FORCE) gives and
IBM's dmpmqmsg unloads) and JMS dead letters with one behind it.

* ``has_dlh``, ``dlh_error``, the ``dlh_*`` columns, ``rfh2_in_front`` and
  ``property_folders`` equal the Python reader's decode
  (``decode_dead_letter(...)`` and ``decode_rfh2``), for valid
  headers in both byte orders, UTF-8 and UTF-16 NameValueCCSID, and for damaged ones
  (the same words, the same byte);
* ``strip_dlh`` writes what :func:`dlqhandler.mq.message.stripped_data` builds, byte
  for byte: the MQRFH2 kept, told what follows it, the MQDLH removed;
* the property columns are not decoded unless selected (ReadSchema).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats.dmpmqmsg import DumpWriter, read_dump, write_dump
from dlqhandler.mq.message import Message, decode_dead_letter, stripped_data
from tests.spark.props_dumps import damaged_in_front, property_columns, valid_in_front

pytestmark = pytest.mark.spark

DLH = [
    "reason",
    "dest_q_name",
    "dest_q_mgr_name",
    "encoding",
    "coded_char_set_id",
    "format",
    "put_appl_type",
    "put_appl_name",
    "put_date",
    "put_time",
]
COLUMNS = [
    "md_msg_id",
    "has_dlh",
    "dlh_error",
    *[f"dlh_{n}" for n in DLH],
    "rfh2_in_front",
    "property_folders",
    "malformed",
]


def _python(m: Message) -> dict[str, Any]:
    row: dict[str, Any] = {"md_msg_id": m.md.msg_id}
    try:
        dlh = decode_dead_letter(m.md, m.body).dlh
    except MalformedMessageError as exc:
        row |= {"has_dlh": False, "dlh_error": str(exc)} | {f"dlh_{n}": None for n in DLH}
    else:
        assert dlh is not None
        row |= {"has_dlh": True, "dlh_error": None} | {f"dlh_{n}": getattr(dlh, n) for n in DLH}
    return row | property_columns(m) | {"malformed": None}


def _spark(spark: Any, path: Path) -> list[dict[str, Any]]:
    rows = spark.read.format("dmpmqmsg").load(str(path)).orderBy("offset").select(*COLUMNS)
    return [
        {k: bytes(v) if isinstance(v, bytearray) else v for k, v in r.asDict().items()}
        for r in rows.collect()
    ]


def _compare(spark: Any, path: Path, messages: list[Message]) -> list[dict[str, Any]]:
    got = _spark(spark, path)
    want = [_python(m) for m in read_dump(path)]
    assert len(got) == len(want) == len(messages)
    for g, w in zip(got, want, strict=True):
        assert g == w, w["md_msg_id"].hex()
    return got


def test_valid_headers_in_front_decode_as_python(spark: Any, tmp_path: Path) -> None:
    """The mixed backlog with an MQRFH2 of properties in front of every MQDLH (big- and
    little-endian, EBCDIC, UTF-8 and UTF-16 folders, own and inherited CCSID): every
    column equals the Python decode; each such message has its MQDLH, the header's
    length in rfh2_in_front and the folders it carries."""
    messages = valid_in_front(160, seed=25)
    path = tmp_path / "front.dmp"
    write_dump(path, messages)
    got = _compare(spark, path, messages)
    front = [r for r in got if r["rfh2_in_front"]]
    assert len(front) > 80
    assert all(r["has_dlh"] for r in front)
    assert {tuple(r["property_folders"]) for r in front} >= {
        (),
        ("usr",),
        ("jms", "mcd", "usr"),
        ("mqext",),  # (its grp.x.y is in a <grp> folder of its own, as IBM maps it)
    }
    behind = [r for r in got if r["rfh2_in_front"] == 0 and r["property_folders"]]
    assert behind  # JMS dead letters: their MQRFH2 behind the MQDLH


def test_damaged_headers_in_front_are_refused_as_python(spark: Any, tmp_path: Path) -> None:
    """Damaged MQRFH2s in front (the fixed part, folder lengths, NameValueData text,
    XML, property types and values, a non-property folder, no MQDLH behind) and random
    bytes flipped in valid ones: has_dlh false with the Python reader's words and byte
    offset, or, where the damage leaves a valid header, the same columns as Python."""
    messages = damaged_in_front(seed=7)
    path = tmp_path / "damaged.dmp"
    write_dump(path, messages)
    got = _compare(spark, path, messages)
    refused = [r for r in got if not r["has_dlh"]]
    assert len(refused) > len(messages) // 3
    problems = " ".join(r["dlh_error"] for r in refused)
    for words in (
        "bad StrucLength",
        "runs past the end of the header",
        "NameValueData not valid in CCSID 1208: invalid start byte",
        "NameValueData not valid in CCSID 1200",
        "unknown property type dt='i9'",
        "is not a valid dt='i4' value",
        "end tag does not close <a>",
        "which is not message properties",
        "not 'MQDEAD': no MQDLH behind it",
        "behind the MQRFH2 (StrucLength 36), data does not start with an MQDLH",
        "is no character",
        "'&' that is not one of XML's five entities",
    ):
        assert words in problems, words


def _written(spark: Any, path: Path, out: Path) -> bytes:
    """Every message with an MQDLH written with strip_dlh to one target; the messages
    of the part file (its header cut)."""
    from pyspark.sql import functions as F

    (
        spark.read.format("dmpmqmsg")
        .load(str(path))
        .filter(F.col("has_dlh"))
        .withColumn("target", F.lit("S"))
        .withColumn("strip_dlh", F.lit(True))
        .coalesce(1)
        .write.format("dmpmqmsg")
        .partitionBy("target")
        .save(str(out))
    )
    (part,) = (out / "target=S").glob("part-*.dmp")
    return part.read_bytes().split(b"\n\n", 1)[1]


def test_strip_keeps_the_mqrfh2_in_front_byte_for_byte(spark: Any, tmp_path: Path) -> None:
    """strip_dlh (RETRY, FWD HEADER(NO)) of a dead letter with its MQRFH2 in front writes
    what stripped_data builds: the MQMD as it was (Format MQHRF2), the MQRFH2's bytes
    but its Encoding, CCSID and Format (the MQDLH's), then the data behind the MQDLH;
    an ordinary dead letter loses its MQDLH as before. Byte for byte, in both byte
    orders and with UTF-16 folders."""
    messages = valid_in_front(120, seed=11)
    path = tmp_path / "front.dmp"
    write_dump(path, messages)
    got = _written(spark, path, tmp_path / "out")
    want = io.BytesIO()
    kept = 0
    with DumpWriter(want, header=False) as writer:
        for m in read_dump(path):
            try:
                md, data = stripped_data(m.md, m.body)
            except MalformedMessageError:
                continue
            writer.write(Message(md, data))
            kept += 1
    assert got == want.getvalue()
    front = [m for m in read_dump(path) if m.md.format == "MQHRF2"]
    assert len(front) > 50
    for m in front:
        md, data = stripped_data(m.md, m.body)
        decoded = decode_dead_letter(m.md, m.body)
        end = len(m.body) - len(decoded.body)
        assert decoded.dlh is not None
        assert md == m.md
        assert data[:12] == m.body[:12]
        assert data[28:end] == m.body[28:end]  # the folders, byte for byte
        assert data[end:] == decoded.payload


def test_property_columns_are_decoded_only_when_selected(spark: Any, tmp_path: Path) -> None:
    """A query of the MQDLH columns does not scan rfh2_in_front or property_folders, and a
    count of messages by folder reads only that column (ReadSchema)."""
    from pyspark.sql import functions as F

    path = tmp_path / "front.dmp"
    write_dump(path, valid_in_front(20, seed=3))
    df = spark.read.format("dmpmqmsg").load(str(path))
    plan = df.groupBy("dlh_reason").count()._jdf.queryExecution().executedPlan().toString()
    schema = plan[plan.index("ReadSchema:") :].split("\n")[0]
    assert "property_folders" not in schema
    assert "rfh2_in_front" not in schema
    folders = df.select(F.explode("property_folders").alias("f")).groupBy("f").count()
    plan = folders._jdf.queryExecution().executedPlan().toString()
    schema = plan[plan.index("ReadSchema:") :].split("\n")[0]
    assert "property_folders" in schema
    assert "record" not in schema
    assert "body" not in schema
    assert sum(r["count"] for r in folders.collect()) > 0
