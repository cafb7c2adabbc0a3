"""The selector default topology spreading spreads a pod by (upstream `helper.DefaultSelector`,
pkg/scheduler/framework/plugins/helper/spread.go, v1.37.2).

The labels of every Service in the pod's namespace whose selector matches the pod are
merged; then, if the pod's controller (the `ownerReference` with `controller: true`) is a
`v1` ReplicationController, its selector map is merged too, or, for an `apps/v1` ReplicaSet
or StatefulSet, the requirements of its LabelSelector are added. An owner of another kind or
API version, or one not found, adds nothing. An empty result means "no default constraints".

A plugin spreading by default declares `DEFAULT_SPREADING` and reads those four listers
(`SpreadListers.of(handle)`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.framework import (
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    SERVICES,
    STATEFUL_SETS,
    Handle,
    Lister,
)
from kubesched.model import ApiObject, Pod, WorkloadSelector
from kubesched.model.workloads import REPLICA_SET, REPLICATION_CONTROLLER, SERVICE, STATEFUL_SET
from kubesched.plugins.helper.listers import declared_lister
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


@dataclass(frozen=True, slots=True)
class SpreadListers:
    """The Service lister and the controller listers by kind (upstream's four listers)."""

    services: Lister[ApiObject]
    controllers: Mapping[str, Lister[ApiObject]]

    @classmethod
    def of(cls, handle: Handle) -> SpreadListers:
        """The listers of `DEFAULT_SPREADING` that `handle` serves."""
        kinds = (
            (REPLICATION_CONTROLLER, REPLICATION_CONTROLLERS),
            (REPLICA_SET, REPLICA_SETS),
            (STATEFUL_SET, STATEFUL_SETS),
        )
        return cls(
            services=declared_lister(handle, SERVICES),
            controllers={kind: declared_lister(handle, spec) for kind, spec in kinds},
        )

    def controller(self, kind: str, namespace: str, name: str) -> WorkloadSelector | None:
        lister = self.controllers.get(kind)
        found = None if lister is None else lister.get(name, namespace)
        return None if found is None else WorkloadSelector.of(found, kind=kind)


def default_selector(pod: Pod, listers: SpreadListers) -> LabelSelector:
    """The selector of the pods `pod` is spread among by default constraints (EVERYTHING,
    i.e. empty, when nothing selects it)."""
    merged: dict[str, str] = {}
    for obj in listers.services.list(pod.namespace):
        labels = WorkloadSelector.of(obj, kind=SERVICE).match_labels
        if labels and all(pod.labels.get(k) == v for k, v in labels.items()):
            merged.update(labels)
    expressions: list[Mapping[str, Any]] = []
    owner = next((ref for ref in pod.owners if ref.controller), None)
    if owner is not None and _CONTROLLER_GROUP_VERSIONS.get(owner.kind) == owner.api_version:
        found = listers.controller(owner.kind, pod.namespace, owner.name)
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
