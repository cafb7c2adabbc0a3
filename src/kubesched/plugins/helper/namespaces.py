"""Namespace labels for pod-affinity `namespaceSelector`s.

kube-scheduler reads namespace labels from its namespace informer. kubesched plugins ask the
Handle: a Handle that also has `namespace_labels(name)` (the `NamespaceLister` protocol) is
used exactly as upstream uses its lister (an unknown namespace has no labels). The
application's `SchedulerHandle` has it, over the store of a namespace informer the
application runs (`/api/v1/namespaces`; the caches sync before scheduling starts), and so
does `kubesched.testing.FakeHandle`.

Without it (a Handle of another tool, e.g. `kubesched explain`'s), a namespace is
approximated by the one label every namespace carries and that the API server keeps in sync
with its name, `kubernetes.io/metadata.name=<name>`. Selectors on that label (the usual way
to pick namespaces by name) and the empty selector `{}` (all namespaces) are exact; a
selector on other namespace labels sees namespaces without them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from kubesched.model import METADATA_NAME_LABEL


@runtime_checkable
class NamespaceLister(Protocol):
    """What a Handle offers when it watches namespaces."""

    def namespace_labels(self, name: str) -> Mapping[str, str] | None:
        """The labels of namespace `name`, or None if there is no such namespace."""
        ...


class NamespaceLabels:
    """Namespace labels for one scheduling cycle (each namespace looked up once)."""

    __slots__ = ("_lister", "_seen")

    def __init__(self, handle: object) -> None:
        self._lister = handle if isinstance(handle, NamespaceLister) else None
        self._seen: dict[str, Mapping[str, str]] = {}

    @property
    def exact(self) -> bool:
        """Whether the labels come from a namespace lister (they may change over time)."""
        return self._lister is not None

    def of(self, name: str) -> Mapping[str, str]:
        labels = self._seen.get(name)
        if labels is None:
            if self._lister is None:
                labels = {METADATA_NAME_LABEL: name}
            else:
                labels = self._lister.namespace_labels(name) or {}
            self._seen[name] = labels
        return labels
