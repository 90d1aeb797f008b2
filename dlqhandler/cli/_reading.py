"""How commands read the files a user names and show what is wrong with them.

``lint``, ``test``, ``run``, ``check`` and ``report`` read a rules table the same way
(:func:`read_table`: the file's bytes, or standard input for ``-``) and render a
:class:`~dlqhandler.rules.Diagnostic` the same way (:func:`render`: ``path:line:col:
severity[CODE]: message``, the source line, a caret under the column, the hint), with
control characters escaped (:func:`escape`) and, past the diagnostic cap, one line
counting what is not shown (:func:`omitted_line`). ``test`` renders the problems of its
case files through the same functions.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dlqhandler.cases.runner import ASSUMED_DEADQ  # what `run` uses: the QM's DEADQ, usually
from dlqhandler.rules import CompileResult, Diagnostic

__all__ = ["ASSUMED_DEADQ", "escape", "omitted_line", "read_table", "render"]


def read_table(name: str | Path) -> bytes | str:
    """A rules table's bytes, from a file or (``-``) standard input; OSError if unreadable.

    Standard input without a byte stream (replaced by text) gives its text."""
    if str(name) == "-":
        stream = getattr(sys.stdin, "buffer", None)
        return stream.read() if stream is not None else sys.stdin.read()
    return Path(name).read_bytes()


# C0 controls but TAB, DEL and the C1 controls: shown as \xNN, never sent to a terminal.
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)] if c != 0x09}


def escape(text: str) -> str:
    """``text`` with control characters (ESC, CR, NUL... but not TAB) shown as ``\\xNN``."""
    return text.translate(_CONTROLS)


def render(d: Diagnostic, lines: list[str]) -> str:
    """One diagnostic with its source line, a caret under the column, and the hint; control
    characters escaped (the caret still under the column)."""
    out = [escape(str(d))]
    if 1 <= d.line <= len(lines):
        src = lines[d.line - 1]
        lead = "".join(c if c == "\t" else " " for c in escape(src[: d.column - 1]))
        end = d.end_column or d.column + 1
        span = src[d.column - 1 : end - 1]
        width = max(1, end - d.column + len(escape(span)) - len(span))
        out.append(f"  {escape(src)}")
        out.append(f"  {lead}^{'~' * (width - 1)}")
    if d.hint:
        out.append(f"  hint: {escape(d.hint)}")
    return "\n".join(out)


def omitted_line(
    result: CompileResult, path: str, how: str = "--error-limit N shows more, 0 all"
) -> str | None:
    """What a capped report says about the diagnostics it does not show (and ``how`` to
    see them), or None."""
    if not result.omitted:
        return None
    by_code = ", ".join(f"{code} x{n}" for code, n in sorted(result.omitted.items()))
    return f"{escape(path)}: {result.omitted_count} more diagnostics not shown ({by_code}); {how}"
