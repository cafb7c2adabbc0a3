"""The scheduler_perf templates (v1.37) that `catalogue_events`'s test cases use: light,
gated and finalizer pods (`templates/`), misc's extended-resource node and pod
(`misc/templates/`), default_preemption's preemptor (`default_preemption/templates/`) and
starvation's nodes and pods, the cloggers alone or in a PodGroup (`starvation/templates/`),
as builders in the style of `templates`."""

from __future__ import annotations

from typing import Any

from kubesched.bench.templates import HOSTNAME, node_default, pod

PREEMPTOR_PRIORITY_CLASS = "bench-priority-9999999"
"""`default_preemption/templates/pod-high-priority.yaml` sets `priority: 9999999`; the
benchmark creates this PriorityClass (that value) and names it instead."""
EXTENDED_RESOURCE = "foo.com/bar-{index}"
"""misc's extended resource: node i has one `foo.com/bar-<i>`, pod i requests it."""
EXTENDED_NODE_LABEL = "node-with-extended-resource"
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def light_pod(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`light-pod.yaml`: no requests, no ports, terminationGracePeriodSeconds 0."""
    spec = {"terminationGracePeriodSeconds": 0}
    return pod(name, namespace, scheduler, requests=False, ports=False, spec=spec)


def gated_pod(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`gated-pod.yaml`: the scheduling gate `test.k8s.io/hold`, never lifted."""
    spec = {"schedulingGates": [{"name": "test.k8s.io/hold"}]}
    return pod(name, namespace, scheduler, requests=False, ports=False, spec=spec)


def gated_pod_with_pod_affinity(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`gated-pod-with-pod-affinity.yaml`: labelled `app: scheduler-perf`, required pod
    affinity to that label per host, gated by `scheduling-gate-1` (never lifted): every
    pod-with-label bound is an AssignedPodAdd event its affinity cares about."""
    term = {
        "labelSelector": {"matchLabels": {"app": "scheduler-perf"}},
        "topologyKey": HOSTNAME,
    }
    spec = {
        "affinity": {"podAffinity": {_REQUIRED: [term]}},
        "schedulingGates": [{"name": "scheduling-gate-1"}],
    }
    labels = {"app": "scheduler-perf"}
    return pod(name, namespace, scheduler, requests=False, ports=False, labels=labels, spec=spec)


def pod_with_finalizer(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-finalizer.yaml`: the finalizer `test.k8s.io/finalizer` (a deleted pod
    stays, with its deletionTimestamp set), no requests, no ports."""
    body = pod(name, namespace, scheduler, requests=False, ports=False)
    body["metadata"]["finalizers"] = ["test.k8s.io/finalizer"]
    return body


def _index(name: str) -> int:
    return int(name.rsplit("-", 1)[-1])


def pod_with_extended_resource(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`misc/templates/pod-with-extended-resource.yaml`: pod i (its name's suffix) requests
    and limits one `foo.com/bar-<i>`, nothing else: only node i has it."""
    resource = {EXTENDED_RESOURCE.format(index=_index(name)): "1"}
    body = pod(name, namespace, scheduler, requests=False, ports=False)
    body["spec"]["containers"][0]["resources"] = {
        "requests": dict(resource),
        "limits": dict(resource),
    }
    return body


def node_with_extended_resource(index: int) -> dict[str, Any]:
    """`misc/templates/node-with-extended-resource.yaml`: node-default plus one
    `foo.com/bar-<index>`, labelled `node-with-extended-resource: "true"`."""
    name = f"scheduler-perf-extended-resource-{index}"
    node = node_default(name, {EXTENDED_NODE_LABEL: "true"})
    capacity = {**node["status"]["capacity"], EXTENDED_RESOURCE.format(index=index): "1"}
    node["status"]["capacity"] = capacity
    node["status"]["allocatable"] = dict(capacity)
    return node


def pod_preemptor(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`default_preemption/templates/pod-high-priority.yaml`: 3970m CPU and 500Mi (limits
    equal), priority 9999999, terminationGracePeriodSeconds 0: on a 4-CPU node it must
    evict every other pod."""
    spec = {"priorityClassName": PREEMPTOR_PRIORITY_CLASS, "terminationGracePeriodSeconds": 0}
    return pod(name, namespace, scheduler, cpu="3970m", ports=False, spec=spec)


CHURN_PRIORITY_CLASS = "bench-priority-10000"
CLOGGER_PRIORITY_CLASS = "bench-priority-1000"
"""`starvation/templates/`: churn pods have `priority: 10000`, cloggers `priority: 1000`
(victims 0, the default); the benchmark creates these PriorityClasses and names them."""
STARVATION_POD_GROUP = "podgroup-0"
"""StarvationPodGroup's one PodGroup (`starvation/templates/podgroup.yaml`, index 0)."""
_TARGET: dict[str, Any] = {"key": "service", "operator": "In", "values": ["target"]}


def starvation_node(index: int) -> dict[str, Any]:
    """`starvation/templates/node.yaml`: 4 CPU, 8Gi, 110 pods, Ready."""
    name = f"starvation-node-{index}"
    capacity = {"pods": "110", "cpu": "4", "memory": "8Gi"}
    node = node_default(name, {})
    node["status"]["capacity"] = capacity
    node["status"]["allocatable"] = dict(capacity)
    return node


def starvation_churn_pod(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`starvation/templates/churn-pod.yaml`: labelled `service: target` (what every
    clogger's affinity and anti-affinity select), priority 10000, 10m and 10Mi."""
    spec = {"priorityClassName": CHURN_PRIORITY_CLASS}
    labels = {"service": "target"}
    return pod(
        name,
        namespace,
        scheduler,
        cpu="10m",
        memory="10Mi",
        limits=False,
        ports=False,
        labels=labels,
        spec=spec,
    )


def clogger_pod(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`starvation/templates/clogger-pod.yaml`: priority 1000, required affinity to
    `service: target` per host (two terms) and required anti-affinity to the same per
    host: it fits nowhere, and every churn pod added or deleted may wake it."""
    exists: list[dict[str, Any]] = [
        {"key": "service", "operator": "Exists"},
        {"key": "service", "operator": "NotIn", "values": ["non-existent-value"]},
    ]
    everywhere = ["starvation-0", "default", "kube-system"]
    affinity = [
        _ns_term([_TARGET], everywhere),
        _ns_term(exists, ["starvation-0", "default"]),
    ]
    spec = {
        "priorityClassName": CLOGGER_PRIORITY_CLASS,
        "affinity": {
            "podAffinity": {_REQUIRED: affinity},
            "podAntiAffinity": {_REQUIRED: [_ns_term([_TARGET], everywhere)]},
        },
    }
    return pod(name, namespace, scheduler, requests=False, ports=False, spec=spec)


def clogger_podgroup_pod(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`starvation/templates/clogger-podgroup-pod.yaml`: `clogger-pod.yaml` joined to PodGroup
    `podgroup-0` of its namespace (`spec.schedulingGroup.podGroupName`)."""
    body = clogger_pod(name, namespace, scheduler)
    body["spec"]["schedulingGroup"] = {"podGroupName": STARVATION_POD_GROUP}
    return body


def _ns_term(expressions: list[dict[str, Any]], namespaces: list[str]) -> dict[str, Any]:
    return {
        "labelSelector": {"matchExpressions": expressions},
        "namespaces": namespaces,
        "topologyKey": HOSTNAME,
    }


def victim_pod(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`starvation/templates/victim-pod.yaml`: priority 0, 10m and 10Mi, schedulable
    anywhere: what starves if the queue keeps serving the woken cloggers first."""
    return pod(name, namespace, scheduler, cpu="10m", memory="10Mi", limits=False, ports=False)
