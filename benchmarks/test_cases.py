"""``dlqhandler test``: 10,000 cases against a 1,000-rule table, as a whole process.

Usage: ``python benchmarks/test_cases.py [CASES [RULES]]`` (default 10,000 and 1,000).
Prints the wall and CPU seconds of ``dlqhandler test TABLE CASES.yaml`` in its own process
(what CI runs: interpreter start, imports, reading the case file, compiling the table,
deciding every case, the report), the cases per second that makes, and the floor.

The floor is the matcher's own decisions per second (:meth:`Matcher.decide
<dlqhandler.rules.Matcher.decide>`, cold cache, in this process) on the same messages at
the same attempt counts: what deciding the cases costs with nothing else around it. The
ratio is the command's cases/s over that: 1.0 would mean reading YAML, building messages,
starting Python and reporting cost nothing. The in-process parts (reading the case file,
deciding and comparing) and the CPU any dlqhandler command spends before its own work
(Python, the parser with every command imported) are printed too, so a slow figure says
where its time goes. On a machine shared with other work the wall clock is mostly waiting:
the CPU seconds of the process are printed beside it. Issue 35 asks for under 2 s for the whole
process.

The table and messages are ``benchmarks/matcher.py``'s (a routing table with retries, team
prefixes, substitution and a catch-all; a realistic mix of dead letters); the case file is
what ``dlqhandler test --generate`` writes for them, with attempt counts from 0 to 5 so
RETRY(n) falls through in some cases. Each timing is the best of three.
"""

from __future__ import annotations

import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from matcher import build_messages, build_table  # noqa: E402 - benchmarks/matcher.py

from dlqhandler.cases import read_cases  # noqa: E402
from dlqhandler.cases.generate import generate_cases  # noqa: E402
from dlqhandler.cases.runner import run_cases  # noqa: E402
from dlqhandler.rules import Matcher, compile_rules_or_raise  # noqa: E402

CASES = 10_000
RULES = 1000
SEED = 35
CLI = ROOT / ".venv" / "bin" / "dlqhandler"
# What `dlqhandler test` pays before its own work: start Python, build the parser (which
# imports the module of the command that runs, and only it).
_START = "from dlqhandler.cli import build_parser; build_parser(['test'])"


def _with_attempts(text: str, rng: random.Random) -> str:
    """The generated cases with an attempt count from 0 to 5 each, and the expectation
    of that count (the generated one is at 0): rewritten by the decisions below."""
    return re.sub(
        r"(?m)^    expect:$", lambda _: f"    attempts: {rng.randrange(6)}\n    expect:", text
    )


def _child(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[1:3]} exited {done.returncode}: {done.stderr[-500:]}")
    return wall, cpu, done.stdout


def build(folder: Path, cases: int, rules: int) -> tuple[Path, Path]:
    """The table and a passing case file of ``cases`` cases, written under ``folder``."""
    table_text = build_table(rules)
    ruleset = compile_rules_or_raise(table_text, source="bench.rul")
    messages = build_messages(cases, random.Random(SEED))
    generated = generate_cases(
        Matcher(ruleset), messages, rules="bench.rul", source="benchmark", table="bench.rul"
    )
    text = _with_attempts(generated.text, random.Random(SEED))
    read = read_cases(text, "bench.cases.yaml")
    # the expectations of the new attempt counts: what the matcher decides there
    fixed: list[str] = []
    results = iter(run_cases(Matcher(ruleset), read.cases))
    for line in text.splitlines():
        if line == "    expect:":
            r = next(results)
            o = r.outcome
            fixed.append(line)
            fixed.append(f"      action: {o.decision.action.kind}")
            fixed.append(f"      rule: {o.rule_line if o.rule_line is not None else 'none'}")
            if o.refusal is not None:  # a case not stating run's refusal would fail
                fixed.append(f"      refused: {o.refusal}")
            continue
        if line.startswith("      ") and not line.startswith("       "):
            key = line.strip().split(":", 1)[0]
            if key in ("action", "rule", "fwdq", "fwdqm", "header", "refused", "putaut"):
                continue
            if key.startswith("#"):  # the generated refusal's reason
                continue
        fixed.append(line)
    table, case_file = folder / "bench.rul", folder / "bench.cases.yaml"
    table.write_text(table_text, encoding="utf-8")
    case_file.write_text("\n".join(fixed) + "\n", encoding="utf-8")
    return table, case_file


def run(cases: int = CASES, rules: int = RULES) -> dict[str, float]:
    """Measure; a flat dict of figures for ``run_all``."""
    with tempfile.TemporaryDirectory(prefix="dlqhandler-bench-test-") as tmp:
        table, case_file = build(Path(tmp), cases, rules)
        data = case_file.read_bytes()
        ruleset = compile_rules_or_raise(table.read_text(), source=str(table))
        read = read_cases(data, str(case_file))
        assert read.ok
        assert len(read.cases) == cases
        work = [(c.message, c.attempts) for c in read.cases]

        def best(fn: object) -> float:
            times = []
            for _ in range(3):
                start = time.process_time()
                fn()  # type: ignore[operator]
                times.append(time.process_time() - start)
            return min(times)

        def decide_all() -> None:
            decide = Matcher(ruleset).decide  # cold cache each time
            for message, attempts in work:
                decide(message, attempts)

        floor_s = best(decide_all)
        read_s = best(lambda: read_cases(data, str(case_file)))
        check_s = best(lambda: run_cases(Matcher(ruleset), read.cases))
        whole = [_child([str(CLI), "test", str(table), str(case_file)]) for _ in range(3)]
        wall, cpu, out = min(whole)
        if not out.endswith(f"{cases} passed, 0 failed\n"):
            raise RuntimeError(f"unexpected output: {out[-200:]}")
        imports = min(_child([sys.executable, "-c", _START])[1] for _ in range(3))
        return {
            "cases": cases,
            "rules": rules,
            "case_file_kb": round(len(data) / 1024),
            "test_wall_s": wall,
            "test_cpu_s": cpu,
            "test_cases_per_s": cases / wall,
            "matcher_decisions_per_s": cases / floor_s,
            "test_vs_matcher": (cases / wall) / (cases / floor_s),
            "read_cases_s": read_s,
            "run_cases_s": check_s,
            "cli_start_cpu_s": imports,
        }


def main() -> None:
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else CASES
    rules = int(sys.argv[2]) if len(sys.argv) > 2 else RULES
    r = run(cases, rules)
    print(f"dlqhandler test: {cases:,} cases ({r['case_file_kb']:,} KB) against {rules:,} rules")
    print(
        f"  whole process: {r['test_wall_s']:.2f} s wall, {r['test_cpu_s']:.2f} s CPU "
        f"= {r['test_cases_per_s']:,.0f} cases/s (target: under 2 s)"
    )
    print(f"  floor, Matcher.decide alone: {r['matcher_decisions_per_s']:,.0f} decisions/s")
    print(f"  ratio, whole process / floor: {r['test_vs_matcher']:.3f}")
    print(
        f"  in process (CPU): read the case file {r['read_cases_s']:.2f} s, decide and "
        f"compare {r['run_cases_s']:.2f} s; the command's start {r['cli_start_cpu_s']:.2f} s"
    )


if __name__ == "__main__":
    main()
