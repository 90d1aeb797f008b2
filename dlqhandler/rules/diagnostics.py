"""Diagnostics: what a rules table got wrong, where, and how to fix it.

Every problem the compiler reports has a stable code. :data:`CODES` is the one
table of codes: severity, a one-line summary, the message and hint templates
used to build each :class:`Diagnostic`, and a small rules table showing the
mistake. A test compiles every example and checks that it produces its code,
so the table, the messages and the behaviour cannot drift apart.

Codes: ``E1xx``/``W1xx`` lexical and syntax, ``E2xx`` table structure,
``E3xx``/``W3xx`` keyword values, ``E4xx``/``W4xx`` keyword combinations in a
rule, ``W5xx`` whole-table analysis (shadowing, loops, catch-all...).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, SupportsIndex

__all__ = [
    "CODES",
    "DEFAULT_DIAGNOSTIC_LIMIT",
    "BoundedDiagnostics",
    "CodeInfo",
    "Diagnostic",
    "Severity",
    "make_diagnostic",
]

DEFAULT_DIAGNOSTIC_LIMIT = 100  # what lint and run show by default, as compilers cap errors


class Severity(StrEnum):
    """An error stops the table from compiling; a warning does not."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem at a 1-based line and column of a rules table."""

    path: str
    line: int
    column: int
    severity: Severity
    code: str
    message: str
    hint: str | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}"
        return f"{where}: {self.severity}[{self.code}]: {self.message}"

    def sort_key(self) -> tuple[int, int, str, str]:
        return (self.line, self.column, self.code, self.message)


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """A diagnostic code: what it means and an example table that produces it."""

    code: str
    severity: Severity
    summary: str
    message: str  # str.format template; fields given when the diagnostic is made
    hint: str | None
    example: str
    triggered: bool = False  # compile the example with triggered=True
    input_queue: str | None = None  # compile the example with this input queue


E, W = Severity.ERROR, Severity.WARNING

