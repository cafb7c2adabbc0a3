"""A read-only store of Services and workload controllers (their selectors), the state behind
a Handle's `services` / `controller` (upstream's Service / ReplicationController / ReplicaSet /
StatefulSet listers). Informers (the scheduler) or one list (`kubesched explain`) fill it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kubesched.model.workloads import SERVICE, WorkloadSelector


class WorkloadStore:
    """Services by namespace; controllers by (kind, namespace, name)."""

    __slots__ = ("_controllers", "_services")

    def __init__(self, items: Iterable[WorkloadSelector] = ()) -> None:
        self._services: dict[str, dict[str, WorkloadSelector]] = {}
        self._controllers: dict[tuple[str, str, str], WorkloadSelector] = {}
        for item in items:
            self.upsert(item)

    def upsert(self, item: WorkloadSelector) -> None:
        """Add or replace an object (an informer's add or update)."""
        if item.kind == SERVICE:
            self._services.setdefault(item.namespace, {})[item.name] = item
        else:
            self._controllers[(item.kind, item.namespace, item.name)] = item

    def delete(self, item: WorkloadSelector) -> None:
        """Forget an object (an informer's delete)."""
        if item.kind == SERVICE:
            in_namespace = self._services.get(item.namespace, {})
            in_namespace.pop(item.name, None)
            if not in_namespace:
                self._services.pop(item.namespace, None)
        else:
            self._controllers.pop((item.kind, item.namespace, item.name), None)

    def services(self, namespace: str) -> Sequence[WorkloadSelector]:
        return list(self._services.get(namespace, {}).values())

    def controller(self, kind: str, namespace: str, name: str) -> WorkloadSelector | None:
        return self._controllers.get((kind, namespace, name))

    def __len__(self) -> int:
        return len(self._controllers) + sum(len(v) for v in self._services.values())
