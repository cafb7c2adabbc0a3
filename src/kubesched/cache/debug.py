"""Debugging views of the scheduler cache: a dump and a comparison with the informers.

Like kube-scheduler's cache debugger (dumper and comparer, run on SIGUSR2): the comparison
lists nodes and pods the cache missed or still holds, and nodes whose aggregated requests
no longer equal the sum of their pods' requests.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kubesched.framework.nodeinfo import NodeInfo
from kubesched.model import Node, Pod, Resource

if TYPE_CHECKING:
    from kubesched.cache.cache import PodState


@dataclass(slots=True)
class CacheDiff:
    """What differs between the cache and the cluster as the informers see it."""

    missing_nodes: list[str] = field(default_factory=list)
    """Nodes the informer has and the cache lacks."""
    redundant_nodes: list[str] = field(default_factory=list)
    """Nodes the cache has and the informer does not."""
    missing_pods: list[str] = field(default_factory=list)
    """Bound, non-terminal pods (`ns/name`) the cache does not count."""
    redundant_pods: list[str] = field(default_factory=list)
    """Pods the cache counts (not merely assumed) that the informer does not have bound."""
    misplaced_pods: list[str] = field(default_factory=list)
    """Pods counted on another node than the one they are bound to."""
    inconsistent_nodes: list[str] = field(default_factory=list)
    """Nodes whose `requested` differs from the sum of their pods' requests."""

    @property
    def ok(self) -> bool:
        return not any(
            (
                self.missing_nodes,
                self.redundant_nodes,
                self.missing_pods,
                self.redundant_pods,
                self.misplaced_pods,
                self.inconsistent_nodes,
            )
        )


def requested_sum(info: NodeInfo) -> Resource:
    """What the pods of a node request in total, recomputed from scratch."""
    total = Resource()
    for pod in info.pods.values():
        total.add(pod.requests)
    return total


def _resources_equal(a: Resource, b: Resource) -> bool:
    scalars = {name for name, amount in {**a.scalar, **b.scalar}.items() if amount}
    return (a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pods) == (
        b.milli_cpu,
        b.memory,
        b.ephemeral_storage,
        b.allowed_pods,
    ) and all(a.scalar.get(name, 0) == b.scalar.get(name, 0) for name in scalars)


def dump_cache(
    *, nodes: Mapping[str, NodeInfo], existing: Container[str], states: Mapping[str, PodState]
) -> dict[str, object]:
    """Per node: pods, requested CPU/memory, and whether the node exists; assumed pods."""
    return {
        "nodes": {
            name: {
                "exists": name in existing,
                "pods": len(info.pods),
                "requested_milli_cpu": info.requested.milli_cpu,
                "requested_memory": info.requested.memory,
            }
            for name, info in nodes.items()
        },
        "assumed_pods": sorted(s.pod.key for s in states.values() if s.assumed),
    }


def compare_cache(
    *,
    cached_nodes: Mapping[str, NodeInfo],
    existing: Container[str],
    states: Mapping[str, PodState],
    nodes: Iterable[Node],
    pods: Iterable[Pod],
) -> CacheDiff:
    """Compare the cache with the informers' nodes and pods."""
    diff = CacheDiff()
    node_names = {node.name for node in nodes}
    cached_names = {name for name in cached_nodes if name in existing}
    diff.missing_nodes = sorted(node_names - cached_names)
    diff.redundant_nodes = sorted(cached_names - node_names)
    bound = {pod.uid: pod for pod in pods if pod.node_name and not pod.terminal}
    for uid, pod in bound.items():
        state = states.get(uid)
        if state is None:
            diff.missing_pods.append(pod.key)
        elif state.pod.node_name != pod.node_name:
            diff.misplaced_pods.append(pod.key)
    diff.redundant_pods = sorted(
        s.pod.key for uid, s in states.items() if uid not in bound and not s.assumed
    )
    diff.inconsistent_nodes = sorted(
        name
        for name, info in cached_nodes.items()
        if not _resources_equal(info.requested, requested_sum(info))
    )
    return diff
