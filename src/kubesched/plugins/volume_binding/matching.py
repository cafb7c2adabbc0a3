"""Filter's part of VolumeBinding for one node (upstream `FindPodVolumes`): bound claims'
PVs must admit the node; each unbound WaitForFirstConsumer claim gets the smallest matching
available PV, or else must be provisionable there (class, topology, CSI capacity)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.model import (
    ANN_SELECTED_NODE,
    NO_PROVISIONER,
    VOLUME_AVAILABLE,
    CSIStorageCapacity,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from kubesched.plugins.helper.selectors import SelectorError, compile_selector
from kubesched.plugins.helper.volumes import node_affinity_matches
from kubesched.plugins.volume_binding.assume import AssumeCache
from kubesched.plugins.volume_binding.claims import PodVolumeClaims

ERR_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


class MatchError(KubeschedError):
    """An error upstream returns from FindPodVolumes (the Filter reports ERROR)."""


@dataclass(slots=True)
class PodVolumes:
    """What binding the pod to one node takes."""

    static_bindings: list[tuple[PersistentVolume, PersistentVolumeClaim]] = field(
        default_factory=list
    )
    provisions: list[tuple[PersistentVolumeClaim, CSIStorageCapacity | None]] = field(
        default_factory=list
    )


def find_pod_volumes(
    cache: AssumeCache, claims: PodVolumeClaims, node: Node
) -> tuple[PodVolumes, list[str]]:
    """The bindings/provisions for `node` and the reasons it does not fit (empty: it fits)."""
    result = PodVolumes()
    bound_ok, pvs_found = _check_bound(cache, claims.bound, node)
    unbound_ok, enough_space = True, True
    if claims.delayed:
        unbound_ok, enough_space = _check_delayed(cache, claims, node, result)
    reasons = []
    if not bound_ok:
        reasons.append(ERR_NODE_CONFLICT)
    if not unbound_ok:
        reasons.append(ERR_BIND_CONFLICT)
    if not enough_space:
        reasons.append(ERR_NOT_ENOUGH_SPACE)
    if not pvs_found:
        reasons.append(ERR_PV_NOT_EXIST)
    return result, reasons


def _check_bound(
    cache: AssumeCache, bound: Sequence[PersistentVolumeClaim], node: Node
) -> tuple[bool, bool]:
    """(node affinity satisfied, every bound PV exists), stopping at the first failure."""
    for claim in bound:
        volume = cache.volume(claim.volume_name)
        if volume is None:
            return True, False
        if not node_affinity_matches(volume, node):
            return False, True
    return True, True


def _check_delayed(
    cache: AssumeCache, claims: PodVolumeClaims, node: Node, result: PodVolumes
) -> tuple[bool, bool]:
    to_match: list[PersistentVolumeClaim] = []
    to_provision: list[PersistentVolumeClaim] = []
    for claim in claims.delayed:
        selected = claim.annotations.get(ANN_SELECTED_NODE)
        if selected is None:
            to_match.append(claim)
        elif selected != node.name:
            return False, True
        else:
            to_provision.append(claim)
    matched = True
    if to_match:
        matched, unmatched = _match_volumes(to_match, claims, node, result)
        to_provision.extend(unmatched)
    if to_provision:
        return _check_provisions(cache, to_provision, node, result)
    return matched, True


def _match_volumes(
    to_match: list[PersistentVolumeClaim],
    claims: PodVolumeClaims,
    node: Node,
    result: PodVolumes,
) -> tuple[bool, list[PersistentVolumeClaim]]:
    chosen: set[str] = set()
    unmatched: list[PersistentVolumeClaim] = []
    for claim in sorted(to_match, key=lambda c: c.requested_bytes):
        volume = find_matching_volume(
            claim, claims.volumes_by_class.get(claim.storage_class, ()), node, chosen
        )
        if volume is None:
            unmatched.append(claim)
            continue
        chosen.add(volume.name)
        result.static_bindings.append((volume, claim))
    return not unmatched, unmatched


def find_matching_volume(
    claim: PersistentVolumeClaim,
    volumes: Sequence[PersistentVolume],
    node: Node,
    excluded: set[str],
) -> PersistentVolume | None:
    """Upstream `FindMatchingVolume` (delayed binding, VolumeAttributesClass on): a PV
    pre-bound to the claim wins (None if it does not admit the node), else the smallest
    available PV of the claim's class, size, mode, selector, access modes and node."""
    selector = _claim_selector(claim)
    smallest: PersistentVolume | None = None
    for volume in volumes:
        if volume.name in excluded or not _usable(volume, claim):
            continue
        affinity_ok = node_affinity_matches(volume, node)
        if volume.bound_to(claim):
            return volume if affinity_ok else None
        if volume.phase != VOLUME_AVAILABLE:
            continue
        if selector is not None and not selector.matches(volume.labels):
            continue
        if volume.storage_class != claim.storage_class or not affinity_ok:
            continue
        if not set(claim.access_modes) <= set(volume.access_modes):
            continue
        if smallest is None or volume.capacity_bytes < smallest.capacity_bytes:
            smallest = volume
    return smallest


