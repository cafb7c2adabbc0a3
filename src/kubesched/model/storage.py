"""PersistentVolumeClaims and PersistentVolumes reduced to what the volume plugins read.

Sizes are bytes (`spec.resources.requests.storage`, `spec.capacity.storage`); the storage
class follows upstream's helpers: the beta annotation `volume.beta.kubernetes.io/storage-class`
wins over `spec.storageClassName`, and a claim without either has class "" (and None for
`class_set`, which matters when a default class exists).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kubesched.model.pod import OwnerReference
from kubesched.model.quantity import value

BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
"""Set on a WaitForFirstConsumer claim by the scheduler: provision the volume for this node."""
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
NO_PROVISIONER = "kubernetes.io/no-provisioner"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
CLAIM_LOST_PHASE = "Lost"
VOLUME_AVAILABLE = "Available"
FILESYSTEM = "Filesystem"


def _storage(quantities: Mapping[str, Any] | None) -> int:
    raw = (quantities or {}).get("storage")
    return value(raw) if raw is not None else 0


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim:
    namespace: str
    name: str
    uid: str = ""
    resource_version: str = ""
    annotations: Mapping[str, str] = field(default_factory=dict)
    owners: tuple[OwnerReference, ...] = ()
    access_modes: tuple[str, ...] = ()
    storage_class_name: str | None = None
    """`spec.storageClassName` as given (None: unset)."""
    volume_name: str = ""
    volume_mode: str = FILESYSTEM
    volume_attributes_class_name: str = ""
    requested_bytes: int = 0
    has_storage_request: bool = False
    selector: Mapping[str, Any] | None = None
    phase: str = "Pending"
    deleting: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def storage_class(self) -> str:
        """Upstream `GetPersistentVolumeClaimClass`."""
        if BETA_STORAGE_CLASS_ANNOTATION in self.annotations:
            return self.annotations[BETA_STORAGE_CLASS_ANNOTATION]
        return self.storage_class_name or ""

    @property
    def fully_bound(self) -> bool:
        """Bound by the PV controller: a volume name and the bind-completed annotation."""
        return bool(self.volume_name) and ANN_BIND_COMPLETED in self.annotations

    def with_annotation(self, key: str, value_: str) -> PersistentVolumeClaim:
        """A copy with one more annotation (what the scheduler assumes before it writes)."""
        return replace(self, annotations={**self.annotations, key: value_})

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> PersistentVolumeClaim:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        requests = (spec.get("resources") or {}).get("requests") or {}
        selector = spec.get("selector")
        return cls(
            namespace=meta.get("namespace", ""),
            name=meta.get("name", ""),
            uid=meta.get("uid", ""),
            resource_version=meta.get("resourceVersion", ""),
            annotations=dict(meta.get("annotations") or {}),
            owners=tuple(
                OwnerReference(
                    r.get("kind", ""),
                    r.get("name", ""),
                    r.get("uid", ""),
                    bool(r.get("controller")),
                )
                for r in meta.get("ownerReferences") or ()
            ),
            access_modes=tuple(spec.get("accessModes") or ()),
            storage_class_name=spec.get("storageClassName"),
            volume_name=spec.get("volumeName") or "",
            volume_mode=spec.get("volumeMode") or FILESYSTEM,
            volume_attributes_class_name=spec.get("volumeAttributesClassName") or "",
            requested_bytes=_storage(requests),
            has_storage_request="storage" in requests,
            selector=dict(selector) if isinstance(selector, dict) else None,
            phase=(obj.get("status") or {}).get("phase") or "Pending",
            deleting=meta.get("deletionTimestamp") is not None,
        )


@dataclass(frozen=True, slots=True)
class ClaimRef:
    namespace: str
    name: str
    uid: str = ""


@dataclass(frozen=True, slots=True)
class PersistentVolume:
    name: str
    uid: str = ""
    resource_version: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    capacity_bytes: int = 0
    access_modes: tuple[str, ...] = ()
    storage_class_name: str = ""
    volume_mode: str = FILESYSTEM
    volume_attributes_class_name: str = ""
    node_affinity: tuple[Mapping[str, Any], ...] | None = None
    """`spec.nodeAffinity.required.nodeSelectorTerms` (None: no required node affinity)."""
    claim_ref: ClaimRef | None = None
    phase: str = ""
    deleting: bool = False
    source: tuple[str, Mapping[str, Any]] = ("", {})
    """The volume source: (`csi`, {driver, volumeHandle, ...}) or an in-tree one, e.g.
    (`awsElasticBlockStore`, {...}); ("", {}) when it is none kubesched reads."""

    @property
    def storage_class(self) -> str:
        """Upstream `GetPersistentVolumeClass`."""
        return self.annotations.get(BETA_STORAGE_CLASS_ANNOTATION, self.storage_class_name)

    def bound_to(self, claim: PersistentVolumeClaim) -> bool:
        """Upstream `IsVolumeBoundToClaim`."""
        ref = self.claim_ref
        if ref is None or ref.name != claim.name or ref.namespace != claim.namespace:
            return False
        return not ref.uid or ref.uid == claim.uid

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> PersistentVolume:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        return cls(
            name=meta.get("name", ""),
            uid=meta.get("uid", ""),
            resource_version=meta.get("resourceVersion", ""),
            labels=dict(meta.get("labels") or {}),
            annotations=dict(meta.get("annotations") or {}),
            capacity_bytes=_storage(spec.get("capacity")),
            access_modes=tuple(spec.get("accessModes") or ()),
            storage_class_name=spec.get("storageClassName") or "",
            volume_mode=spec.get("volumeMode") or FILESYSTEM,
            volume_attributes_class_name=spec.get("volumeAttributesClassName") or "",
            node_affinity=_required_terms(spec.get("nodeAffinity")),
            claim_ref=_claim_ref(spec.get("claimRef")),
            phase=(obj.get("status") or {}).get("phase") or "",
            deleting=meta.get("deletionTimestamp") is not None,
            source=_source(spec),
        )


_SOURCES = (
    "csi",
    "awsElasticBlockStore",
    "gcePersistentDisk",
    "azureDisk",
    "cinder",
    "portworxVolume",
    "local",
    "hostPath",
)


def _source(spec: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    for kind in _SOURCES:
        if isinstance(spec.get(kind), dict):
            return kind, dict(spec[kind])
    return "", {}


def _required_terms(affinity: Any) -> tuple[Mapping[str, Any], ...] | None:
    if not isinstance(affinity, dict) or not isinstance(affinity.get("required"), dict):
        return None
    return tuple(affinity["required"].get("nodeSelectorTerms") or ())


def _claim_ref(ref: Any) -> ClaimRef | None:
    if not isinstance(ref, dict):
        return None
    return ClaimRef(ref.get("namespace", ""), ref.get("name", ""), ref.get("uid", ""))
