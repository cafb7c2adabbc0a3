"""TopologyPlacementGenerator (upstream `topologyaware.TopologyPlacement`, kube-scheduler
v1.37, `TopologyAwareWorkloadScheduling` feature gate): the PlacementGenerate plugin that
splits the nodes into one placement per value of the PodGroup's topology key
(`spec.schedulingConstraints.topology[0].key`), so every member lands in one domain.

* a PodGroup without a topology constraint gets the parent placement (all nodes) unchanged;
* nodes without the key are in no placement;
* once members are bound or assumed, only their domain is offered; members in two domains,
  or on a node without the key, are an error (the cycle fails with it, as upstream).

The messages are kube-scheduler's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.apis import names
from kubesched.errors import KubeschedError
from kubesched.framework import Handle, NodeInfo
from kubesched.framework.placement_points import Placement, PodGroupInfo, ScheduledMember
from kubesched.plugins.helper.args import no_args

NAME = names.TOPOLOGY_PLACEMENT_GENERATOR


class ScheduledDomainError(KubeschedError):
    """The members already placed do not name one domain of the topology key."""


class TopologyPlacementGenerator:
    """PlacementGenerate: one placement per topology domain."""

    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle

    def generate_placements(self, group: PodGroupInfo, parent: Placement, /) -> list[Placement]:
        key = group.topology_key
        if not key:
            return [parent]
        required = None
        if group.scheduled:
            try:
                required = self._scheduled_domain(key, group.scheduled)
            except ScheduledDomainError as err:
                raise ScheduledDomainError(
                    f"cannot determine domain for already scheduled pods: {err}"
                ) from None
        return _by_domain(key, parent.nodes, required)

    def _scheduled_domain(self, key: str, scheduled: Sequence[ScheduledMember]) -> str:
        """The one domain the placed members share (upstream
        `getScheduledPodsTopologyDomain`)."""
        domain = ""
        for member in scheduled:
            info = self._handle.get_node_info(member.node_name)
            if info is None:
                raise ScheduledDomainError(
                    f"getting node for pod {member.pod.key}: nodeinfo not found for node "
                    f'name "{member.node_name}"'
                )
            value = info.node.labels.get(key)
            if value is None:
                raise ScheduledDomainError(f"no topology domain found for pod {member.pod.key}")
            if domain and domain != value:
                raise ScheduledDomainError(
                    f"more than 1 domain found for pod group: {domain}, {value}"
                )
            domain = value
        return domain


def _by_domain(key: str, nodes: Sequence[NodeInfo], required: str | None) -> list[Placement]:
    """One placement per value of `key` among `nodes` (in their order), only `required`'s
    if given."""
    domains: dict[str, list[NodeInfo]] = {}
    for info in nodes:
        value = info.node.labels.get(key)
        if value is not None and (required is None or value == required):
            domains.setdefault(value, []).append(info)
    return [Placement(value, members) for value, members in domains.items()]
