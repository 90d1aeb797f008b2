"""Rules matcher throughput: decisions per second for 10-, 100- and 1000-rule tables.

Usage: ``python benchmarks/matcher.py``. Builds realistic tables (transient
reasons retried, per-application routing by DESTQ, team prefixes, a discard
for non-persistent reports, a catch-all) and a mix of dead-letter messages,
then measures :meth:`Matcher.decide` with the decision cache (the default) and
without it, and compares both with bare MQDLH decoding
(:func:`decode_dead_letter`) of the same messages: a ratio above 1 means
deciding is cheaper than decoding the header. ``run()`` returns the figures
as a flat dict (for a later ``run_all``). Each measurement is the best of three
runs, the cache starting cold each time; the whole run takes well under 30 s.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.rules import Matcher, RuleSet, compile_rules_or_raise

SIZES = (10, 100, 1000)
MESSAGES = 5000
ROUNDS = 4  # passes over the message mix per measurement (attempts 0..3)
SEED = 20240601

# (reason, weight): what typically lands on a DLQ.
REASONS = [
    (2053, 40),
    (2051, 8),
    (2035, 10),
    (2085, 15),
    (2087, 6),
    (2030, 5),
    (2056, 4),
    (2048, 2),
    (258, 5),
    (2189, 5),
]


def build_table(size: int) -> str:
    """A rules table of exactly ``size`` rules, shaped like a real routing table."""
    head = [
        "RETRYINT(60) WAIT(YES)",
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)",
        "REASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(5)",
        "REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(DLQ.SECURITY)",
        "MSGTYPE(MQMT_REPORT) PERSIST(MQPER_NOT_PERSISTENT) ACTION(DISCARD)",
        "REPLYQM(AAAA.*) MSGTYPE(MQMT_REQUEST) ACTION(FWD) FWDQ(DEADQ) FWDQM(&REPLYQM)",
    ]
    body: list[str] = []
    i = 0
    while len(head) - 1 + len(body) + 2 < size:
        if i % 10 == 9:
            body.append(f"DESTQ(TEAM{i // 10}.*) ACTION(FWD) FWDQ(TEAM{i // 10}.DLQ)")
        elif i % 3 == 0:
            body.append(
                f"DESTQ(APP{i}.IN) REASON(MQRC_UNKNOWN_OBJECT_NAME) ACTION(FWD) FWDQ(APP{i}.ERRORS)"
            )
        else:
            body.append(f"DESTQ(APP{i}.IN) ACTION(FWD) FWDQ(APP{i}.DLQ) HEADER(YES)")
        i += 1
    tail = [
        "REPLYQM('?*') ACTION(FWD) FWDQ(DEADQ.MANUAL) FWDQM(&REPLYQM)",
        "ACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)",
    ]
    lines = (head + body + tail)[: size + 1]  # +1: the control-data line
    lines[-1] = tail[-1]
    return "\n".join(lines) + "\n"


def build_messages(count: int, rng: random.Random) -> list[Message]:
    """A mix of dead-letter messages: destinations, reasons, types and reply-to fields."""
    reasons = [r for r, w in REASONS for _ in range(w)]
    out = []
    for _ in range(count):
        app = min(int(rng.expovariate(1 / 25)), 399)  # a few applications dominate
        dest = f"APP{app}.IN" if rng.random() < 0.7 else f"TEAM{rng.randrange(40)}.ORDERS"
        msg_type = rng.choice([8, 8, 8, 1, 2, 4])
        reply_qm = rng.choice(["", "", "", "AAAA.QM1", "CCCC.QM2"])
        md = MQMD(
            msg_type=msg_type,
            persistence=rng.choice([0, 1, 1]),
            format="MQSTR",
            reply_to_q="REPLY.Q" if reply_qm else "",
            reply_to_q_mgr=reply_qm,
            put_appl_name=f"app{app}",
            user_identifier="svc",
            msg_id=rng.randbytes(24),
        )
        out.append(
            Message.dead_letter(
                md, b"x" * 200, reason=rng.choice(reasons), dest_q_name=dest, dest_q_mgr_name="QM1"
            )
        )
    return out


def _best_rate(count: int, make: Callable[[], Callable[[], None]], repeat: int = 3) -> float:
    """Operations per second of the fastest of ``repeat`` runs, each from a fresh ``make()``."""
    best = float("inf")
    for _ in range(repeat):
        fn = make()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return count / best


def _decide_all(
    ruleset: RuleSet,
    messages: list[Message],
    cache_size: int,
) -> Callable[[], Callable[[], None]]:
    def make() -> Callable[[], None]:
        decide = Matcher(ruleset, cache_size=cache_size).decide  # cold cache each run

        def go() -> None:
            for r in range(ROUNDS):
                for m in messages:
                    decide(m, r)

        return go

    return make


def run() -> dict[str, float]:
    """Measure; a flat dict of figures (rates per second), e.g. ``rules1000_cached_per_s``."""
    rng = random.Random(SEED)
    messages = build_messages(MESSAGES, rng)
    raw = [(m.md, m.body) for m in messages]
    n = MESSAGES * ROUNDS

    def decode_all() -> None:
        for _ in range(ROUNDS):
            for md, body in raw:
                decode_dead_letter(md, body)

    decode_rate = _best_rate(n, lambda: decode_all)
    out: dict[str, float] = {
        "messages": MESSAGES,
        "decisions_per_measure": n,
        "decode_per_s": decode_rate,
    }
    for size in SIZES:
        start = time.perf_counter()
        ruleset: RuleSet = compile_rules_or_raise(build_table(size), source=f"bench-{size}")
        out[f"rules{size}_compile_s"] = time.perf_counter() - start
        assert len(ruleset.rules) == size
        cached = _best_rate(n, _decide_all(ruleset, messages, 65536))
        uncached = _best_rate(n, _decide_all(ruleset, messages, 0))
        out[f"rules{size}_cached_per_s"] = cached
        out[f"rules{size}_uncached_per_s"] = uncached
        out[f"rules{size}_cached_vs_decode"] = cached / decode_rate
        out[f"rules{size}_uncached_vs_decode"] = uncached / decode_rate
    return out


def main() -> None:
    r = run()
    print(f"matcher benchmark: {int(r['messages'])} messages x {ROUNDS} rounds")
    print(f"bare MQDLH decoding: {r['decode_per_s']:,.0f} messages/s")
    print(
        f"{'rules':>6} {'compile':>9} {'cached/s':>12} {'uncached/s':>12} "
        f"{'cached:decode':>14} {'uncached:decode':>16}"
    )
    for size in SIZES:
        p = f"rules{size}_"
        print(
            f"{size:>6} {r[p + 'compile_s']:>8.3f}s {r[p + 'cached_per_s']:>12,.0f} "
            f"{r[p + 'uncached_per_s']:>12,.0f} {r[p + 'cached_vs_decode']:>14.2f} "
            f"{r[p + 'uncached_vs_decode']:>16.2f}"
        )


if __name__ == "__main__":
    main()
