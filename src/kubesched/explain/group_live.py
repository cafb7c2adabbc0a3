"""The group section of an explanation: which group the pod belongs to, the group object,
its members among the pods explain listed, and what the running scheduler holds at Permit
(`/debug/waitingpods`, read only when `--scheduler-url` is given)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kubesched.apis.config import Profile
from kubesched.apis.waitingpods import PermitViewError, WaitingPodRecord, decode
from kubesched.explain.group_coscheduling import POD_GROUP_LABEL, read_coscheduling
from kubesched.explain.group_native import read_native
from kubesched.explain.group_report import GroupReport, Member, PermitView
from kubesched.model import Pod

if TYPE_CHECKING:
    from kubesched.explain.live import Reader


@dataclass(frozen=True, slots=True)
class PermitSource:
    """The scheduler's secure port: its address and how to read `/debug/waitingpods`
    (raises PermitViewError with a one-line message)."""

    url: str
    read: Callable[[], Awaitable[object]]


async def read_group(
    api: Reader,
    pod: Pod,
    pods: Sequence[Pod],
    *,
    profile: Profile,
    enabled: Collection[str],
    view: PermitView,
) -> GroupReport | None:
    """The pod's group (None when it belongs to none), without the `lacks` sentence; `view`
    is what the scheduler holds at Permit (`read_permit`), narrowed here to the members."""
    label = pod.labels.get(POD_GROUP_LABEL, "")
    if label:
        report = await read_coscheduling(
            api, pod.namespace, label, profile=profile, enabled=enabled
        )
        members = [p for p in pods if p.namespace == pod.namespace and _label(p) == label]
    elif pod.pod_group_name:
        name = pod.pod_group_name
        report = await read_native(api, pod.namespace, name, profile=profile, enabled=enabled)
        members = [p for p in pods if p.namespace == pod.namespace and p.pod_group_name == name]
    else:
        return None
    uids = {member.uid for member in members}
    view = replace(view, held=tuple(record for record in view.held if record.uid in uids))
    held = {record.uid: record for record in view.held}
    notes = report.notes
    if all(member.uid != pod.uid for member in members):
        notes = (*notes, f"{pod.key} is not in the cluster: it is not counted among the members")
    return replace(
        report,
        members=tuple(_member(p, held.get(p.uid)) for p in sorted(members, key=_name)),
        permit=view,
        notes=notes,
    )


def in_group(pod: Pod) -> bool:
    """Whether the pod joins a PodGroup of either API."""
    return bool(_label(pod) or pod.pod_group_name)


async def read_permit(permit: PermitSource | None) -> PermitView:
    """Every pod the scheduler holds at Permit (an empty view without `permit`)."""
    if permit is None:
        return PermitView()
    try:
        listed = decode(await permit.read())
    except PermitViewError as exc:
        return PermitView(url=permit.url, error=str(exc))
    return PermitView(
        url=permit.url, leading=listed.leading, observed_at=listed.observed_at, held=listed.items
    )


def _member(pod: Pod, waiting: WaitingPodRecord | None) -> Member:
    condition = pod.scheduled_condition
    failure = condition[2] if condition is not None and condition[0] == "False" else ""
    return Member(
        name=pod.name,
        node=pod.node_name,
        gates=pod.scheduling_gates,
        last_failure=failure,
        waiting=waiting if not pod.node_name else None,
    )


def _label(pod: Pod) -> str:
    return pod.labels.get(POD_GROUP_LABEL, "")


def _name(pod: Pod) -> str:
    return pod.name