_TABLE: tuple[CodeInfo, ...] = (
    # --- lexical and syntax ---
    CodeInfo(
        "E101",
        E,
        "unknown keyword (no abbreviations)",
        "unknown keyword {keyword}",
        "{suggestion}",
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRIES(3)\n",
    ),
    CodeInfo(
        "E102",
        E,
        "the same keyword twice in one entry",
        "duplicate keyword {keyword} (first given at column {first})",
        "each rule starts on a new line; give a keyword once per entry",
        "REASON(2053) REASON(2051) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E103",
        E,
        "keyword without a parenthesised value",
        "keyword {keyword} has no value",
        "write {keyword}(value)",
        "FORMAT ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E104",
        E,
        "quoted string not closed before the end of the entry",
        "unterminated quoted string",
        "close it with ' (write '' for a quote inside the string)",
        "APPLNAME('ABC ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E105",
        E,
        "'(' without a matching ')'",
        "missing ')' after the value of {keyword}",
        "close the value with ')'",
        "ACTION(IGNORE\n",
    ),
    CodeInfo(
        "E106",
        E,
        "text that is not part of KEYWORD(value)",
        "unexpected {what}",
        "every item is KEYWORD(value), separated by blanks or commas",
        "REASON(2053) ACTION(IGNORE))\n",
    ),
    CodeInfo(
        "E107",
        E,
        "more than one value inside the parentheses",
        "{keyword} takes one value; found more after {value!r}",
        "quote a value that contains blanks: {keyword}('...')",
        "DESTQ(MY QUEUE) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E108",
        E,
        "character that is only allowed inside quotes",
        "character {char!r} must be quoted",
        "unquoted values may use A-Z a-z 0-9 . / _ % * ? & -; quote anything else",
        "DESTQ(Q#1) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E109",
        E,
        "byte that is not UTF-8 outside a comment",
        "byte {byte} is not UTF-8{more}: the table must be UTF-8 (or ASCII)",
        "convert the file, e.g. iconv -f ISO-8859-1 -t UTF-8; MQ names are ASCII",
        "DESTQ('caf\udce9') ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E110",
        E,
        "a table in UTF-16 or UTF-32",
        "the table is {encoding} ({order}; {shown}): it must be UTF-8 (or ASCII)",
        "convert the file, e.g. iconv -f {iconv} -t UTF-8 FILE > FILE.utf8, or save it "
        "as UTF-8 (Windows editors call UTF-16 'Unicode')",
        "\udcff\udcfeA\x00C\x00T\x00I\x00O\x00N\x00(\x00I\x00G\x00N\x00O\x00R\x00E\x00)\x00",
    ),
    CodeInfo(
        "E111",
        E,
        "a CR that does not end a line with LF (CR-only line ends)",
        "the table's lines end with a CR alone (CR-only line ends, as classic Mac OS "
        "wrote them): lines end with LF or CR LF, so it reads as one long line",
        "convert the line ends, e.g. tr '\\r' '\\n' < FILE > FILE.lf",
        "REASON(MQRC_Q_FULL) ACTION(IGNORE)\rACTION(FWD) FWDQ(DLQ.CATCHALL)\r",
    ),
    CodeInfo(
        "E112",
        E,
        "a CR inside a line (not followed by LF)",
        "a CR not followed by LF inside this line: lines end with LF or CR LF, and a "
        "stray CR is not part of any value",
        "remove the CR (an editor that shows control characters, or tr -d '\\r' if the "
        "table has no CR LF line ends to keep)",
        "REASON(MQRC_Q_FULL)\r ACTION(IGNORE)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n",
    ),
    CodeInfo(
        "W101",
        W,
        "no blank or comma between ')' and the next keyword",
        "no separator before {keyword}",
        "put a blank or a comma between keywords",
        "REASON(2053)ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "W102",
        W,
        "line longer than 72 significant characters",
        "line has {length} significant characters (more than 72)",
        "split the entry with a '+' continuation; 72 is the portable limit",
        "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(A.VERY.LONG.QUEUE.NAME.FOR.FULL.QUEUES) "
        "HEADER(YES)\n",
    ),
    CodeInfo(
        "W103",
        W,
        "continuation character on the last line",
        "the last line ends with a continuation character '{char}'",
        "remove it, or add the rest of the entry",
        "ACTION(IGNORE) +",
    ),
    CodeInfo(
        "W104",
        W,
        "unquoted lower case folded to upper case",
        "{keyword}({raw}) is folded to {keyword}({folded})",
        "MQ names are case-sensitive: quote the value ({keyword}('{raw}')) "
        "to keep lower case, or write it in upper case",
        "DESTQ(myq) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "W105",
        W,
        "byte that is not UTF-8 in a comment (accepted)",
        "byte {byte} is not UTF-8{more}; accepted in a comment, which is ignored",
        "save the table as UTF-8 (iconv -f ISO-8859-1 -t UTF-8) to silence this",
        "* caf\udce9\nACTION(IGNORE)\n",
    ),
    # --- table structure ---
    CodeInfo(
        "E201",
        E,
        "control data after the first entry",
        "control-data keyword {keyword} after the first entry",
        "control data (INPUTQ, INPUTQM, RETRYINT, WAIT) must be the first entry",
        "ACTION(IGNORE)\nWAIT(NO)\n",
    ),
    CodeInfo(
        "E202",
        E,
        "control-data and rule keywords in one entry",
        "control-data keyword {keyword} in a rule",
        "put control data on its own first line, and each rule on its own line",
        "INPUTQ(DLQ) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E203",
        E,
        "a table without rules",
        "the rules table has no rules",
        "add at least one rule, for example ACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)",
        "WAIT(NO)\n",
    ),
    CodeInfo(
        "E204",
        E,
        "rule without ACTION",
        "rule has no ACTION",
        "add ACTION(RETRY|FWD|DISCARD|IGNORE)",
        "REASON(2053)\n",
    ),
    # --- values ---
    CodeInfo(
        "E301",
        E,
        "value with no significant character",
        "{keyword} has an empty value",
        "give at least one character; ' ' (a quoted blank) counts as one",
        "FORMAT('') ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E302",
        E,
        "value longer than its field",
        "{keyword} value has {length} characters{star_note}; the field holds {limit}",
        "shorten it; '*' characters do not count toward the length",
        "FORMAT(ABCDEFGHI) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E303",
        E,
        "wildcard where none is allowed",
        "wildcards are not allowed in {keyword}",
        "{keyword} takes an exact value; '*' and '?' are only for pattern keywords",
        "ACTION(FWD) FWDQ(DLQ.*)\n",
    ),
    CodeInfo(
        "E304",
        E,
        "'*' or '?' inside a number",
        "{keyword}({value}): '*' is allowed only as the whole value, '?' never",
        "write {keyword}(*) for any value, or a number",
        "MSGTYPE('2*') ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E305",
        E,
        "number outside 0..999999999",
        "{keyword}({value}) is outside {low}..999999999",
        "numbers must be between {low} and 999999999",
        "ACTION(RETRY) RETRY(1000000000)\n",
    ),
    CodeInfo(
        "E306",
        E,
        "not a number or symbolic name",
        "{keyword}({value}) is not {expected}",
        "{suggestion}",
        "MSGTYPE(TWO) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E307",
        E,
        "unknown MQ symbolic name",
        "unknown symbolic name {name} for {keyword}",
        "{suggestion}",
        "REASON(MQRC_Q_FUL) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E308",
        E,
        "symbolic name from the wrong family",
        "{name} is an {family}_* name; {keyword} takes {allowed}",
        "use a {allowed} name or the number",
        "MSGTYPE(MQPER_PERSISTENT) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E309",
        E,
        "symbolic name with a negative value",
        "{name} is {value}; {keyword} values must be 0..999999999",
        "a negative value can never be matched; remove the keyword or use *",
        "APPLTYPE(MQAT_UNKNOWN) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E310",
        E,
        "value not one of the keyword's choices",
        "{keyword}({value}) is not valid; expected {choices}",
        "{suggestion}",
        "ACTION(DELETE)\n",
    ),
    CodeInfo(
        "E311",
        E,
        "RETRY(0)",
        "RETRY(0) is not valid: the minimum is 1",
        "remove RETRY (the default is 1) or give RETRY(1) or more",
        "ACTION(RETRY) RETRY(0)\n",
    ),
    CodeInfo(
        "E312",
        E,
        "substitution token where it is not allowed",
        "{token} is not allowed in {keyword}",
        "{allowed}",
        "DESTQ(&DESTQ) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "E313",
        E,
        "unknown substitution token",
        "unknown substitution token {token} in {keyword}",
        "{keyword} accepts {allowed}",
        "ACTION(FWD) FWDQ(&FOO)\n",
    ),
    CodeInfo(
        "E314",
        E,
        "invalid queue or queue-manager name",
        "{keyword}({value}): {why}",
        "MQ names are 1-48 characters of A-Z a-z 0-9 . / _ %",
        "ACTION(FWD) FWDQ(MY-Q)\n",
    ),
    CodeInfo(
        "E315",
        E,
        "blank queue name where a name is required",
        "{keyword}(' ') is not valid: a queue name is required",
        "name the queue, or use &DESTQ / &REPLYQ",
        "ACTION(FWD) FWDQ(' ')\n",
    ),
    CodeInfo(
        "W301",
        W,
        "FORMAT given as an MQFMT_* name (an extension)",
        "FORMAT({name}) is read as FORMAT('{value}') (a dlqhandler extension)",
        "runmqdlq compares FORMAT with the format name; write FORMAT({plain})",
        "FORMAT(MQFMT_STRING) ACTION(IGNORE)\n",
    ),
    CodeInfo(
        "W302",
        W,
        "FEEDBACK given as an MQRC_* name",
        "FEEDBACK({name}) uses a reason code ({value}); FEEDBACK normally holds MQFB_* values",
        "reason codes in Feedback come from exception reports; check this is intended",
        "FEEDBACK(MQRC_Q_FULL) ACTION(IGNORE)\n",
    ),
    # --- combinations within a rule ---
    CodeInfo(
        "E401",
        E,
        "ACTION(FWD) without FWDQ",
        "ACTION(FWD) needs FWDQ",
        "add FWDQ(queue), FWDQ(&DESTQ) or FWDQ(&REPLYQ)",
        "ACTION(FWD)\n",
    ),
    CodeInfo(
        "E402",
        E,
        "FWDQ with an action other than FWD",
        "FWDQ is only valid with ACTION(FWD), not ACTION({action})",
        "remove FWDQ or change the action to FWD",
        "ACTION(DISCARD) FWDQ(X)\n",
    ),
    CodeInfo(
        "E403",
        E,
        "FWDQM with an action other than FWD",
        "FWDQM is only valid with ACTION(FWD), not ACTION({action})",
        "remove FWDQM or change the action to FWD",
        "ACTION(DISCARD) FWDQM(QM2)\n",
    ),
    CodeInfo(
        "E404",
        E,
        "HEADER with an action other than FWD",
        "HEADER is only valid with ACTION(FWD), not ACTION({action})",
        "remove HEADER; RETRY always removes the MQDLH",
        "ACTION(RETRY) HEADER(NO)\n",
    ),
    CodeInfo(
        "W401",
        W,
        "PUTAUT with DISCARD or IGNORE has no effect",
        "PUTAUT has no effect with ACTION({action})",
        "PUTAUT matters only for RETRY and FWD; remove it",
        "ACTION(DISCARD) PUTAUT(CTX)\n",
    ),
    CodeInfo(
        "W402",
        W,
        "RETRY with DISCARD or IGNORE has no effect",
        "RETRY has no effect with ACTION({action})",
        "{action} never fails, so it is never retried; remove RETRY",
        "ACTION(IGNORE) RETRY(3)\n",
    ),
    # --- whole table ---
    CodeInfo(
        "W501",
        W,
        "rule never reached: an earlier rule matches everything it matches",
        "rule is never reached: the rule at line {other} (ACTION({action})) "
        "matches every message this rule matches",
        "move this rule above line {other}, narrow that rule, or delete this one",
        "ACTION(IGNORE)\nREASON(2053) ACTION(DISCARD)\n",
    ),
    CodeInfo(
        "W502",
        W,
        "FWDQ(&REPLYQ) without a non-blank REPLYQ pattern",
        "FWDQ(&REPLYQ) without REPLYQ('?*'): messages with a blank ReplyToQ fail to forward",
        "add REPLYQ('?*') to the pattern so only messages with a reply queue match",
        "ACTION(FWD) FWDQ(&REPLYQ)\n",
    ),
    CodeInfo(
        "W503",
        W,
        "FWDQM(&REPLYQM) without a non-blank REPLYQM pattern",
        "FWDQM(&REPLYQM) without REPLYQM('?*'): a blank ReplyToQMgr means the local queue manager",
        "add REPLYQM('?*') to the pattern if the local queue manager is not intended",
        "REPLYQ('?*') ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)\n",
    ),
    CodeInfo(
        "W504",
        W,
        "FWD to the input dead-letter queue (a loop)",
        "FWDQ({queue}) is the input dead-letter queue: messages loop forever",
        "forward to another queue, for example DLQ.CATCHALL",
        "INPUTQ(SYSTEM.DEAD.LETTER.QUEUE)\nACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)\n",
    ),
    CodeInfo(
        "W505",
        W,
        "no final catch-all FWD rule",
        "the table does not end with a catch-all ACTION(FWD) rule; "
        "unmatched messages stay on the dead-letter queue",
        "end the table with ACTION(FWD) FWDQ(queue) HEADER(YES) and no pattern",
        "REASON(2053) ACTION(RETRY) RETRY(5)\n",
    ),
    CodeInfo(
        "W506",
        W,
        "RETRYINT(0)",
        "RETRYINT(0) rescans the dead-letter queue continuously",
        "use a positive interval; the default is 60 seconds",
        "RETRYINT(0)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n",
    ),
    CodeInfo(
        "W507",
        W,
        "triggered handler that can leave messages on the DLQ",
        "{why}; runmqdlq would be triggered again and again while messages remain "
        "on the queue (a closed loop); dlqhandler backs off (--trigger-backoff) but "
        "the messages still wait",
        "forward instead of ignoring, and end with a catch-all ACTION(FWD) rule",
        "REASON(2053) ACTION(IGNORE)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n",
        triggered=True,
    ),
)

