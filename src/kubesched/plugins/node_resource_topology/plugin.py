"""NodeResourceTopologyMatch (scheduler-plugins): NUMA-aware placement over the
NodeResourceTopology objects (`topology.node.k8s.io/v1alpha2`) that the resource-topology
exporter or NFD writes for each node.

Filter refuses a node whose kubelet runs the `single-numa-node` topology-manager policy when
the pod (pod scope) or one of its containers (container scope) fits on none of its NUMA zones
alone: `cannot align pod`, `cannot align container` (`cannot align init container`,
`cannot align sidecar container`). Nodes under the other policies, and nodes without an NRT
object, pass. BestEffort pods are checked only when they request a device; only Guaranteed
pods get exclusive cpu, memory and hugepages, so only their amounts are checked.

Score ranks nodes for Guaranteed pods by the configured strategy (the others get 100, nodes
without an NRT object 0): MostAllocated, LeastAllocated, BalancedAllocation (single-numa-node
nodes only) or LeastNUMANodes (every node). See README.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    Status,
)
from kubesched.framework.resources import resource_event
from kubesched.model import Pod
from kubesched.model.pod_containers import GUARANTEED, PodContainerResources
from kubesched.plugins.node_resource_topology import least_numa
from kubesched.plugins.node_resource_topology.args import (
    BALANCED_ALLOCATION,
    LEAST_NUMA_NODES,
    MOST_ALLOCATED,
    NodeResourceTopologyMatchArgs,
)
from kubesched.plugins.node_resource_topology.explain import (
    NodeNUMA,
    node_numa,
    numa_dict,
    numa_lines,
)
from kubesched.plugins.node_resource_topology.fit import (
    AlignmentError,
    NUMAAccountingError,
    check_container_scope,
    check_pod_scope,
    effective_request,
    needs_filtering,
)
from kubesched.plugins.node_resource_topology.overreserve import OverReserve
from kubesched.plugins.node_resource_topology.reserved import (
    DiscardReserved,
    Passthrough,
    TopologySource,
)
from kubesched.plugins.node_resource_topology.scoring import (
    MAX_NODE_SCORE,
    Strategy,
    balanced_allocation,
    container_scope_score,
    least_allocated,
    most_allocated,
    score_for_each_numa,
)
from kubesched.plugins.node_resource_topology.topology import (
    NODE_RESOURCE_TOPOLOGIES,
    POLICY_SINGLE_NUMA_NODE,
    SCOPE_POD,
    NUMANode,
    ParsedTopologies,
    TopologyManager,
)

NAME = names.NODE_RESOURCE_TOPOLOGY_MATCH
_STRATEGIES: Mapping[str, Strategy] = {
    MOST_ALLOCATED: most_allocated,
    BALANCED_ALLOCATION: balanced_allocation,
}
_NODE_LEVEL = ("cpu", "memory", "pods", "ephemeral-storage")
_STALE = "invalid node topology data"


class NodeResourceTopologyMatch:
    """Filter, Score, Reserve and PostBind over NodeResourceTopology objects."""

    name = NAME
    resources = (NODE_RESOURCE_TOPOLOGIES,)

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self.args = NodeResourceTopologyMatchArgs.from_v1(args)
        self._strategy = _STRATEGIES.get(self.args.scoring_strategy, least_allocated)
        self._weights = self.args.weights
        self.source = _topology_source(self.args, handle)
        self._parsed = ParsedTopologies()
        self._handle = handle

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        # As scheduler-plugins: no hints.
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE)),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
                )
            ),
            ClusterEventWithHint(
                resource_event(NODE_RESOURCE_TOPOLOGIES, ActionType.ADD | ActionType.UPDATE)
            ),
        )

    # ---- Filter -------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        del state
        requests = pod.container_resources
        if requests is None or not needs_filtering(requests):
            return None
        name = node_info.node.name
        topology, fresh = self.source.topology(name)
        if not fresh:
            return Status(Code.UNSCHEDULABLE, _STALE)
        status = None if topology is None else self._align(requests, topology, node_info)
        if status is not None:
            self.source.maybe_over_reserved(name)
        return status

    def _align(
        self, requests: PodContainerResources, body: Mapping[str, Any], node_info: NodeInfo
    ) -> Status | None:
        """Filter on a node with an NRT object: only `single-numa-node` nodes are checked."""
        manager, zones = self._parsed.get(node_info.node.name, body)
        if manager.policy != POLICY_SINGLE_NUMA_NODE:
            return None
        node_resources = {*_NODE_LEVEL, *node_info.allocatable.scalar}
        try:
            if manager.scope == SCOPE_POD:
                check_pod_scope(requests, zones, node_resources)
            else:
                check_container_scope(requests, zones, node_resources)
        except AlignmentError as error:
            return Status(Code.UNSCHEDULABLE, str(error))
        except NUMAAccountingError as error:
            return Status(Code.ERROR, f"inconsistent resource accounting: {error}")
        return None

    # ---- Score --------------------------------------------------------------------------

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        del state
        requests = pod.container_resources
        if requests is None or requests.qos_class != GUARANTEED:
            return MAX_NODE_SCORE
        topology, fresh = self.source.topology(node_info.node.name)
        if not fresh or topology is None:
            return 0
        manager, zones = self._parsed.get(node_info.node.name, topology)
        if self.args.scoring_strategy == LEAST_NUMA_NODES:
            return _least_numa_score(requests, zones, manager)
        if manager.policy != POLICY_SINGLE_NUMA_NODE:
            return 0
        if manager.scope == SCOPE_POD:
            request = effective_request(requests)
            return score_for_each_numa(request, zones, self._strategy, self._weights)
        containers = [c.requests for c in requests.containers]
        return container_scope_score(containers, zones, self._strategy, self._weights)

    # ---- kubesched explain ---------------------------------------------------------------

    def explain_pod(
        self, pod: Pod, victims: Sequence[str]
    ) -> tuple[list[str], dict[str, Any]] | None:
        """`kubesched explain`: each node's NUMA zones and which would host `pod`."""
        del victims
        requests = pod.container_resources
        if requests is None:
            return None
        rows = [self._explain_node(requests, info) for info in self._handle.list_node_infos()]
        return numa_lines(requests, rows, plugin=NAME), numa_dict(requests, rows)

    def _explain_node(self, requests: PodContainerResources, info: NodeInfo) -> NodeNUMA:
        name = info.node.name
        topology, fresh = self.source.topology(name)
        if not fresh:
            return NodeNUMA(name, verdict=f"rejected as {_STALE} (a pod is reserved there)")
        if topology is None:
            return NodeNUMA(name, verdict="without a NodeResourceTopology object, pass unchecked")
        manager, zones = self._parsed.get(name, topology)
        node_resources = {*_NODE_LEVEL, *info.allocatable.scalar}
        return node_numa(requests, name, manager, zones, node_resources)

    # ---- Reserve / PostBind -------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        del state
        self.source.reserve(node_name, pod)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        del state
        self.source.unreserve(node_name, pod)

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        del state
        self.source.post_bind(node_name, pod)


def _topology_source(args: NodeResourceTopologyMatchArgs, handle: Handle) -> TopologySource:
    """discardReservedNodes wins; else a positive period means the over-reserve cache."""
    objects = handle.lister(NODE_RESOURCE_TOPOLOGIES)
    if args.discard_reserved_nodes:
        return DiscardReserved(objects)
    if args.cache_resync_period_seconds <= 0:
        return Passthrough(objects)
    pods = handle.pod_lister()
    cache = OverReserve(args.cache_settings(), current=objects.get, pods=pods.list)
    objects.subscribe(cache.topology_changed)
    pods.subscribe(cache.pod_changed)
    for obj in objects.list():
        cache.topology_changed(None, obj)
    for pod in pods.list():
        cache.pod_changed(None, pod)
    return cache


def _least_numa_score(
    requests: PodContainerResources, zones: list[NUMANode], manager: TopologyManager
) -> int:
    qos, max_numa = requests.qos_class, manager.max_numa_nodes
    if manager.scope == SCOPE_POD:
        return least_numa.pod_scope(qos, zones, effective_request(requests), max_numa)
    containers = [c.requests for c in requests.containers]
    return least_numa.container_scope(qos, zones, containers, max_numa)
