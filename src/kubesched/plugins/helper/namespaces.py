"""Namespace labels for pod-affinity `namespaceSelector`s, looked up once per cycle.

kube-scheduler reads namespace labels from its namespace informer; kubesched plugins ask the
Handle (`namespace_labels`), which the scheduler answers from its namespace informer's store
(an unknown namespace has no labels, as upstream's lister).
"""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.framework import Handle


class NamespaceLabels:
    """Namespace labels for one scheduling cycle (each namespace looked up once)."""

    __slots__ = ("_handle", "_seen")

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._seen: dict[str, Mapping[str, str]] = {}

    def of(self, name: str) -> Mapping[str, str]:
        labels = self._seen.get(name)
        if labels is None:
            labels = self._seen[name] = self._handle.namespace_labels(name) or {}
        return labels