def _usable(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    if volume.claim_ref is not None and not volume.bound_to(claim):
        return False
    if volume.capacity_bytes < claim.requested_bytes or volume.volume_mode != claim.volume_mode:
        return False
    if volume.volume_attributes_class_name != claim.volume_attributes_class_name:
        return False
    return not volume.deleting


def _claim_selector(claim: PersistentVolumeClaim) -> Any:
    if claim.selector is None:
        return None
    try:
        return compile_selector(claim.selector)
    except SelectorError as error:
        raise MatchError(
            f"error creating internal label selector for claim: {claim.key}: {error}"
        ) from error


def _check_provisions(
    cache: AssumeCache, to_provision: list[PersistentVolumeClaim], node: Node, result: PodVolumes
) -> tuple[bool, bool]:
    """Upstream `checkVolumeProvisions`: (provisionable, enough storage)."""
    provisions = []
    for claim in to_provision:
        name = claim.storage_class
        if not name:
            raise MatchError(f'no class for claim "{claim.key}"')
        storage_class = cache.listers.storage_class(name)
        if storage_class is None:
            raise MatchError(f'failed to find storage class "{name}"')
        if storage_class.provisioner in ("", NO_PROVISIONER):
            return False, True
        if not topology_matches(storage_class, node):
            return False, True
        sufficient, capacity = _has_enough_capacity(cache, claim, storage_class, node)
        if not sufficient:
            return True, False
        provisions.append((claim, capacity))
    result.provisions.extend(provisions)
    return True, True


def topology_matches(storage_class: StorageClass, node: Node) -> bool:
    """Upstream `MatchTopologySelectorTerms` of `allowedTopologies` (none: any node)."""
    if not storage_class.allowed_topologies:
        return True
    for term in storage_class.allowed_topologies:
        expressions = term.get("matchLabelExpressions") or ()
        if all(node.labels.get(e.get("key", "")) in (e.get("values") or ()) for e in expressions):
            return True
    return False


def _has_enough_capacity(
    cache: AssumeCache, claim: PersistentVolumeClaim, storage_class: StorageClass, node: Node
) -> tuple[bool, CSIStorageCapacity | None]:
    if not claim.has_storage_request:
        return True, None
    driver = cache.listers.csi_driver(storage_class.provisioner)
    if driver is None or not driver.storage_capacity:
        return True, None
    for capacity in cache.listers.storage_capacities():
        limit = capacity.volume_limit
        if (
            capacity.storage_class_name == storage_class.name
            and limit is not None
            and limit >= claim.requested_bytes
            and _node_has_access(node, capacity)
        ):
            return True, capacity
    return False, None


def _node_has_access(node: Node, capacity: CSIStorageCapacity) -> bool:
    if capacity.node_topology is None:
        return False
    try:
        return compile_selector(capacity.node_topology).matches(node.labels)
    except SelectorError:
        return False
