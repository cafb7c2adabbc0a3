"""Builders for Pods and Nodes, as raw API JSON (`.obj()`) or slim model objects (`.model()`).

    make_pod().name("p").req(cpu="1").obj()
    make_node().name("n1").capacity(cpu="4").label("zone", "a").model()

Defaults follow kube-scheduler's scheduler_perf templates: a node has 4 CPU, 32Gi memory,
110 pods, Ready=True and no taints; a pod has one container `pause` and no requests.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any, Self

from kubesched.model import Node, Pod
from kubesched.model.pod import DISRUPTION_TARGET, PREEMPTION_BY_SCHEDULER

_counter = itertools.count(1)


class PodBuilder:
    def __init__(self) -> None:
        n = next(_counter)
        self._obj: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"pod-{n}", "namespace": "default", "uid": f"uid-pod-{n}"},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]},
            "status": {"phase": "Pending"},
        }

    @property
    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self._obj["spec"]
        return spec

    @property
    def _meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = self._obj["metadata"]
        return meta

    def name(self, name: str) -> Self:
        self._meta["name"] = name
        self._meta["uid"] = f"uid-{name}"
        return self

    def namespace(self, namespace: str) -> Self:
        self._meta["namespace"] = namespace
        return self

    def uid(self, uid: str) -> Self:
        self._meta["uid"] = uid
        return self

    def label(self, key: str, value: str) -> Self:
        self._meta.setdefault("labels", {})[key] = value
        return self

    def scheduler(self, name: str) -> Self:
        self._spec["schedulerName"] = name
        return self

    def node(self, name: str) -> Self:
        """Set `spec.nodeName` (the pod is bound, or asks for that node)."""
        self._spec["nodeName"] = name
        return self

    def priority(self, value: int) -> Self:
        self._spec["priority"] = value
        return self

    def req(self, **resources: str) -> Self:
        """Requests of the first container; `ephemeral_storage=` for ephemeral-storage and
        `extended={"example.com/gpu": "1"}`-style names go through `req_named`."""
        return self.req_named({k.replace("_", "-"): v for k, v in resources.items()})

    def req_named(self, resources: dict[str, str]) -> Self:
        container = self._spec["containers"][0]
        container.setdefault("resources", {}).setdefault("requests", {}).update(resources)
        return self

    def container(
        self, name: str, *, image: str = "", requests: dict[str, str] | None = None
    ) -> Self:
        container: dict[str, Any] = {"name": name, "image": image or "registry.k8s.io/pause:3.10"}
        if requests:
            container["resources"] = {"requests": dict(requests)}
        self._spec["containers"].append(container)
        return self

    def init_container(
        self, name: str, *, requests: dict[str, str] | None = None, sidecar: bool = False
    ) -> Self:
        container: dict[str, Any] = {"name": name, "image": "registry.k8s.io/pause:3.10"}
        if requests:
            container["resources"] = {"requests": dict(requests)}
        if sidecar:
            container["restartPolicy"] = "Always"
        self._spec.setdefault("initContainers", []).append(container)
        return self

    def pod_req(self, **resources: str) -> Self:
        """Pod-level requests (`spec.resources.requests`)."""
        self._spec["resources"] = {"requests": dict(resources)}
        return self

    def overhead(self, **resources: str) -> Self:
        self._spec["overhead"] = dict(resources)
        return self

    def host_port(self, port: int, *, protocol: str = "TCP", host_ip: str = "") -> Self:
        entry: dict[str, Any] = {"containerPort": port, "hostPort": port, "protocol": protocol}
        if host_ip:
            entry["hostIP"] = host_ip
        self._spec["containers"][0].setdefault("ports", []).append(entry)
        return self

    def node_selector(self, **labels: str) -> Self:
        self._spec.setdefault("nodeSelector", {}).update(labels)
        return self

    def toleration(
        self, key: str = "", value: str = "", *, effect: str = "", operator: str = "Equal"
    ) -> Self:
        entry = {"key": key, "operator": operator, "effect": effect}
        if operator == "Equal":
            entry["value"] = value
        self._spec.setdefault("tolerations", []).append(entry)
        return self

    def affinity(self, affinity: dict[str, Any]) -> Self:
        self._spec["affinity"] = copy.deepcopy(affinity)
        return self

    def required_node_affinity(self, key: str, operator: str, values: list[str]) -> Self:
        """Add one match expression in a new required node selector term (terms are ORed)."""
        node_affinity = self._spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
        required = node_affinity.setdefault(
            "requiredDuringSchedulingIgnoredDuringExecution", {"nodeSelectorTerms": []}
        )
        term = {"matchExpressions": [{"key": key, "operator": operator, "values": values}]}
        required["nodeSelectorTerms"].append(term)
        return self

    def preferred_node_affinity(
        self, weight: int, key: str, operator: str, values: list[str]
    ) -> Self:
        node_affinity = self._spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
        preferred = node_affinity.setdefault("preferredDuringSchedulingIgnoredDuringExecution", [])
        expression = {"key": key, "operator": operator, "values": values}
        preferred.append({"weight": weight, "preference": {"matchExpressions": [expression]}})
        return self

    def spread_constraint(
        self,
        max_skew: int,
        topology_key: str,
        when: str = "DoNotSchedule",
        *,
        match_labels: dict[str, str] | None = None,
        **fields: Any,
    ) -> Self:
        """Add a `topologySpreadConstraint`; `match_labels` becomes its labelSelector, other
        fields (`minDomains=2`, `nodeTaintsPolicy="Honor"`, ...) are copied as given."""
        constraint: dict[str, Any] = {
            "maxSkew": max_skew,
            "topologyKey": topology_key,
            "whenUnsatisfiable": when,
            **fields,
        }
        if match_labels is not None:
            constraint["labelSelector"] = {"matchLabels": dict(match_labels)}
        self._spec.setdefault("topologySpreadConstraints", []).append(constraint)
        return self

    def scheduling_gate(self, name: str) -> Self:
        self._spec.setdefault("schedulingGates", []).append({"name": name})
        return self

    def pod_group(self, name: str) -> Self:
        """Join the native `scheduling.k8s.io` PodGroup `name` (`spec.schedulingGroup`)."""
        self._spec["schedulingGroup"] = {"podGroupName": name}
        return self

    def owner(self, kind: str, name: str) -> Self:
        ref = {
            "apiVersion": "apps/v1",
            "kind": kind,
            "name": name,
            "uid": f"uid-{name}",
            "controller": True,
        }
        self._meta.setdefault("ownerReferences", []).append(ref)
        return self

    def volume(self, volume: dict[str, Any]) -> Self:
        """Append a raw `spec.volumes[]` entry; `.claim("data")` for the common case."""
        self._spec.setdefault("volumes", []).append(volume)
        return self

    def claim(self, claim_name: str) -> Self:
        """A volume using PersistentVolumeClaim `claim_name`."""
        n = len(self._spec.get("volumes") or ())
        return self.volume({"name": f"v{n}", "persistentVolumeClaim": {"claimName": claim_name}})

    def phase(self, phase: str) -> Self:
        self._obj["status"]["phase"] = phase
        return self

    def preemption_policy(self, policy: str) -> Self:
        """`spec.preemptionPolicy`: `PreemptLowerPriority` (the default) or `Never`."""
        self._spec["preemptionPolicy"] = policy
        return self

    def start_time(self, timestamp: str) -> Self:
        """`status.startTime` (RFC 3339, e.g. `2025-01-01T00:00:00Z`)."""
        self._obj["status"]["startTime"] = timestamp
        return self

    def nominated_node(self, name: str) -> Self:
        """`status.nominatedNodeName`, as preemption sets it."""
        self._obj["status"]["nominatedNodeName"] = name
        return self

    def preempted(self) -> Self:
        """Terminating because a scheduler preempted it (deletionTimestamp and the
        `DisruptionTarget` condition with reason `PreemptionByScheduler`)."""
        self._meta["deletionTimestamp"] = "2025-01-01T00:00:00Z"
        condition = {
            "type": DISRUPTION_TARGET,
            "status": "True",
            "reason": PREEMPTION_BY_SCHEDULER,
        }
        self._obj["status"].setdefault("conditions", []).append(condition)
        return self

    def obj(self) -> dict[str, Any]:
        """The Pod as the API server's JSON (a deep copy; the builder can be reused)."""
        return copy.deepcopy(self._obj)

    def model(self) -> Pod:
        return Pod.from_json(self._obj)


