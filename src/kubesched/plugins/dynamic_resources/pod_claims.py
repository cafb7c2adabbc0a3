"""A pod's ResourceClaims (upstream `foreachPodResourceClaim` and `resourceclaim.Name` /
`IsForPod`), with upstream's texts for a claim that is missing, being deleted or not the
pod's."""

from __future__ import annotations

from kubesched.errors import KubeschedError
from kubesched.framework.dra import Claim, SharedDRAManager
from kubesched.model import Pod, PodResourceClaim


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


def pod_claims(pod: Pod, manager: SharedDRAManager) -> list[Claim]:
    """The pod's claims in `spec.resourceClaims` order (those intentionally not created
    left out); ClaimsNotReady naming the first problem."""
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
        if check_owner and entry.controller_uid != pod.uid:
            raise ClaimsNotReady(
                f"ResourceClaim {pod.namespace}/{name} was not created for Pod "
                f"{pod.namespace}/{pod.name} (Pod is not owner)"
            )
        claims.append(entry)
    return claims


def reserved_for_pod(pod: Pod, entry: Claim) -> bool:
    """upstream `IsReservedForPod`."""
    return any(consumer.uid == pod.uid for consumer in entry.claim.reserved_for)
