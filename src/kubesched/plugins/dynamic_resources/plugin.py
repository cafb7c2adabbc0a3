"""DynamicResources (PreFilter): kubesched does not allocate DRA ResourceClaims yet, so a pod
with `spec.resourceClaims` is refused, never bound with its claims unallocated.

kube-scheduler v1.37 allocates devices from ResourceSlices for the pod's ResourceClaims (and
those made from ResourceClaimTemplates), matching DeviceClasses and CEL selectors, and writes
the allocation in PreBind. kubesched has none of that: its PreFilter rejects such a pod as
UnschedulableAndUnresolvable with `MESSAGE`, so it stays Pending with a FailedScheduling event
that says why (and nothing but deleting it, or giving it to kube-scheduler, moves it on).
Pods without resource claims skip the plugin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from kubesched.framework import ClusterEvent, Code, CycleState, Handle, NodeInfo, Status
from kubesched.model import Pod
from kubesched.plugins.helper.args import check_fields

NAME = "DynamicResources"
MESSAGE = (
    "pod has spec.resourceClaims, and kubesched does not support dynamic resource allocation "
    "(allocating ResourceClaims from ResourceSlices with DeviceClasses and CEL selectors is not "
    "implemented); use kube-scheduler for this pod"
)
_SKIP: Final = Status(Code.SKIP)
_REFUSED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MESSAGE)


class DynamicResources:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        check_fields(args, kind="DynamicResourcesArgs", allowed=("filterTimeout", "bindingTimeout"))

    def pre_filter(self, _state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status:
        return _REFUSED if pod.resource_claims else _SKIP

    def events_to_register(self) -> Sequence[ClusterEvent]:
        return ()  # nothing in the cluster can make kubesched allocate a claim
