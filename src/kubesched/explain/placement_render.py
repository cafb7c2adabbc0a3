"""The placements section of `kubesched explain` (a gang under the
`TopologyAwareWorkloadScheduling` gate), as table lines and as JSON."""

from __future__ import annotations

from typing import Any

from kubesched.explain.placement_report import MemberTrial, PlacementsReport, PlacementTrial

INDENT = "  "


def placement_lines(report: PlacementsReport) -> list[str]:
    key = report.topology_key or "(none: one placement of every node)"
    by = f" by {report.generator}" if report.generator else ""
    feasible = len(report.feasible)
    head = (
        f"{INDENT}placements{by}: topology key {key}, {len(report.placements)} considered, "
        f"{feasible} feasible"
    )
    lines = [head]
    if report.members:
        lines.append(f"{INDENT * 2}members tried, in this order: {', '.join(report.members)}")
    if report.scheduled:
        placed = ", ".join(f"{name} on {node}" for name, node in report.scheduled)
        lines.append(f"{INDENT * 2}placed before the cycle: {placed}")
    for trial in report.placements:
        lines += _trial_lines(report, trial)
    lines += [f"{INDENT * 2}note: {note}" for note in report.notes]
    lines.append(f"{INDENT * 2}placement: {report.outcome}")
    return lines


def placement_summary(report: PlacementsReport) -> str:
    """The decision in one line: the group's, which the member follows."""
    if report.chosen:
        where = f" ({report.pod} on {report.pod_node} in its trial)" if report.pod_node else ""
        return f"kubesched would place the group in {report.chosen}{where}"
    if len(report.best) > 1:
        return (
            f"tie between placements {', '.join(report.best)}: kubesched picks one of them at "
            "random"
        )
    return report.outcome


def _trial_lines(report: PlacementsReport, trial: PlacementTrial) -> list[str]:
    domain = trial.domain or "(every node)"
    nodes = ", ".join(trial.nodes)
    head = f"{INDENT * 2}{domain} (nodes {nodes}): {_verdict(report, trial)}"
    width = max((len(m.name) for m in trial.members), default=0)
    rows = [f"{INDENT * 3}{m.name.ljust(width)}  {_member(m)}" for m in trial.members]
    return [head, *rows]


def _verdict(report: PlacementsReport, trial: PlacementTrial) -> str:
    if not trial.feasible:
        return f"infeasible: {trial.status}"
    text = "feasible"
    if trial.total is not None:
        scores = ", ".join(f"{name} {score}" for name, score in trial.scores)
        text += f", total score {trial.total} ({scores})"
    if report.chosen == trial.domain:
        return text + ", chosen"
    if trial.domain in report.best and len(report.best) > 1:
        return text + ", tied for best"
    return text


def _member(member: MemberTrial) -> str:
    if member.node:
        return f"fits on {member.node}"
    if not member.tried:
        return "not tried: the group was unschedulable here before its turn"
    plugins = f" [{', '.join(member.plugins)}]" if member.plugins else ""
    return f"does not fit: {member.message}{plugins}"


def placements_dict(report: PlacementsReport) -> dict[str, Any]:
    return {
        "topologyKey": report.topology_key or None,
        "generator": report.generator or None,
        "members": list(report.members),
        "scheduled": [{"name": name, "node": node} for name, node in report.scheduled],
        "placements": [_trial_dict(trial) for trial in report.placements],
        "chosen": report.chosen or None,
        "podNode": report.pod_node or None,
        "best": list(report.best),
        "outcome": report.outcome,
        "notes": list(report.notes),
    }


def _trial_dict(trial: PlacementTrial) -> dict[str, Any]:
    return {
        "domain": trial.domain,
        "nodes": list(trial.nodes),
        "feasible": trial.feasible,
        "status": trial.status or None,
        "members": [_member_dict(member) for member in trial.members],
        "scores": dict(trial.scores) if trial.total is not None else None,
        "total": trial.total,
    }


def _member_dict(member: MemberTrial) -> dict[str, Any]:
    found: dict[str, Any] = {"name": member.name, "fits": bool(member.node)}
    if member.node:
        found["node"] = member.node
    elif not member.tried:
        found["tried"] = False
    else:
        found["reason"] = member.message
        found["plugins"] = list(member.plugins)
    return found
