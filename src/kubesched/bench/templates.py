"""The object templates of kube-scheduler's scheduler_perf
(kubernetes/kubernetes `test/integration/scheduler_perf/templates/`, v1.37), as builders.

Every pod template is one `pause` container with `containerPort: 80` (no host port); the
fields that differ are the requests, labels, affinity, spreading and priority. Pods get a
fixed name instead of upstream's `generateName` (the benchmark follows them by name) and
the benchmark's scheduler name. Nodes are `node-default.yaml` (4 CPU, 32Gi, 110 pods,
Ready) with the `kubernetes.io/hostname` label upstream's node preparer adds, plus the
workload's labelling strategy.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

PodTemplate = Callable[[str, str, str], dict[str, Any]]
"""(name, namespace, scheduler name) -> a Pod object."""

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
HIGH_PRIORITY_CLASS = "bench-priority-10"
"""upstream's templates set `priority: 10`; with the Priority admission plugin on, the
benchmark creates this PriorityClass (value 10) and names it instead."""
_PAUSE = "registry.k8s.io/pause:3.10.1"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def pod(
    name: str,
    namespace: str,
    scheduler: str,
    *,
    cpu: str = "100m",
    memory: str = "500Mi",
    limits: bool = True,
    requests: bool = True,
    ports: bool = True,
    host_port: int | None = None,
    labels: Mapping[str, str] | None = None,
    spec: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A Pod of one `pause` container as upstream's templates write it: `cpu`/`memory`
    requests (none with `requests=False`), limits equal to them, `containerPort: 80`
    (`host_port` adds a hostPort; `ports=False`: no ports), `labels`, and `spec` merged
    into the pod's spec."""
    container: dict[str, Any] = {"name": "pause", "image": _PAUSE}
    if ports:
        port: dict[str, Any] = {"containerPort": 80}
        if host_port is not None:
            port["hostPort"] = host_port
        container["ports"] = [port]
    if requests:
        resources: dict[str, Any] = {"requests": {"cpu": cpu, "memory": memory}}
        if limits:
            resources["limits"] = {"cpu": cpu, "memory": memory}
        container["resources"] = resources
    body: dict[str, Any] = {"schedulerName": scheduler, "containers": [container]}
    body.update(copy.deepcopy(dict(spec or {})))
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": body}


def _term(color: str, topology_key: str) -> dict[str, Any]:
    return {
        "labelSelector": {"matchLabels": {"color": color}},
        "topologyKey": topology_key,
        "namespaces": ["sched-1", "sched-0"],
    }


def pod_default(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-default.yaml`: 100m CPU, 500Mi, limits = requests."""
    return pod(name, namespace, scheduler)


def pod_with_pod_anti_affinity(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-pod-anti-affinity.yaml`: required anti-affinity to `color: green` per host."""
    affinity = {"podAntiAffinity": {_REQUIRED: [_term("green", HOSTNAME)]}}
    return pod(name, namespace, scheduler, labels={"color": "green"}, spec={"affinity": affinity})


def pod_with_pod_affinity(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-pod-affinity.yaml`: required affinity to `color: blue` per zone."""
    affinity = {"podAffinity": {_REQUIRED: [_term("blue", ZONE)]}}
    return pod(name, namespace, scheduler, labels={"color": "blue"}, spec={"affinity": affinity})


def pod_with_preferred_pod_affinity(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-preferred-pod-affinity.yaml`: preferred affinity (weight 1) to `color: red`
    per host."""
    preferred = [{"podAffinityTerm": _term("red", HOSTNAME), "weight": 1}]
    affinity = {"podAffinity": {_PREFERRED: preferred}}
    return pod(name, namespace, scheduler, labels={"color": "red"}, spec={"affinity": affinity})


def pod_with_preferred_pod_anti_affinity(
    name: str, namespace: str, scheduler: str
) -> dict[str, Any]:
    """`pod-with-preferred-pod-anti-affinity.yaml`: preferred anti-affinity (weight 1) to
    `color: yellow` per host."""
    preferred = [{"podAffinityTerm": _term("yellow", HOSTNAME), "weight": 1}]
    affinity = {"podAntiAffinity": {_PREFERRED: preferred}}
    return pod(name, namespace, scheduler, labels={"color": "yellow"}, spec={"affinity": affinity})


def pod_with_node_affinity(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-node-affinity.yaml`: requires zone In [zone1, zone2]."""
    expression = {"key": ZONE, "operator": "In", "values": ["zone1", "zone2"]}
    required = {"nodeSelectorTerms": [{"matchExpressions": [expression]}]}
    affinity = {"nodeAffinity": {_REQUIRED: required}}
    return pod(name, namespace, scheduler, spec={"affinity": affinity})


def _spreading(when: str) -> PodTemplate:
    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        constraint = {
            "maxSkew": 5,
            "topologyKey": ZONE,
            "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": {"color": "blue"}},
        }
        spec = {"topologySpreadConstraints": [constraint]}
        return pod(name, namespace, scheduler, labels={"color": "blue"}, spec=spec)

    template.__doc__ = f"topology spreading by zone, maxSkew 5, {when}"
    return template


pod_with_topology_spreading = _spreading("DoNotSchedule")
"""`pod-with-topology-spreading.yaml`."""
pod_with_preferred_topology_spreading = _spreading("ScheduleAnyway")
"""`pod-with-preferred-topology-spreading.yaml`."""


def pod_low_priority(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-low-priority.yaml`: 900m CPU, no priority, terminationGracePeriodSeconds 0."""
    return pod(name, namespace, scheduler, cpu="900m", spec={"terminationGracePeriodSeconds": 0})


def pod_high_priority(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-high-priority.yaml`: 3 CPU, priority 10."""
    return pod(
        name, namespace, scheduler, cpu="3000m", spec={"priorityClassName": HIGH_PRIORITY_CLASS}
    )


def pod_high_priority_large_cpu(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-high-priority-large-cpu.yaml`: 9 CPU (fits no 4-CPU node), priority 10, no
    limits."""
    spec = {"priorityClassName": HIGH_PRIORITY_CLASS}
    return pod(name, namespace, scheduler, cpu="9", limits=False, spec=spec)


def node_default(name: str, labels: Mapping[str, str]) -> dict[str, Any]:
    """`node-default.yaml` plus the hostname label and `labels`."""
    return _ready_node(name, labels, {"pods": "110", "cpu": "4", "memory": "32Gi"}, spec=True)


def churn_node(name: str) -> dict[str, Any]:
    """`churn/node-default.yaml`: a Ready node with room for no pod."""
    return _ready_node(name, {}, {"pods": "0"}, spec=False)


def _ready_node(
    name: str, labels: Mapping[str, str], capacity: dict[str, str], *, spec: bool
) -> dict[str, Any]:
    """A Ready node with the hostname label and `labels`, `capacity` all allocatable; an
    empty `spec` with `spec` (as the template has it)."""
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {HOSTNAME: name, **labels}},
    }
    if spec:
        node["spec"] = {}
    node["status"] = {
        "capacity": capacity,
        "allocatable": dict(capacity),
        "conditions": [{"type": "Ready", "status": "True"}],
        "phase": "Running",
    }
    return node


def churn_service(name: str, namespace: str) -> dict[str, Any]:
    """`churn/service-default.yaml`: selects `app: foo`, port 8080."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"app": "foo"},
            "ports": [{"protocol": "TCP", "port": 8080, "targetPort": 8080}],
        },
    }
