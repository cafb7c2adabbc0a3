"""`kubesched shadow report`'s summary: the counts of `kubesched_shadow_decisions_total` read
from a shadow's /metrics, and the disagreements its log holds (the lines
`"shadow decision differs"`, text or JSON format). Pure: text in, text out."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

from kubesched.errors import FatalError
from kubesched.scheduler.shadow import DECISIONS_METRIC, DISAGREEMENT
from kubesched.scheduler.shadow_compare import AGREEING, Agreement

_PAIR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


class ReportError(FatalError, ValueError):
    """Input the report cannot read; the message is one line naming the fix."""


@dataclass
class Summary:
    """Counts per profile and agreement, and the disagreements found in a log."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    disagreements: list[dict[str, str]] = field(default_factory=list)


def counts_from_metrics(text: str) -> dict[str, dict[str, int]]:
    """Profile -> agreement -> count, from Prometheus text; ReportError without the family."""
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    try:
        families = list(text_string_to_metric_families(text))
    except ValueError as exc:
        raise ReportError(
            f"the metrics could not be parsed ({exc}); is this a /metrics page?"
        ) from None
    for family in families:
        if family.name != DECISIONS_METRIC:
            continue
        for sample in family.samples:
            if sample.name == f"{DECISIONS_METRIC}_total":
                profile = sample.labels.get("profile", "")
                counts[profile][sample.labels.get("agreement", "")] = int(sample.value)
    if not counts:
        raise ReportError(
            f"no {DECISIONS_METRIC}_total in the metrics: is this kubesched run with "
            "--shadow-scheduler-name (and not --disabled-metrics for it)?"
        )
    return dict(counts)


def disagreements_from_log(text: str) -> list[dict[str, str]]:
    """The key/value pairs of every disagreement line of a kubesched log (text or JSON)."""
    found = []
    for line in text.splitlines():
        if DISAGREEMENT not in line:
            continue
        if line.lstrip().startswith("{"):
            entry = _json_line(line)
            if entry.get("msg") == DISAGREEMENT:
                found.append({key: str(value) for key, value in entry.items()})
            continue
        _, _, rest = line.partition(f'"{DISAGREEMENT}"')
        found.append({key: value.strip('"') for key, value in _PAIR.findall(rest)})
    return found


def _json_line(line: str) -> dict[str, object]:
    """A JSON log line's object; {} for a line cut short or otherwise not JSON."""
    try:
        entry = json.loads(line)
    except ValueError:
        return {}
    return entry if isinstance(entry, dict) else {}


def render(summary: Summary, *, log_name: str = "") -> str:
    """The report: per profile, the counts and the share that agrees; then the disagreements."""
    lines = []
    for profile, counts in sorted(summary.counts.items()):
        total = sum(counts.values())
        agreeing = sum(counts.get(a.value, 0) for a in AGREEING)
        share = f"{100 * agreeing / total:.1f} %" if total else "-"
        lines.append(f"profile {profile}: {total} decisions compared, {agreeing} agree ({share})")
        lines += [f"  {a.value:<28}{counts.get(a.value, 0):>6}" for a in Agreement]
    if log_name:
        lines.append(f"disagreements in {log_name}: {len(summary.disagreements)}")
        lines += [f"  {_disagreement(entry)}" for entry in summary.disagreements]
    return "\n".join(lines)


def _disagreement(entry: dict[str, str]) -> str:
    ours = entry.get("kubeschedNode", "?")
    theirs = entry.get("schedulerNode", "?")
    if "kubeschedNodeScore" in entry:
        ours += f" (score {entry['kubeschedNodeScore']})"
    if "schedulerNodeScore" in entry:
        theirs += f" (score {entry['schedulerNodeScore']})"
    return (
        f"{entry.get('pod', '?')}  {entry.get('agreement', '?')}  kubesched: {ours}  "
        f"scheduler: {theirs}"
    )
