"""Inline SVG charts for the report page: plain markup, no script, no external font.

Every label passes through :func:`html.escape` (queue names and application names
come from messages and are untrusted). Sizes are in user units; the ``viewBox``
lets the browser scale a chart to the page width, on screen and on paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["PALETTE", "Bar", "bar_chart", "column_chart", "pair_chart", "timeline"]

PALETTE = ("#2f6f9f", "#d9822b", "#3d9970", "#b5485d", "#7a5ea8", "#8c8c8c")
_FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\""


@dataclass(frozen=True, slots=True)
class Bar:
    """One labelled value; ``note`` is shown after the value (a share, a name)."""

    label: str
    value: int
    note: str = ""
    color: str = PALETTE[0]


def _text(
    x: float,
    y: float,
    text: str,
    *,
    anchor: str = "start",
    size: int = 12,
    fill: str = "#222",
    weight: str = "normal",
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="{fill}" font-weight="{weight}">{escape(text)}</text>'
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="100%" role="img" aria-label="{escape(title)}" {_FONT}>'
        f"<title>{escape(title)}</title>{''.join(body)}</svg>"
    )


def _empty(title: str, width: int) -> str:
    return _svg(
        width, 40, title, [_text(width / 2, 24, "nothing to show", anchor="middle", fill="#888")]
    )


def bar_chart(title: str, bars: Sequence[Bar], *, width: int = 720, label_chars: int = 34) -> str:
    """Horizontal bars, biggest first as given, one per row, the value at the end."""
    if not bars:
        return _empty(title, width)
    if label_chars > 40:
        return _labelled_above(title, bars, width, label_chars)
    row, label_w = 24, min(300, 7 * label_chars + 10)
    plot_w = width - label_w - 130
    top = max(b.value for b in bars) or 1
    body = []
    for i, b in enumerate(bars):
        y = i * row + 4
        w = max(1.0, plot_w * b.value / top) if b.value else 0.0
        body.append(_text(label_w - 8, y + 15, _clip(b.label, label_chars), anchor="end"))
        body.append(
            f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row - 8}" '
            f'rx="2" fill="{b.color}"/>'
        )
        value = f"{b.value:,}" + (f"  {b.note}" if b.note else "")
        body.append(_text(label_w + w + 6, y + 15, value, fill="#444", size=11))
    return _svg(width, len(bars) * row + 8, title, body)


def _labelled_above(title: str, bars: Sequence[Bar], width: int, label_chars: int) -> str:
    """Long labels (transitions): the label on its own line above its bar."""
    row, plot_w = 38, width - 110
    top = max(b.value for b in bars) or 1
    body = []
    for i, b in enumerate(bars):
        y = i * row
        w = max(1.0, plot_w * b.value / top) if b.value else 0.0
        body.append(_text(0, y + 13, _clip(b.label, label_chars), size=12))
        body.append(
            f'<rect x="0" y="{y + 18}" width="{w:.1f}" height="12" rx="2" fill="{b.color}"/>'
        )
        body.append(
            _text(
                w + 6,
                y + 29,
                f"{b.value:,}" + (f"  {b.note}" if b.note else ""),
                fill="#444",
                size=11,
            )
        )
    return _svg(width, len(bars) * row + 4, title, body)


def pair_chart(
    title: str, rows: Sequence[tuple[str, int, int]], legend: tuple[str, str], *, width: int = 720
) -> str:
    """Two bars per row (for rules: messages matched, messages chosen)."""
    if not rows:
        return _empty(title, width)
    row, label_w = 34, 230
    plot_w = width - label_w - 90
    top = max(max(a, b) for _l, a, b in rows) or 1
    body = [
        f'<rect x="{label_w}" y="4" width="10" height="10" fill="{PALETTE[5]}"/>',
        _text(label_w + 14, 13, legend[0], size=11),
        f'<rect x="{label_w + 120}" y="4" width="10" height="10" fill="{PALETTE[0]}"/>',
        _text(label_w + 134, 13, legend[1], size=11),
    ]
    for i, (label, a, b) in enumerate(rows):
        y = 22 + i * row
        body.append(_text(label_w - 8, y + 18, _clip(label, 32), anchor="end"))
        for j, (value, color) in enumerate(((a, PALETTE[5]), (b, PALETTE[0]))):
            w = max(1.0, plot_w * value / top) if value else 0.0
            yy = y + 3 + j * 13
            body.append(
                f'<rect x="{label_w}" y="{yy}" width="{w:.1f}" height="11" fill="{color}"/>'
            )
            body.append(_text(label_w + w + 5, yy + 10, f"{value:,}", size=10, fill="#444"))
    return _svg(width, 26 + len(rows) * row, title, body)


def column_chart(title: str, bars: Sequence[Bar], *, width: int = 720, height: int = 200) -> str:
    """Vertical columns in the order given (for the age buckets)."""
    if not bars:
        return _empty(title, width)
    base, top = height - 28, max(b.value for b in bars) or 1
    slot = width / len(bars)
    body = [f'<line x1="0" y1="{base}" x2="{width}" y2="{base}" stroke="#bbb"/>']
    for i, b in enumerate(bars):
        h = (base - 22) * b.value / top
        x = i * slot + slot * 0.2
        body.append(
            f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{slot * 0.6:.1f}" '
            f'height="{h:.1f}" rx="2" fill="{b.color}"/>'
        )
        body.append(
            _text(
                i * slot + slot / 2,
                base - h - 6,
                f"{b.value:,}",
                anchor="middle",
                size=11,
                fill="#444",
            )
        )
        body.append(_text(i * slot + slot / 2, base + 18, b.label, anchor="middle"))
    return _svg(width, height, title, body)


def timeline(
    title: str, points: Sequence[tuple[int, int]], *, width: int = 720, height: int = 180
) -> str:
    """Counts per hour (``(epoch_hour, count)``) on a time axis, gaps left empty."""
    if not points:
        return _empty(title, width)
    from datetime import UTC, datetime

    pts = sorted(points)
    left, base = 48, height - 30
    first, last = pts[0][0], pts[-1][0]
    hours = (last - first) // 3600 + 1
    plot_w = width - left - 10
    slot = plot_w / hours
    top = max(c for _t, c in pts) or 1
    body = [
        f'<line x1="{left}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#bbb"/>',
        _text(left - 6, 16, f"{top:,}", anchor="end", size=10, fill="#666"),
        f'<line x1="{left}" y1="12" x2="{width - 10}" y2="12" stroke="#eee"/>',
    ]
    for t, c in pts:
        x = left + (t - first) // 3600 * slot
        h = (base - 12) * c / top
        body.append(
            f'<rect x="{x:.2f}" y="{base - h:.2f}" width="{max(slot * 0.85, 0.8):.2f}"'
            f' height="{h:.2f}" fill="{PALETTE[0]}"/>'
        )

    def stamp(epoch: int) -> str:
        return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:00")

    body.append(_text(left, base + 18, stamp(first), size=11, fill="#444"))
    if last != first:
        body.append(_text(width - 10, base + 18, stamp(last), anchor="end", size=11, fill="#444"))
    body.append(
        _text(width / 2, base + 18, f"{hours:,} hours, GMT", anchor="middle", size=11, fill="#888")
    )
    return _svg(width, height, title, body)
