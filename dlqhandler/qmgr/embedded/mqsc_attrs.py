"""What every runmqsc command does with its attributes, whatever the object type.

Reading: a command's attribute values checked against the object's attribute
table, the other keywords beside them (LIKE, REPLACE, PURGE, WHERE...), and a
syntax error at the keyword that is wrong. Showing: the attributes a DISPLAY
asks for, its WHERE filter, and runmqsc's two 40-character columns.

A command is planned in two steps, as runmqsc does: everything is checked when
the command is read, and the returned :data:`Action` makes the change (or the
display) when it runs; ``runmqsc -v`` only plans.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

from dlqhandler.qmgr.embedded.admin import Admin, AdminError, ObjectRecord
from dlqhandler.qmgr.embedded.mqsc import Attr, Command, MQSCSyntaxError
from dlqhandler.qmgr.embedded.objects import (
    AttrError,
    AttrSpec,
    Value,
    generic_match,
    parse_value,
    render_value,
)

__all__ = [
    "Action",
    "AdminOf",
    "Planner",
    "all_keywords",
    "alter",
    "columns",
    "define_queue_type",
    "display_items",
    "display_queue_type",
    "matches",
    "on_name",
    "read_attrs",
    "shown",
    "syntax",
    "then",
    "wanted",
    "where",
]

Action = Callable[[], list[str]]
AdminOf = Callable[[], Admin]  # the queue manager's admin, when the action runs
Planner = Callable[[Command, AdminOf], Action]

_TIMES = ("ALTDATE", "ALTTIME", "CRDATE", "CRTIME")
_WIDTH = 40
_VALUED = frozenset(
    {"LIKE", "PROFILE", "PRINCIPAL", "GROUP", "OBJTYPE", "AUTHADD", "AUTHRMV", "WHERE", "TYPE"}
)
_BARE = frozenset({"REPLACE", "NOREPLACE", "PURGE", "NOPURGE", "ALL"})


def syntax(cmd: Command, attr: Attr | None, message: str) -> MQSCSyntaxError:
    column = len(cmd.text) if attr is None else attr.column + len(attr.keyword)
    return MQSCSyntaxError(
        message, line=cmd.line, column=column, segment=cmd.text[:column].rstrip()
    )


def columns(items: list[str]) -> list[str]:
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


def then(change: Callable[[], object], message: str) -> Action:
    """An action that makes a change, then reports ``message``."""

    def run() -> list[str]:
        change()
        return [message]

    return run


def alter(
    table: dict[str, AttrSpec],
    change: Callable[[Admin, str, dict[str, Value]], object],
    message: str,
) -> Planner:
    """The planner of an ALTER: attributes of ``table``; ``change(admin, name, values)``."""

    def plan(cmd: Command, adm: AdminOf) -> Action:
        values, _ = read_attrs(cmd, table)
        name = str(cmd.name)
        return then(lambda: change(adm(), name, values), message)

    return plan


def define_queue_type(table: dict[str, AttrSpec], define: Callable[..., object]) -> Planner:
    """The planner of DEFINE for a queue type kept by Admin (QALIAS, QREMOTE, QMODEL): the
    attributes of ``table``, LIKE and REPLACE; ``define(admin, name, values, like=,
    replace=)``."""

    def plan(cmd: Command, adm: AdminOf) -> Action:
        values, others = read_attrs(cmd, table, extra=("LIKE", "REPLACE", "NOREPLACE"))
        like = others["LIKE"].single() if "LIKE" in others else None
        name = str(cmd.name)
        return then(
            lambda: define(adm(), name, values, like=like, replace="REPLACE" in others),
            "AMQ8006I: IBM MQ queue created.",
        )

    return plan


def display_queue_type(
    table: dict[str, AttrSpec],
    listing: Callable[[Admin, str], list[ObjectRecord]],
    queue_type: str,
) -> Planner:
    """The planner of DISPLAY for a queue type kept by Admin, as DISPLAY Q<type>(pattern)
    and DISPLAY QUEUE(pattern) TYPE(Q<type>): the attributes asked for, or ALL;
    ``listing(admin, pattern)`` gives the objects."""

    def plan(cmd: Command, adm: AdminOf) -> Action:
        _, others = read_attrs(cmd, {}, extra=all_keywords(cmd))
        pattern = str(cmd.name)
        names = wanted(cmd, table, {k: v for k, v in others.items() if k != "TYPE"}, ())
        if names is not None and not names:
            names = None  # no attributes: ALL

        def objects() -> Iterator[list[str]]:
            for rec in listing(adm(), pattern):
                yield [
                    f"QUEUE({rec.name})",
                    f"TYPE({queue_type})",
                    *display_items(rec, table, names, ()),
                ]

        return lambda: shown("AMQ8409I: Display Queue details.", objects(), pattern)

    return plan


def on_name(change: Callable[[Admin, str], object], message: str) -> Planner:
    """The planner of a command that takes the object's name and nothing else."""

    def plan(cmd: Command, adm: AdminOf) -> Action:
        read_attrs(cmd, {})
        name = str(cmd.name)
        return then(lambda: change(adm(), name), message)

    return plan


def shown(message: str, objects: Iterable[list[str]], missing: str | None) -> list[str]:
    """DISPLAY's output: ``message`` then the items in columns, for each object;
    AMQ8147E naming ``missing`` when there is none (None: no objects is no error)."""
    out: list[str] = []
    for items in objects:
        out += [message, *columns(items)]
    if not out and missing is not None:
        raise AdminError("AMQ8147E", f"IBM MQ object {missing} not found.")
    return out


