"""DynamicResources (PreFilter): kubesched does not allocate DRA ResourceClaims yet, so a pod
with `spec.resourceClaims` is refused, never bound with its claims unallocated.

kube-scheduler v1.37 allocates devices from ResourceSlices for the pod's ResourceClaims (and
those made from ResourceClaimTemplates), matching DeviceClasses and CEL selectors, and writes
the allocation in PreBind. kubesched has none of that: its PreFilter rejects such a pod as
UnschedulableAndUnresolvable with `MESSAGE`, so it stays Pending with a FailedScheduling event
that says why (and nothing but deleting it, or giving it to kube-scheduler, moves it on).
Pods without resource claims skip the plugin.

Its PostFilter runs before DefaultPreemption's, as upstream's (the default list puts
DynamicResources first), and answers as upstream's does for a pod without claims: nothing to
deallocate (Unschedulable, no message) once its PreFilter ran, and an ERROR `not found` (the
missing cycle state) when an earlier PreFilter rejected the pod, so the FailedScheduling text
ends with `. not found` exactly as kube-scheduler v1.37's does then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import (
    ClusterEvent,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    NodeToStatusReader,
    PostFilterResult,
    StateKey,
    Status,
)
from kubesched.model import Pod
from kubesched.plugins.helper.args import check_fields

NAME = names.DYNAMIC_RESOURCES
MESSAGE = (
    "pod has spec.resourceClaims, and kubesched does not support dynamic resource allocation "
    "(allocating ResourceClaims from ResourceSlices with DeviceClasses and CEL selectors is not "
    "implemented); use kube-scheduler for this pod"
)
_SKIP: Final = Status(Code.SKIP)
_REFUSED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MESSAGE)
_NOTHING_TO_DEALLOCATE: Final = Status(Code.UNSCHEDULABLE)
_NO_STATE: Final = Status(Code.ERROR, "not found")


class _Ran:
    """Written by PreFilter: the PostFilter knows the PreFilter ran."""

    def clone(self) -> _Ran:
        return self


_KEY: StateKey[_Ran] = StateKey(NAME)
_RAN: Final = _Ran()


class DynamicResources:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        check_fields(args, kind="DynamicResourcesArgs", allowed=("filterTimeout", "bindingTimeout"))

    def pre_filter(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status:
        state.write(_KEY, _RAN)
        return _REFUSED if pod.resource_claims else _SKIP

    def post_filter(
        self, state: CycleState, _pod: Pod, _statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status]:
        return None, _NOTHING_TO_DEALLOCATE if state.get(_KEY) is not None else _NO_STATE

    def events_to_register(self) -> Sequence[ClusterEvent]:
        return ()  # nothing in the cluster can make kubesched allocate a claim
