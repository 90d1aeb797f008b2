"""How ``dlqhandler check`` shows its findings: text for a terminal, or JSON."""

from __future__ import annotations

import json

from dlqhandler.check.findings import SEVERITIES, SetupReport, worst

__all__ = ["JSON_FORMAT", "render_json", "render_text"]

JSON_FORMAT = "dlqhandler-check/1"
_LABELS = {"error": "ERROR", "warning": "WARNING", "not checked": "NOT CHECKED", "ok": "ok"}


def render_text(report: SetupReport, *, verbose: bool = True) -> str:
    """One block per finding, worst first (``ok`` ones only when ``verbose``), then a
    summary line."""
    head = f"Dead-letter set-up of queue manager {report.qmgr} (DEADQ {report.dlq or 'not set'})"
    lines = [head]
    for severity in SEVERITIES:
        if severity == "ok" and not verbose:
            continue
        for f in (f for f in report.findings if f.severity == severity):
            lines.append(f"{_LABELS[severity]:<11} {f.check:<20} {f.object}: {f.problem}")
            if f.why:
                lines.append(f"{'':<12}why: {f.why}")
            for n, fix in enumerate(f.fix.splitlines()):
                lines.append(f"{'':<12}{'fix: ' if n == 0 else '     '}{fix}")
    counts = ", ".join(f"{report.count(s)} {s}" for s in SEVERITIES)
    lines.append(f"{counts}: {_verdict(report)}")
    return "\n".join(lines) + "\n"


def _verdict(report: SetupReport) -> str:
    return {
        "error": "dead letters cannot be handled safely until the errors are fixed",
        "warning": "usable, but see the warnings",
    }.get(worst(report.findings), "dead letters can be handled")


def render_json(report: SetupReport) -> str:
    """``{"format", "qmgr", "dlq", "worst", "counts", "findings": [...]}``."""
    return (
        json.dumps(
            {
                "format": JSON_FORMAT,
                "qmgr": report.qmgr,
                "dlq": report.dlq,
                "worst": worst(report.findings),
                "counts": {s: report.count(s) for s in SEVERITIES},
                "findings": [f.to_json() for f in report.findings],
            },
            indent=2,
        )
        + "\n"
    )
