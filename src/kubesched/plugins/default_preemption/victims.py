"""Preemption victims as kube-scheduler v1.37 collects and orders them (upstream
`getCrossNodesVictims`, `NewPodVictim`, `MoreImportantVictim`), with the `GenericWorkload`
gate or without it (then every pod is a victim of its own), for a pod group preemptor (the
domain is the whole cluster) and for a single pod (the domain is one node).

Every pod counted on the domain's nodes is one victim, except the pods of a PodGroup with
`spec.disruptionMode.all`, which are one victim together (all its scheduled pods, wherever
they run, even outside the domain). A pod of a PodGroup has the group's priority
(`spec.priority`), whether or not the group is evicted as a whole; other pods their own.
Most important first: higher priority, then groups before single pods (a pod of a PodGroup
counts as a group), then more pods, then the earlier start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from kubesched.framework import NodeInfo
from kubesched.framework.listers import Lister
from kubesched.model import ApiObject, Pod, SchedulingPodGroup

POD, PODGROUP = "pod", "podgroup"
"""Upstream's victim (and preemptor) types, as they appear in event messages."""
_RANK = {POD: 1, PODGROUP: 2}

GroupOf = Callable[[Pod], SchedulingPodGroup | None]
"""The PodGroup a pod belongs to (None: none, or it does not exist)."""


@dataclass(frozen=True, slots=True)
class Victim:
    """Pods evicted together, with the priority and type they are ranked by."""

    pods: tuple[Pod, ...]
    priority: int
    kind: str = POD
    earliest_start: float = 0.0

    @property
    def is_group(self) -> bool:
        return self.kind == PODGROUP


def group_lookup(store: Lister[ApiObject]) -> GroupOf:
    """`GroupOf` over the native PodGroups' store, each group parsed once."""
    seen: dict[tuple[str, str], SchedulingPodGroup | None] = {}

    def group_of(pod: Pod) -> SchedulingPodGroup | None:
        key = (pod.namespace, pod.pod_group_name)
        if key not in seen:
            obj = store.get(pod.pod_group_name, pod.namespace)
            seen[key] = SchedulingPodGroup.of(obj) if obj is not None else None
        return seen[key]

    return group_of


def start_seconds(pod: Pod, now: float) -> float:
    """`status.startTime` as epoch seconds; `now` for pods not started (upstream)."""
    if not pod.start_time:
        return now
    try:
        return datetime.fromisoformat(pod.start_time).timestamp()
    except ValueError:
        return now


def pod_priority(pod: Pod, group_of: GroupOf | None) -> int:
    """Upstream `GetPodPriority`: the PodGroup's priority for its members (None: the gate
    is off, every pod has its own)."""
    group = group_of(pod) if group_of is not None and pod.pod_group_name else None
    return group.priority if group is not None else pod.priority


def collect(
    nodes: Sequence[NodeInfo],
    group_of: GroupOf | None,
    *,
    now: float,
    everywhere: Sequence[NodeInfo] | None = None,
    below: int | None = None,
) -> list[Victim]:
    """Every victim on `nodes`, in node order (upstream `getCrossNodesVictims`); a group
    evicted as a whole has its scheduled pods on `everywhere` (default: `nodes`), which is
    read only when `nodes` hold such a group. `group_of` None (the gate off, upstream's nil
    PodGroup lister): every pod is a victim of its own, of type pod, at its own priority.
    With `below`, only the victims of a lower priority (upstream's first loop of
    `SelectVictimsOnNode`; without the gate, a pod at or above it is skipped before its
    victim is made, as upstream only compares its priority)."""
    pods = [pod for info in nodes for pod in info.pods.values()]
    if group_of is None:
        return [
            _victim([pod], pod.priority, POD, now)
            for pod in pods
            if below is None or pod.priority < below
        ]
    whole = {
        (pod.namespace, pod.pod_group_name)
        for pod in pods
        if pod.pod_group_name and _disrupt_all(group_of(pod))
    }
    members = _members(everywhere or nodes, whole) if whole else {}
    seen: set[tuple[str, str]] = set()
    victims: list[Victim] = []
    for pod in pods:
        key = (pod.namespace, pod.pod_group_name)
        if pod.pod_group_name and key in whole:
            group = group_of(pod)
            if key not in seen and group is not None:
                seen.add(key)
                victims.append(_victim(members[key], group.priority, PODGROUP, now))
            continue
        kind = PODGROUP if pod.pod_group_name else POD
        victims.append(_victim([pod], pod_priority(pod, group_of), kind, now))
    return [v for v in victims if below is None or v.priority < below]


def _disrupt_all(group: SchedulingPodGroup | None) -> bool:
    return group is not None and group.disrupt_all


def _members(
    nodes: Sequence[NodeInfo], keys: set[tuple[str, str]]
) -> dict[tuple[str, str], list[Pod]]:
    """The pods of the groups `keys` on `nodes`, in node order."""
    members: dict[tuple[str, str], list[Pod]] = {}
    for info in nodes:
        for pod in info.pods.values():
            key = (pod.namespace, pod.pod_group_name)
            if pod.pod_group_name and key in keys:
                members.setdefault(key, []).append(pod)
    return members


def _victim(pods: Sequence[Pod], priority: int, kind: str, now: float) -> Victim:
    started = [start_seconds(pod, now) for pod in pods if pod.start_time]
    earliest = min(started) if started else now
    return Victim(tuple(pods), priority, kind, earliest)


def most_important_first(victims: Sequence[Victim]) -> list[Victim]:
    """Most important first (upstream `MoreImportantVictim`)."""
    return sorted(
        victims,
        key=lambda v: (-v.priority, -_RANK[v.kind], -len(v.pods), v.earliest_start),
    )
