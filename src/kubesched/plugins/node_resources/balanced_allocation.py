"""NodeResourcesBalancedAllocation (PreScore, Score): favor nodes whose resources the pod
makes more evenly used. As upstream v1.37 (`balancedResourceScorer`), the score is the change
in balance the pod causes: 50 + (50 + balance_with_pod - balance_without_pod) / 2, where a
balance is (1 - standard deviation of requested/allocatable fractions) * 100, on the real
requests (pod-level `spec.resources` included). Pods requesting nothing of the configured
resources are not scored by it (PreScore returns Skip, as upstream since 1.32). An extended
resource a DeviceClass backs is scored as NodeResourcesFit scores it (devices of the class
on the node, how many are allocated; the pod is then not signable). Where that class has CEL
selectors, kube-scheduler v1.37.2 exits with a nil pointer dereference instead (its
BalancedAllocation never makes the CEL cache its scorer reads); kubesched counts the
devices.

Args (`NodeResourcesBalancedAllocationArgs`): `resources` (default cpu and memory).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import Code, CycleState, Handle, NodeInfo, StateKey, Status
from kubesched.framework.dra import DEVICE_CLASSES
from kubesched.framework.signs import resources_sign
from kubesched.model import Pod
from kubesched.plugins.helper.extended_resources import dra_backed, extended_resource_classes
from kubesched.plugins.node_resources import resource_scoring as rs
from kubesched.plugins.node_resources.balanced_allocation_args import (
    NodeResourcesBalancedAllocationArgs,
)
from kubesched.plugins.node_resources.dra_totals import DraTotals

NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
_SKIP: Final = Status(Code.SKIP)
_PRE_SCORE_KEY: StateKey[tuple[list[int], rs.DraExtended | None]] = StateKey("PreScore" + NAME)


class NodeResourcesBalancedAllocation:
    name = NAME
    resources = (DEVICE_CLASSES,)
    """DeviceClasses: which extended resources DRA backs (scored by device counts)."""

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self.args = NodeResourcesBalancedAllocationArgs.from_v1(args)
        self._names = [name for name, _ in self.args.resources]
        self._kinds = rs.resource_kinds(self._names)
        self.classes = extended_resource_classes(handle)
        self._dra = rs.DraScoredResources(
            self._names, self.classes, DraTotals(handle.shared_dra_manager())
        )

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...] | None:
        """Upstream `SignPod`: the pod's requests; none (not signable) when a DeviceClass
        backs one of its extended resources. Equal signatures, equal results on a node
        (`kubesched.framework.signs`)."""
        if dra_backed(pod, self.classes):
            return None
        return (resources_sign(pod),)

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        requests = rs.pod_requests(pod, self._names, use_requested=True)
        if not any(requests):
            return _SKIP  # best-effort pods would all pile onto one node otherwise
        dra = self._dra.for_pod(requests)
        state.write(_PRE_SCORE_KEY, (requests, dra))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        inputs = state.get(_PRE_SCORE_KEY)
        if inputs is None:
            requests = rs.pod_requests(pod, self._names, use_requested=True)
            if not any(requests):
                return 0
            dra = self._dra.for_pod(requests)
        else:
            requests, dra = inputs
        alloc, req = rs.allocatable_and_requested(
            node_info, self._kinds, requests, use_requested=True, dra=dra
        )
        allocated = [r - p if a else 0 for r, p, a in zip(req, requests, alloc, strict=True)]
        return rs.balanced(req, allocated, alloc)
