"""The check on alias and remote queues against a queue manager described as what MQINQ
answers per object (IBM's selectors and values), behind the ``QueueManager`` port methods
the check calls: answers a queue manager may leave out included. The same findings on
real definitions made with MQSC, on both back ends: tests/check/test_real_objects.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from dlqhandler.check import RulesTable, check_setup
from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.mq.constants import MQRC_UNKNOWN_ALIAS_BASE_Q, mqi_error
from dlqhandler.qmgr.port import Answers

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
_LOCAL = {
    s.MQIA_Q_TYPE: s.MQQT_LOCAL,
    s.MQIA_MAX_MSG_LENGTH: 4194304,
    s.MQIA_MAX_Q_DEPTH: 5000,
    s.MQIA_CURRENT_Q_DEPTH: 0,
    s.MQIA_INHIBIT_PUT: 0,
    s.MQIA_INHIBIT_GET: 0,
    s.MQIA_TRIGGER_CONTROL: s.MQTC_OFF,
    s.MQIA_HARDEN_GET_BACKOUT: 0,
    s.MQIA_USAGE: s.MQUS_NORMAL,
}


class _Definitions:
    """MQINQ answers by object; an unknown object is 2085, an alias to nowhere 2082."""

    name = "QM1"

    def __init__(self, queues: dict[str, Answers], deadq: str = DLQ) -> None:
        self.queues = {"DLQHANDLER.STATUS": dict(_LOCAL), **queues}
        self.deadq = deadq
        self.opened: list[str] = []

    def inquire_object(self, objtype: str, name: str, selectors: Sequence[int]) -> Answers:
        if objtype == "qmgr":
            known: Answers = {
                s.MQCA_Q_MGR_NAME: "QM1",
                s.MQCA_DEAD_LETTER_Q_NAME: self.deadq,
                s.MQIA_MAX_MSG_LENGTH: 4194304,
            }
        elif name in self.queues:
            known = self.queues[name]
            base = known.get(s.MQCA_BASE_Q_NAME)
            if base is not None and base not in self.queues:
                raise mqi_error(MQRC_UNKNOWN_ALIAS_BASE_Q, name)
        else:
            raise mqi_error(2085, name)
        return {k: v for k, v in known.items() if k in selectors}

    def open(self, queue: str, **_: bool) -> _Definitions:
        self.opened.append(queue)
        return self

    def close(self) -> None:
        """The output handle of the put-authority probe."""


def _bad(qm: _Definitions, table: str | None = None) -> list[tuple[str, str, str]]:
    report = check_setup(
        qm,
        status_queue="DLQHANDLER.STATUS",  # type: ignore[arg-type]
        rules=RulesTable(table, "t.rul") if table else None,
    )
    return [
        (f.check, f.severity, f.object)
        for f in report.findings
        if f.severity in ("error", "warning")
    ]


def test_deadq_naming_an_alias_to_nowhere_is_an_error() -> None:
    """DEADQ is an alias whose base queue does not exist: MQOPEN fails with
    MQRC_UNKNOWN_ALIAS_BASE_Q and the DEADQ is reported as not existing."""
    qm = _Definitions(
        {"DLQ.ALIAS": {s.MQIA_Q_TYPE: s.MQQT_ALIAS, s.MQCA_BASE_Q_NAME: "GONE"}}, deadq="DLQ.ALIAS"
    )
    assert _bad(qm) == [("deadq-exists", "error", "QLOCAL(DLQ.ALIAS)")]


def test_deadq_naming_an_alias_of_a_local_queue_warns_and_checks_the_base() -> None:
    """DEADQ is an alias of a local queue: a warning, and the base's attributes are the
    ones checked (its PUT(DISABLED) is an error)."""
    qm = _Definitions(
        {
            "DLQ.ALIAS": {s.MQIA_Q_TYPE: s.MQQT_ALIAS, s.MQCA_BASE_Q_NAME: DLQ},
            DLQ: {**_LOCAL, s.MQIA_INHIBIT_PUT: s.MQQA_PUT_INHIBITED},
        },
        deadq="DLQ.ALIAS",
    )
    assert _bad(qm) == [
        ("deadq-local", "warning", "QALIAS(DLQ.ALIAS)"),
        ("dlq-put", "error", f"QLOCAL({DLQ})"),
    ]


def test_deadq_naming_a_remote_queue_is_an_error() -> None:
    """DEADQ is a remote queue definition: it cannot hold dead letters; an error whose fix
    makes SYSTEM.DEAD.LETTER.QUEUE the DEADQ."""
    qm = _Definitions(
        {"DLQ.REMOTE": {s.MQIA_Q_TYPE: s.MQQT_REMOTE}, DLQ: dict(_LOCAL)}, deadq="DLQ.REMOTE"
    )
    report = check_setup(qm, status_queue="DLQHANDLER.STATUS")  # type: ignore[arg-type]
    errors = [f for f in report.findings if f.severity == "error"]
    assert [(f.check, f.object) for f in errors] == [("deadq-local", "QUEUE(DLQ.REMOTE)")]
    assert errors[0].fix == f"ALTER QMGR DEADQ({DLQ})"


def test_forwarding_to_an_alias_of_the_dlq_is_a_loop() -> None:
    """A FWDQ that is an alias whose base is the DLQ: a forwarding loop W504 cannot see
    from the table alone."""
    qm = _Definitions(
        {DLQ: dict(_LOCAL), "BACK": {s.MQIA_Q_TYPE: s.MQQT_ALIAS, s.MQCA_BASE_Q_NAME: DLQ}}
    )
    assert _bad(qm, "ACTION(FWD) FWDQ(BACK)\n") == [("rules-loop", "error", "QALIAS(BACK)")]


def test_remote_queue_destination_needs_its_transmission_queue() -> None:
    """A FWDQ that is a remote queue definition: its XMITQ must exist and be a
    transmission queue; then the definition itself is opened for output (the put
    authority the rule's MQPUT1 needs is on the object it names)."""
    remote = {
        s.MQIA_Q_TYPE: s.MQQT_REMOTE,
        s.MQCA_XMIT_Q_NAME: "TO.QM2",
        s.MQCA_REMOTE_Q_MGR_NAME: "QM2",
        s.MQIA_INHIBIT_PUT: 0,
    }
    qm = _Definitions({DLQ: dict(_LOCAL), "CENTRAL": remote})
    assert _bad(qm, "ACTION(FWD) FWDQ(CENTRAL)\n") == [("rules-xmitq", "error", "QREMOTE(CENTRAL)")]
    qm.queues["TO.QM2"] = {**_LOCAL, s.MQIA_USAGE: s.MQUS_TRANSMISSION}
    assert _bad(qm, "ACTION(FWD) FWDQ(CENTRAL)\n") == []
    assert qm.opened == ["CENTRAL"]


def test_an_error_other_than_unknown_object_or_not_authorised_is_not_swallowed() -> None:
    """MQRC_CONNECTION_BROKEN on an inquiry is not 'does not exist': it propagates (the
    command reports it with its exit code)."""

    class _Broken(_Definitions):
        def inquire_object(self, objtype: str, name: str, selectors: Sequence[int]) -> Answers:
            if name == "DLQHANDLER.STATUS":
                raise mqi_error(2009, name)
            return super().inquire_object(objtype, name, selectors)

    qm = _Broken({DLQ: dict(_LOCAL)})
    with pytest.raises(MQIError) as err:
        check_setup(qm, status_queue="DLQHANDLER.STATUS")  # type: ignore[arg-type]
    assert err.value.reason == 2009


def test_an_inquiry_not_authorised_is_a_finding_not_the_end() -> None:
    """MQRC_NOT_AUTHORIZED on an inquiry (MQOPEN for inquiry without inq authority, 2035:
    "On an MQOPEN or MQPUT1 call, the user is not authorized to open the object for the
    options specified", https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html)
    is an auth-inq error for that object; the check goes on with the others."""

    class _Refusing(_Definitions):
        def inquire_object(self, objtype: str, name: str, selectors: Sequence[int]) -> Answers:
            if name == "DLQHANDLER.STATUS":
                raise mqi_error(2035, name)
            return super().inquire_object(objtype, name, selectors)

    qm = _Refusing({DLQ: dict(_LOCAL)})
    report = check_setup(qm, status_queue="DLQHANDLER.STATUS")  # type: ignore[arg-type]
    refused = [(f.severity, f.object) for f in report.findings if f.check == "auth-inq"]
    assert refused == [("error", "QUEUE(DLQHANDLER.STATUS)")]
    assert any(f.check == "control-queues" for f in report.findings)


def test_a_queue_manager_the_user_may_not_inquire_is_a_finding_not_the_end() -> None:
    """MQRC_NOT_AUTHORIZED on the queue manager's inquiry (no inq on the qmgr object:
    "On an MQOPEN or MQPUT1 call, the user is not authorized to open the object for the
    options specified", https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html)
    is one auth-inq error naming the grant; the DEADQ's checks are skipped (it is not
    known), the status queue is still checked."""

    class _Refusing(_Definitions):
        def inquire_object(self, objtype: str, name: str, selectors: Sequence[int]) -> Answers:
            if objtype == "qmgr":
                raise mqi_error(2035, "QM1")
            return super().inquire_object(objtype, name, selectors)

    qm = _Refusing({DLQ: dict(_LOCAL)})
    report = check_setup(qm, status_queue="DLQHANDLER.STATUS")  # type: ignore[arg-type]
    refused = [f for f in report.findings if f.check == "auth-inq"]
    assert [(f.severity, f.object) for f in refused] == [("error", "QMGR(QM1)")]
    assert "-t qmgr -p <user> +inq" in refused[0].fix
    assert not any(f.check.startswith(("dlq-", "deadq-")) for f in report.findings)
    assert any(f.check.startswith("status-") for f in report.findings)
