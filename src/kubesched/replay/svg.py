"""A small inline SVG line chart for the replay's HTML report (no plotting library).

    line_chart(title="...", y_label="pods", series=[("config A", [(t, v), ...]), ...])

One line per series over a shared x axis (virtual seconds), with axes, five ticks on each,
a legend, and a `<title>` per line so a browser shows its name on hover. Values are
escaped; the chart is a string to put straight into the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 60, 170, 28, 36
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf")
TICKS = 5

Series = tuple[str, Sequence[tuple[float, float]]]


def line_chart(*, title: str, y_label: str, series: Sequence[Series], percent: bool = False) -> str:
    """An `<svg>` element: each series a line of (x, y) points; `percent`: y is a share
    in [0, 1], drawn from 0 to 100 %."""
    points = [point for _, values in series for point in values]
    x_max = max((x for x, _ in points), default=1.0) or 1.0
    y_max = 1.0 if percent else _counts_axis(max((y for _, y in points), default=0.0))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def place(x: float, y: float) -> str:
        return f"{LEFT + x / x_max * plot_w:.1f},{TOP + plot_h - y / y_max * plot_h:.1f}"

    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">'
        ),
        f'<text x="{LEFT}" y="16" font-weight="bold">{escape(title)}</text>',
        *_axes(x_max, y_max, percent, y_label),
    ]
    for index, (name, values) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        path = " ".join(place(x, y) for x, y in values)
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}">'
            f"<title>{escape(name)}</title></polyline>"
        )
        legend_y = TOP + 14 + 18 * index
        parts.append(
            f'<rect x="{WIDTH - RIGHT + 12}" y="{legend_y - 9}" width="12" height="4" '
            f'fill="{colour}"/><text x="{WIDTH - RIGHT + 30}" y="{legend_y}">'
            f"{escape(_short(name))}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts)


def _axes(x_max: float, y_max: float, percent: bool, y_label: str) -> list[str]:
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    bottom, right = TOP + plot_h, LEFT + plot_w
    parts = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#333"/>',
        f'<text x="{right}" y="{HEIGHT - 4}" text-anchor="end">virtual time (s)</text>',
        f'<text x="4" y="{TOP - 8}">{escape(y_label)}</text>',
    ]
    for tick in range(TICKS + 1):
        share = tick / TICKS
        x, y = LEFT + share * plot_w, bottom - share * plot_h
        y_text = f"{share * 100:.0f}%" if percent else _number(share * y_max)
        parts.append(
            f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">'
            f"{_number(share * x_max)}</text>"
        )
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{y_text}</text>')
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#ddd"/>')
    return parts


def _counts_axis(highest: float) -> float:
    """The top of a count axis: a multiple of `TICKS` (whole numbers at every tick), at
    least `TICKS`."""
    return float(max(math.ceil(highest / TICKS) * TICKS, TICKS))


def _number(value: float) -> str:
    return f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


def _short(name: str, limit: int = 22) -> str:
    return name if len(name) <= limit else "…" + name[-(limit - 1) :]
