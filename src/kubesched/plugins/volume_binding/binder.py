"""Reserve, PreBind and Unreserve of VolumeBinding (upstream `AssumePodVolumes`,
`BindPodVolumes`, `RevertAssumedPodVolumes`).

PreBind writes each static binding (the PV's `claimRef`) and each claim to provision (the
`volume.kubernetes.io/selected-node` annotation), then polls the informers once a second
until the PV controller has bound every claim (`pv.kubernetes.io/bind-completed`), up to
`bindTimeoutSeconds`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from kubesched.errors import KubeschedError
from kubesched.framework import Handle
from kubesched.model import (
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    ClaimRef,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
)
from kubesched.plugins.helper.volumes import node_affinity_matches
from kubesched.plugins.volume_binding.assume import AssumeCache, newer
from kubesched.plugins.volume_binding.matching import PodVolumes

POLL_SECONDS = 1.0


class BindError(KubeschedError):
    """Binding the pod's volumes failed (PreBind reports ERROR; the pod is retried)."""


def all_bound(cache: AssumeCache, pod: Pod) -> bool:
    """Upstream `arePodVolumesBound`: every claim the pod uses is fully bound."""
    for volume in pod.volumes:
        if volume.uses_claim:
            claim = cache.claim(pod.namespace, volume.claim_name)
            if claim is None or not claim.fully_bound:
                return False
    return True


def assume(cache: AssumeCache, pod: Pod, node_name: str, volumes: PodVolumes) -> bool:
    """Assume the node's bindings and provisions in the cache; True if all were bound."""
    if all_bound(cache, pod):
        return True
    bindings = []
    for volume, claim in volumes.static_bindings:
        assumed = bound_copy(volume, claim)
        if assumed != volume:
            cache.assume_volume(assumed)
        bindings.append((assumed, claim))
    provisions = []
    for claim, capacity in volumes.provisions:
        assumed_claim = claim.with_annotation(ANN_SELECTED_NODE, node_name)
        cache.assume_claim(assumed_claim)
        provisions.append((assumed_claim, capacity))
    volumes.static_bindings, volumes.provisions = bindings, provisions
    return False


def bound_copy(volume: PersistentVolume, claim: PersistentVolumeClaim) -> PersistentVolume:
    """Upstream `GetBindVolumeToClaim`: the PV with `claimRef` = claim."""
    annotations = dict(volume.annotations)
    if not volume.bound_to(claim):
        annotations.setdefault(ANN_BOUND_BY_CONTROLLER, "yes")
    ref = volume.claim_ref
    if ref is None or (ref.name, ref.namespace, ref.uid) != (
        claim.name,
        claim.namespace,
        claim.uid,
    ):
        ref = ClaimRef(claim.namespace, claim.name, claim.uid)
    return replace(volume, claim_ref=ref, annotations=annotations)


def revert(cache: AssumeCache, volumes: PodVolumes) -> None:
    for volume, _claim in volumes.static_bindings:
        cache.restore_volume(volume.name)
    for claim, _capacity in volumes.provisions:
        cache.restore_claim(claim.key)


async def bind_pod_volumes(
    handle: Handle,
    cache: AssumeCache,
    pod: Pod,
    node_name: str,
    volumes: PodVolumes,
    *,
    timeout: float,
) -> None:
    """Write the bindings, then wait for the PV controller; raises BindError."""
    written = await _write(handle, cache, volumes, node_name)
    deadline = time.monotonic() + timeout
    while True:
        if _check(handle, pod, node_name, written):
            return
        if time.monotonic() >= deadline:
            raise BindError("binding volumes: context deadline exceeded")
        await asyncio.sleep(POLL_SECONDS)


async def _write(
    handle: Handle, cache: AssumeCache, volumes: PodVolumes, node_name: str
) -> PodVolumes:
    written = PodVolumes()
    pending_volumes = list(volumes.static_bindings)
    pending_claims = list(volumes.provisions)
    try:
        while pending_volumes:
            volume, claim = pending_volumes[0]
            written.static_bindings.append((await handle.bind_volume(volume, claim), claim))
            pending_volumes.pop(0)
        while pending_claims:
            claim, capacity = pending_claims[0]
            written.provisions.append(
                (await handle.select_node_for_claim(claim, node_name), capacity)
            )
            pending_claims.pop(0)
    except Exception as error:
        revert(cache, PodVolumes(pending_volumes, pending_claims))
        raise BindError(str(error)) from error
    return written


def _check(handle: Handle, pod: Pod, node_name: str, written: PodVolumes) -> bool:
    """Upstream `checkBindings`: True once all are bound; raises BindError when a binding
    was undone or provisioning failed."""
    listers = handle.volume_listers
    node_info = handle.get_node_info(node_name)
    node = node_info.node if node_info is not None else Node(name=node_name)
    for volume, claim in written.static_bindings:
        current, current_claim = (
            listers.volume(volume.name),
            listers.claim(claim.namespace, claim.name),
        )
        if current is None or current_claim is None:
            raise BindError(f'failed to check binding: "{claim.key}" or pv "{volume.name}" gone')
        if newer(volume.resource_version, current.resource_version):
            return False
        _check_affinity(current, node)
        if current.claim_ref is None or not current.claim_ref.uid:
            raise BindError(f'ClaimRef got reset for pv "{current.name}"')
        if not current_claim.fully_bound:
            return False
    return all(_provisioned(handle, pod, node, claim) for claim, _ in written.provisions)


def _provisioned(handle: Handle, pod: Pod, node: Node, claim: PersistentVolumeClaim) -> bool:
    listers = handle.volume_listers
    current = listers.claim(claim.namespace, claim.name)
    if current is None:
        raise BindError(f'failed to check provisioning pvc: "{claim.key}" not found')
    if newer(claim.resource_version, current.resource_version):
        return False
    selected = current.annotations.get(ANN_SELECTED_NODE)
    if selected is None:
        raise BindError(f'selectedNode annotation reset for PVC "{current.name}"')
    if selected != node.name:
        raise BindError(f'provisioning failed for PVC "{current.name}"')
    if current.volume_name:
        volume = listers.volume(current.volume_name)
        if volume is None:
            return False
        _check_affinity(volume, node)
    del pod
    return current.fully_bound


def _check_affinity(volume: PersistentVolume, node: Node) -> None:
    if not node_affinity_matches(volume, node):
        raise BindError(
            f'pv "{volume.name}" node affinity doesn\'t match node "{node.name}": '
            "no matching NodeSelectorTerms"
        )
