"""The ResourceClaims of a scenario on the API server: each incoming pod's own claims
(`<pod>-c<i>`, made before the pod), a copy per claim for the kubesched twin (`-twin`, freed
again before kube-scheduler decides, so that both see the same free devices), the claim a
scheduler makes for a pod's extended resources backed by a DeviceClass (named in the pod's
`status.extendedResourceClaimStatus`, compared as the entry `EXTENDED`), and the part of the
resourceclaim controller this control plane lacks: a claim whose pod is gone is deallocated
and deleted (`release_orphans`)."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from tests.e2e.harness.api import ApiClient, ApiError

Result = tuple[str, str, str, str, tuple[tuple[str, str], ...]]
"""(request, driver, pool, device, consumed capacity) of one allocated device."""
Allocation = dict[str, list[Result]]
"""The pod's claim entry name (`spec.resourceClaims[].name`, or `EXTENDED`) -> its devices,
in order."""
EXTENDED = "<extended-resources>"
"""The entry of the claim a scheduler made for the pod's DRA-backed extended resources."""


def claim_names(pod: dict[str, Any]) -> dict[str, str]:
    """The pod's claim entry names -> the ResourceClaims they name."""
    return {
        entry["name"]: entry["resourceClaimName"]
        for entry in pod["spec"].get("resourceClaims") or ()
        if entry.get("resourceClaimName")
    }


def extended_claim(pod: dict[str, Any] | None) -> str | None:
    """The claim a scheduler made for the pod's DRA-backed extended resources (PreBind writes
    its name to the pod's status before binding), if any."""
    status = ((pod or {}).get("status") or {}).get("extendedResourceClaimStatus") or {}
    name = status.get("resourceClaimName")
    return name if isinstance(name, str) and name else None


def claim_entries(api: ApiClient, pod: dict[str, Any]) -> dict[str, str]:
    """`claim_names` and, once the pod on the server has one, its extended-resource claim."""
    found = claim_names(pod)
    meta = pod["metadata"]
    current = api.get_or_none("Pod", meta["name"], namespace=meta["namespace"])
    if (name := extended_claim(current)) is not None:
        found[EXTENDED] = name
    return found


def results(claim: dict[str, Any]) -> list[Result] | None:
    """The claim's allocated devices (None: not allocated). A share's ID is random."""
    allocation = (claim.get("status") or {}).get("allocation")
    if allocation is None:
        return None
    found = []
    for r in (allocation.get("devices") or {}).get("results") or ():
        consumed = tuple(sorted((r.get("consumedCapacity") or {}).items()))
        found.append((r["request"], r["driver"], r["pool"], r["device"], consumed))
    return found


def allocation(api: ApiClient, pod: dict[str, Any]) -> Allocation | None:
    """The devices allocated to each of the pod's claims (None when one is unallocated)."""
    namespace, found = pod["metadata"]["namespace"], {}
    for entry, name in claim_entries(api, pod).items():
        claim = api.get_or_none("ResourceClaim", name, namespace=namespace)
        devices = results(claim) if claim is not None else None
        if devices is None:
            return None
        found[entry] = devices
    return found


def twin_claims(api: ApiClient, twin: dict[str, Any], suffix: str) -> list[str]:
    """Copy the pod's claims (unallocated, same spec) as `<claim><suffix>` and point the
    twin pod at them; the names of the copies."""
    namespace, made = twin["metadata"]["namespace"], []
    for entry in twin["spec"].get("resourceClaims") or ():
        original = api.get("ResourceClaim", entry["resourceClaimName"], namespace=namespace)
        name = entry["resourceClaimName"] + suffix
        body = {
            "apiVersion": original["apiVersion"],
            "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": namespace},
            "spec": copy.deepcopy(original["spec"]),
        }
        api.create(body)
        entry["resourceClaimName"] = name
        made.append(name)
    return made


def free(api: ApiClient, namespace: str, name: str) -> None:
    """Deallocate a claim and delete it, as the resourceclaim controller does for a pod
    that is gone (the scheduler's finalizer removed with the allocation)."""
    status = {"status": {"allocation": None, "reservedFor": None, "devices": None}}
    with contextlib.suppress(ApiError):
        api.patch("ResourceClaim", name, status, namespace=namespace, subresource="status")
    with contextlib.suppress(ApiError):
        api.patch("ResourceClaim", name, {"metadata": {"finalizers": None}}, namespace=namespace)
    api.delete("ResourceClaim", name, namespace=namespace)


def release_orphans(api: ApiClient, namespaces: list[str], pod: dict[str, Any]) -> int:
    """Free the claims of `pod` when it is gone, and every claim reserved only for pods
    that are gone (preemption's victims); how many were freed."""
    freed, own = 0, set(claim_names(pod).values())
    for namespace in namespaces:
        pods = {p["metadata"]["name"] for p in api.list("Pod", namespace=namespace)}
        for claim in api.list("ResourceClaim", namespace=namespace):
            name = claim["metadata"]["name"]
            reserved = {r["name"] for r in (claim.get("status") or {}).get("reservedFor") or ()}
            mine = namespace == pod["metadata"]["namespace"] and name in own
            gone = not reserved & pods if reserved else mine and pod["metadata"]["name"] not in pods
            if gone:
                free(api, namespace, name)
                freed += 1
    return freed


def remove_all(api: ApiClient, namespaces: list[str], objects: list[dict[str, Any]]) -> None:
    """The scenario's claims, slices and classes (cluster-scoped objects outlive the
    test's namespaces, and a claim left allocated would hold its devices)."""
    for namespace in namespaces:
        for claim in api.list("ResourceClaim", namespace=namespace):
            free(api, namespace, claim["metadata"]["name"])
    for obj in reversed(objects):
        if obj["kind"] in ("ResourceSlice", "DeviceClass"):
            api.delete(obj["kind"], obj["metadata"]["name"])
