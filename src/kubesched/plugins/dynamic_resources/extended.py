"""Extended resources backed by DRA (upstream `extendeddynamicresources.go`): a pod asks
for `example.com/gpu: 2`, a DeviceClass provides `example.com/gpu`, and the node does not
offer it itself (no device plugin): DynamicResources allocates two devices of that class.

PreFilter adds one more claim to the pod's: the one made for it in an earlier cycle (the
annotation `resource.kubernetes.io/extended-resource-claim: "true"`, the pod its controller)
or, usually, a claim kept in memory only (`<extended-resources>`). Filter gives that claim
per node the device requests the node must serve (one per container and resource,
`container-<i>-request-<j>`; init containers reuse what later long-lived containers ask for);
PreBind creates it (`<pod>-extended-resources-` and a generated suffix), writes its
allocation and reservation as for any claim, and records in the pod's
`status.extendedResourceClaimStatus` which container request maps to which device request.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kubesched.framework.dra import Claim, SharedDRAManager
from kubesched.model import ApiObject, OwnerReference, Pod
from kubesched.model.dra_claims import DeviceRequest, DeviceRequestSpec, ResourceClaim
from kubesched.model.pod_extended import ContainerRequests
from kubesched.plugins.helper.extended_resources import (
    ExtendedResourceClasses,
    is_dra_extended_resource_name,
)

IN_MEMORY_NAME: Final = "<extended-resources>"
ANNOTATION: Final = "resource.kubernetes.io/extended-resource-claim"


@dataclass(frozen=True, slots=True)
class NodeClaim:
    """What the node must allocate for the pod's extended resources."""

    claim: ResourceClaim
    mappings: tuple[Mapping[str, str], ...]
    """`status.extendedResourceClaimStatus.requestMappings` entries."""


def requested(pod: Pod, classes: ExtendedResourceClasses) -> dict[str, int]:
    """The pod's extended resource requests, when one of them is backed by a DeviceClass
    (upstream `hasDeviceClassMappedExtendedResource`); else nothing to do."""
    scalar = pod.requests.scalar
    if not any(
        amount and is_dra_extended_resource_name(name) and classes.class_for(name)
        for name, amount in scalar.items()
    ):
        return {}
    return dict(scalar)


def claim_for(pod: Pod, manager: SharedDRAManager) -> Claim:
    """The pod's claim from an earlier cycle, or a new one in memory."""
    for entry in manager.all_claims():
        if entry.obj.annotations.get(ANNOTATION) == "true" and any(
            o.controller and o.uid == pod.uid and o.name == pod.name for o in entry.obj.owners
        ):
            return entry
    obj = ApiObject(
        namespace=pod.namespace,
        name=IN_MEMORY_NAME,
        uid=str(uuid.uuid4()),
        annotations={ANNOTATION: "true"},
        owners=(OwnerReference("Pod", pod.name, pod.uid, controller=True, api_version="v1"),),
    )
    return Claim(obj, ResourceClaim(namespace=pod.namespace, name=IN_MEMORY_NAME, uid=obj.uid))


def in_memory(entry: Claim) -> bool:
    return entry.obj.name == IN_MEMORY_NAME


def needed_on_node(
    extended: Mapping[str, int], allocatable: Mapping[str, int], classes: ExtendedResourceClasses
) -> dict[str, int] | None:
    """The resources the node must provide through DRA (it offers none of them itself);
    None when one is neither offered nor backed by a class ("cannot fit resource")."""
    needed = {}
    for name, amount in extended.items():
        if not amount or not is_dra_extended_resource_name(name):
            continue
        offered = allocatable.get(name)
        if classes.class_for(name) is not None and not offered:
            needed[name] = amount
        elif offered is None:
            return None
    return needed


def node_claim(
    pod: Pod, entry: Claim, needed: Mapping[str, int], classes: ExtendedResourceClasses
) -> NodeClaim:
    """The claim with this node's device requests (upstream `createRequestsAndMappings`)."""
    containers = pod.container_requests
    long_lived = [i for i, c in enumerate(containers) if not c.init or c.sidecar]
    short_lived = [i for i, c in enumerate(containers) if c.init and not c.sidecar]
    requests: list[DeviceRequest] = []
    mappings: list[dict[str, str]] = []
    for name in sorted(needed):
        class_name = classes.class_for(name)
        if class_name is None:
            continue
        long_requests: list[tuple[str, int] | None] = [None] * len(containers)
        long_mappings: list[dict[str, str]] = []
        for i in long_lived:
            request, found = _request(i, containers[i], name, [])
            long_requests[i] = request
            long_mappings += found
        biggest: tuple[str, int] | None = None
        short_names: set[str] = set()
        short_mappings: list[dict[str, str]] = []
        for i in short_lived:
            request, found = _request(i, containers[i], name, long_requests[i:])
            if request is not None:
                short_names.add(request[0])
                if biggest is None or biggest[1] < request[1]:
                    biggest = request
            short_mappings += found
        if biggest is not None and len(short_names) > 1:
            short_names.discard(biggest[0])
            for mapping in short_mappings:
                if mapping["requestName"] in short_names:
                    mapping["requestName"] = biggest[0]
        chosen = [biggest] if biggest is not None else []
        chosen += [r for r in long_requests if r is not None]
        requests += [_device_request(n, class_name, count) for n, count in chosen]
        mappings += long_mappings + short_mappings
    requests.sort(key=lambda r: r.name)
    claim = ResourceClaim(
        namespace=entry.claim.namespace,
        name=entry.claim.name,
        uid=entry.uid,
        requests=tuple(requests),
    )
    return NodeClaim(claim, tuple(mappings))


def _request(
    index: int, container: ContainerRequests, name: str, reusable: list[tuple[str, int] | None]
) -> tuple[tuple[str, int] | None, list[dict[str, str]]]:
    """upstream `createResourceRequestAndMappings`: (request name, count) or None when the
    reusable requests cover it, and the container's mappings."""
    wanted = container.amounts.get(name, 0)
    if name not in container.request_names or wanted <= 0:
        return None, []
    mappings = []
    covered = 0
    for request in reusable:
        if request is None:
            continue
        covered += request[1]
        mappings.append(_mapping(container, name, request[0]))
        if covered >= wanted:
            return None, mappings
    request_name = f"container-{index}-request-{container.request_names.index(name)}"
    mappings.append(_mapping(container, name, request_name))
    return (request_name, wanted - covered), mappings


def _mapping(container: ContainerRequests, resource: str, request: str) -> dict[str, str]:
    return {"containerName": container.name, "resourceName": resource, "requestName": request}


def _device_request(name: str, class_name: str, count: int) -> DeviceRequest:
    return DeviceRequest(
        name=name, exactly=DeviceRequestSpec(name=name, device_class_name=class_name, count=count)
    )


def creation_body(pod: Pod, claim: ResourceClaim) -> dict[str, Any]:
    """The claim PreBind creates: owned by the pod, its requests for the chosen node."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "generateName": f"{pod.name}-extended-resources-",
            "namespace": pod.namespace,
            "annotations": {ANNOTATION: "true"},
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": pod.name,
                    "uid": pod.uid,
                    "controller": True,
                }
            ],
        },
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": r.name,
                        "exactly": {
                            "deviceClassName": r.exactly.device_class_name,
                            "allocationMode": "ExactCount",
                            "count": r.exactly.count,
                        },
                    }
                    for r in claim.requests
                    if r.exactly is not None
                ]
            }
        },
    }
