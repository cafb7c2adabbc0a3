"""One plain sentence of what a group still lacks before it is scheduled, from its members
and (when known) what the scheduler holds at Permit. Pure; unit-tested."""

from __future__ import annotations

from kubesched.explain.group_report import BOUND, GATED, WAITING, GroupReport

NEEDS_URL = (
    "which pending members hold room at Permit needs --scheduler-url "
    "(the leader's secure port, e.g. https://127.0.0.1:10259)"
)


def lacks(group: GroupReport, *, pod_fits: bool | None = None) -> str:
    """E.g. "5 of 8 members exist; the group waits until 8 do" or "6 of 8 fit (4 waiting
    at Permit, 2 bound); 2 more need room". `pod_fits`: the explained member passes Filter
    on some node now (None: unknown)."""
    unusable = _unusable(group)
    if unusable:
        return unusable
    need, exist = group.min_count, len(group.members)
    if not group.enforced_by:
        return (
            f"nothing kubesched waits for: its profile enables no gang plugin for this group, "
            f"so it places the members one by one ({exist} of {group.min_field} {need} exist)"
        )
    bound = group.count(BOUND)
    if bound >= need:
        rest = exist - bound
        more = f"; the other {rest} pending member(s) are placed as they fit" if rest else ""
        return f"nothing: {bound} of {need} members are bound, the group is scheduled{more}"
    if exist < need:
        return f"{exist} of {need} members exist; the group waits until {need} do"
    ungated = exist - group.count(GATED)
    if ungated < need:
        return (
            f"{ungated} of {exist} members are not gated (spec.schedulingGates); the group "
            f"waits until {need} are"
        )
    return _placed(group, need=need, bound=bound, pod_fits=pod_fits)


def _unusable(group: GroupReport) -> str:
    """Why the group cannot be counted at all ("" when it can)."""
    if group.problem:
        return group.problem
    if not group.found:
        return f"PodGroup {group.key} does not exist; its members wait until it is created"
    if group.min_count <= 0:
        return f"PodGroup {group.key} sets no {group.min_field}: it is not a gang"
    return ""


def _placed(group: GroupReport, *, need: int, bound: int, pod_fits: bool | None) -> str:
    if not group.permit.url:
        return f"{bound} of {need} members are bound; {NEEDS_URL}"
    if not group.permit.known:
        return (
            f"{bound} of {need} members are bound; what the scheduler holds at Permit is "
            "unknown (see `held at Permit`)"
        )
    waiting = group.count(WAITING)
    held = waiting + bound
    detail = f"{held} of {need} fit ({waiting} waiting at Permit, {bound} bound)"
    if held >= need:
        return f"nothing: {detail}; the scheduler is letting them bind"
    missing = need - held
    if pod_fits:
        return (
            f"{detail}; {missing} more must reach Permit (this member fits now and waits for "
            "its scheduling cycle)"
        )
    return f"{detail}; {missing} more need room"
