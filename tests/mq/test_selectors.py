"""The MQINQ selectors and values of dlqhandler.mq.selectors are IBM's."""

from __future__ import annotations

from dlqhandler.mq import selectors
from tests.mqi.build import load


def test_every_name_has_ibms_value() -> None:
    """Each MQ* name in the module has the value IBM's ibmmq package gives it (cmqc.h)."""
    load()  # the package's extension needs a libmqm_r: the stand-in will do
    import ibmmq

    ours = {n: v for n, v in vars(selectors).items() if n.startswith("MQ")}
    assert len(ours) > 50
    assert {n: getattr(ibmmq.CMQC, n) for n in ours} == ours


def test_selector_names_name_only_selectors() -> None:
    """SELECTOR_NAMES maps each MQCA_/MQIA_ selector (range markers aside) to its name."""
    assert selectors.SELECTOR_NAMES[selectors.MQIA_PROPERTY_CONTROL] == "MQIA_PROPERTY_CONTROL"
    assert selectors.SELECTOR_NAMES[selectors.MQCA_DEAD_LETTER_Q_NAME] == (
        "MQCA_DEAD_LETTER_Q_NAME"
    )
    assert all(n.startswith(("MQCA_", "MQIA_")) for n in selectors.SELECTOR_NAMES.values())
    assert "MQCA_FIRST" not in selectors.SELECTOR_NAMES.values()
