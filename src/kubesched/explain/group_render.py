"""The group section of `kubesched explain`, as table lines and as JSON."""

from __future__ import annotations

from typing import Any

from kubesched.apis.waitingpods import WaitingPodRecord, timestamp
from kubesched.explain.group_report import (
    BOUND,
    GATED,
    PENDING,
    WAITING,
    GroupReport,
    Member,
    PermitView,
)
from kubesched.explain.placement_render import placement_lines, placements_dict
from kubesched.framework.waiting import go_duration

INDENT = "  "


def group_lines(group: GroupReport) -> list[str]:
    head = f"group: PodGroup {group.key} ({group.api_version})"
    if group.min_count:
        head += f", {group.min_field} {group.min_count}"
    lines = [head]
    if group.timeout:
        lines.append(f"{INDENT}timeout at Permit: {group.timeout}")
    if group.status:
        lines.append(f"{INDENT}status: " + ", ".join(f"{k} {v}" for k, v in group.status))
    lines += [f"{INDENT}condition: {condition}" for condition in group.conditions]
    lines += [f"{INDENT}note: {note}" for note in group.notes]
    lines.append(f"{INDENT}members: {_counts(group)}")
    width = max((len(m.name) for m in group.members), default=0)
    observed = group.permit.observed_at
    lines += [
        f"{INDENT * 2}{m.name.ljust(width)}  {member_text(m, observed)}" for m in group.members
    ]
    lines.append(f"{INDENT}held at Permit: {permit_text(group.permit)}")
    if group.placements is not None:
        lines += placement_lines(group.placements)
    lines.append(f"{INDENT}the group lacks: {group.lacks}")
    return lines


def _counts(group: GroupReport) -> str:
    states = (BOUND, WAITING, GATED, PENDING)
    found = ", ".join(f"{group.count(s)} {s}" for s in states if group.count(s))
    return f"{len(group.members)} exist" + (f" ({found})" if found else "")


def member_text(member: Member, observed_at: float) -> str:
    if member.node:
        return f"bound to {member.node}"
    if member.waiting is not None:
        return waiting_text(member.waiting, observed_at)
    if member.gates:
        return f"gated (schedulingGates: {', '.join(member.gates)})"
    if member.last_failure:
        return f"pending; last FailedScheduling: {member.last_failure}"
    return "pending; not reported unschedulable yet"


def waiting_text(record: WaitingPodRecord, observed_at: float) -> str:
    waited = go_duration(max(0.0, observed_at - record.since))
    left = go_duration(max(0.0, record.deadline - observed_at))
    plugins = ", ".join(record.plugins) or "no plugin"
    return (
        f"waiting at Permit on {record.node} since {timestamp(record.since)} ({waited}), for "
        f"{plugins}; deadline {timestamp(record.deadline)} (in {left})"
    )


def permit_text(view: PermitView) -> str:
    if not view.url:
        return (
            "unknown: pass --scheduler-url=https://LEADER:10259 (the kubesched leader's secure "
            "port): members waiting at Permit live only in its memory"
        )
    if view.error:
        return f"unknown: {view.error}"
    if not view.leading:
        return (
            f"unknown: the scheduler at {view.url} is not the leader (a standby holds no pod "
            "at Permit); point --scheduler-url at the leader (`kubesched leases` names it)"
        )
    names = ", ".join(record.name for record in view.held)
    return f"{names or 'none'} (by the leader at {view.url})"


def group_dict(group: GroupReport) -> dict[str, Any]:
    view = group.permit
    return {
        "apiVersion": group.api_version,
        "namespace": group.namespace,
        "name": group.name,
        "found": group.found,
        "problem": group.problem or None,
        group.min_field: group.min_count or None,
        "timeout": group.timeout or None,
        "status": dict(group.status),
        "conditions": list(group.conditions),
        "members": [_member_dict(m) for m in group.members],
        "permit": {
            "schedulerURL": view.url or None,
            "known": view.known,
            "leading": view.leading if view.url and not view.error else None,
            "held": [_waiting_dict(r) for r in view.held] if view.known else None,
            "summary": permit_text(view),
        },
        "notes": list(group.notes),
        "lacks": group.lacks,
        "placements": None if group.placements is None else placements_dict(group.placements),
    }


def _member_dict(member: Member) -> dict[str, Any]:
    found: dict[str, Any] = {"name": member.name, "state": member.state}
    if member.node:
        found["node"] = member.node
    if member.gates:
        found["schedulingGates"] = list(member.gates)
    if member.last_failure and not member.node:
        found["lastFailedScheduling"] = member.last_failure
    if member.waiting is not None:
        found["waiting"] = _waiting_dict(member.waiting)
    return found


def _waiting_dict(record: WaitingPodRecord) -> dict[str, Any]:
    return {
        "name": record.name,
        "node": record.node,
        "plugins": list(record.plugins),
        "since": timestamp(record.since),
        "deadline": timestamp(record.deadline),
    }