CODES: dict[str, CodeInfo] = {info.code: info for info in _TABLE}


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


def make_diagnostic(
    code: str,
    path: str,
    line: int,
    column: int,
    *,
    end_column: int | None = None,
    hint: str | None = None,
    severity: Severity | None = None,
    **fields: Any,
) -> Diagnostic:
    """Build a diagnostic from :data:`CODES`, filling its templates with ``fields``."""
    info = CODES[code]
    values = _Blank(fields)
    message = info.message.format_map(values)
    if hint is None and info.hint is not None:
        hint = info.hint.format_map(values) or None
    return Diagnostic(
        path, line, column, severity or info.severity, code, message, hint, end_column
    )


class BoundedDiagnostics(list[Diagnostic]):
    """The stages' list of diagnostics, holding at most ``limit`` of them: the first by
    position (line, column), whatever order they are reported in. The others are only
    counted, by code (``omitted``), so a table of junk costs memory for ``limit``
    diagnostics, not one per bad character. ``limit`` None keeps every one.

    The stages append and extend it as a list; the compiler takes :meth:`kept` at the end.
    A repeat of a diagnostic already dropped is counted again (repeats are rare: the
    count is of reports beyond the cap).
    """

    def __init__(self, limit: int | None) -> None:
        super().__init__()
        self.limit = limit
        self.omitted: Counter[str] = Counter()
        self.errors = 0  # errors reported, kept or not
        self.skip: Callable[[Diagnostic], bool] | None = None  # reports to leave out
        self._worst: tuple[int, int, str, str] | None = None  # largest key kept, when full

    def append(self, d: Diagnostic) -> None:
        if self.skip is not None and self.skip(d):
            return
        self.errors += d.severity == Severity.ERROR
        if self.limit is None:
            super().append(d)
            return
        if self._worst is not None and d.sort_key() > self._worst:
            self.omitted[d.code] += 1
            return
        super().append(d)
        if len(self) >= 2 * self.limit + 16:
            self._trim()

    def extend(self, ds: Iterable[Diagnostic]) -> None:
        for d in ds:
            self.append(d)

    def __iadd__(self, ds: Iterable[Diagnostic]) -> BoundedDiagnostics:  # type: ignore[override,misc]
        self.extend(ds)
        return self

    def insert(self, index: SupportsIndex, d: Diagnostic) -> None:
        self.append(d)

    def _trim(self) -> None:
        assert self.limit is not None
        ordered = sorted(set(self), key=Diagnostic.sort_key)
        for d in ordered[self.limit :]:
            self.omitted[d.code] += 1
        del ordered[self.limit :]
        self[:] = ordered
        if len(ordered) >= self.limit and ordered:
            self._worst = ordered[-1].sort_key()

    def kept(self) -> tuple[Diagnostic, ...]:
        """The diagnostics kept, unique, in position order."""
        if self.limit is not None:
            self._trim()
        return tuple(sorted(set(self), key=Diagnostic.sort_key))
