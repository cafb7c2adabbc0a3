"""The end-of-run checks of a DRA workload: no device allocated to two claims, and (for the
contenders that schedule) every bound measured pod's claims allocated on its node and
reserved for it, or for its PodGroup (DRAWorkloadResourceClaims). A pod's claims are those
of `spec.resourceClaims` (by name, or as `status.resourceClaimStatuses` names the claim
made from a template) and the one the scheduler made for its extended resources
(`status.extendedResourceClaimStatus`, DRAExtendedResource). The null binder binds without
allocating, so only the first applies to it.
"""

from __future__ import annotations

from typing import Any

from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all

TIMEOUT = 120.0
Device = tuple[str, str, str]


async def dra_problems(client: KubeClient, *, namespace: str, allocates: bool) -> list[str]:
    """What went wrong with the claims (empty: nothing)."""
    # Pods first: a claim is allocated before its pod is bound, so every pod bound when the
    # pods were listed has its allocation in the claims listed after, even while a
    # steady-state run's scheduler is still binding.
    pods = []
    if allocates:
        pods = await list_all(client, f"/api/v1/namespaces/{namespace}/pods", timeout=TIMEOUT)
    claims = await list_all(client, "/apis/resource.k8s.io/v1/resourceclaims", timeout=TIMEOUT)
    problems = _double_allocations(claims)
    if allocates:
        by_key = {_key(claim): claim for claim in claims}
        bad = [why for pod in pods for why in _pod_problems(pod, by_key)]
        if bad:
            problems.append(
                f"{len(bad)} claim(s) of bound pods not allocated for them, e.g. {bad[0]}"
            )
    return problems


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace", "")), str(meta.get("name", ""))


def _results(claim: dict[str, Any]) -> list[dict[str, Any]]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return list((allocation.get("devices") or {}).get("results") or ())


def _double_allocations(claims: list[dict[str, Any]]) -> list[str]:
    owner: dict[Device, tuple[str, str]] = {}
    doubles = []
    for claim in claims:
        for result in _results(claim):
            if result.get("adminAccess") or result.get("shareID"):
                continue
            device = (str(result.get("driver")), str(result.get("pool")), str(result.get("device")))
            first = owner.setdefault(device, _key(claim))
            if first != _key(claim):
                doubles.append(f"device {'/'.join(device)} in claims {first} and {_key(claim)}")
    if not doubles:
        return []
    return [f"{len(doubles)} device(s) allocated twice, e.g. {doubles[0]}"]


def _pod_claims(pod: dict[str, Any]) -> list[str]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    generated = {
        s.get("name"): s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or ()
    }
    names = []
    for source in spec.get("resourceClaims") or ():
        name = source.get("resourceClaimName") or generated.get(source.get("name"))
        names.append(str(name or f"<{source.get('name')} not created>"))
    extended = status.get("extendedResourceClaimStatus") or {}
    if extended.get("resourceClaimName"):
        names.append(str(extended["resourceClaimName"]))
    return names


def _reserved(status: dict[str, Any], pod: dict[str, Any]) -> bool:
    """The claim is reserved for the pod, or for the PodGroup the pod belongs to."""
    uid = (pod.get("metadata") or {}).get("uid")
    group = ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
    return any(
        r.get("uid") == uid
        or (group and r.get("resource") == "podgroups" and r.get("name") == group)
        for r in status.get("reservedFor") or ()
    )


def _pod_problems(pod: dict[str, Any], claims: dict[tuple[str, str], dict[str, Any]]) -> list[str]:
    node = (pod.get("spec") or {}).get("nodeName")
    if not node:
        return []
    namespace, pod_name = _key(pod)
    problems = []
    for name in _pod_claims(pod):
        claim = claims.get((namespace, name))
        status = (claim or {}).get("status") or {}
        if claim is None or not _results(claim) or not _reserved(status, pod):
            problems.append(f"pod {namespace}/{pod_name} on {node}: claim {name}")
        elif not _on_node(status["allocation"], str(node)):
            problems.append(f"pod {namespace}/{pod_name} on {node}: claim {name} on another node")
    return problems


def _on_node(allocation: dict[str, Any], node: str) -> bool:
    """Whether the allocation's node selector names `node`; a selector with a term that
    names no node (by labels: a slice's `nodeSelector`) is taken as selecting it."""
    terms = (allocation.get("nodeSelector") or {}).get("nodeSelectorTerms")
    if not terms:
        return True  # no node selector: the devices are available everywhere
    names = [
        [
            value
            for field in term.get("matchFields") or ()
            if field.get("key") == "metadata.name"
            for value in field.get("values") or ()
        ]
        for term in terms
    ]
    return any(not named or node in named for named in names)
