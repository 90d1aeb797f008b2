"""One reference model of "where does this dead letter go", written from the
specification, never from the code under test (nothing here imports
``dlqhandler.rules`` or ``dlqhandler.acting``).

What it follows:

* the rules language (runmqdlq, IBM's "DLQ rules table conventions" and "DLQ rules
  (patterns and actions)", as paraphrased in the project's spec notes): unquoted values
  are folded to upper case, quoted ones kept as typed (§1.4); a pattern keyword matches
  its MQDLH or MQMD field (§3.1), strings by the padded-field matcher of §3.2 (``*``,
  ``?`` never in the trailing blanks, trailing blanks not significant), numbers by
  equality;
* rule choice and retry counting (§5.5): walk the matching rules with a running total
  of their RETRY counts; IGNORE is chosen at once; the first rule whose running total
  exceeds the message's attempt count *n* is chosen; none: the implicit IGNORE. A
  failed put adds one attempt; a committed action removes the record (§5.3 step 6);
* the actions (§4.2, §4.4): DISCARD removes; RETRY puts to MQDLH DestQName at
  DestQMgrName with the MQDLH removed; FWD puts to FWDQ at FWDQM (``&DESTQ``,
  ``&DESTQM`` from the MQDLH, §4.3), HEADER(YES) with the MQDLH, HEADER(NO) without;
  a blank queue manager name is the local one. A put fails on a queue that does not
  exist (2085), is put-inhibited (2051) or is at MAXDEPTH (2053), on a queue manager
  named like a local queue that is not USAGE(XMITQ) (2092, MQRC_XMIT_Q_USAGE_ERROR),
  or on one that is neither this one nor a local queue's name (2087);
* messages without an MQDLH are never matched and stay (§5.6); a message group moves
  whole or not at all, with one attempt count for the group (docs/drain.md: "one
  attempt count for the group"; a group not whole on the queue stays, all of it);
* the drain (docs/drain.md): first match with every put assumed to succeed; a table
  whose last rule is an unconditional FWD to a literal local queue makes that queue
  the catch-all, which also takes what would stay (IGNORE, no rule, no MQDLH);
* the decisions of issue 33: a one-off action acts on every selected message whatever
  attempt count it has, and its success clears the record (1); every path finds the
  MQDLH the same way, behind an MQRFH2 too, so the model does not look at the DLQ's
  PROPCTL at all (2); a queue name typed on the command line is exact, only values in
  a table or in ``--match`` fold (3); the input DLQ, the status queue and the audit
  queue are three different queues, and no action forwards to a control queue: such a
  command is refused before anything moves, exit 2 (4); every message is on the DLQ
  or at exactly one destination, or discarded on purpose (5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

__all__ = [
    "DISCARDED",
    "DLQ",
    "LOCAL_QMGR",
    "REASONS",
    "Command",
    "Letter",
    "Model",
    "OneOff",
    "Place",
    "Rule",
    "Table",
    "Value",
    "match_string",
]

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
LOCAL_QMGR = "QT"
STATUS = "DLQHANDLER.STATUS"
AUDIT = "DLQHANDLER.AUDIT"
# IBM's symbolic names for the reasons the tests use (mq-constants.json).
REASONS = {
    "MQRC_NOT_AUTHORIZED": 2035,
    "MQRC_PUT_INHIBITED": 2051,
    "MQRC_Q_FULL": 2053,
    "MQRC_UNKNOWN_OBJECT_NAME": 2085,
}
FIELD_LENGTH = 48  # DestQName, DestQMgrName (MQ_Q_NAME_LENGTH, MQ_Q_MGR_NAME_LENGTH)


def match_string(pattern: str, value: str, length: int = FIELD_LENGTH) -> bool:
    """runmqdlq's string match (§3.2) of ``pattern`` against ``value`` blank-padded to
    ``length``: ``*`` any run of characters, ``?`` one character that is not in the
    trailing blanks, anything else itself; the field's trailing blanks need no pattern."""
    f = value.ljust(length)
    last = len(f.rstrip(" "))  # positions >= last are the padding

    def at(p: int, i: int) -> bool:
        if p == len(pattern):
            return f[i:].strip(" ") == ""
        c = pattern[p]
        if c == "*":
            return any(at(p + 1, j) for j in range(i, len(f) + 1))
        if i >= len(f):
            return False
        if c == "?":
            return i < last and at(p + 1, i + 1)
        return f[i] == c and at(p + 1, i + 1)

    return at(0, 0)


