"""An Explanation as a table for people, or as JSON for tools.

Table: a header line, one row per node (feasible nodes by total score, then name; rejected
nodes after), a column per Score plugin with `raw/normalized/weighted`, then what applies to
the pod as a whole and a last summary line with the decision.
"""

from __future__ import annotations

import json
from typing import Any

from kubesched.explain.group_render import group_dict, group_lines
from kubesched.explain.placement_render import placement_summary
from kubesched.explain.report import PREFILTER, Explanation, NodeVerdict, Rejection, Sampling

SCORE_LEGEND = "score cells: raw/normalized/weighted; the column header gives the weight"


def summary(ex: Explanation) -> str:
    """The decision in one line (a gang placed by topology: its group's)."""
    if ex.error:
        return f"error: the scheduling cycle would fail (SchedulerError): {ex.error}"
    placements = ex.group.placements if ex.group is not None else None
    if placements is not None and placements.members:  # a placement cycle would run
        return placement_summary(placements)
    if ex.failed_scheduling:
        return f"FailedScheduling: {ex.failed_scheduling}"
    if ex.chosen:
        total = next((v.total for v in ex.verdicts if v.node == ex.chosen), None)
        scored = f" (total score {total})" if total is not None else ""
        return f"kubesched would choose {ex.chosen}{scored}"
    top = next((v.total for v in ex.verdicts if v.node in ex.best), None)
    at = f" at total score {top}" if top is not None else ""
    return f"tie between {', '.join(ex.best)}{at}: kubesched picks one of them at random"


def table(ex: Explanation) -> str:
    feasible = len(ex.feasible)
    kind = "hypothetical pod" if ex.hypothetical else "pod"
    head = f"{kind} {ex.pod} (schedulerName {ex.scheduler_name}): "
    lines = [f"{head}{ex.num_nodes} nodes, {feasible} feasible", ""]
    lines += _rows(ex)
    lines.append("")
    if ex.score_plugins:
        lines.append(SCORE_LEGEND)
    if ex.pre_filter is not None:
        lines.append(f"PreFilter: the pod was {_rejected(ex.pre_filter)}")
    if ex.restricted_to is not None:
        nodes = ", ".join(ex.restricted_to) or "(none)"
        lines.append(f"PreFilter restricted the nodes to: {nodes}")
    if ex.skipped_score_plugins:
        skipped = ", ".join(ex.skipped_score_plugins)
        lines.append(f"Score plugins skipped for this pod (PreScore): {skipped}")
    lines.append(f"sampling: {sampling_text(ex.sampling)}")
    lines += [f"note: {note}" for note in ex.notes]
    lines.append(f"preemption: {ex.preemption}")
    lines += [line for finding in ex.findings for line in finding.lines]
    if ex.group is not None:
        lines += group_lines(ex.group)
    lines.append(summary(ex))
    return "\n".join(lines)


def sampling_text(sampling: Sampling) -> str:
    percentage = sampling.percentage_of_nodes_to_score
    setting = f"{percentage}%" if percentage else "adaptive"
    found = sampling.num_feasible_nodes_to_find
    count = sampling.candidates
    if sampling.samples:
        return (
            f"the scheduler stops filtering once it has found {found} feasible nodes of "
            f"{count} (percentageOfNodesToScore: {setting}), starting where its previous "
            f"cycle stopped; explain filtered all {count}"
        )
    return (
        f"the scheduler stops filtering once it has found {found} feasible nodes of {count} "
        f"(percentageOfNodesToScore: {setting}): it considers every node, as explain did"
    )


def _rows(ex: Explanation) -> list[str]:
    header = ["NODE", "TOTAL"]
    header += [f"{name}*{weight}" for name, weight in ex.score_plugins]
    header.append("VERDICT")
    rows = [header]
    for verdict in ex.verdicts:
        cells = {s.plugin: f"{s.raw}/{s.normalized}/{s.weighted}" for s in verdict.scores}
        row = [verdict.node, "-" if verdict.total is None else str(verdict.total)]
        row += [cells.get(name, "-") for name, _ in ex.score_plugins]
        row.append(_verdict(ex, verdict))
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _verdict(ex: Explanation, verdict: NodeVerdict) -> str:
    if verdict.rejection is not None:
        return _rejected(verdict.rejection)
    notes = "".join(f"; {note}" for note in verdict.notes)
    if ex.chosen == verdict.node:
        return "feasible, chosen" + notes
    if verdict.node in ex.best and ex.tie:
        return "feasible, tied for best" + notes
    return "feasible" + notes


def _rejected(rejection: Rejection) -> str:
    what = "error in" if rejection.is_error else "rejected by"
    stage = " at PreFilter" if rejection.stage == PREFILTER else ""
    return f"{what} {rejection.plugin}{stage}: {rejection.message}"


def as_json(ex: Explanation) -> str:
    return json.dumps(to_dict(ex), indent=2)


def to_dict(ex: Explanation) -> dict[str, Any]:
    sampling = ex.sampling
    return {
        "pod": ex.pod,
        "schedulerName": ex.scheduler_name,
        "hypothetical": ex.hypothetical,
        "numNodes": ex.num_nodes,
        "numFeasibleNodes": len(ex.feasible),
        "sampling": {
            "candidateNodes": sampling.candidates,
            "numFeasibleNodesToFind": sampling.num_feasible_nodes_to_find,
            "percentageOfNodesToScore": sampling.percentage_of_nodes_to_score,
            "filteredNodes": sampling.candidates,
        },
        "preFilter": None if ex.pre_filter is None else _rejection(ex.pre_filter),
        "restrictedTo": None if ex.restricted_to is None else list(ex.restricted_to),
        "scorePlugins": [{"name": name, "weight": weight} for name, weight in ex.score_plugins],
        "skippedScorePlugins": list(ex.skipped_score_plugins),
        "nodes": [_node(verdict) for verdict in ex.verdicts],
        "choice": {"node": ex.chosen or None, "best": list(ex.best), "tie": ex.tie},
        "failedScheduling": ex.failed_scheduling or None,
        "error": ex.error or None,
        "preemption": {
            "summary": ex.preemption,
            "nominatedNode": ex.nominated_node or None,
            "victims": [{"pod": v.pod, "priority": v.priority} for v in ex.victims],
            "equallyRankedChoices": [
                {"node": node, "victims": list(victims)} for node, victims in ex.preemption_choices
            ],
        },
        "notes": list(ex.notes),
        "group": None if ex.group is None else group_dict(ex.group),
        "findings": {finding.plugin: dict(finding.data) for finding in ex.findings},
        "summary": summary(ex),
    }


def _node(verdict: NodeVerdict) -> dict[str, Any]:
    found: dict[str, Any] = {"node": verdict.node, "feasible": verdict.feasible}
    if verdict.rejection is not None:
        found["rejection"] = _rejection(verdict.rejection)
    if verdict.notes:
        found["notes"] = list(verdict.notes)
    if verdict.total is not None:
        found["total"] = verdict.total
        found["scores"] = {
            s.plugin: {
                "raw": s.raw,
                "normalized": s.normalized,
                "weight": s.weight,
                "weighted": s.weighted,
            }
            for s in verdict.scores
        }
    return found


def _rejection(rejection: Rejection) -> dict[str, Any]:
    return {
        "stage": rejection.stage,
        "plugin": rejection.plugin,
        "code": rejection.code,
        "reasons": list(rejection.reasons),
        "message": rejection.message,
    }
