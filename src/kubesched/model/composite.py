"""kube-scheduler v1.37's CompositePodGroup (`scheduling.k8s.io/v1alpha3`, the alpha
`CompositePodGroup` feature gate): a group of groups.

A PodGroup names its parent in `spec.parentCompositePodGroupName`; a CompositePodGroup
names its own parent the same way, so groups form trees of at most 4 levels (the API's
`WorkloadMaxTreeDepth`) under one root. A composite's `spec.schedulingPolicy` is
`basic: {}` or `gang: {minGroupCount: N}`: N of its children (PodGroups or composites)
must be placed together. `schedulingConstraints.topology[0].key` names the node label
whose value the whole subtree shares, as a PodGroup's does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kubesched.model.apiobject import ApiObject
from kubesched.model.podgroup import first_topology_key, int_or_zero

MAX_TREE_DEPTH = 4
"""upstream `WorkloadMaxTreeDepth`: a walk from a root deeper than this is an error."""


@dataclass(frozen=True, slots=True)
class SchedulingCompositePodGroup:
    """One `scheduling.k8s.io/v1alpha3` CompositePodGroup."""

    namespace: str
    name: str
    parent: str
    """`spec.parentCompositePodGroupName`, "" for a root."""
    min_group_count: int | None
    """`spec.schedulingPolicy.gang.minGroupCount`; None for a basic policy (upstream then
    counts 1)."""
    topology_key: str
    priority: int
    creation_timestamp: str
    obj: ApiObject

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @classmethod
    def of(cls, obj: ApiObject) -> SchedulingCompositePodGroup:
        spec = obj.spec
        policy = spec.get("schedulingPolicy") or {}
        gang = policy.get("gang") if isinstance(policy, Mapping) else None
        count = gang.get("minGroupCount") if isinstance(gang, Mapping) else None
        return cls(
            namespace=obj.namespace,
            name=obj.name,
            parent=parent_name(obj),
            min_group_count=int(count or 0) if isinstance(gang, Mapping) else None,
            topology_key=first_topology_key(spec.get("schedulingConstraints")),
            priority=int_or_zero(spec.get("priority")),
            creation_timestamp=obj.creation_timestamp,
            obj=obj,
        )


def parent_name(obj: ApiObject) -> str:
    """`spec.parentCompositePodGroupName` of a PodGroup or CompositePodGroup, "" for none."""
    parent = obj.spec.get("parentCompositePodGroupName")
    return parent if isinstance(parent, str) else ""


__all__ = ["MAX_TREE_DEPTH", "SchedulingCompositePodGroup", "parent_name"]