@dataclass(frozen=True)
class Value:
    """A value as typed in a rules table: folded to upper case unless quoted (§1.4)."""

    text: str
    quoted: bool = False

    @property
    def effective(self) -> str:
        return self.text if self.quoted else self.text.upper()

    def render(self) -> str:
        return "'" + self.text.replace("'", "''") + "'" if self.quoted else self.text

    def __repr__(self) -> str:
        return f"Value({self.text!r}{', quoted=True' if self.quoted else ''})"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


def _short(obj: Any) -> str:
    """``Name(field=value, ...)`` with only the fields that differ from their default:
    what Hypothesis prints for a failing example."""
    parts = [
        f"{f.name}={getattr(obj, f.name)!r}"
        for f in fields(obj)
        if getattr(obj, f.name) != f.default
    ]
    return f"{type(obj).__name__}({', '.join(parts)})"


class _Short:
    def __repr__(self) -> str:
        return _short(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(_short(self))


@dataclass(frozen=True, repr=False)
class Letter(_Short):
    """One message put on the DLQ: a dead letter (``reason`` not None) or not, with or
    without message properties, alone or a member of a group."""

    tag: str = ""
    reason: int | None = 2053
    destq: str = "APP.A"
    destqm: str = LOCAL_QMGR
    persistent: bool = True
    properties: bool = False
    group: str | None = None  # the group's tag
    seq: int = 1
    of: int = 1

    @property
    def has_dlh(self) -> bool:
        return self.reason is not None

    @property
    def unit(self) -> str:
        """What acts and counts attempts as one: the group, or the message itself."""
        return f"group {self.group}" if self.group else self.tag


@dataclass(frozen=True, repr=False)
class Rule(_Short):
    """One rules-table rule: a pattern (keyword -> Value or number) and an action."""

    action: str  # RETRY FWD DISCARD IGNORE
    reason: int | str | None = None  # number, or a symbolic name
    destq: Value | None = None
    destqm: Value | None = None
    persist: int | None = None
    fwdq: Value | None = None  # Value("&DESTQ") for the token
    fwdqm: Value | None = None
    header: bool = True
    retry: int | None = None

    def matches(self, m: Letter) -> bool:
        if not m.has_dlh:
            return False
        if self.reason is not None:
            want = REASONS[self.reason] if isinstance(self.reason, str) else self.reason
            if m.reason != want:
                return False
        if self.destq is not None and not match_string(self.destq.effective, m.destq):
            return False
        if self.destqm is not None and not match_string(self.destqm.effective, m.destqm):
            return False
        return self.persist is None or self.persist == int(m.persistent)

    @property
    def unconditional(self) -> bool:
        return (
            self.reason is None
            and self.destq is None
            and self.destqm is None
            and (self.persist is None)
        )

    def pattern_text(self) -> str:
        parts = []
        if self.reason is not None:
            parts.append(f"REASON({self.reason})")
        if self.destq is not None:
            parts.append(f"DESTQ({self.destq.render()})")
        if self.destqm is not None:
            parts.append(f"DESTQM({self.destqm.render()})")
        if self.persist is not None:
            parts.append(f"PERSIST({self.persist})")
        return " ".join(parts)

    def render(self) -> str:
        parts = (
            [self.pattern_text(), f"ACTION({self.action})"]
            if self.pattern_text()
            else [f"ACTION({self.action})"]
        )
        if self.action == "FWD":
            assert self.fwdq is not None
            parts.append(f"FWDQ({self.fwdq.render()})")
            if self.fwdqm is not None:
                parts.append(f"FWDQM({self.fwdqm.render()})")
            parts.append(f"HEADER({'YES' if self.header else 'NO'})")
        if self.retry is not None:
            parts.append(f"RETRY({self.retry})")
        return " ".join(parts)

    def target(self, m: Letter) -> tuple[str, str, bool]:
        """(queue, queue manager, with MQDLH) of a RETRY or FWD of ``m`` (§4.3, §4.4)."""
        if self.action == "RETRY":
            return m.destq, m.destqm, False
        assert self.fwdq is not None
        q = m.destq if self.fwdq.text.upper() == "&DESTQ" else self.fwdq.effective
        qm = ""
        if self.fwdqm is not None:
            qm = m.destqm if self.fwdqm.text.upper() == "&DESTQM" else self.fwdqm.effective
        return q, qm, self.header


@dataclass(frozen=True)
class Table:
    """A rules table: control data ``RETRYINT(0) WAIT(NO)`` (one run does all it can at
    once and ends) and its rules."""

    rules: tuple[Rule, ...]

    def render(self) -> str:
        return "RETRYINT(0) WAIT(NO)\n" + "".join(r.render() + "\n" for r in self.rules)

    def choose(self, m: Letter, n: int) -> Rule | None:
        """§5.5: the rule chosen for a message met with ``n`` attempts on record."""
        total = 0
        for rule in self.rules:
            if not rule.matches(m):
                continue
            if rule.action == "IGNORE":
                return rule
            total += rule.retry or 1
            if total > n:
                return rule
        return None

    @property
    def catch_all(self) -> str | None:
        """docs/drain.md: the last rule an unconditional FWD to a literal local queue."""
        if not self.rules:
            return None
        last = self.rules[-1]
        if (
            last.unconditional
            and last.action == "FWD"
            and last.fwdq is not None
            and not last.fwdq.text.startswith("&")
            and last.fwdqm is None
        ):
            return last.fwdq.effective
        return None

    def literal_targets(self) -> set[str]:
        """Queues the table forwards to by name (not through ``&`` tokens)."""
        return {
            r.fwdq.effective
            for r in self.rules
            if r.action == "FWD" and r.fwdq is not None and not r.fwdq.text.startswith("&")
        }

    def __repr__(self) -> str:
        return f"Table({self.render()!r})"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


@dataclass(frozen=True, repr=False)
class OneOff(_Short):
    """``run --match PATTERN --action ACTION [--header no] --reason R``: the pattern is
    table syntax (it folds), the queue of ``fwd:QUEUE`` is exact (decision 3)."""

    pattern: Rule  # only its pattern keywords count
    action: str  # retry, discard, fwd:QUEUE
    header: bool = True

    def argv(self) -> list[str]:
        out = ["--match", self.pattern.pattern_text(), "--action", self.action]
        if self.action.startswith("fwd:") and not self.header:
            out += ["--header", "no"]
        return out

    def target(self, m: Letter) -> tuple[str, str, bool]:
        if self.action == "retry":
            return m.destq, m.destqm, False
        return self.action[4:], "", self.header


@dataclass(frozen=True, repr=False)
class Command(_Short):
    """Which queues a command names besides its action: the status and audit queues."""

    status_queue: str = STATUS
    audit_queue: str = AUDIT

    def refused(self, targets: Iterable[str]) -> bool:
        """Decision 4: the DLQ, the status and audit queues differ, and no named
        target is a control queue."""
        control = {self.status_queue, self.audit_queue}
        if len({DLQ, self.status_queue, self.audit_queue}) < 3:
            return True
        return bool(control & set(targets))


@dataclass(frozen=True)
class Place:
    """Where a message is: ``queue`` (the DLQ, or a local queue), for a message sent to
    another queue manager ``remote`` (``queue@qmgr``, on the transmission queue
    ``queue``), and whether it still carries its MQDLH."""

    queue: str
    header: bool = True
    remote: str | None = None

    def __repr__(self) -> str:
        where = f"{self.queue}[{self.remote}]" if self.remote else self.queue
        return f"{where}{'' if self.header else ' (no MQDLH)'}"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


DISCARDED = Place("<discarded>")


@dataclass
class QueueState:
    defined: bool = True
    put_enabled: bool = True
    full: bool = False
    xmitq: bool = False


@dataclass
class Model:
    """The queue manager as the specification sees it: queues and their states, where
    every message is, and the attempt count of every unit on the DLQ."""

    queues: dict[str, QueueState] = field(default_factory=dict)
    letters: list[Letter] = field(default_factory=list)  # in DLQ put order
    place: dict[str, Place] = field(default_factory=dict)
    attempts: dict[str, int] = field(default_factory=dict)

    # -- the queue manager ------------------------------------------------------
    def put_fails(self, queue: str, qmgr: str) -> int | None:
        """The reason a put to ``queue`` at ``qmgr`` fails with, or None: it succeeds."""
        if qmgr not in ("", LOCAL_QMGR):
            xmitq = self.queues.get(qmgr)
            if xmitq is None or not xmitq.defined:
                return 2087  # MQRC_UNKNOWN_REMOTE_Q_MGR
            if not xmitq.xmitq:
                return 2092  # MQRC_XMIT_Q_USAGE_ERROR
            return self._local_fails(qmgr)
        return self._local_fails(queue)

    def _local_fails(self, queue: str) -> int | None:
        q = self.queues.get(queue)
        if q is None or not q.defined:
            return 2085
        if not q.put_enabled:
            return 2051
        if q.full:
            return 2053
        return None

    def landing(self, queue: str, qmgr: str, header: bool) -> Place:
        if qmgr in ("", LOCAL_QMGR):
            return Place(queue, header)
        return Place(qmgr, header, remote=f"{queue}@{qmgr}")

    # -- what is on the DLQ -------------------------------------------------------
    def add(self, letters: Sequence[Letter]) -> None:
        for m in letters:
            self.letters.append(m)
            self.place[m.tag] = Place(DLQ, m.has_dlh)

    def on_dlq(self) -> list[Letter]:
        return [m for m in self.letters if self.place[m.tag].queue == DLQ]

    def units(self) -> list[list[Letter]]:
        """The DLQ's messages as units of work: a single message, or a whole group
        (a group missing a member on the DLQ is not a unit: it stays)."""
        out: dict[str, list[Letter]] = {}
        for m in self.on_dlq():
            out.setdefault(m.unit, []).append(m)
        return [
            sorted(ms, key=lambda m: m.seq)
            for ms in out.values()
            if ms[0].group is None or len(ms) == ms[0].of
        ]

    # -- the commands --------------------------------------------------------------
    def run_table(self, table: Table, *, catch_all: bool = False) -> bool:
        """``run --rules`` (and ``drain --apply`` with ``catch_all``): each unit walks
        the table until a put succeeds, a DISCARD, an IGNORE or the implicit IGNORE.
        Returns whether a unit stays on the DLQ after an action of this run failed
        (the run's exit code 6)."""
        left = False
        drain_catch_all = table.catch_all if catch_all else None
        for unit in self.units():
            head = unit[0]
            if not head.has_dlh:
                if drain_catch_all is not None:
                    self._move(unit, Place(drain_catch_all, True))
                continue
            failed = False
            while True:
                rule = table.choose(head, self.attempts.get(head.unit, 0))
                if rule is None or rule.action == "IGNORE":
                    if drain_catch_all is not None and (
                        self.put_fails(drain_catch_all, "") is None
                    ):
                        self._move(unit, Place(drain_catch_all, True))
                    else:
                        left = left or failed
                    break
                if rule.action == "DISCARD":
                    self._move(unit, DISCARDED)
                    break
                queue, qmgr, header = rule.target(head)
                if self.put_fails(queue, qmgr) is None:
                    self._move(unit, self.landing(queue, qmgr, header))
                    break
                failed = True
                self.attempts[head.unit] = self.attempts.get(head.unit, 0) + 1
        return left

    def one_off(self, order: OneOff) -> bool:
        """Decision 1: every selected unit is acted on whatever its attempt count; a
        failure counts one attempt; success clears it. Returns whether an action
        failed (the run's exit code 6)."""
        failed = False
        for unit in self.units():
            head = unit[0]
            if not any(order.pattern.matches(m) for m in unit):
                continue
            if order.action == "discard":
                self._move(unit, DISCARDED)
                continue
            queue, qmgr, header = order.target(head)
            if self.put_fails(queue, qmgr) is None:
                self._move(unit, self.landing(queue, qmgr, header))
            else:
                failed = True
                self.attempts[head.unit] = self.attempts.get(head.unit, 0) + 1
        return failed

    def drain_offline(self, table: Table) -> dict[str, tuple[str, str, bool] | None]:
        """``drain --input DUMP``: per message on the DLQ its output (queue, queue
        manager, with MQDLH), None when discarded, ("", "", True) when it remains;
        first match, every put assumed to succeed, no attempt count read. The dump names
        the queue manager it was unloaded from (LOCAL_QMGR), so a target there is the
        local queue manager's, written with a blank one, as a table's INPUTQM makes it."""
        catch = table.catch_all
        out: dict[str, tuple[str, str, bool] | None] = {}
        for m in self.on_dlq():
            rule = table.choose(m, 0) if m.has_dlh else None
            if rule is None or rule.action == "IGNORE":
                out[m.tag] = (catch or "", "", m.has_dlh)
            elif rule.action == "DISCARD":
                out[m.tag] = None
            else:
                queue, qmgr, header = rule.target(m)
                out[m.tag] = (queue, "" if qmgr == LOCAL_QMGR else qmgr, header)
        return out

    def _move(self, unit: list[Letter], place: Place) -> None:
        for m in unit:
            kept = (
                place if place == DISCARDED else replace(place, header=place.header and m.has_dlh)
            )
            self.place[m.tag] = kept
        self.attempts.pop(unit[0].unit, None)

    def copy(self) -> Model:
        return replace(
            self,
            queues={k: replace(v) for k, v in self.queues.items()},
            letters=list(self.letters),
            place=dict(self.place),
            attempts=dict(self.attempts),
        )
