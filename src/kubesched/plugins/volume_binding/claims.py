"""PreFilter's part of VolumeBinding: the pod's claims, checked and sorted into bound ones,
unbound WaitForFirstConsumer ones (decided per node) and unbound Immediate ones (which the
PV controller must bind first), as upstream's `podHasPVCs` and `GetPodVolumeClaims`."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubesched.errors import KubeschedError
from kubesched.model import CLAIM_LOST_PHASE, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.plugins.helper.volumes import claim_not_found, volume_is_for_pod
from kubesched.plugins.volume_binding.assume import AssumeCache


class ClaimError(KubeschedError):
    """A claim problem that makes the pod unschedulable and unresolvable (message as upstream)."""


class ClassError(KubeschedError):
    """A StorageClass problem upstream reports as an error (`AsStatus`)."""


@dataclass(slots=True)
class PodVolumeClaims:
    bound: list[PersistentVolumeClaim] = field(default_factory=list)
    delayed: list[PersistentVolumeClaim] = field(default_factory=list)
    """Unbound claims of WaitForFirstConsumer classes (`unboundClaimsDelayBinding`)."""
    immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    volumes_by_class: dict[str, list[PersistentVolume]] = field(default_factory=dict)
    """The (assumed) PVs of each delayed claim's class, read once per cycle."""


def check_claims(cache: AssumeCache, pod: Pod) -> bool:
    """Whether the pod uses claims at all; raises ClaimError for a missing, lost, deleting or
    foreign (ephemeral) claim."""
    has_claims = False
    for volume in pod.volumes:
        if not volume.uses_claim:
            continue
        has_claims = True
        claim = cache.listers.claim(pod.namespace, volume.claim_name)
        if claim is None:
            if volume.ephemeral:
                raise ClaimError(
                    "waiting for ephemeral volume controller to create the persistentvolumeclaim "
                    f'"{volume.claim_name}"'
                )
            raise ClaimError(claim_not_found(volume.claim_name))
        if claim.phase == CLAIM_LOST_PHASE:
            raise ClaimError(
                f'persistentvolumeclaim "{claim.name}" bound to non-existent persistentvolume '
                f'"{claim.volume_name}"'
            )
        if claim.deleting:
            raise ClaimError(f'persistentvolumeclaim "{claim.name}" is being deleted')
        if volume.ephemeral and (error := volume_is_for_pod(pod, claim)):
            raise ClaimError(error)
    return has_claims


def pod_volume_claims(cache: AssumeCache, pod: Pod) -> PodVolumeClaims:
    """Sort the pod's claims (through the assume cache); raises ClassError."""
    result = PodVolumeClaims()
    for volume in pod.volumes:
        if not volume.uses_claim:
            continue
        claim = cache.claim(pod.namespace, volume.claim_name)
        if claim is None:
            raise ClaimError(f'error getting PVC "{pod.namespace}/{volume.claim_name}"')
        if claim.fully_bound:
            result.bound.append(claim)
        elif delay_binding(cache, claim) and not claim.volume_name:
            result.delayed.append(claim)
        else:
            result.immediate.append(claim)
    for claim in result.delayed:
        name = claim.storage_class
        result.volumes_by_class[name] = list(cache.volumes_of_class(name))
    return result


def delay_binding(cache: AssumeCache, claim: PersistentVolumeClaim) -> bool:
    """Upstream `IsDelayBindingMode`: the claim's class waits for the first consumer (a
    missing class does not)."""
    name = claim.storage_class
    if not name:
        return False
    storage_class = cache.listers.storage_class(name)
    if storage_class is None:
        return False
    if storage_class.volume_binding_mode is None:
        raise ClassError(f'VolumeBindingMode not set for StorageClass "{name}"')
    return storage_class.wait_for_first_consumer
