"""`kubesched replay --html FILE`: the report as one self-contained HTML page.

No script, no stylesheet or image fetched from anywhere: the KPIs table (the terminal
table's rows), inline SVG charts over virtual time (pods waiting for a node, then the share
of each resource requested, one line per configuration, from `ConfigReport.result.timeline`),
the decisions that differ from the trace's, and those that differ between configurations
(each configuration against the first). Long lists stop at `MAX_ROWS`, saying how many
more there are; the JSON report (`--json`) has them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from kubesched.replay.report import ConfigReport, agreement_of, kpi_rows
from kubesched.replay.svg import line_chart

MAX_ROWS = 200
_AGREE = frozenset({"same", "tie"})
_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
td.n { text-align: right; }
svg { font-size: 11px; display: block; margin-bottom: 1em; }
"""


def render(title: str, reports: Sequence[ConfigReport]) -> str:
    """The whole page for `reports` (one per configuration) under `title`."""
    body = [
        f"<h1>{escape(title)}</h1>",
        "<h2>Key figures</h2>",
        _kpis(reports),
        "<h2>Over virtual time</h2>",
        *_charts(reports),
        "<h2>Decisions that differ from the trace</h2>",
        *(_versus_trace(report) for report in reports),
    ]
    if len(reports) > 1:
        body += ["<h2>Decisions that differ between configurations</h2>", _versus(reports)]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _kpis(reports: Sequence[ConfigReport]) -> str:
    header, *rows = kpi_rows(reports)
    return _table(header, rows)


def _charts(reports: Sequence[ConfigReport]) -> list[str]:
    samples = [(r.name, r.result.timeline.samples) for r in reports]
    charts = [
        line_chart(
            title="Pods waiting for a node (in the queue)",
            y_label="pods",
            series=[(name, [(s.t, s.pending) for s in points]) for name, points in samples],
        )
    ]
    resources = sorted({k for _, points in samples for s in points for k in s.utilization})
    charts += [
        line_chart(
            title=f"{resource} requested / allocatable",
            y_label=resource,
            percent=True,
            series=[
                (name, [(s.t, s.utilization.get(resource, 0.0)) for s in points])
                for name, points in samples
            ],
        )
        for resource in resources
    ]
    return charts


def _versus_trace(report: ConfigReport) -> str:
    recorded = report.result.recorded
    if not recorded:
        return (
            f"<h3>{escape(report.name)}</h3><p>The trace records no binding (a synthetic "
            "trace, or no pod was placed while recording): nothing to compare.</p>"
        )
    rows = []
    for outcome in report.outcomes:
        node = recorded.get(outcome.uid, "")
        kind = agreement_of(outcome.node, node, outcome.ties)
        if kind not in _AGREE:
            rows.append((outcome.pod, node or "-", outcome.node or "-", kind.replace("_", " ")))
    heading = f"<h3>{escape(report.name)}: {len(rows)} of {len(report.outcomes)} pods</h3>"
    if not rows:
        return heading + "<p>Every pod agrees with the trace (the same node, or a tie).</p>"
    return heading + _table(("pod", "trace", "replay", "agreement"), rows)


def _versus(reports: Sequence[ConfigReport]) -> str:
    """Pods whose node differs in any configuration from the first one's."""
    nodes = [{o.uid: o for o in report.outcomes} for report in reports]
    rows = []
    for outcome in reports[0].outcomes:
        placed = [by_uid.get(outcome.uid) for by_uid in nodes]
        names = [p.node if p is not None else "" for p in placed]
        if any(name != names[0] for name in names[1:]):
            rows.append((outcome.pod, *(name or "-" for name in names)))
    counts = ", ".join(
        f"{escape(r.name)}: {sum(1 for row in rows if row[i + 1] != row[1])}"
        for i, r in enumerate(reports)
        if i
    )
    summary = f"<p>Pods placed elsewhere than by {escape(reports[0].name)}: {counts}.</p>"
    return summary + _table(("pod", *(r.name for r in reports)), rows)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    lines = [f"<table><tr>{head}</tr>"]
    for row in rows[:MAX_ROWS]:
        cells = "".join(
            f'<td class="n">{escape(c)}</td>' if _numeric(c) else f"<td>{escape(c)}</td>"
            for c in row
        )
        lines.append(f"<tr>{cells}</tr>")
    lines.append("</table>")
    if len(rows) > MAX_ROWS:
        lines.append(f"<p>… and {len(rows) - MAX_ROWS} more (all of them in --json).</p>")
    return "\n".join(lines)


def _numeric(cell: str) -> bool:
    return cell.rstrip("%").replace(".", "", 1).isdigit()
