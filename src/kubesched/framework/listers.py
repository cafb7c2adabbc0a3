"""Listers: read-only, indexed views of an informer's objects, for plugins.

`IndexedStore` is the one implementation: the application feeds it from a Reflector (it is
the Reflector's event handler) and plugins read it through the `Lister` protocol. Indexes
are kept on every add/update/delete: by namespace always, and by each label key the
resource's `ResourceSpec.label_indexes` names. Listeners (`subscribe`) hear every change,
after the indexes are updated, e.g. to keep a PodGroup's status current.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Generic, Protocol, TypeVar

from kubesched.framework.logkv import kv
from kubesched.framework.resources import PODS, ResourceSpec
from kubesched.model import ApiObject, Pod

log = logging.getLogger(__name__)


class _Object(Protocol):
    @property
    def namespace(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def labels(self) -> Mapping[str, str]: ...


T = TypeVar("T", bound=_Object)


class Lister(Protocol[T]):
    """What a plugin reads: objects by name, by namespace, by label."""

    def get(self, name: str, namespace: str = "") -> T | None:
        """One object, or None."""
        ...

    def list(self, namespace: str | None = None) -> builtins.list[T]:
        """Every object (of one namespace when given)."""
        ...

    def by_label(self, key: str, value: str, namespace: str | None = None) -> builtins.list[T]:
        """Objects labelled `key=value` (an index look-up when `key` is indexed)."""
        ...

    def subscribe(self, listener: Callable[[T | None, T | None], None]) -> None:
        """Hear about every change: listener(old, new)."""
        ...


def _key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}" if namespace else name


class IndexedStore(Generic[T]):
    """Objects by `namespace/name` with namespace and label indexes; an informer handler."""

    def __init__(self, *, label_indexes: Iterable[str] = ()) -> None:
        self._objects: dict[str, T] = {}
        self._by_namespace: dict[str, dict[str, T]] = {}
        self._by_label: dict[str, dict[str, dict[str, T]]] = {k: {} for k in label_indexes}
        self._listeners: list[Callable[[T | None, T | None], None]] = []

    # ---- Lister -------------------------------------------------------------------------

    def get(self, name: str, namespace: str = "") -> T | None:
        return self._objects.get(_key(namespace, name))

    def list(self, namespace: str | None = None) -> builtins.list[T]:
        if namespace is None:
            return list(self._objects.values())
        return list(self._by_namespace.get(namespace, {}).values())

    def by_label(self, key: str, value: str, namespace: str | None = None) -> builtins.list[T]:
        index = self._by_label.get(key)
        if index is None:
            found = [obj for obj in self.list(namespace) if obj.labels.get(key) == value]
        else:
            found = list(index.get(value, {}).values())
        if namespace is None or index is None:
            return found
        return [obj for obj in found if obj.namespace == namespace]

    def subscribe(self, listener: Callable[[T | None, T | None], None]) -> None:
        self._listeners.append(listener)

    def __len__(self) -> int:
        return len(self._objects)

    # ---- informer handler ---------------------------------------------------------------

    def on_add(self, obj: T) -> None:
        self._put(obj)
        self._notify(None, obj)

    def on_update(self, old: T, new: T) -> None:
        self._drop(old)
        self._put(new)
        self._notify(old, new)

    def on_delete(self, obj: T) -> None:
        self._drop(obj)
        self._notify(obj, None)

    def _put(self, obj: T) -> None:
        key = _key(obj.namespace, obj.name)
        self._objects[key] = obj
        self._by_namespace.setdefault(obj.namespace, {})[key] = obj
        for label, index in self._by_label.items():
            value = obj.labels.get(label)
            if value is not None:
                index.setdefault(value, {})[key] = obj

    def _drop(self, obj: T) -> None:
        key = _key(obj.namespace, obj.name)
        self._objects.pop(key, None)
        namespace = self._by_namespace.get(obj.namespace)
        if namespace is not None:
            namespace.pop(key, None)
            if not namespace:
                del self._by_namespace[obj.namespace]
        for label, index in self._by_label.items():
            bucket = index.get(obj.labels.get(label, ""))
            if bucket is not None:
                bucket.pop(key, None)

    def _notify(self, old: T | None, new: T | None) -> None:
        for listener in self._listeners:
            try:
                listener(old, new)
            except Exception:
                log.exception("lister listener failed", extra=kv())


class ClusterListers:
    """The stores behind `Handle.lister` / `Handle.pod_lister`: one per declared resource
    (the application feeds each from one informer), and the pods with their indexes."""

    def __init__(
        self,
        specs: Iterable[ResourceSpec] = (),
        *,
        pods: IndexedStore[Pod] | None = None,
    ) -> None:
        specs = list(specs)
        self._specs = [spec for spec in specs if not spec.same_resource(PODS)]
        self._stores = {
            _spec_key(spec): IndexedStore[ApiObject](label_indexes=spec.label_indexes)
            for spec in self._specs
        }
        pod_indexes = [i for spec in specs if spec.same_resource(PODS) for i in spec.label_indexes]
        self.pods: IndexedStore[Pod] = pods or IndexedStore(label_indexes=pod_indexes)

    @property
    def specs(self) -> list[ResourceSpec]:
        """The declared resources (pods excepted), each with its one store."""
        return list(self._specs)

    def store(self, spec: ResourceSpec) -> IndexedStore[ApiObject]:
        """The store of a declared resource; KeyError naming the fix when undeclared."""
        store = self._stores.get(_spec_key(spec))
        if store is None:
            raise KeyError(
                f"resource {spec.event_resource} is not declared: list it in the plugin's "
                "`resources` class attribute"
            )
        return store

    def declare(
        self, spec: ResourceSpec, store: IndexedStore[ApiObject] | None = None
    ) -> IndexedStore[ApiObject]:
        """The store of `spec`, declared now (with `store`, or a new one) unless it was: a
        test's Handle serving the resources in-tree plugins read (not `PODS`: `pods`)."""
        found = self._stores.get(_spec_key(spec))
        if found is None:
            if store is None:
                store = IndexedStore(label_indexes=spec.label_indexes)
            found = self._stores[_spec_key(spec)] = store
            self._specs.append(spec)
        return found

    def add(self, spec: ResourceSpec, obj: ApiObject) -> None:
        """Put an object into a declared resource's store (tests, explain)."""
        self.store(spec).on_add(obj)


def _spec_key(spec: ResourceSpec) -> tuple[str, str, str]:
    return spec.group, spec.version, spec.resource
