"""NodeResourceTopologyMatch's Filter without the framework: does a pod (pod scope) or each
of its containers in turn (container scope) fit on one NUMA zone of a node whose kubelet
runs the `single-numa-node` topology-manager policy (scheduler-plugins' `filter.go`).

Amounts are milli-values by resource name (`kubesched.model.pod_containers`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from kubesched.errors import KubeschedError
from kubesched.model.pod_containers import (
    BEST_EFFORT,
    GUARANTEED,
    KIND_APP,
    PodContainerResources,
)
from kubesched.plugins.node_resource_topology.topology import MAX_NUMA_ID, NUMANode

_ALL_NUMA = (1 << MAX_NUMA_ID) - 1


class AlignmentError(KubeschedError):
    """The pod cannot be aligned on one NUMA zone; the message is the Filter's reason."""


class NUMAAccountingError(KubeschedError):
    """A container asked more than its chosen zone had left (cannot happen upstream)."""


def is_native(name: str) -> bool:
    """`v1helper.IsNativeResource`: unprefixed, or in the kubernetes.io/ namespace."""
    return "/" not in name or "kubernetes.io/" in name


def is_host_level(name: str) -> bool:
    """Resources that may have no NUMA affinity: storage, ephemeral storage, non-native."""
    return name in ("ephemeral-storage", "storage") or not is_native(name)


def is_numa_affine(name: str) -> bool:
    """Resources that must have NUMA affinity: cpu, memory and hugepages."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def is_suitable(qos: str, name: str, requested: int, available: int) -> bool:
    """Only Guaranteed pods get exclusive cpu, memory and hugepages: for the others those
    fit any zone that lists them."""
    if qos != GUARANTEED and is_numa_affine(name):
        return True
    return available >= requested


def includes_non_native(pod: PodContainerResources) -> bool:
    return any(not is_native(name) for c in pod.containers for name in c.requests)


def needs_filtering(pod: PodContainerResources) -> bool:
    """BestEffort pods are checked only when they request a device (a non-native resource)."""
    return pod.qos_class != BEST_EFFORT or includes_non_native(pod)


def effective_request(pod: PodContainerResources) -> dict[str, int]:
    """scheduler-plugins' `GetPodEffectiveRequest`: the larger of the app containers' sum and
    the largest init container (sidecars counted as init containers), plus the overhead."""
    total: dict[str, int] = {}
    for container in pod.app_containers:
        for name, amount in container.requests.items():
            total[name] = total.get(name, 0) + amount
    for container in pod.init_containers:
        for name, amount in container.requests.items():
            total[name] = max(total.get(name, amount), amount)
    for name, amount in pod.overhead.items():
        total[name] = total.get(name, 0) + amount
    return total


def aligned_numa_id(
    *,
    requests: Mapping[str, int],
    numa_nodes: Sequence[NUMANode],
    node_resources: Collection[str],
    qos: str,
) -> int | None:
    """The NUMA id the kubelet would pick for `requests` (the lowest one that fits every
    NUMA-affine request), None when no single zone fits (`resourcesAvailableInAnyNUMANodes`).
    A resource the node does not report at all never fits; one no zone lists fits when it is
    host-level (storage, devices without affinity)."""
    mask = _ALL_NUMA
    for name, requested in requests.items():
        if requested == 0:
            continue
        if name not in node_resources:
            return None
        listed = [n for n in numa_nodes if name in n.resources]
        if not listed and is_host_level(name):
            continue
        fitting = 0
        for numa in listed:
            if is_suitable(qos, name, requested, numa.resources[name]):
                fitting |= 1 << numa.numa_id
        mask &= fitting
        if not mask:
            return None
    return (mask & -mask).bit_length() - 1


def subtract(
    numa_nodes: Sequence[NUMANode], numa_id: int, qos: str, requests: Mapping[str, int]
) -> None:
    """Take a container's requests from zone `numa_id` in place, so the next container
    cannot count them again (`subtractResourcesFromNUMANodeList`)."""
    for numa in numa_nodes:
        if numa.numa_id != numa_id:
            continue
        for name, requested in requests.items():
            if (qos != GUARANTEED and is_numa_affine(name)) or requested == 0:
                continue
            if name not in numa.resources:
                continue
            left = numa.resources[name] - requested
            if left < 0:
                raise NUMAAccountingError(
                    f"resource {name!r} request exceeds NUMA {numa_id} availability"
                )
            numa.resources[name] = left


def check_pod_scope(
    pod: PodContainerResources, numa_nodes: Sequence[NUMANode], node_resources: Collection[str]
) -> None:
    """The whole pod on one zone; raises AlignmentError("cannot align pod")."""
    found = aligned_numa_id(
        requests=effective_request(pod),
        numa_nodes=numa_nodes,
        node_resources=node_resources,
        qos=pod.qos_class,
    )
    if found is None:
        raise AlignmentError("cannot align pod")


def check_container_scope(
    pod: PodContainerResources, numa_nodes: Sequence[NUMANode], node_resources: Collection[str]
) -> None:
    """Each init container alone (they run one after the other), then each app container on
    one zone, its requests taken from that zone before the next one; raises AlignmentError with
    `cannot align init container`, `cannot align sidecar container` or `cannot align
    container`. `numa_nodes` is changed: pass a copy."""
    for container in pod.containers:
        found = aligned_numa_id(
            requests=container.requests,
            numa_nodes=numa_nodes,
            node_resources=node_resources,
            qos=pod.qos_class,
        )
        if container.kind != KIND_APP:
            if found is None:
                raise AlignmentError(f"cannot align {container.kind} container")
            continue
        if found is None:
            raise AlignmentError("cannot align container")
        subtract(numa_nodes, found, pod.qos_class, container.requests)
