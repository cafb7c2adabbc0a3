"""A replay's report: decisions and KPIs per configuration, as a table and as JSON.

Per configuration: the pods the replay scheduled and those it could not (still pending at
the end of the trace); how long the scheduled ones waited, from creation to binding, in
virtual seconds (p50, p99, nearest rank); the share of each resource requested on the nodes
at the end (requested / allocatable over every node); the agreement with the trace's
recorded decisions (the same node, a different node, only the trace's scheduler placed it,
only the replay placed it, neither did); preemptions and the pods they evicted; and every
pod's decision (node, attempts, created and bound times, the recorded node).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.replay.loop import Outcome, ReplayResult
from kubesched.replay.timeline import shares

AGREEMENTS = ("same", "tie", "different", "only_recorded", "only_replay", "neither")


@dataclass(frozen=True)
class ConfigReport:
    """The replay of one configuration."""

    name: str
    result: ReplayResult
    utilization: dict[str, float]
    empty_nodes: int
    """Nodes with no pod at the end (whole nodes free)."""
    wall_seconds: float = 0.0
    """How long the replay took (the machine's time, not the trace's)."""

    @functools.cached_property
    def outcomes(self) -> list[Outcome]:
        """Every pod's outcome by creation (sorted once: the report reads it often)."""
        return sorted(self.result.outcomes.values(), key=lambda o: (o.created, o.pod))

    @property
    def scheduled(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome.node)

    @property
    def unschedulable(self) -> int:
        return len(self.outcomes) - self.scheduled

    def pending_seconds(self) -> dict[str, float | None]:
        waits = sorted(o.bound_at - o.created for o in self.outcomes if o.bound_at is not None)
        return {"p50": percentile(waits, 50), "p99": percentile(waits, 99)}

    def agreement(self) -> dict[str, int]:
        counts = dict.fromkeys(AGREEMENTS, 0)
        for outcome in self.outcomes:
            recorded = self.result.recorded.get(outcome.uid, "")
            counts[agreement_of(outcome.node, recorded, outcome.ties)] += 1
        return counts

    def as_json(self) -> dict[str, Any]:
        result = self.result
        return {
            "config": self.name,
            "pods": len(self.outcomes),
            "scheduled": self.scheduled,
            "unschedulable": self.unschedulable,
            "pending_seconds": self.pending_seconds(),
            "utilization": self.utilization,
            "empty_nodes": self.empty_nodes,
            "agreement": self.agreement(),
            "preemptions": result.preemptions,
            "evictions": result.evictions,
            "cycles": result.cycles,
            "wall_seconds": self.wall_seconds,
            "waiting_at_permit": result.waiting_at_permit,
            "malformed_records": result.malformed,
            "timeline": [sample.as_json() for sample in result.timeline.samples],
            "decisions": [
                {
                    "pod": o.pod,
                    "uid": o.uid,
                    "node": o.node,
                    "recorded_node": result.recorded.get(o.uid, ""),
                    "attempts": o.attempts,
                    "created": o.created,
                    "bound_at": o.bound_at,
                    "evicted_at": o.evicted_at,
                    "tied_nodes": list(o.ties),
                    "last_failure": "" if o.node else o.last_failure,
                }
                for o in self.outcomes
            ],
        }


def agreement_of(replayed: str, recorded: str, ties: Sequence[str] = ()) -> str:
    """Which of `AGREEMENTS` one pod's two decisions are: `tie` when the recorded node had
    the same top score as the replay's in the replay's cycle."""
    if replayed and recorded:
        if replayed == recorded:
            return "same"
        return "tie" if recorded in ties else "different"
    if recorded:
        return "only_recorded"
    return "only_replay" if replayed else "neither"


def percentile(sorted_values: Sequence[float], rank: int) -> float | None:
    """The nearest-rank percentile of already sorted values (None when there are none)."""
    if not sorted_values:
        return None
    index = max(math.ceil(rank / 100 * len(sorted_values)) - 1, 0)
    return round(sorted_values[index], 3)


def end_state(cache: SchedulerCache, snapshot: Snapshot) -> tuple[dict[str, float], int]:
    """Requested / allocatable per resource over every node of the replayed cluster, and
    how many nodes hold no pod."""
    cache.update_snapshot(snapshot)
    nodes = snapshot.node_infos
    return shares(nodes), sum(1 for info in nodes if not info.pods)


def table(title: str, reports: Sequence[ConfigReport]) -> str:
    """The terminal table under `title`: one column per configuration."""
    rows = kpi_rows(reports)
    widths = [max(len(row[i]) for row in rows[:-1]) for i in range(len(rows[0]))]
    lines = [title]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def kpi_rows(reports: Sequence[ConfigReport]) -> list[tuple[str, ...]]:
    """The table's rows: the configurations' names, then one row per KPI (the last one,
    the replay's wall time, left out of the column widths)."""
    rows: list[tuple[str, ...]] = [("", *(r.name for r in reports))]
    rows.append(("pods", *(str(len(r.outcomes)) for r in reports)))
    rows.append(("scheduled", *(str(r.scheduled) for r in reports)))
    rows.append(("unschedulable at end", *(str(r.unschedulable) for r in reports)))
    rows.extend(
        (f"pending {rank} (s)", *(_num(r.pending_seconds()[rank]) for r in reports))
        for rank in ("p50", "p99")
    )
    names = sorted({name for r in reports for name in r.utilization})
    rows.extend(
        (f"{name} used", *(f"{r.utilization.get(name, 0) * 100:.1f}%" for r in reports))
        for name in names
    )
    rows.append(("empty nodes", *(str(r.empty_nodes) for r in reports)))
    rows.extend(
        (f"vs trace: {kind.replace('_', ' ')}", *(str(r.agreement()[kind]) for r in reports))
        for kind in AGREEMENTS
    )
    rows.append(("preemptions", *(str(r.result.preemptions) for r in reports)))
    rows.append(("evictions", *(str(r.result.evictions) for r in reports)))
    rows.append(("replay took (s)", *(f"{r.wall_seconds:.2f}" for r in reports)))
    return rows


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
