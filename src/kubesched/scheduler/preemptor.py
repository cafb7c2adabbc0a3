"""Who preempts: a pod, or (`GenericWorkload`) a native PodGroup, as upstream's executor
names them in the `Preempted` event and the victims' `DisruptionTarget` condition."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kubesched.model import Pod, SchedulingPodGroup
from kubesched.scheduler.event_recorder import ObjectRef


@dataclass(frozen=True, slots=True)
class Preemptor:
    """A pod, or a pod group (upstream's `ExecutorPreemptor`)."""

    uid: str
    kind: str
    """"pod" or "podgroup", as in the event and condition texts."""
    scheduler_name: str
    priority: int
    ref: ObjectRef
    pods: tuple[Pod, ...]
    key: str

    @classmethod
    def of_pod(cls, pod: Pod) -> Preemptor:
        ref = ObjectRef.of_pod(pod)
        return cls(pod.uid, "pod", pod.scheduler_name, pod.priority, ref, (pod,), pod.key)

    @classmethod
    def of_group(cls, group: SchedulingPodGroup, members: Sequence[Pod]) -> Preemptor:
        ref = ObjectRef(
            "PodGroup", group.namespace, group.name, group.uid, "scheduling.k8s.io/v1beta1"
        )
        scheduler = members[0].scheduler_name if members else ""
        pods = tuple(members)
        return cls(group.uid, "podgroup", scheduler, group.priority, ref, pods, group.key)


GROUP_NODE = "cluster"
"""The "node" of a pod group's preemption (its domain is the whole cluster), as upstream."""
