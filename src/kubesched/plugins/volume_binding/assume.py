"""The assume cache: the scheduler's own not-yet-written view of PVs and PVCs.

Reserve assumes the PV bindings and the claims' selected node the pod needs, so the next
cycles see those volumes as taken before the API server does; Unreserve (or a failed write)
restores the informer's objects. An assumed object stands until the informer brings a newer
`resourceVersion` of it (upstream `AssumeCache`).

An assumed object is dropped when it is next read and the informer has a newer one or none;
objects nobody reads again (a claim deleted with its pod) are dropped by a pass over the
assumed ones once their number has doubled (from `PRUNE_AT`), so they do not pile up.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.framework.volumes import VolumeListers
from kubesched.model import PersistentVolume, PersistentVolumeClaim

PRUNE_AT = 1024
"""Assumed objects (of one kind) kept before the stale ones are looked for."""


def newer(left: str, right: str) -> bool:
    """Whether resourceVersion `left` is later than `right` (both decimal, as etcd's)."""
    try:
        return int(left or 0) > int(right or 0)
    except ValueError:
        return left != right


class AssumeCache:
    """Assumed PVs (by name) and PVCs (by `namespace/name`) over the informers' objects."""

    def __init__(self, listers: VolumeListers) -> None:
        self.listers = listers
        self._volumes: dict[str, PersistentVolume] = {}
        self._claims: dict[str, PersistentVolumeClaim] = {}
        self._prune_volumes_at = PRUNE_AT
        self._prune_claims_at = PRUNE_AT

    def volume(self, name: str) -> PersistentVolume | None:
        informer = self.listers.volume(name)
        if informer is None:
            self._volumes.pop(name, None)
            return None
        return self._overlay_volume(informer)

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        informer = self.listers.claim(namespace, name)
        if informer is None:
            self._claims.pop(f"{namespace}/{name}", None)
            return None
        assumed = self._claims.get(informer.key)
        if assumed is None or newer(informer.resource_version, assumed.resource_version):
            self._claims.pop(informer.key, None)
            return informer
        return assumed

    def volumes_of_class(self, storage_class: str) -> Sequence[PersistentVolume]:
        found = (self._overlay_volume(pv) for pv in self.listers.volumes_of_class(storage_class))
        return [pv for pv in found if pv is not None]

    def _overlay_volume(self, informer: PersistentVolume | None) -> PersistentVolume | None:
        if informer is None:
            return None
        assumed = self._volumes.get(informer.name)
        if assumed is None or newer(informer.resource_version, assumed.resource_version):
            self._volumes.pop(informer.name, None)
            return informer
        return assumed

    def assume_volume(self, volume: PersistentVolume) -> None:
        self._volumes[volume.name] = volume
        if len(self._volumes) >= self._prune_volumes_at:
            for name in list(self._volumes):
                self.volume(name)  # drops it if the informer's is newer or gone
            self._prune_volumes_at = max(PRUNE_AT, 2 * len(self._volumes))

    def assume_claim(self, claim: PersistentVolumeClaim) -> None:
        self._claims[claim.key] = claim
        if len(self._claims) >= self._prune_claims_at:
            for key in list(self._claims):
                namespace, _, name = key.partition("/")
                self.claim(namespace, name)  # drops it if the informer's is newer or gone
            self._prune_claims_at = max(PRUNE_AT, 2 * len(self._claims))

    def __len__(self) -> int:
        """Objects assumed now (volumes and claims)."""
        return len(self._volumes) + len(self._claims)

    def restore_volume(self, name: str) -> None:
        self._volumes.pop(name, None)

    def restore_claim(self, key: str) -> None:
        self._claims.pop(key, None)
