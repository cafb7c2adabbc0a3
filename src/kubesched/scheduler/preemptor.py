"""Who preempts: a pod, or (`GenericWorkload`) a native PodGroup, as upstream's executor
names them in the `Preempted` event and the victims' `DisruptionTarget` condition; and the
request bodies of an eviction (the condition, the DELETE, a nomination cleared)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kubesched.model import Pod, SchedulingPodGroup
from kubesched.model.pod import DISRUPTION_TARGET, PREEMPTION_BY_SCHEDULER
from kubesched.plugins.default_preemption.victims import POD, PODGROUP
from kubesched.scheduler.event_recorder import ObjectRef


@dataclass(frozen=True, slots=True)
class Preemptor:
    """A pod, or a pod group (upstream's `ExecutorPreemptor`)."""

    uid: str
    kind: str
    """`victims.POD` or `victims.PODGROUP`, as in the event and condition texts."""
    scheduler_name: str
    priority: int
    ref: ObjectRef
    pods: tuple[Pod, ...]
    key: str

    @classmethod
    def of_pod(cls, pod: Pod) -> Preemptor:
        ref = ObjectRef.of_pod(pod)
        return cls(pod.uid, POD, pod.scheduler_name, pod.priority, ref, (pod,), pod.key)

    @classmethod
    def of_group(cls, group: SchedulingPodGroup, members: Sequence[Pod]) -> Preemptor:
        ref = ObjectRef(
            "PodGroup", group.namespace, group.name, group.uid, "scheduling.k8s.io/v1beta1"
        )
        scheduler = members[0].scheduler_name if members else ""
        pods = tuple(members)
        return cls(group.uid, PODGROUP, scheduler, group.priority, ref, pods, group.key)


GROUP_NODE = "cluster"
"""The "node" of a pod group's preemption (its domain is the whole cluster), as upstream."""


def pod_path(pod: Pod) -> str:
    return f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}"


def disruption_target_patch(victim: Pod, preemptor: Preemptor) -> dict[str, Any]:
    """The victim's `DisruptionTarget` condition (reason `PreemptionByScheduler`), as a
    strategic merge patch of its status guarded by its UID."""
    scheduler, kind = preemptor.scheduler_name, preemptor.kind
    condition: dict[str, Any] = {
        "type": DISRUPTION_TARGET,
        "status": "True",
        "reason": PREEMPTION_BY_SCHEDULER,
        "message": f"{scheduler}: preempting to accommodate a higher priority {kind}",
        "lastTransitionTime": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if victim.generation:
        condition["observedGeneration"] = victim.generation
    return {"metadata": {"uid": victim.uid}, "status": {"conditions": [condition]}}


def delete_with_uid(pod: Pod) -> dict[str, Any]:
    """DeleteOptions with the pod's UID as precondition (the default grace period)."""
    return {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": pod.uid}}


def clear_nomination_patch(pod: Pod) -> dict[str, Any]:
    return {"metadata": {"uid": pod.uid}, "status": {"nominatedNodeName": None}}