class NodeBuilder:
    def __init__(self) -> None:
        n = next(_counter)
        self._obj: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": f"node-{n}", "uid": f"uid-node-{n}", "labels": {}},
            "spec": {},
            "status": {
                "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                "phase": "Running",
            },
        }

    def name(self, name: str) -> Self:
        self._obj["metadata"]["name"] = name
        self._obj["metadata"]["uid"] = f"uid-{name}"
        self._obj["metadata"]["labels"]["kubernetes.io/hostname"] = name
        return self

    def label(self, key: str, value: str) -> Self:
        self._obj["metadata"]["labels"][key] = value
        return self

    def capacity(self, **resources: str) -> Self:
        """Set capacity and allocatable (`ephemeral_storage=` means ephemeral-storage)."""
        return self.capacity_named({k.replace("_", "-"): v for k, v in resources.items()})

    def capacity_named(self, resources: dict[str, str]) -> Self:
        self._obj["status"]["capacity"].update(resources)
        self._obj["status"]["allocatable"].update(resources)
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> Self:
        self._obj["spec"].setdefault("taints", []).append(
            {"key": key, "value": value, "effect": effect}
        )
        return self

    def unschedulable(self, value: bool = True) -> Self:
        self._obj["spec"]["unschedulable"] = value
        return self

    def image(self, name: str, size_bytes: int) -> Self:
        self._obj["status"].setdefault("images", []).append(
            {"names": [name], "sizeBytes": size_bytes}
        )
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._obj)

    def model(self) -> Node:
        return Node.from_json(self._obj)


def make_pod() -> PodBuilder:
    return PodBuilder()


def make_node() -> NodeBuilder:
    return NodeBuilder()
