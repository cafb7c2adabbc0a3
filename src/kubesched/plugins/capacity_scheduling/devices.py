"""DRA devices counted against an ElasticQuota under the names ResourceQuota gives them.

kube-apiserver's ResourceQuota charges each ResourceClaim, per device class, as
`<class>.deviceclass.resource.k8s.io/devices` (v1.37.2 `pkg/quota/v1/evaluator/core`): a
request `exactly` with allocationMode ExactCount counts its `count`, with All the worst
case (32 devices, `AllocationResultsMaxSize`); a `firstAvailable` request counts, per class,
the largest of its subrequests; an unknown mode or request kind counts nothing. An
ElasticQuota whose `min` or `max` names such a resource holds its pods to it the same way
(scheduler-plugins counts no device: this is kubesched's own).

A pod is charged the devices of its claims: those it names (`resourceClaimName`) and those
made from its templates (found by the names in `status.resourceClaimStatuses`). A claim the
ResourceClaim lister does not hold yet counts nothing; when it arrives, the pods that name
it are counted again (`QuotaBook.claim_changed`). A claim shared by several pods of a quota
is charged to each of them (the quota counts pods; ResourceQuota counts the claim once).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kubesched.framework.dra import GROUP, VERSION
from kubesched.framework.events import EventResource
from kubesched.framework.listers import Lister
from kubesched.framework.resources import ResourceSpec
from kubesched.model import ApiObject, Pod, Resource

DEVICES_SUFFIX = ".deviceclass.resource.k8s.io/devices"
"""ResourceQuota's `corev1.ResourceClaimsPerClass`."""
ALL_DEVICES_WORST_CASE = 32
"""`resourceapi.AllocationResultsMaxSize`: what a request for All devices is charged."""

CLAIMS: ResourceSpec = ResourceSpec(
    GROUP, VERSION, "resourceclaims", event_name=EventResource.RESOURCE_CLAIM
)
"""ResourceClaims, read only (the DynamicResources plugin declares the same with writes)."""


def device_resource(device_class: str) -> str:
    """`gpu.example.com` -> `gpu.example.com.deviceclass.resource.k8s.io/devices`."""
    return device_class + DEVICES_SUFFIX


def _count(request: Mapping[str, Any]) -> int:
    mode = request.get("allocationMode") or "ExactCount"
    if mode == "ExactCount":
        count = request.get("count", 1)
        return count if isinstance(count, int) and count > 0 else 0
    return ALL_DEVICES_WORST_CASE if mode == "All" else 0


def claim_devices(spec: Mapping[str, Any]) -> dict[str, int]:
    """The devices a ResourceClaim's spec is charged, by quota resource name."""
    charged: dict[str, int] = {}
    for request in (spec.get("devices") or {}).get("requests") or ():
        if not isinstance(request, Mapping):
            continue
        if request.get("firstAvailable"):
            worst: dict[str, int] = {}
            for sub in request["firstAvailable"]:
                name = device_resource(str(sub.get("deviceClassName") or ""))
                worst[name] = max(worst.get(name, 0), _count(sub))
            for name, count in worst.items():
                charged[name] = charged.get(name, 0) + count
        elif isinstance(request.get("exactly"), Mapping):
            exactly = request["exactly"]
            name = device_resource(str(exactly.get("deviceClassName") or ""))
            charged[name] = charged.get(name, 0) + _count(exactly)
    return charged


def pod_claim_names(pod: Pod) -> Iterator[str]:
    """The ResourceClaims a pod uses: named ones, and those made from its templates."""
    for source in pod.claim_sources:
        if source.claim_name:
            yield source.claim_name
    for _, generated in pod.generated_claims:
        if generated:
            yield generated


class PodUsage:
    """What a pod counts against its quota: its requests (`pod.fit_requests`) plus the
    devices of the claims the lister holds."""

    def __init__(self, claims: Lister[ApiObject]) -> None:
        self._claims = claims

    def __call__(self, pod: Pod) -> Resource:
        if not pod.claim_sources:
            return pod.fit_requests
        usage: Resource | None = None
        for name in pod_claim_names(pod):
            claim = self._claims.get(name, pod.namespace)
            if claim is None:
                continue
            for resource, count in claim_devices(claim.spec).items():
                if usage is None:
                    usage = pod.fit_requests.copy()
                usage.scalar[resource] = usage.scalar.get(resource, 0) + count
        return pod.fit_requests if usage is None else usage
