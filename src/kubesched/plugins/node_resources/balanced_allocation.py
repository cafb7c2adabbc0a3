"""NodeResourcesBalancedAllocation (PreScore, Score): favor nodes whose resources the pod
makes more evenly used. As upstream v1.37 (`balancedResourceScorer`), the score is the change
in balance the pod causes: 50 + (50 + balance_with_pod - balance_without_pod) / 2, where a
balance is (1 - standard deviation of requested/allocatable fractions) * 100, on the real
requests (pod-level `spec.resources` included). Pods requesting nothing of the configured
resources are not scored by it (PreScore returns Skip, as upstream since 1.32).

Args (`NodeResourcesBalancedAllocationArgs`): `resources` (default cpu and memory).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import Code, CycleState, Handle, NodeInfo, StateKey, Status
from kubesched.framework.signs import resources_sign
from kubesched.model import Pod
from kubesched.plugins.node_resources import resource_scoring as rs
from kubesched.plugins.node_resources.balanced_allocation_args import (
    NodeResourcesBalancedAllocationArgs,
)

NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
_SKIP: Final = Status(Code.SKIP)
_PRE_SCORE_KEY: StateKey[list[int]] = StateKey("PreScore" + NAME)


class NodeResourcesBalancedAllocation:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        self.args = NodeResourcesBalancedAllocationArgs.from_v1(args)
        self.resources = self.args.resources
        self._names = [name for name, _ in self.resources]
        self._kinds = rs.resource_kinds(self._names)

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...]:
        """Upstream `SignPod`: the pod's requests.
        Equal signatures, equal results on a node (`kubesched.framework.signs`)."""
        return (resources_sign(pod),)

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        requests = rs.pod_requests(pod, self._names, use_requested=True)
        if not any(requests):
            return _SKIP  # best-effort pods would all pile onto one node otherwise
        state.write(_PRE_SCORE_KEY, requests)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        requests = state.get(_PRE_SCORE_KEY)
        if requests is None:
            requests = rs.pod_requests(pod, self._names, use_requested=True)
            if not any(requests):
                return 0
        alloc, req = rs.allocatable_and_requested(
            node_info, self._kinds, requests, use_requested=True
        )
        allocated = [r - p if a else 0 for r, p, a in zip(req, requests, alloc, strict=True)]
        return rs.balanced(req, allocated, alloc)
