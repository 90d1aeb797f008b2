"""Run MQSC commands against an embedded queue manager, printing what runmqsc prints.

Supported: DEFINE/ALTER/DELETE/CLEAR/DISPLAY QLOCAL (DISPLAY QUEUE too, with
generic names, attribute lists, ALL and WHERE), DEFINE/ALTER/DELETE/DISPLAY
PROCESS, ALTER/DISPLAY/PING QMGR, SET/DELETE/DISPLAY AUTHREC and END.

Output follows runmqsc: a numbered echo of each command (``     1 : ...``),
the AMQ message, DISPLAY attributes in two 40-character columns, and the
closing summary (``N MQSC commands read.``...). One deliberate difference: a
DISPLAY that asks for attributes shows them after the object name without
``TYPE(QLOCAL)`` unless TYPE or ALL is asked for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from dlqhandler.errors import DLQHandlerError
from dlqhandler.qmgr.embedded.admin import Admin, AdminError, ObjectRecord, valid_name
from dlqhandler.qmgr.embedded.mqsc import Attr, Command, MQSCSyntaxError, parse, split_commands
from dlqhandler.qmgr.embedded.objects import (
    PROCESS_ATTRS,
    QMGR_ATTRS,
    QUEUE_ATTRS,
    AttrError,
    AttrSpec,
    Value,
    expand_authorities,
    generic_match,
    parse_value,
    render_value,
)

__all__ = ["Failure", "MQSCResult", "run_mqsc"]

_QUEUE_STATUS = ("CURDEPTH", "IPPROCS", "OPPROCS")
_QSTATUS_KEYWORDS = frozenset({"TYPE", "ALL", "CURDEPTH", "IPPROCS", "OPPROCS", "UNCOM",
                               "MSGAGE", "APPLTAG", "APPLTYPE", "INPUT", "OUTPUT", "PID",
                               "USERID", "CONNID"})
_TIMES = ("ALTDATE", "ALTTIME", "CRDATE", "CRTIME")
_WIDTH = 40
_VALUED = frozenset({"LIKE", "PROFILE", "PRINCIPAL", "GROUP", "OBJTYPE", "AUTHADD", "AUTHRMV",
                     "WHERE", "TYPE"})
_BARE = frozenset({"REPLACE", "NOREPLACE", "PURGE", "NOPURGE", "ALL"})
_AMQ8405 = "AMQ8405I: Syntax error detected at or near end of command segment below:-"
Action = Callable[[], list[str]]


@dataclass(frozen=True, slots=True)
class Failure:
    """A command that did not work: where it was and what runmqsc said."""

    number: int
    line: int
    text: str
    message: str
    syntax: bool


@dataclass(slots=True)
class MQSCResult:
    """Counts for runmqsc's summary, and every failure."""

    read: int = 0
    failures: list[Failure] = field(default_factory=list)

    @property
    def syntax_errors(self) -> int:
        return sum(1 for f in self.failures if f.syntax)

    @property
    def failed(self) -> int:
        return sum(1 for f in self.failures if not f.syntax)

    @property
    def ok(self) -> bool:
        return not self.failures


def _syntax(cmd: Command, attr: Attr | None, message: str) -> MQSCSyntaxError:
    column = len(cmd.text) if attr is None else attr.column + len(attr.keyword)
    return MQSCSyntaxError(message, line=cmd.line, column=column,
                           segment=cmd.text[:column].rstrip())


def _columns(items: list[str]) -> list[str]:
    lines: list[str] = []
    i = 0
    while i < len(items):
        left = items[i]
        if i + 1 < len(items) and len(left) < _WIDTH and len(items[i + 1]) < _WIDTH:
            lines.append(f"   {left.ljust(_WIDTH)}{items[i + 1]}")
            i += 2
        else:
            lines.append(f"   {left}")
            i += 1
    return lines


