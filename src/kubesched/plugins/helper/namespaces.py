"""Namespace labels for pod-affinity `namespaceSelector`s, looked up once per cycle.

kube-scheduler reads namespace labels from its namespace informer; kubesched plugins declare
`NAMESPACES` and read its lister (one informer feeds it): an unknown namespace has no labels,
as upstream's `GetNamespaceLabelsSnapshot`.
"""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.framework import Lister
from kubesched.model import ApiObject

_NO_LABELS: Mapping[str, str] = {}


class NamespaceLabels:
    """Namespace labels for one scheduling cycle (each namespace looked up once)."""

    __slots__ = ("_namespaces", "_seen")

    def __init__(self, namespaces: Lister[ApiObject]) -> None:
        self._namespaces = namespaces
        self._seen: dict[str, Mapping[str, str]] = {}

    def of(self, name: str) -> Mapping[str, str]:
        labels = self._seen.get(name)
        if labels is None:
            found = self._namespaces.get(name)
            labels = self._seen[name] = _NO_LABELS if found is None else found.labels
        return labels
