"""The stateful test of issue 33: every path that moves dead letters (``run`` with a
table, one-off actions, ``drain`` from a dump, ``drain --apply``, and ``check``) is run
through the real CLI on the embedded queue manager and a real local SparkSession, and
after every step every message's place is compared with one reference model
(:mod:`tests.model.reference`, written from the specification).

Hypothesis generates the DLQ's contents (dead letters with various reasons and
destinations, messages without an MQDLH, message groups, message properties,
mixed-case queue names), the targets' states (missing, PUT(DISABLED), full at MAXDEPTH,
a remote queue manager through a transmission queue, or one not reachable), the DLQ's
PROPCTL (FORCE puts an MQRFH2 in front of every dead letter's MQDLH), and sequences of
commands; attempt records come from the failed actions of earlier steps.

The embedded queue manager has no alias queues (``DEFINE QALIAS`` is refused), so the
indirect target the test generates is a remote queue manager reached through a
transmission queue of its name.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from unittest import mock

import structlog
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from structlog.testing import capture_logs

from dlqhandler.cli import main
from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.qmgr import connect, create_qmgr
from dlqhandler.qmgr.attempts import AttemptStore, group_subject, message_subject
from tests.model.reference import (
    AUDIT,
    DISCARDED,
    DLQ,
    LOCAL_QMGR,
    STATUS,
    Command,
    Letter,
    Model,
    OneOff,
    Place,
    QueueState,
    Rule,
    Table,
    Value,
)
from tests.worker.helpers import Ledger, browse, dead_letter, define, load, msg_id

__all__ = ["DLQMachine"]

REMOTE = "QR"  # a queue manager reached through the transmission queue QR
UNREACHABLE = "QX"  # a queue manager with no transmission queue
CATCH = "CATCH"
# Queues whose state the test changes; APP.MISSING is never defined.
STATEFUL = ("APP.A", "app.lower", "APP.LOWER", REMOTE)
DESTINATIONS = ("APP.A", "app.lower", "APP.LOWER", "APP.MISSING")
PROPERTIES = (
    Property("mcd.Msd", PropertyType.STRING, "jms_text"),
    Property("OrderType", PropertyType.STRING, "express"),
    Property("Items", PropertyType.INT32, 7),
)

# -- what Hypothesis draws ----------------------------------------------------------


@dataclass(frozen=True)
class Pools:
    """What the strategies choose from (a value listed twice is drawn twice as often).
    The committed test uses :data:`POOLS`; a session that wants to show one class of
    failure on its own may narrow them (``machine.POOLS = replace(POOLS, ...)``)."""

    kinds: tuple[str, ...] = ("dlh", "dlh", "dlh", "plain", "group")
    reasons: tuple[int, ...] = (2053, 2053, 2053, 2051, 2051, 2085, 2035)
    destinations: tuple[str, ...] = DESTINATIONS
    # "APP.A" as a queue manager name: a local queue, not a transmission queue (2092).
    dest_qmgrs: tuple[str, ...] = (LOCAL_QMGR, LOCAL_QMGR, "", REMOTE, UNREACHABLE, "APP.A")
    properties: tuple[bool, ...] = (False, True)
    pattern_destq: tuple[Value | None, ...] = (
        None,
        None,
        None,
        None,
        None,
        Value("APP.*"),
        Value("app.lower"),
        Value("app.lower", quoted=True),
        Value("APP.LOWER"),
        Value("APP.?"),
    )
    actions: tuple[str, ...] = ("RETRY", "RETRY", "FWD", "FWD", "DISCARD", "IGNORE")
    fwdq: tuple[Value, ...] = (
        Value("APP.A"),
        Value("app.lower"),
        Value("app.lower", quoted=True),
        Value("&DESTQ"),
        Value("APP.MISSING"),
        Value(CATCH),
        Value(STATUS),
    )
    one_off_actions: tuple[str, ...] = (
        "retry",
        "retry",
        "discard",
        "fwd:APP.A",
        "fwd:app.lower",
        "fwd:APP.LOWER",
        f"fwd:{STATUS}",
        f"fwd:{AUDIT}",
    )
    controls: tuple[Command, ...] = (
        Command(),
        Command(),
        Command(),
        Command(status_queue=DLQ),
        Command(audit_queue=DLQ),
        Command(audit_queue=STATUS),
    )
    check_status: tuple[str, ...] = (STATUS, STATUS, DLQ)
    target_states: tuple[str, ...] = ("normal", "disabled", "full")
    propctl_force: tuple[bool, ...] = (False, True)
    drains: int = 1  # drain steps (each starts Spark jobs: seconds) per example
    one_offs: bool = True


POOLS = Pools()


def _pick(name: str) -> st.SearchStrategy[Any]:
    """One of ``POOLS.<name>``, looked up when drawn."""
    return st.deferred(lambda: st.sampled_from(getattr(POOLS, name)))


@st.composite
def _letters(draw: st.DrawFn) -> list[Letter]:
    """One message, or a whole group of two or three dead letters (the machine names
    each message when it puts it)."""
    kind = draw(_pick("kinds"))
    if kind == "plain":
        return [Letter("", reason=None)]
    fields = {
        "reason": draw(_pick("reasons")),
        "destq": draw(_pick("destinations")),
        "destqm": draw(_pick("dest_qmgrs")),
        "persistent": draw(st.booleans()),
        "properties": draw(_pick("properties")),
    }
    if kind == "dlh":
        return [Letter("", **fields)]
    size = draw(st.integers(2, 3))
    return [Letter("", group="", seq=s, of=size, **fields) for s in range(1, size + 1)]


@st.composite
def _pattern(draw: st.DrawFn, action: str = "IGNORE", *, nonempty: bool = False) -> Rule:
    reason = draw(
        st.sampled_from([None] * 6 + ["MQRC_Q_FULL", 2053, "MQRC_PUT_INHIBITED", 2085, 2035])
    )
    destq = draw(_pick("pattern_destq"))
    destqm = draw(st.sampled_from([None] * 8 + [Value("QT"), Value("q*")]))
    persist = draw(st.sampled_from([None] * 8 + [0, 1]))
    if nonempty and reason is None and destq is None and destqm is None and persist is None:
        reason = "MQRC_Q_FULL"
    return Rule(action, reason=reason, destq=destq, destqm=destqm, persist=persist)


@st.composite
def _rule(draw: st.DrawFn) -> Rule:
    action = draw(_pick("actions"))
    base = draw(_pattern(action))
    retry = draw(st.sampled_from([None, 1, 2])) if action in ("RETRY", "FWD") else None
    if action != "FWD":
        return replace(base, retry=retry)
    fwdq = draw(_pick("fwdq"))
    fwdqm = draw(st.sampled_from([None, None, None, Value(REMOTE), Value("&DESTQM")]))
    return replace(base, fwdq=fwdq, fwdqm=fwdqm, header=draw(st.booleans()), retry=retry)


@st.composite
def _table(draw: st.DrawFn) -> Table:
    """One to three rules, and in half the tables a catch-all last."""
    rules = draw(st.lists(_rule(), min_size=1, max_size=3))
    if draw(st.booleans()):
        rules.append(Rule("FWD", fwdq=Value(CATCH), header=True))
    return Table(tuple(rules))


@st.composite
def _one_off(draw: st.DrawFn) -> OneOff:
    action = draw(_pick("one_off_actions"))
    header = draw(st.booleans()) if action.startswith("fwd:") else True
    every = Rule("IGNORE", destq=Value("*"))  # --match 'DESTQ(*)': every dead letter
    pattern = draw(st.one_of(st.just(every), _pattern(nonempty=True)))
    return OneOff(pattern, action, header)


# -- the machine ----------------------------------------------------------------------


class DLQMachine(RuleBasedStateMachine):
    """The embedded queue manager QT and its DLQ, driven through ``dlqhandler`` commands;
    the model says where every message must be after each one."""

    def __init__(self) -> None:
        super().__init__()
        self.model = Model()
        self.messages: dict[str, Message] = {}  # tag -> the message as put
        self.force = False
        self.drains = 0
        self.budget = {"propctl": 0, "check": 0}
        self._dir = tempfile.TemporaryDirectory(prefix="dlq-model-")
        self.root = Path(self._dir.name)
        self.home = self.root / "home"
        self._env = {k: os.environ.get(k) for k in ("DLQHANDLER_HOME", "DLQHANDLER_QMGR")}
        os.environ["DLQHANDLER_HOME"] = str(self.home)
        os.environ.pop("DLQHANDLER_QMGR", None)
        create_qmgr(self.home, LOCAL_QMGR)
        self.qm = connect(LOCAL_QMGR, home=self.home, user="tester", appl_name="model-tests")
        define(self.qm, "APP.A", "app.lower", "APP.LOWER", CATCH, STATUS, AUDIT)
        define(self.qm, REMOTE, usage="XMITQ")
        for name in ("APP.A", "app.lower", "APP.LOWER", CATCH, STATUS, AUDIT):
            self.model.queues[name] = QueueState()
        self.model.queues[REMOTE] = QueueState(xmitq=True)
        self.steps = 0
        self._names = itertools.count(1)

    def teardown(self) -> None:
        self.qm.disconnect()
        for key, value in self._env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        self._dir.cleanup()

    # -- the CLI ------------------------------------------------------------------------
    def cli(self, *argv: str) -> tuple[int, str, str]:
        """``dlqhandler ARGV`` in this process: exit code, stdout, stderr."""
        out, err = io.StringIO(), io.StringIO()
        structlog.reset_defaults()
        with contextlib.ExitStack() as stack:
            for module in ("run", "check", "drain", "qm"):
                stack.enter_context(
                    mock.patch(f"dlqhandler.cli.{module}.configure_logging", return_value=None)
                )
            stack.enter_context(capture_logs())
            stack.enter_context(contextlib.redirect_stdout(out))
            stack.enter_context(contextlib.redirect_stderr(err))
            rc = main(list(argv))
        structlog.reset_defaults()
        return rc, out.getvalue(), err.getvalue()

    def write_table(self, table: Table) -> Path:
        self.steps += 1
        path = self.root / f"rules-{self.steps}.rul"
        path.write_text(table.render(), encoding="utf-8")
        return path

    # -- the DLQ and the targets --------------------------------------------------------
    @initialize(
        letters=st.lists(_letters(), min_size=1, max_size=3),
        states=st.lists(_pick("target_states"), min_size=len(STATEFUL), max_size=len(STATEFUL)),
    )
    def start(self, letters: list[list[Letter]], states: list[str]) -> None:
        for queue, state in zip(STATEFUL, states, strict=True):
            if state != "normal":
                self.target_state(queue, state)
        for unit in letters:
            self.put(unit)

    @rule(unit=_letters())
    def put(self, unit: list[Letter]) -> None:
        name = f"M{next(self._names)}"
        unit = [
            replace(
                m,
                tag=f"{name}.{m.seq}" if m.group is not None else name,
                group=None if m.group is None else name,
            )
            for m in unit
        ]
        messages = [self._message(m) for m in unit]
        load(self.qm, messages)
        with self._compat():  # the messages as stored: what conservation compares with
            stored = {m.md.msg_id: m for m in browse(self.qm, DLQ)}
        for m, message in zip(unit, messages, strict=True):
            self.messages[m.tag] = stored[message.md.msg_id]
        self.model.add(unit)

    @contextlib.contextmanager
    def _compat(self) -> Iterator[None]:
        """A browse of the DLQ as a get with a message handle sees it: on a DLQ
        defined PROPCTL(FORCE), PROPCTL(COMPAT) for the moment of the browse."""
        if self.force:
            self.qm.admin().alter_queue(DLQ, {"PROPCTL": "COMPAT"})  # type: ignore[attr-defined]
        try:
            yield
        finally:
            if self.force:
                self.qm.admin().alter_queue(DLQ, {"PROPCTL": "FORCE"})  # type: ignore[attr-defined]

    def _message(self, m: Letter) -> Message:
        props = PROPERTIES if m.properties else ()
        if not m.has_dlh:
            md = MQMD(format="MQSTR", coded_char_set_id=1208, msg_id=msg_id(m.tag))
            return Message(md, f"plain {m.tag}".encode(), None, ())
        group: dict[str, Any] = {}
        if m.group:
            group = {
                "group_id": f"GROUP {m.group}".encode().ljust(24, b"\x00"),
                "msg_seq_number": m.seq,
                "msg_flags": MQMF_LAST_MSG_IN_GROUP if m.seq == m.of else MQMF_MSG_IN_GROUP,
            }
        return dead_letter(
            f"order {m.tag}",
            reason=m.reason or 0,
            destq=m.destq,
            destqm=m.destqm,
            persistence=int(m.persistent),
            tag=m.tag,
            properties=props,
            **group,
        )

    @rule(queue=st.sampled_from(STATEFUL), state=_pick("target_states"))
    def target_state(self, queue: str, state: str) -> None:
        depth = self.qm.inquire_queue(queue).curdepth
        attrs = {
            "normal": {"PUT": "ENABLED", "MAXDEPTH": 5000},
            "disabled": {"PUT": "DISABLED", "MAXDEPTH": 5000},
            "full": {"PUT": "ENABLED", "MAXDEPTH": depth},
        }[state]
        self.qm.admin().alter_queue(queue, attrs)  # type: ignore[attr-defined]
        q = self.model.queues[queue]
        q.put_enabled, q.full = state != "disabled", state == "full"

    @precondition(lambda self: self.budget["propctl"] < 2)
    @rule(force=_pick("propctl_force"))
    def dlq_propctl(self, force: bool) -> None:
        """PROPCTL(FORCE): every get of a dead letter sees MQRFH2, MQDLH, data."""
        self.qm.admin().alter_queue(DLQ, {"PROPCTL": "FORCE" if force else "COMPAT"})  # type: ignore[attr-defined]
        self.force = force
        self.budget["propctl"] += 1

    # -- the commands -------------------------------------------------------------------
    @rule(table=_table(), control=_pick("controls"))
    def run_table(self, table: Table, control: Command) -> None:
        """``dlqhandler run --rules TABLE``."""
        path = self.write_table(table)
        argv = ["run", "--rules", str(path), "--no-watch", "--status-queue", control.status_queue]
        if control.audit_queue != AUDIT:
            argv += ["--reason", "model test", "--audit-queue", control.audit_queue]
        rc, _, err = self.cli(*argv)
        self._expect(rc, err, control.refused(table.literal_targets()), table=table)

    @precondition(lambda self: POOLS.one_offs)
    @rule(order=_one_off(), control=_pick("controls"))
    def one_off(self, order: OneOff, control: Command) -> None:
        """``dlqhandler run --match P --action A --reason R``."""
        argv = ["run", *order.argv(), "--reason", "model test", "--no-watch"]
        argv += ["--status-queue", control.status_queue, "--audit-queue", control.audit_queue]
        rc, _, err = self.cli(*argv)
        targets = [order.action[4:]] if order.action.startswith("fwd:") else []
        self._expect(rc, err, control.refused(targets), order=order)

    # The commands that move messages, and the targets' states, are drawn twice as
    # often as the others.
    @precondition(lambda self: POOLS.one_offs)
    @rule(order=_one_off(), control=_pick("controls"))
    def one_off_again(self, order: OneOff, control: Command) -> None:
        self.one_off(order, control)

    @rule(table=_table(), control=_pick("controls"))
    def run_table_again(self, table: Table, control: Command) -> None:
        self.run_table(table, control)

    @rule(queue=st.sampled_from(STATEFUL), state=_pick("target_states"))
    def target_state_again(self, queue: str, state: str) -> None:
        self.target_state(queue, state)

    @precondition(lambda self: self.drains < POOLS.drains)
    @rule(table=_table(), control=_pick("controls"))
    def drain_apply(self, table: Table, control: Command) -> None:
        """``dlqhandler drain -m QT --rules TABLE --apply --output DIR``."""
        self.drains += 1
        path = self.write_table(table)
        out = self.root / f"apply-{self.steps}"
        argv = ["drain", "--rules", str(path), "-m", LOCAL_QMGR, "--apply", "--output", str(out)]
        argv += ["--status-queue", control.status_queue]
        rc, _, err = self.cli(*argv)
        refused = Command(status_queue=control.status_queue).refused(table.literal_targets())
        self._expect(rc, err, refused, table=table, drain=True)

    @precondition(lambda self: self.drains < POOLS.drains)
    @rule(table=_table())
    def drain_offline(self, table: Table) -> None:
        """``qm dmpmqmsg -i DLQ -f DUMP`` then ``drain --input DUMP --output DIR``: the
        output files hold every message of the dump once, where the model says, and the
        queues do not change."""
        self.drains += 1
        path = self.write_table(table)
        dump = self.root / f"dlq-{self.steps}.dmp"
        rc, _, err = self.cli("qm", "dmpmqmsg", "-m", LOCAL_QMGR, "-i", DLQ, "-f", str(dump))
        assert rc == 0, err
        out = self.root / f"drain-{self.steps}"
        rc, _, err = self.cli(
            "drain", "--rules", str(path), "--input", str(dump), "--output", str(out)
        )
        assert rc == 0, err
        expected = self.model.drain_offline(table)
        manifest = json.loads((out / "manifest.json").read_text())
        files = [(o["queue"], o["qmgr"] or "", o["file"]) for o in manifest["outputs"]]
        if manifest["remaining"]["file"]:
            files.append(("", "", manifest["remaining"]["file"]))
        by_id = {self.messages[t].md.msg_id: t for t in expected}
        found: dict[str, list[tuple[str, str, bool]]] = {}
        for queue, qmgr, name in files:
            for m in read_dump(out / name):
                tag = by_id.get(m.md.msg_id)
                assert tag is not None, f"{name}: a message that was not on the DLQ"
                assert m.body.endswith(f"order {tag}".encode()) or m.body.endswith(
                    f"plain {tag}".encode()
                ), (tag, name, "payload")
                found.setdefault(tag, []).append((queue, qmgr, _has_dlh(m)))
        got = {t: (v[0] if len(v) == 1 else v) for t, v in found.items()}
        want = {}
        for tag, where in expected.items():
            if where is None:
                continue
            queue, qmgr, header = where
            want[tag] = (queue, "" if qmgr == "" else qmgr, header)
        assert got == want, f"drain --input: files {got} != model {want}\n{table.render()}"

    @precondition(lambda self: self.budget["check"] < 1)
    @rule(table=_table(), status=_pick("check_status"))
    def check(self, table: Table, status: str) -> None:
        """``dlqhandler check QT --rules TABLE``: a table that forwards to a control
        queue, or a status queue that is the DLQ, is an error finding (decision 4) that a
        set-up without it does not have. ``check`` moves nothing."""
        self.budget["check"] += 1
        path = self.write_table(table)
        rc, out, err = self.cli(
            "check", LOCAL_QMGR, "--rules", str(path), "--status-queue", status, "--format", "json"
        )
        assert rc in (0, 1), err
        errors = _errors(out)
        if Command(status_queue=status).refused(table.literal_targets()):
            harmless = Table(
                tuple(r for r in table.rules if not (r.fwdq and r.fwdq.effective == STATUS))
                or (Rule("IGNORE"),)
            )
            base = self.write_table(harmless)
            _, plain, _ = self.cli("check", LOCAL_QMGR, "--rules", str(base), "--format", "json")
            assert errors - _errors(plain), (
                f"check --status-queue {status} with\n{table.render()}found no error "
                f"a set-up without the control queue lacks: {sorted(errors)}"
            )

    def _expect(
        self,
        rc: int,
        err: str,
        refused: bool,
        *,
        table: Table | None = None,
        order: OneOff | None = None,
        drain: bool = False,
    ) -> None:
        if refused:
            assert rc == 2, f"refused before anything moves (exit 2), got {rc}: {err[-600:]}"
            return
        failed = False
        if table is not None:
            failed = self.model.run_table(table, catch_all=drain)
        elif order is not None:
            failed = self.model.one_off(order)
        want = 6 if failed else 0  # 6: finished, but some messages were not acted on
        assert rc == want, f"exit {rc}, the model says {want}: {err[-800:]}"

    # -- after every step ---------------------------------------------------------------
    @invariant()
    def every_message_where_the_model_says(self) -> None:
        """Each message once, at its model place, with or without its MQDLH as the
        model says, content, context and properties kept; the attempt counts on the
        status queue are the model's."""
        originals = {m.md.msg_id: m for m in self.messages.values()}
        ledger = Ledger(self.qm, DLQ, originals)
        discarded = [
            self.messages[t].md.msg_id for t, p in self.model.place.items() if p == DISCARDED
        ]
        with self._compat():
            ledger.check([*STATEFUL, CATCH], discarded=discarded)
        actual: dict[str, Place] = {}
        for tag, message in self.messages.items():
            found = ledger.outcome.get(message.md.msg_id)
            if not found:
                actual[tag] = DISCARDED
                continue
            (p,) = found
            header = _has_dlh(p.message)
            actual[tag] = Place(p.queue, header, remote=p.remote)
        assert actual == self.model.place, _diff(actual, self.model.place)
        store = AttemptStore(self.qm, STATUS)
        try:
            counts = {}
            for unit in self.model.units():
                head = self.messages[unit[0].tag]
                subject = (
                    group_subject(head.md.group_id)
                    if unit[0].group
                    else message_subject(head.md.msg_id, head.md.correl_id)
                )
                record = store.lookup(subject)
                counts[unit[0].unit] = 0 if record is None else record.attempts
        finally:
            store.close()
        want = {u[0].unit: self.model.attempts.get(u[0].unit, 0) for u in self.model.units()}
        assert counts == want, f"attempt counts on {STATUS}: {counts} != model {want}"


def _has_dlh(m: Message) -> bool:
    try:
        decode_dead_letter(m.md, m.body, m.properties)
    except MalformedMessageError:
        return False
    return True


def _errors(report: str) -> set[tuple[str, str, str]]:
    findings = json.loads(report)["findings"]
    return {(f["check"], f["object"], f["problem"]) for f in findings if f["severity"] == "error"}


def _diff(actual: dict[str, Place], model: dict[str, Place]) -> str:
    lines = [
        f"  {t}: model {model.get(t)!r}, found {actual.get(t)!r}"
        for t in sorted(set(actual) | set(model))
        if actual.get(t) != model.get(t)
    ]
    return "messages not where the model says:\n" + "\n".join(lines)