def _stamp(seconds: float) -> dict[str, str]:
    t = time.localtime(seconds)
    return {"DATE": time.strftime("%Y-%m-%d", t), "TIME": time.strftime("%H.%M.%S", t)}


def _then(change: Callable[[], object], message: str) -> Action:
    """An action that makes a change, then reports ``message``."""
    def run() -> list[str]:
        change()
        return [message]
    return run


def _flag_spec(table: dict[str, AttrSpec], keyword: str) -> AttrSpec | None:
    for spec in table.values():
        if spec.kind == "flag" and keyword in (spec.name, spec.off):
            return spec
    return None


class _Executor:
    def __init__(self, admin: Admin | None) -> None:
        self.admin = admin

    def _adm(self) -> Admin:
        assert self.admin is not None
        return self.admin

    # -- attribute handling ------------------------------------------------------------
    def values(self, cmd: Command, table: dict[str, AttrSpec], *, extra: tuple[str, ...] = (),
               altering: bool = False) -> tuple[dict[str, Value], dict[str, Attr]]:
        values: dict[str, Value] = {}
        others: dict[str, Attr] = {}
        for a in cmd.attrs:
            if a.keyword in extra:
                others[a.keyword] = a
                continue
            flag = _flag_spec(table, a.keyword)
            if flag is not None:
                if a.values is not None or flag.name in values:
                    raise _syntax(cmd, a, f"{a.keyword} takes no value and is given once")
                values[flag.name] = a.keyword
                continue
            spec = table.get(a.keyword)
            if spec is None or (altering and not spec.alter):
                raise _syntax(cmd, a, f"{a.keyword} is not an attribute of {cmd.objtype}"
                              + (" that can be changed" if spec is not None else ""))
            if a.values is None or len(a.values) != 1:
                raise _syntax(cmd, a, f"{a.keyword} needs one value in parentheses")
            try:
                values[spec.name] = parse_value(spec, a.values[0])
            except AttrError as exc:
                raise _syntax(cmd, a, str(exc)) from exc
        for key, other in others.items():
            if key in _VALUED and other.values is None:
                raise _syntax(cmd, other, f"{key} needs a value in parentheses")
            if key in _BARE and other.values is not None:
                raise _syntax(cmd, other, f"{key} takes no value")
        if {"REPLACE", "NOREPLACE"} <= others.keys() or {"PURGE", "NOPURGE"} <= others.keys():
            raise _syntax(cmd, None, "contradictory keywords")
        return values, others

    # -- planning: validate now, act later -------------------------------------------------
    def plan(self, cmd: Command) -> Action:
        key = (cmd.verb, cmd.objtype)
        if cmd.name is not None and "*" not in cmd.name and not valid_name(cmd.name):
            raise _syntax(cmd, None, f"{cmd.name!r} is not a valid object name")
        if cmd.name is not None and "*" in cmd.name and cmd.verb != "DISPLAY":
            raise _syntax(cmd, None, "a generic name is only valid on DISPLAY")
        planners: dict[tuple[str, str], Callable[[Command], Action]] = {
            ("DEFINE", "QLOCAL"): self._define_queue, ("ALTER", "QLOCAL"): self._alter_queue,
            ("DELETE", "QLOCAL"): self._delete_queue, ("CLEAR", "QLOCAL"): self._clear_queue,
            ("DISPLAY", "QLOCAL"): self._display_queues,
            ("DISPLAY", "QUEUE"): self._display_queues,
            ("DEFINE", "PROCESS"): self._define_process,
            ("ALTER", "PROCESS"): self._alter_process,
            ("DELETE", "PROCESS"): self._delete_process,
            ("DISPLAY", "PROCESS"): self._display_processes,
            ("ALTER", "QMGR"): self._alter_qmgr, ("DISPLAY", "QMGR"): self._display_qmgr,
            ("PING", "QMGR"): self._ping,
            ("SET", "AUTHREC"): self._set_authrec, ("DELETE", "AUTHREC"): self._delete_authrec,
            ("DISPLAY", "AUTHREC"): self._display_authrecs,
            ("DISPLAY", "QSTATUS"): self._display_qstatus,
        }
        planner = planners.get(key)
        if planner is None:
            raise _syntax(cmd, None, f"{cmd.verb} {cmd.objtype} is not supported")
        return planner(cmd)

    def _define_queue(self, cmd: Command) -> Action:
        values, others = self.values(cmd, QUEUE_ATTRS, extra=("LIKE", "REPLACE", "NOREPLACE"))
        like = others["LIKE"].single() if "LIKE" in others else None
        name = str(cmd.name)
        return _then(lambda: self._adm().define_queue(name, values, like=like,
                                                      replace="REPLACE" in others),
                     "AMQ8006I: IBM MQ queue created.")

    def _alter_queue(self, cmd: Command) -> Action:
        values, _ = self.values(cmd, QUEUE_ATTRS)
        name = str(cmd.name)
        return _then(lambda: self._adm().alter_queue(name, values),
                     "AMQ8008I: IBM MQ queue changed.")

    def _delete_queue(self, cmd: Command) -> Action:
        _, others = self.values(cmd, {}, extra=("PURGE", "NOPURGE"))
        name = str(cmd.name)
        return _then(lambda: self._adm().delete_queue(name, purge="PURGE" in others),
                     "AMQ8007I: IBM MQ queue deleted.")

    def _clear_queue(self, cmd: Command) -> Action:
        self.values(cmd, {})
        name = str(cmd.name)
        return _then(lambda: self._adm().clear_queue(name), "AMQ8022I: IBM MQ queue cleared.")

    def _wanted(self, cmd: Command, table: dict[str, AttrSpec], others: dict[str, Attr],
                status: tuple[str, ...]) -> set[str] | None:
        """The attributes a DISPLAY asks for (None: ALL)."""
        if "ALL" in others:
            return None
        wanted: set[str] = set()
        for a in cmd.attrs:
            if a.keyword in ("ALL", "WHERE", "TYPE"):
                continue
            flag = _flag_spec(table, a.keyword)
            name = flag.name if flag is not None else a.keyword
            if name not in table and name not in status + _TIMES:
                raise _syntax(cmd, a, f"{a.keyword} is not an attribute of {cmd.objtype}")
            if a.values is not None:
                raise _syntax(cmd, a, f"{a.keyword} takes no value on DISPLAY")
            wanted.add(name)
        if "WHERE" in others:
            wanted.add(self._where(cmd, others["WHERE"], table, status)[0])
        return wanted

    def _where(self, cmd: Command, a: Attr, table: dict[str, AttrSpec],
               status: tuple[str, ...]) -> tuple[str, str, str]:
        values = a.values or ()
        if len(values) != 3:
            raise _syntax(cmd, a, "WHERE needs (attribute operator value)")
        attr, op, value = values
        attr = attr.upper()
        if attr not in table and attr not in status:
            raise _syntax(cmd, a, f"WHERE: {attr} is not a filterable attribute")
        if op.upper() not in ("EQ", "NE", "GT", "LT", "GE", "LE", "LK", "NL"):
            raise _syntax(cmd, a, f"WHERE: unknown operator {op}")
        return attr, op.upper(), value

    @staticmethod
    def _matches(actual: Value, op: str, wanted: str) -> bool:
        if isinstance(actual, int) and op not in ("LK", "NL"):
            try:
                expected: Value = int(wanted)
            except ValueError:
                return False
        else:
            actual, expected = str(actual).upper(), wanted.upper()
        if op in ("LK", "NL"):
            return generic_match(str(expected), str(actual)) == (op == "LK")
        compare = {"EQ": actual == expected, "NE": actual != expected}
        if op in compare:
            return compare[op]
        a, b = (actual, expected) if isinstance(actual, int) else (str(actual), str(expected))
        return {"GT": a > b, "LT": a < b, "GE": a >= b, "LE": a <= b}[op]  # type: ignore[operator]

    def _items(self, record: ObjectRecord, table: dict[str, AttrSpec],
               wanted: set[str] | None, status: tuple[str, ...]) -> list[str]:
        items: list[str] = []
        stamps = {f"CR{k}": v for k, v in _stamp(record.created).items()}
        stamps.update({f"ALT{k}": v for k, v in _stamp(record.altered).items()})
        names = sorted({*table, *status, *_TIMES} if wanted is None else wanted)
        for name in names:
            if name in table:
                items.append(render_value(table[name], record.attrs[name]))
            elif name in status:
                items.append(f"{name}({record.status[name]})")
            elif name in stamps:
                items.append(f"{name}({stamps[name]})")
        return items

    def _display_queues(self, cmd: Command) -> Action:
        _, others = self.values(cmd, {}, extra=tuple(a.keyword for a in cmd.attrs))
        if "TYPE" in others and others["TYPE"].single() not in ("QLOCAL", "ALL"):
            raise _syntax(cmd, others["TYPE"], "only TYPE(QLOCAL) queues exist here")
        pattern = str(cmd.name)
        generic = pattern.endswith("*")
        wanted = self._wanted(cmd, QUEUE_ATTRS, others, _QUEUE_STATUS)
        if wanted is not None and not wanted and not generic and "TYPE" not in others:
            wanted = None  # a single queue and no attributes: ALL
        where = (self._where(cmd, others["WHERE"], QUEUE_ATTRS, _QUEUE_STATUS)
                 if "WHERE" in others else None)
        show_type = wanted is None or "TYPE" in others or not wanted

        def run() -> list[str]:
            out: list[str] = []
            for rec in self._adm().queues(pattern):
                if where is not None:
                    value = rec.status.get(where[0], rec.attrs.get(where[0], ""))
                    if not self._matches(value, where[1], where[2]):
                        continue
                head = [f"QUEUE({rec.name})"] + (["TYPE(QLOCAL)"] if show_type else [])
                items = head + self._items(rec, QUEUE_ATTRS, wanted, _QUEUE_STATUS)
                out += ["AMQ8409I: Display Queue details.", *_columns(items)]
            if not out and where is None:
                raise AdminError("AMQ8147E", f"IBM MQ object {pattern} not found.")
            return out
        return run

    def _display_qstatus(self, cmd: Command) -> Action:
        """DISPLAY QSTATUS(q) [TYPE(QUEUE|HANDLE)]: every status attribute is shown."""
        _, others = self.values(cmd, {}, extra=tuple(a.keyword for a in cmd.attrs))
        kind = others["TYPE"].single() if "TYPE" in others else "QUEUE"
        if kind not in ("QUEUE", "HANDLE"):
            raise _syntax(cmd, others.get("TYPE"), "TYPE must be QUEUE or HANDLE")
        unknown = [a for k, a in others.items() if k not in _QSTATUS_KEYWORDS]
        if unknown:
            raise _syntax(cmd, unknown[0], f"{unknown[0].keyword} is not a QSTATUS attribute")
        pattern = str(cmd.name)

        def run() -> list[str]:
            admin = self._adm()
            if not admin.queues(pattern):
                raise AdminError("AMQ8147E", f"IBM MQ object {pattern} not found.")
            found = (admin.handle_status(pattern) if kind == "HANDLE"
                     else admin.queue_status(pattern))
            out: list[str] = []
            for status in found:
                out += ["AMQ8450I: Display queue status details.", *_columns(status.items())]
            return out
        return run

    def _define_process(self, cmd: Command) -> Action:
        values, others = self.values(cmd, PROCESS_ATTRS, extra=("REPLACE", "NOREPLACE"))
        name = str(cmd.name)
        return _then(lambda: self._adm().define_process(name, values,
                                                        replace="REPLACE" in others),
                     "AMQ8010I: IBM MQ process created.")

    def _alter_process(self, cmd: Command) -> Action:
        values, _ = self.values(cmd, PROCESS_ATTRS)
        name = str(cmd.name)
        return _then(lambda: self._adm().alter_process(name, values),
                     "AMQ8011I: IBM MQ process changed.")

    def _delete_process(self, cmd: Command) -> Action:
        self.values(cmd, {})
        name = str(cmd.name)
        return _then(lambda: self._adm().delete_process(name),
                     "AMQ8012I: IBM MQ process deleted.")

    def _display_processes(self, cmd: Command) -> Action:
        _, others = self.values(cmd, {}, extra=tuple(a.keyword for a in cmd.attrs))
        wanted = self._wanted(cmd, PROCESS_ATTRS, others, ())
        pattern = str(cmd.name)
        if wanted is not None and not wanted and not pattern.endswith("*"):
            wanted = None

        def run() -> list[str]:
            out: list[str] = []
            for rec in self._adm().processes(pattern):
                items = [f"PROCESS({rec.name})", *self._items(rec, PROCESS_ATTRS, wanted, ())]
                out += ["AMQ8407I: Display Process details.", *_columns(items)]
            if not out:
                raise AdminError("AMQ8147E", f"IBM MQ object {pattern} not found.")
            return out
        return run

    def _alter_qmgr(self, cmd: Command) -> Action:
        values, _ = self.values(cmd, QMGR_ATTRS, altering=True)
        return _then(lambda: self._adm().alter_qmgr(values),
                     "AMQ8005I: IBM MQ queue manager changed.")

    def _display_qmgr(self, cmd: Command) -> Action:
        _, others = self.values(cmd, {}, extra=tuple(a.keyword for a in cmd.attrs))
        wanted = self._wanted(cmd, QMGR_ATTRS, others, ("QMNAME",))
        wanted = None if wanted is not None and not wanted else wanted

        def run() -> list[str]:
            attrs = self._adm().qmgr_attributes()
            names = sorted(QMGR_ATTRS if wanted is None else wanted)
            items = [f"QMNAME({attrs['QMNAME']})"]
            items += [render_value(QMGR_ATTRS[n], attrs[n]) for n in names if n in QMGR_ATTRS]
            return ["AMQ8408I: Display Queue Manager details.", *_columns(items)]
        return run

    def _ping(self, cmd: Command) -> Action:
        self.values(cmd, {})
        return lambda: ["AMQ8415I: Ping IBM MQ Queue Manager command complete."]

    def _authrec_keys(self, cmd: Command, others: dict[str, Attr], *,
                      need: bool) -> tuple[str | None, str | None]:
        if "GROUP" in others:
            raise _syntax(cmd, others["GROUP"], "GROUP is not supported: use PRINCIPAL")
        objtype = others["OBJTYPE"].single() if "OBJTYPE" in others else None
        if objtype not in (None, "QUEUE"):
            raise _syntax(cmd, others["OBJTYPE"], "only OBJTYPE(QUEUE) is supported")
        if need and objtype is None:
            raise _syntax(cmd, None, "OBJTYPE(QUEUE) is required")
        profile = others["PROFILE"].single() if "PROFILE" in others else None
        principal = others["PRINCIPAL"].single() if "PRINCIPAL" in others else None
        if need and (not profile or not principal):
            raise _syntax(cmd, None, "PROFILE(...) and PRINCIPAL(...) are required")
        return profile, principal

    def _auth_list(self, cmd: Command, a: Attr | None) -> frozenset[str]:
        if a is None:
            return frozenset()
        try:
            return expand_authorities(list(a.values or ()))
        except AttrError as exc:
            raise _syntax(cmd, a, str(exc)) from exc

    _AUTHREC_KEYS = ("PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP", "AUTHADD", "AUTHRMV")

    def _set_authrec(self, cmd: Command) -> Action:
        _, others = self.values(cmd, {}, extra=self._AUTHREC_KEYS)
        profile, principal = self._authrec_keys(cmd, others, need=True)
        add = self._auth_list(cmd, others.get("AUTHADD"))
        remove = self._auth_list(cmd, others.get("AUTHRMV"))
        return _then(lambda: self._adm().set_authrec(str(profile), str(principal), add=add,
                                                     remove=remove),
                     "AMQ8862I: IBM MQ authority record set.")

    def _delete_authrec(self, cmd: Command) -> Action:
        _, others = self.values(cmd, {}, extra=self._AUTHREC_KEYS[:4])
        profile, principal = self._authrec_keys(cmd, others, need=True)
        return _then(lambda: self._adm().delete_authrec(str(profile), str(principal)),
                     "AMQ8863I: IBM MQ authority record deleted.")

    def _display_authrecs(self, cmd: Command) -> Action:
        _, others = self.values(cmd, {}, extra=self._AUTHREC_KEYS[:4])
        profile, principal = self._authrec_keys(cmd, others, need=False)

        def run() -> list[str]:
            out: list[str] = []
            for rec in self._adm().authrecs(profile, principal):
                auths = ",".join(sorted(rec.authorities)) or "NONE"
                items = [f"PROFILE({rec.profile})", f"ENTITY({rec.principal})",
                         "ENTTYPE(PRINCIPAL)", f"OBJTYPE({rec.objtype})", f"AUTHLIST({auths})"]
                out += ["AMQ8864I: Display authority record details.", *_columns(items)]
            if not out:
                raise AdminError("AMQ8147E", f"IBM MQ object {profile or '*'} not found.")
            return out
        return run


