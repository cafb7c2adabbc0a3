"""The replayed cluster's objects other than nodes and pods, each kind in one `Objects`:
the declared resources (namespaces, Services and controllers, PodDisruptionBudgets,
PodGroups, DRA objects) feed their listers, the storage objects the volume listers, and
every change sends the cluster event a plugin may have registered.

Each keeps the raw object too, so a write of the replay (`replay.writes`) patches what the
API server would hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.framework.listers import IndexedStore
from kubesched.framework.resources import ResourceSpec
from kubesched.model import ApiObject
from kubesched.model.storage_kinds import StorageKind
from kubesched.replay import trace
from kubesched.replay.engine import Engine
from kubesched.scheduler.eventhandlers import StorageHandler


def object_key(obj: Mapping[str, Any]) -> str:
    """`namespace/name`, or `name` for a cluster-scoped object."""
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace", "")
    return f"{namespace}/{meta.get('name', '')}" if namespace else str(meta.get("name", ""))


class Objects:
    """One kind's objects: raw by key, and what the engine reads of them."""

    status_subresource = True

    def __init__(self) -> None:
        self.raw: dict[str, dict[str, Any]] = {}

    def apply(self, op: str, raw: dict[str, Any]) -> None:
        """A record (or a write of the replay): `DELETED`, or the object's new version."""
        key = object_key(raw)
        if op == trace.DELETED:
            if self.raw.pop(key, None) is not None:
                self._deleted(key)
            return
        self._changed(key, raw)
        self.raw[key] = raw

    def _changed(self, key: str, raw: dict[str, Any]) -> None:
        raise NotImplementedError

    def _deleted(self, key: str) -> None:
        raise NotImplementedError


class Declared(Objects):
    """A declared resource: into its lister, then its cluster event."""

    def __init__(self, spec: ResourceSpec, store: IndexedStore[ApiObject], engine: Engine) -> None:
        super().__init__()
        self._spec, self._store, self._engine = spec, store, engine
        self._objects: dict[str, ApiObject] = {}

    def _changed(self, key: str, raw: dict[str, Any]) -> None:
        obj = ApiObject.from_json(raw, keep=self._spec.keep)
        old = self._objects.get(key)
        self._objects[key] = obj
        if old is None:
            self._store.on_add(obj)
            self._moved(ActionType.ADD, None, obj)
        else:
            self._store.on_update(old, obj)
            self._moved(ActionType.UPDATE, old, obj)

    def _deleted(self, key: str) -> None:
        old = self._objects.pop(key, None)
        if old is not None:
            self._store.on_delete(old)
            self._moved(ActionType.DELETE, old, None)

    def _moved(self, action: ActionType, old: object, new: object) -> None:
        event = ClusterEvent(self._spec.event_resource, action)
        self._engine.queue.move_all_to_active_or_backoff(event, old, new)


class Storage(Objects):
    """A storage kind: into the volume listers' mapping, then its cluster event."""

    def __init__(self, kind: StorageKind, objects: dict[str, Any], engine: Engine) -> None:
        super().__init__()
        self.status_subresource = kind.kind in {"PersistentVolumeClaim", "PersistentVolume"}
        self._kind, self._objects = kind, objects
        self._events = StorageHandler(
            resource=EventResource(kind.event_name),
            move=engine.queue.move_all_to_active_or_backoff,
        )

    def _changed(self, key: str, raw: dict[str, Any]) -> None:
        obj = self._kind.decode(raw)
        old = self._objects.get(key)
        self._objects[key] = obj
        if old is None:
            self._events.on_add(obj)
        else:
            self._events.on_update(old, obj)

    def _deleted(self, key: str) -> None:
        old = self._objects.pop(key, None)
        if old is not None:
            self._events.on_delete(old)
