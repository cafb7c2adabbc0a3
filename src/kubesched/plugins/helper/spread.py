"""The selector default topology spreading spreads a pod by (upstream `helper.DefaultSelector`,
pkg/scheduler/framework/plugins/helper/spread.go, v1.37.2).

The labels of every Service in the pod's namespace whose selector matches the pod are
merged; then, if the pod's controller (the `ownerReference` with `controller: true`) is a
`v1` ReplicationController, its selector map is merged too, or, for an `apps/v1` ReplicaSet
or StatefulSet, the requirements of its LabelSelector are added. An owner of another kind or
API version, or one not found, adds nothing. An empty result means "no default constraints".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.framework import Handle
from kubesched.model import Pod
from kubesched.model.workloads import REPLICA_SET, REPLICATION_CONTROLLER, STATEFUL_SET
from kubesched.plugins.helper.selectors import (
    EVERYTHING,
    LabelSelector,
    SelectorError,
    compile_selector,
)

_CONTROLLER_GROUP_VERSIONS = {
    REPLICATION_CONTROLLER: "v1",
    REPLICA_SET: "apps/v1",
    STATEFUL_SET: "apps/v1",
}


def default_selector(pod: Pod, lister: Handle) -> LabelSelector:
    """The selector of the pods `pod` is spread among by default constraints (EVERYTHING,
    i.e. empty, when nothing selects it)."""
    merged: dict[str, str] = {}
    for service in lister.services(pod.namespace):
        labels = service.match_labels
        if labels and all(pod.labels.get(k) == v for k, v in labels.items()):
            merged.update(labels)
    expressions: list[Mapping[str, Any]] = []
    owner = next((ref for ref in pod.owners if ref.controller), None)
    if owner is not None and _CONTROLLER_GROUP_VERSIONS.get(owner.kind) == owner.api_version:
        found = lister.controller(owner.kind, pod.namespace, owner.name)
        if found is not None and found.match_labels is not None:
            merged.update(found.match_labels)
        elif found is not None and found.label_selector is not None:
            expressions = _requirements(found.label_selector)
    return _combine(merged, expressions)


def _requirements(raw: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A LabelSelector's requirements as expressions ([] when it is invalid, as upstream
    ignores a selector `LabelSelectorAsSelector` rejects)."""
    try:
        compile_selector(raw)
    except SelectorError:
        return []
    expressions: list[Mapping[str, Any]] = [
        {"key": key, "operator": "In", "values": [value]}
        for key, value in (raw.get("matchLabels") or {}).items()
    ]
    expressions.extend(raw.get("matchExpressions") or ())
    return expressions


def _combine(merged: Mapping[str, str], expressions: list[Mapping[str, Any]]) -> LabelSelector:
    if not merged and not expressions:
        return EVERYTHING
    return compile_selector({"matchLabels": dict(merged), "matchExpressions": expressions})
