"""The storage informers the volume plugins read (PVCs, PVs, StorageClasses, CSINodes,
CSIDrivers, CSIStorageCapacities, VolumeAttachments), made by one helper.

Their stores back the Handle's `volume_listers` (made before the frameworks); their events
move pending pods through `move` (the queue's `move_all_to_active_or_backoff`, reached by a
closure since the queue is made after the frameworks). They run only when a profile enables
a volume plugin.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kubesched.apis import names
from kubesched.framework import EventResource
from kubesched.framework.volumes import MappedVolumeListers
from kubesched.informers import Reflector
from kubesched.kube.api import WatchApi
from kubesched.model.storage_kinds import STORAGE_KINDS
from kubesched.runtime import Framework
from kubesched.scheduler.eventhandlers import StorageHandler, StorageMove
from kubesched.server.informers import informer

VOLUME_PLUGINS = frozenset(
    {names.VOLUME_BINDING, names.VOLUME_RESTRICTIONS, names.VOLUME_ZONE, names.NODE_VOLUME_LIMITS}
)


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
    for kind in STORAGE_KINDS:
        handler = StorageHandler(resource=EventResource(kind.event_name), move=move)
        reflectors[kind.resource] = informer(api, kind.path, kind.decode, _key, handler=handler)
    stores = {kind.lister: reflectors[kind.resource].store for kind in STORAGE_KINDS}
    return VolumeInformers(reflectors=reflectors, listers=MappedVolumeListers(**stores))


def uses_volumes(frameworks: Iterable[Framework]) -> bool:
    """Whether a profile enables a volume plugin (then the storage informers run)."""
    return any(
        plugin.name in VOLUME_PLUGINS
        for fw in frameworks
        for plugin in (*fw.plugins.pre_filter, *fw.plugins.filter)
    )
