"""MQ constants: generated from the spec JSON, with lookups both ways."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dlqhandler.mq import constants as c
from dlqhandler.mq._generate_constants import SOURCE, render


def test_reason_code_lookups_both_ways() -> None:
    """2053 <-> MQRC_Q_FULL, and feedback codes resolve too."""
    assert c.MQRC_Q_FULL == 2053
    assert c.reason_name(2053) == "MQRC_Q_FULL"
    assert c.name_to_value("MQRC_Q_FULL") == 2053
    assert c.reason_name(258) == "MQFB_EXPIRATION"
    assert c.reason_name(123456) == "MQRC_123456"


def test_aliases_and_range_markers_resolve_to_real_names() -> None:
    """A value shared by an alias or a range marker reads back as the code name."""
    assert c.value_to_name("MQRC", 2192) in {"MQRC_PAGESET_FULL", "MQRC_STORAGE_MEDIUM_FULL"}
    assert c.value_to_name("MQMT", 1) == "MQMT_REQUEST"
    assert c.value_to_name("MQPER", 1) == "MQPER_PERSISTENT"


def test_masks_are_signed_mqlongs() -> None:
    """Masks stored unsigned in the JSON become signed 32-bit values."""
    assert c.MQENC_RESERVED_MASK == -4096


def test_family_of_rejects_unknown_names() -> None:
    """Unknown names and wrong prefixes give None / KeyError."""
    assert c.family_of("MQFB_COA") == "MQFB"
    assert c.family_of("MQRC_NOT_A_THING") is None
    with pytest.raises(KeyError):
        c.name_to_value("MQXX_FOO")


def test_every_family_is_present() -> None:
    """All twelve families the foundation issue names are generated."""
    assert set(c.FAMILIES) == {
        "MQRC",
        "MQFB",
        "MQAT",
        "MQMT",
        "MQPER",
        "MQFMT",
        "MQENC",
        "MQCCSI",
        "MQEI",
        "MQMF",
        "MQRO",
        "MQPRI",
    }


def test_generated_module_is_current() -> None:
    """constants.py is exactly what the generator makes from the JSON kept in the
    repository (dlqhandler/mq/data/mq-constants.json)."""
    current = (Path(c.__file__)).read_text(encoding="utf-8")
    assert current == render(json.loads(SOURCE.read_text(encoding="utf-8")))
