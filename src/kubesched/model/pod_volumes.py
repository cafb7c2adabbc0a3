"""The volumes of a pod, reduced to what the volume plugins read.

A `PodVolume` names the claim it uses (a `persistentVolumeClaim` volume, or a generic
`ephemeral` volume whose claim is `<pod name>-<volume name>`, as upstream's
`ephemeral.VolumeClaimName`) and keeps the source of the inline volumes that
VolumeRestrictions compares, NodeVolumeLimits counts (and its queueing hints check for CSI
migration) and VolumeBinding's hints read (an inline `csi` volume's driver); other sources
(configMap, emptyDir, ...) are kept only by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

INLINE_SOURCES = (
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "rbd",
    "iscsi",
    "azureDisk",
    "cinder",
    "portworxVolume",
    "azureFile",
    "vsphereVolume",
    "csi",
)
"""The inline sources whose identity scheduling reads (conflicts, CSI migration, the CSI
driver of an inline `csi` volume)."""
_NO_SOURCE: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class PodVolume:
    name: str
    claim_name: str = ""
    """The PersistentVolumeClaim it uses ("" for other volumes)."""
    ephemeral: bool = False
    kind: str = ""
    """An `INLINE_SOURCES` name for those inline volumes, else ""."""
    source: Mapping[str, Any] = field(default_factory=lambda: _NO_SOURCE)
    """The inline source's fields (shared and empty for every other volume)."""

    @property
    def uses_claim(self) -> bool:
        return bool(self.claim_name) or self.ephemeral


def pod_volumes(pod_name: str, spec: Mapping[str, Any]) -> tuple[PodVolume, ...]:
    """The pod's `spec.volumes` as `PodVolume`s (in order)."""
    return tuple(_volume(pod_name, raw) for raw in spec.get("volumes") or ())


def _volume(pod_name: str, raw: Mapping[str, Any]) -> PodVolume:
    name = raw.get("name", "")
    claim = raw.get("persistentVolumeClaim")
    if isinstance(claim, dict):
        return PodVolume(name, claim_name=claim.get("claimName") or "")
    if raw.get("ephemeral") is not None:
        return PodVolume(name, claim_name=f"{pod_name}-{name}", ephemeral=True)
    for kind in INLINE_SOURCES:
        source = raw.get(kind)
        if isinstance(source, dict):
            return PodVolume(name, kind=kind, source=dict(source))
    return PodVolume(name)


def resource_claim_names(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The names in `spec.resourceClaims` (DRA)."""
    return tuple(claim.get("name", "") for claim in spec.get("resourceClaims") or ())


@dataclass(frozen=True, slots=True)
class PodResourceClaim:
    """One `spec.resourceClaims` entry: a claim by name, or made from a template by the
    resourceclaim controller (its name then in `status.resourceClaimStatuses`)."""

    name: str
    claim_name: str = ""
    """`resourceClaimName`."""
    template_name: str = ""
    """`resourceClaimTemplateName`."""


def pod_resource_claims(spec: Mapping[str, Any]) -> tuple[PodResourceClaim, ...]:
    """`spec.resourceClaims` (DRA)."""
    return tuple(
        PodResourceClaim(
            name=str(claim.get("name") or ""),
            claim_name=str(claim.get("resourceClaimName") or ""),
            template_name=str(claim.get("resourceClaimTemplateName") or ""),
        )
        for claim in spec.get("resourceClaims") or ()
        if isinstance(claim, Mapping)
    )


def generated_claim_names(status: Mapping[str, Any]) -> tuple[tuple[str, str | None], ...]:
    """`status.resourceClaimStatuses`: (pod claim name, generated claim name or None)."""
    return tuple(
        (str(entry.get("name") or ""), entry.get("resourceClaimName") or None)
        for entry in status.get("resourceClaimStatuses") or ()
        if isinstance(entry, Mapping)
    )