def _summary(result: MQSCResult, *, verify: bool) -> list[str]:
    n = result.read
    lines = ["One MQSC command read." if n == 1 else f"{n} MQSC commands read."]
    s = result.syntax_errors
    lines.append("No commands have a syntax error." if s == 0 else
                 "One command has a syntax error." if s == 1 else
                 f"{s} commands have a syntax error.")
    if not verify:
        f = result.failed
        lines.append("All valid MQSC commands were processed." if f == 0 else
                     "One valid MQSC command could not be processed." if f == 1 else
                     f"{f} valid MQSC commands could not be processed.")
    return lines


def _one(executor: _Executor, cmd: Command, *, verify: bool) -> list[str]:
    action = executor.plan(cmd)
    return [] if verify else action()


def run_mqsc(source: str, admin: Admin | None, out: TextIO, *, qmgr_name: str,
             verify: bool = False) -> MQSCResult:
    """Run (or with ``verify``, only check) MQSC text; write runmqsc's output to ``out``."""
    executor = _Executor(None if verify else admin)
    result = MQSCResult()
    out.write(f"Starting MQSC for queue manager {qmgr_name}.\n\n\n")
    for number, (line, text) in enumerate(split_commands(source), start=1):
        out.write(f"{number:6d} : {text}\n")
        lines: list[str]
        counted = False
        try:
            cmd = parse(text, line)
            if cmd.verb == "END":
                break
            result.read += 1
            counted = True
            lines = _one(executor, cmd, verify=verify)
        except MQSCSyntaxError as exc:
            result.read += 0 if counted else 1
            result.failures.append(Failure(number, line, text, exc.detail, syntax=True))
            lines = [_AMQ8405, exc.segment, f"({exc.detail})"]
        except AdminError as exc:
            result.failures.append(Failure(number, line, text, str(exc), syntax=False))
            lines = [str(exc)]
        except DLQHandlerError as exc:
            message = f"AMQ8101S: IBM MQ error has occurred: {exc}"
            result.failures.append(Failure(number, line, text, message, syntax=False))
            lines = [message]
        out.writelines(f"{x}\n" for x in lines)
    out.writelines(f"{x}\n" for x in _summary(result, verify=verify))
    return result
