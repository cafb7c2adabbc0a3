"""What scheduling reads of Namespaces: their labels (pod-affinity `namespaceSelector`s select
namespaces by them), from the namespace lister (`kubesched.apis.resources.NAMESPACES`)."""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.model.apiobject import ApiObject

METADATA_NAME_LABEL = "kubernetes.io/metadata.name"
"""The label the API server keeps equal to every namespace's name."""


def namespace_object(name: str, labels: Mapping[str, str] | None = None) -> ApiObject:
    """Namespace `name` with these labels and its name label, as the API server keeps it."""
    return ApiObject(namespace="", name=name, labels={METADATA_NAME_LABEL: name, **(labels or {})})
