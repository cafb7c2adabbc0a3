"""A pod's ResourceClaims (upstream `foreachPodResourceClaim` and `resourceclaim.Name` /
`IsForPod`), with upstream's texts for a claim that is missing, being deleted or not the
pod's."""

from __future__ import annotations

from typing import Final

from kubesched.errors import KubeschedError
from kubesched.framework.dra import Claim, SharedDRAManager
from kubesched.model import Pod, PodResourceClaim

GROUP: Final = "scheduling.k8s.io"
"""upstream `schedulingapi.GroupName` (a PodGroup's API group)."""
PODGROUPS: Final = "podgroups"


class ClaimsNotReady(KubeschedError):
    """The pod cannot be scheduled until its claims exist (the text says why)."""


def claim_name(pod: Pod, source: PodResourceClaim) -> tuple[str | None, bool]:
    """The claim's name (None: intentionally not created) and whether its owner must be
    checked (made from a template); ClaimsNotReady while the controller has not made it."""
    if source.claim_name:
        return source.claim_name, False
    if source.template_name:
        for name, generated in pod.generated_claims:
            if name == source.name:
                return generated, True
        raise ClaimsNotReady(f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet')
    raise ClaimsNotReady(
        f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{source.name}": '
        "none of the supported fields are set"
    )


def claims_not_generated(pod: Pod) -> bool:
    """Whether a claim of the pod's templates is not made yet (`claim_name` would raise
    ClaimsNotReady for it): the cheap test the queueing hints ask of every waiting pod."""
    sources = pod.claim_sources
    if not sources:
        return False
    made = pod.generated_claims
    return any(
        source.template_name
        and not source.claim_name
        and not any(name == source.name for name, _claim in made)
        for source in sources
    )


def pod_claims(pod: Pod, manager: SharedDRAManager, *, accept_group: bool = False) -> list[Claim]:
    """The pod's claims in `spec.resourceClaims` order (those intentionally not created
    left out); ClaimsNotReady naming the first problem. `accept_group` (the
    `DRAWorkloadResourceClaims` gate): a claim made from a template may be the PodGroup's."""
    claims = []
    for source in pod.claim_sources:
        name, check_owner = claim_name(pod, source)
        if name is None:
            continue
        entry = manager.claim(pod.namespace, name)
        if entry is None:
            raise ClaimsNotReady(f'could not find ResourceClaim "{pod.namespace}/{name}"')
        if entry.claim.deleting:
            raise ClaimsNotReady(f'resourceclaim "{name}" is being deleted')
        if check_owner:
            problem = owner_problem(pod, entry, accept_group=accept_group)
            if problem:
                raise ClaimsNotReady(problem)
        claims.append(entry)
    return claims


def reserved_for_pod(pod: Pod, entry: Claim, *, accept_group: bool) -> bool:
    """upstream `IsReservedForPod`: the pod is in `reservedFor`, or (`accept_group`, the
    gate on) its PodGroup is, matched by API group, resource and name (a pod does not know
    its PodGroup's uid)."""
    for consumer in entry.claim.reserved_for:
        if consumer.uid == pod.uid:
            return True
        if (
            accept_group
            and pod.pod_group_name
            and consumer.api_group == GROUP
            and consumer.resource == PODGROUPS
            and consumer.name == pod.pod_group_name
        ):
            return True
    return False


def made_for_pod_group(pod: Pod, entry: Claim) -> bool:
    """upstream `isForPodGroupByPod`: the claim's controller is the pod's PodGroup (by
    name, kind and API group; the version is ignored)."""
    controller = next((o for o in entry.obj.owners if o.controller), None)
    return (
        bool(pod.pod_group_name)
        and controller is not None
        and controller.name == pod.pod_group_name
        and controller.kind == "PodGroup"
        and controller.api_version.startswith(GROUP + "/")
    )


def owner_problem(pod: Pod, entry: Claim, *, accept_group: bool) -> str:
    """upstream `IsForPod`: "" when the claim was made for the pod (or, `accept_group`,
    for its PodGroup), else upstream's text."""
    claim = f"{entry.obj.namespace}/{entry.obj.name}"
    if entry.controller_uid == pod.uid:
        return ""
    if accept_group and pod.pod_group_name:
        if made_for_pod_group(pod, entry):
            return ""
        return (
            f"ResourceClaim {claim} was not created for Pod {pod.namespace}/{pod.name} "
            f"(neither Pod nor PodGroup {pod.pod_group_name} is the owner)"
        )
    return (
        f"ResourceClaim {claim} was not created for Pod {pod.namespace}/{pod.name} "
        "(Pod is not owner)"
    )