def _flag_spec(table: dict[str, AttrSpec], keyword: str) -> AttrSpec | None:
    for spec in table.values():
        if spec.kind == "flag" and keyword in (spec.name, spec.off):
            return spec
    return None


def all_keywords(cmd: Command) -> tuple[str, ...]:
    """Every keyword of ``cmd``: a DISPLAY reads them all as keywords, not values."""
    return tuple(a.keyword for a in cmd.attrs)


def read_attrs(
    cmd: Command, table: dict[str, AttrSpec], *, extra: tuple[str, ...] = (), altering: bool = False
) -> tuple[dict[str, Value], dict[str, Attr]]:
    """The attribute values of ``cmd`` (by ``table``) and the ``extra`` keywords given."""
    values: dict[str, Value] = {}
    others: dict[str, Attr] = {}
    for a in cmd.attrs:
        if a.keyword in extra:
            others[a.keyword] = a
            continue
        flag = _flag_spec(table, a.keyword)
        if flag is not None:
            if a.values is not None or flag.name in values:
                raise syntax(cmd, a, f"{a.keyword} takes no value and is given once")
            values[flag.name] = a.keyword
            continue
        spec = table.get(a.keyword)
        if spec is None or (altering and not spec.alter):
            raise syntax(
                cmd,
                a,
                f"{a.keyword} is not an attribute of {cmd.objtype}"
                + (" that can be changed" if spec is not None else ""),
            )
        if a.values is None or len(a.values) != 1:
            raise syntax(cmd, a, f"{a.keyword} needs one value in parentheses")
        try:
            values[spec.name] = parse_value(spec, a.values[0])
        except AttrError as exc:
            raise syntax(cmd, a, str(exc)) from exc
    for key, other in others.items():
        if key in _VALUED and other.values is None:
            raise syntax(cmd, other, f"{key} needs a value in parentheses")
        if key in _BARE and other.values is not None:
            raise syntax(cmd, other, f"{key} takes no value")
    if {"REPLACE", "NOREPLACE"} <= others.keys() or {"PURGE", "NOPURGE"} <= others.keys():
        raise syntax(cmd, None, "contradictory keywords")
    return values, others


def wanted(
    cmd: Command, table: dict[str, AttrSpec], others: dict[str, Attr], status: tuple[str, ...]
) -> set[str] | None:
    """The attributes a DISPLAY asks for (None: ALL)."""
    if "ALL" in others:
        return None
    names: set[str] = set()
    for a in cmd.attrs:
        if a.keyword in ("ALL", "WHERE", "TYPE"):
            continue
        flag = _flag_spec(table, a.keyword)
        name = flag.name if flag is not None else a.keyword
        if name not in table and name not in status + _TIMES:
            raise syntax(cmd, a, f"{a.keyword} is not an attribute of {cmd.objtype}")
        if a.values is not None:
            raise syntax(cmd, a, f"{a.keyword} takes no value on DISPLAY")
        names.add(name)
    if "WHERE" in others:
        names.add(where(cmd, others["WHERE"], table, status)[0])
    return names


def where(
    cmd: Command, a: Attr, table: dict[str, AttrSpec], status: tuple[str, ...]
) -> tuple[str, str, str]:
    """A DISPLAY's WHERE(attribute operator value), checked."""
    values = a.values or ()
    if len(values) != 3:
        raise syntax(cmd, a, "WHERE needs (attribute operator value)")
    attr, op, value = values
    attr = attr.upper()
    if attr not in table and attr not in status:
        raise syntax(cmd, a, f"WHERE: {attr} is not a filterable attribute")
    if op.upper() not in ("EQ", "NE", "GT", "LT", "GE", "LE", "LK", "NL"):
        raise syntax(cmd, a, f"WHERE: unknown operator {op}")
    return attr, op.upper(), value


def matches(actual: Value, op: str, expected_text: str) -> bool:
    """Whether ``actual`` passes WHERE's ``op`` against ``expected_text``."""
    if isinstance(actual, int) and op not in ("LK", "NL"):
        try:
            expected: Value = int(expected_text)
        except ValueError:
            return False
    else:
        actual, expected = str(actual).upper(), expected_text.upper()
    if op in ("LK", "NL"):
        return generic_match(str(expected), str(actual)) == (op == "LK")
    compare = {"EQ": actual == expected, "NE": actual != expected}
    if op in compare:
        return compare[op]
    a, b = (actual, expected) if isinstance(actual, int) else (str(actual), str(expected))
    return {"GT": a > b, "LT": a < b, "GE": a >= b, "LE": a <= b}[op]  # type: ignore[operator]


def display_items(
    record: ObjectRecord,
    table: dict[str, AttrSpec],
    names: set[str] | None,
    status: tuple[str, ...],
) -> list[str]:
    """The ``KEYWORD(value)`` items of ``record`` a DISPLAY shows (``names`` None: ALL)."""
    items: list[str] = []
    stamps = {f"CR{k}": v for k, v in _stamp(record.created).items()}
    stamps.update({f"ALT{k}": v for k, v in _stamp(record.altered).items()})
    for name in sorted({*table, *status, *_TIMES} if names is None else names):
        if name in table:
            items.append(render_value(table[name], record.attrs[name]))
        elif name in status:
            items.append(f"{name}({record.status[name]})")
        elif name in stamps:
            items.append(f"{name}({stamps[name]})")
    return items
