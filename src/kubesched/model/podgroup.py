"""kube-scheduler's native PodGroup (`scheduling.k8s.io/v1beta1`, the `GenericWorkload`
feature gate): the fields the GangScheduling plugin and the pod-group cycle read.

Pods join a PodGroup of their namespace by `spec.schedulingGroup.podGroupName`
(`Pod.pod_group_name`). A PodGroup's `spec.schedulingPolicy` is either `gang: {minCount}`
(all or nothing: at least minCount members placed at once) or `basic: {}` (members are
placed as a group, without a minimum).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.model.apiobject import ApiObject
from kubesched.model.pod import Pod

INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"
"""The PodGroup condition kube-scheduler keeps; once True it never goes back to False."""
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"
REASON_SCHEDULED = "Scheduled"


@dataclass(frozen=True, slots=True)
class SchedulingPodGroup:
    """One `scheduling.k8s.io/v1beta1` PodGroup."""

    namespace: str
    name: str
    min_count: int | None
    """`spec.schedulingPolicy.gang.minCount`; None for a basic (non-gang) policy."""
    generation: int
    conditions: tuple[Mapping[str, Any], ...]
    obj: ApiObject
    priority: int = 0
    """`spec.priority` (set by the API server from `priorityClassName`); 0 when unset, as
    upstream's `PodGroupPriority`."""
    disrupt_all: bool = False
    """`spec.disruptionMode.all` is set: preemption evicts the group's pods together."""
    topology_key: str = ""
    """`spec.schedulingConstraints.topology[0].key` (the API allows one constraint), "" for
    none: the node label whose value names the domain all members must share. Read only
    with the `TopologyAwareWorkloadScheduling` feature gate (ignored otherwise, as
    kube-scheduler ignores it)."""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @classmethod
    def of(cls, obj: ApiObject) -> SchedulingPodGroup:
        policy = obj.spec.get("schedulingPolicy") or {}
        gang = policy.get("gang")
        min_count = int(gang.get("minCount") or 0) if isinstance(gang, Mapping) else None
        conditions = obj.status.get("conditions") or ()
        return cls(
            namespace=obj.namespace,
            name=obj.name,
            min_count=min_count,
            generation=obj.generation,
            conditions=tuple(c for c in conditions if isinstance(c, Mapping)),
            obj=obj,
            priority=int_or_zero(obj.spec.get("priority")),
            disrupt_all=isinstance((obj.spec.get("disruptionMode") or {}).get("all"), Mapping),
            topology_key=first_topology_key(obj.spec.get("schedulingConstraints")),
        )

    @property
    def uid(self) -> str:
        return self.obj.uid

    def condition(self, kind: str) -> Mapping[str, Any] | None:
        """The status condition of type `kind`, if any."""
        return next((c for c in self.conditions if c.get("type") == kind), None)


def first_topology_key(constraints: object) -> str:
    """The first topology constraint's key of `schedulingConstraints` (a PodGroup's or a
    CompositePodGroup's), "" when there is none or it is malformed."""
    topology = constraints.get("topology") if isinstance(constraints, Mapping) else None
    first = topology[0] if isinstance(topology, list) and topology else None
    key = first.get("key") if isinstance(first, Mapping) else None
    return key if isinstance(key, str) else ""


def int_or_zero(value: object) -> int:
    """`value` when it is an int (a bool is not), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def pod_group_key(pod: Pod) -> str:
    """`namespace/podGroupName` of the pod's native PodGroup, "" for none."""
    return f"{pod.namespace}/{pod.pod_group_name}" if pod.pod_group_name else ""
