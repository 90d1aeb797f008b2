"""``dlqhandler lint`` of large wildcard tables, against reading and tokenising the file.

Usage: ``python benchmarks/lint.py [SIZE ...]`` (default 2500 and 10000 rules). Prints,
per size, the wall and CPU seconds of ``dlqhandler lint FILE`` in its own process (what a
user runs: interpreter start, imports, compile, report), the in-process compile and its
reachability check (the whole-table walk ``run`` also pays at start and on every hot
reload), and the floor.

The floor is from outside the product: a fresh ``python`` process that reads the same
file and splits it into tokens with one regular expression (words, quoted strings,
parentheses), which is the least any checker written in Python must do. In-process
figures are CPU seconds (``time.process_time``): on a machine shared with other work the
wall clock is mostly waiting. ``run()`` returns
the figures as a flat dict for ``run_all``; each is the best of three runs.

The tables are wildcard routing tables: prefix patterns on DESTQ, REPLYQ and APPLNAME,
shared REASON values, generic patterns, a catch-all; many rules cover each other (APP1.*
covers APP12.*), so the reachability walk has real work. Before issue 28 the walk compared
every wildcard rule with every earlier one: 10,000 rules took 69 s.
"""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dlqhandler.rules import compile_rules
from dlqhandler.rules.checks import reachability

SIZES = (2500, 10_000)
SEED = 28
ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / ".venv" / "bin" / "dlqhandler"

FLOOR = r"""
import re, sys
data = open(sys.argv[1], encoding="utf-8").read()
tokens = re.findall(r"'(?:[^']|'')*'|[()]|[^\s(),']+", data)
print(len(tokens))
"""


def build_table(size: int, seed: int = SEED) -> str:
    """``size`` rules (the last a catch-all) of wildcard routing, seeded."""
    rng = random.Random(seed)
    lines = []
    for i in range(size - 1):
        kind = i % 5
        if kind == 0:
            lines.append(f"DESTQ(APP{i}.*) ACTION(FWD) FWDQ(APP{i}.DLQ) HEADER(YES)")
        elif kind == 1:
            lines.append(
                f"DESTQ(TEAM{rng.randrange(500)}.*) REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)"
            )
        elif kind == 2:
            lines.append(f"APPLNAME(SVC{i}*) DESTQ(APP*) ACTION(FWD) FWDQ(SVC{i}.DLQ)")
        elif kind == 3:
            lines.append(f"REPLYQ(R{rng.randrange(1000)}.?*) ACTION(DISCARD)")
        else:
            lines.append(f"DESTQ(APP{rng.randrange(2000)}.Q?*) REASON(2085) ACTION(IGNORE)")
    lines.append("ACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)")
    return "\n".join(lines) + "\n"


def _child(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _best(argv: list[str], repeat: int = 3) -> tuple[float, float]:
    runs = [_child(argv) for _ in range(repeat)]
    return min(w for w, _ in runs), min(c for _, c in runs)


def run(sizes: tuple[int, ...] = SIZES) -> dict[str, float]:
    """Measure every size; a flat dict of seconds (``rules10000_lint_s``...)."""
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = Path(tmp) / f"wild{size}.rul"
            text = build_table(size)
            path.write_text(text, encoding="utf-8")
            result = compile_rules(text, source=str(path))
            assert result.ruleset is not None
            assert len(result.ruleset.rules) == size
            lint_wall, lint_cpu = _best([str(CLI), "lint", str(path)])
            floor_wall, floor_cpu = _best([sys.executable, "-c", FLOOR, str(path)])
            compile_s = min(_timed(compile_rules, text, source=str(path)) for _ in range(3))
            reach_s = min(_timed(reachability, result.ruleset.rules) for _ in range(3))
            out.update(
                {
                    f"rules{size}_lint_s": lint_wall,
                    f"rules{size}_lint_cpu_s": lint_cpu,
                    f"rules{size}_floor_s": floor_wall,
                    f"rules{size}_floor_cpu_s": floor_cpu,
                    f"rules{size}_compile_cpu_s": compile_s,
                    f"rules{size}_reachability_cpu_s": reach_s,
                    f"rules{size}_diagnostics": len(result.diagnostics),
                }
            )
    return out


def _timed(fn: Callable[..., object], *args: object, **kwargs: object) -> float:
    start = time.process_time()  # CPU: on a shared machine wall time is mostly waiting
    fn(*args, **kwargs)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    sizes = tuple(int(a) for a in args) or SIZES
    r = run(sizes)
    print(
        f"{'rules':>7}  {'lint wall':>9}  {'lint cpu':>8}  {'floor wall':>10}  "
        f"{'compile cpu':>11}  {'reachability cpu':>16}"
    )
    for size in sizes:
        print(
            f"{size:>7,}  {r[f'rules{size}_lint_s']:>8.2f}s  "
            f"{r[f'rules{size}_lint_cpu_s']:>7.2f}s  {r[f'rules{size}_floor_s']:>9.2f}s  "
            f"{r[f'rules{size}_compile_cpu_s']:>10.2f}s  "
            f"{r[f'rules{size}_reachability_cpu_s']:>15.3f}s"
        )
    print("floor: a fresh python reading the file and tokenising it with one regex")


if __name__ == "__main__":
    main()
