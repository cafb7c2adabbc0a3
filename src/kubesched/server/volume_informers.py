"""The storage informers the volume plugins read (PVCs, PVs, StorageClasses, CSINodes,
CSIDrivers, CSIStorageCapacities, VolumeAttachments), made by one helper.

Their stores back the Handle's `volume_listers` (made before the frameworks); their events
move pending pods through `move` (the queue's `move_all_to_active_or_backoff`, reached by a
closure since the queue is made after the frameworks). They run only when a profile enables
a volume plugin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kubesched.apis import names
from kubesched.framework import EventResource
from kubesched.framework.volumes import MappedVolumeListers
from kubesched.informers import Reflector
from kubesched.kube.api import WatchApi
from kubesched.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)
from kubesched.runtime import Framework
from kubesched.scheduler.eventhandlers import StorageHandler, StorageMove
from kubesched.server.informers import informer

VOLUME_PLUGINS = frozenset(
    {names.VOLUME_BINDING, names.VOLUME_RESTRICTIONS, names.VOLUME_ZONE, names.NODE_VOLUME_LIMITS}
)

_RESOURCES: tuple[tuple[str, str, Callable[[dict[str, Any]], Any], EventResource], ...] = (
    (
        "persistentvolumeclaims",
        "/api/v1/persistentvolumeclaims",
        PersistentVolumeClaim.from_json,
        EventResource.PERSISTENT_VOLUME_CLAIM,
    ),
    (
        "persistentvolumes",
        "/api/v1/persistentvolumes",
        PersistentVolume.from_json,
        EventResource.PERSISTENT_VOLUME,
    ),
    (
        "storageclasses",
        "/apis/storage.k8s.io/v1/storageclasses",
        StorageClass.from_json,
        EventResource.STORAGE_CLASS,
    ),
    ("csinodes", "/apis/storage.k8s.io/v1/csinodes", CSINode.from_json, EventResource.CSI_NODE),
    (
        "csidrivers",
        "/apis/storage.k8s.io/v1/csidrivers",
        CSIDriver.from_json,
        EventResource.CSI_DRIVER,
    ),
    (
        "csistoragecapacities",
        "/apis/storage.k8s.io/v1/csistoragecapacities",
        CSIStorageCapacity.from_json,
        EventResource.CSI_STORAGE_CAPACITY,
    ),
    (
        "volumeattachments",
        "/apis/storage.k8s.io/v1/volumeattachments",
        VolumeAttachment.from_json,
        EventResource.VOLUME_ATTACHMENT,
    ),
)
"""(resource, path, decode, event resource) of each storage informer."""


def _key(obj: Any) -> str:
    namespace = getattr(obj, "namespace", "")
    return f"{namespace}/{obj.name}" if namespace else str(obj.name)


@dataclass(frozen=True)
class VolumeInformers:
    """The storage informers and the listers over their stores."""

    reflectors: dict[str, Reflector[Any]]
    listers: MappedVolumeListers


def volume_informers(api: WatchApi, *, move: StorageMove) -> VolumeInformers:
    """Every storage informer, with listers over their stores."""
    reflectors: dict[str, Reflector[Any]] = {}
    for resource, path, decode, event_resource in _RESOURCES:
        handler = StorageHandler(resource=event_resource, move=move)
        reflectors[resource] = informer(api, path, decode, _key, handler=handler)
    stores = {name: reflector.store for name, reflector in reflectors.items()}
    listers = MappedVolumeListers(
        claims=stores["persistentvolumeclaims"],
        volumes=stores["persistentvolumes"],
        classes=stores["storageclasses"],
        csi_nodes=stores["csinodes"],
        csi_drivers=stores["csidrivers"],
        capacities=stores["csistoragecapacities"],
        attachments=stores["volumeattachments"],
    )
    return VolumeInformers(reflectors=reflectors, listers=listers)


def uses_volumes(frameworks: Iterable[Framework]) -> bool:
    """Whether a profile enables a volume plugin (then the storage informers run)."""
    return any(
        plugin.name in VOLUME_PLUGINS
        for fw in frameworks
        for plugin in (*fw.plugins.pre_filter, *fw.plugins.filter)
    )
