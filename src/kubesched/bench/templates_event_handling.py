"""The scheduler_perf templates (v1.37) of `event_handling/templates/`, as builders in the
style of `templates`: nodes that hold pods back (unschedulable, tainted, too small, without
the labels the pods want), the pods they hold back, one per plugin, and the changes
upstream's `updateAny` makes (`change_*`: what a PUT of the `-update` template changes in
the object it reads).

Pods get a fixed name (their group's prefix and index), the benchmark's scheduler name,
no ports and requests without limits, as the templates write them; nodes the
`kubernetes.io/hostname` label, as every node of the catalogue.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.bench import templates_volumes as v
from kubesched.bench.templates import PodTemplate, node_default, pod

UNSCHED = {"type": "unsched"}
"""The label of the pods upstream measures (its `labelSelector: {type: unsched}`)."""
ALLOW = "allow"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_BIG = {"pods": "3000", "cpu": "4", "memory": "32Gi"}
UNBLOCKING_LABELS = {
    "topology.kubernetes.io/zone": "zone1",
    "affinity": "allow",
    "topology": "allow",
}
"""What nodeadd-node-with-labels and nodeupdate-node-without-labels-update carry."""


def _index(name: str) -> int:
    return int(name.rsplit("-", 1)[-1])


def node(
    name: str,
    *,
    capacity: Mapping[str, str] = _BIG,
    labels: Mapping[str, str] | None = None,
    taints: Sequence[str] = (),
    unschedulable: bool = False,
) -> dict[str, Any]:
    """A Ready node of `capacity` (allocatable the same, as the API server defaults it),
    with `labels`, NoSchedule taints of the keys `taints`, and `spec.unschedulable`."""
    body = node_default(name, labels or {})
    body["status"]["capacity"] = dict(capacity)
    body["status"]["allocatable"] = dict(capacity)
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [{"key": key, "effect": "NoSchedule"} for key in taints]
    if unschedulable:
        spec["unschedulable"] = True
    body["spec"] = spec
    return body


def toleration(key: str) -> dict[str, str]:
    """`{key, operator: Exists, effect: NoSchedule}`."""
    return {"key": key, "operator": "Exists", "effect": "NoSchedule"}


def plain_pod(
    *,
    labels: Mapping[str, str] | None = None,
    tolerate: Sequence[str] = (),
    cpu: str = "",
    memory: str = "",
    **spec: Any,
) -> PodTemplate:
    """A template of one pause container, requests `cpu`/`memory` (none when empty) without
    limits, `labels`, tolerations of the keys `tolerate`, and `spec` merged in."""
    extra = dict(spec)
    if tolerate:
        extra["tolerations"] = [toleration(key) for key in tolerate]

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        body = pod(
            name,
            namespace,
            scheduler,
            requests=False,
            ports=False,
            labels=labels,
            spec=extra,
        )
        if cpu or memory:
            requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
            body["spec"]["containers"][0]["resources"] = {"requests": requests}
        return body

    return template


def pod_affinity(color: str, topology_key: str, namespaces: Sequence[str] = ()) -> dict[str, Any]:
    """A required (anti-)affinity term to pods labelled `color`."""
    term: dict[str, Any] = {
        "labelSelector": {"matchLabels": {"color": color}},
        "topologyKey": topology_key,
    }
    if namespaces:
        term["namespaces"] = list(namespaces)
    return {_REQUIRED: [term]}


def spread(max_skew: int, min_domains: int, key: str, selector: Mapping[str, str]) -> list[Any]:
    """One DoNotSchedule topology spread constraint (`min_domains` 0: not set)."""
    constraint: dict[str, Any] = {
        "maxSkew": max_skew,
        "topologyKey": key,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": dict(selector)},
    }
    if min_domains:
        constraint["minDomains"] = min_domains
    return [constraint]


def indexed(build: Any) -> PodTemplate:
    """A template whose pod depends on its index (`build(index)` -> a template)."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        inner: PodTemplate = build(_index(name))
        return inner(name, namespace, scheduler)

    return template


# updateAny's changes, each `(index, object) -> None` on the object as read.


def add_toleration(key: str) -> Any:
    """A pod update that adds a toleration of `key` (NoSchedule, Exists)."""

    def change(_index: int, obj: dict[str, Any]) -> None:
        spec = obj["spec"]
        spec["tolerations"] = [*(spec.get("tolerations") or ()), toleration(key)]

    return change


def drop_labels(_index: int, obj: dict[str, Any]) -> None:
    """podupdate-pod-blocker-update: the template has no labels, so the pod loses them."""
    obj["metadata"]["labels"] = {}


def scale_down(_index: int, obj: dict[str, Any]) -> None:
    """podupdate-pod-blocker-scale-down (the `resize` subresource): requests 0.0001 CPU,
    1Mi."""
    obj["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "0.0001", "memory": "1Mi"}}


def drop_gates(_index: int, obj: dict[str, Any]) -> None:
    """podupdate-pod-schedulinggates-update: the gate `test.k8s.io/hold` lifted."""
    obj["spec"].pop("schedulingGates", None)


def make_schedulable(_index: int, obj: dict[str, Any]) -> None:
    """nodeupdate-node-unschedulable-update: `spec.unschedulable` no longer set."""
    obj["spec"].pop("unschedulable", None)


def grow(_index: int, obj: dict[str, Any]) -> None:
    """nodeupdate-node-low-capacity-update (written to `status`): 4 CPU, 32Gi, 3000 pods."""
    obj["status"]["capacity"] = dict(_BIG)
    obj["status"]["allocatable"] = dict(_BIG)


def add_labels(_index: int, obj: dict[str, Any]) -> None:
    """nodeupdate-node-without-labels-update: zone1, `affinity: allow`, `topology: allow`."""
    labels = obj["metadata"].setdefault("labels", {})
    labels.update(UNBLOCKING_LABELS)


def retaint(index: int, obj: dict[str, Any]) -> None:
    """nodeupdate-node-without-taints-update: node i's one taint becomes `toleration-<i>`."""
    obj["spec"]["taints"] = [{"key": f"toleration-{index}", "effect": "NoSchedule"}]


def csi_node(name: str, limit: int) -> dict[str, Any]:
    """`node-default.yaml` with `limit` `attachable-volumes-csi-ebs.csi.aws.com` in its
    allocatable (EventHandlingPodDelete's nodeAllocatableStrategy)."""
    body = v.csi_node(name)
    body["status"]["allocatable"][v.CSI_ALLOCATABLE] = str(limit)
    return body


def csinode(name: str, limit: int) -> tuple[str, dict[str, Any]]:
    """(POST path, body) of node `name`'s CSINode: driver `ebs.csi.aws.com`, `limit`
    volumes."""
    path, body = v.csinode(name)
    body["spec"]["drivers"][0]["allocatable"]["count"] = limit
    return path, body
