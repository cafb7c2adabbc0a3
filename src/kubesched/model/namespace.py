"""What scheduling reads of Namespaces: their labels (pod-affinity `namespaceSelector`s select
namespaces by them), from the namespace lister (`kubesched.apis.resources.NAMESPACES`)."""

from __future__ import annotations

METADATA_NAME_LABEL = "kubernetes.io/metadata.name"
"""The label the API server keeps equal to every namespace's name."""
