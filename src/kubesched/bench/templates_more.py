"""The rest of scheduler_perf's templates (`test/integration/scheduler_perf/templates/`,
v1.37) that `catalogue_more`'s test cases use, as builders in the style of `templates`.
"""

from __future__ import annotations

from typing import Any

from kubesched.bench.templates import HOSTNAME, ZONE, PodTemplate, node_default, pod

NAMESPACE_LABELS = {"team": "devops"}
"""`namespace-with-labels.yaml`: what the namespace selectors of the `*-ns-selector` pods
select."""
DAEMONSET_NODE = "scheduler-perf-node"
"""`node-with-name.yaml`'s node, the one every `daemonset-pod.yaml` pod requires."""
SERVICE_SELECTOR = {"app": "scheduler-perf"}
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _ns_term(color: str, topology_key: str) -> dict[str, Any]:
    return {
        "labelSelector": {"matchLabels": {"color": color}},
        "topologyKey": topology_key,
        "namespaceSelector": {"matchLabels": dict(NAMESPACE_LABELS)},
    }


def _ns_selector(kind: str, mode: str, color: str, topology_key: str) -> PodTemplate:
    term = _ns_term(color, topology_key)
    terms = [term] if mode == _REQUIRED else [{"podAffinityTerm": term, "weight": 1}]

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        spec = {"affinity": {kind: {mode: terms}}}
        return pod(name, namespace, scheduler, labels={"color": color}, spec=spec)

    return template


pod_anti_affinity_ns_selector = _ns_selector("podAntiAffinity", _REQUIRED, "green", HOSTNAME)
"""`pod-anti-affinity-ns-selector.yaml`: required anti-affinity to `color: green` per host,
in namespaces labelled `team: devops`."""
pod_preferred_anti_affinity_ns_selector = _ns_selector(
    "podAntiAffinity", _PREFERRED, "green", HOSTNAME
)
"""`pod-preferred-anti-affinity-ns-selector.yaml`."""
pod_affinity_ns_selector = _ns_selector("podAffinity", _REQUIRED, "blue", ZONE)
"""`pod-affinity-ns-selector.yaml`: required affinity to `color: blue` per zone."""
pod_preferred_affinity_ns_selector = _ns_selector("podAffinity", _PREFERRED, "red", HOSTNAME)
"""`pod-preferred-affinity-ns-selector.yaml`."""


def pod_with_pod_anti_affinity_label(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-pod-anti-affinity-label.yaml`: a plain pod labelled `color: green`, which
    the anti-affinity pods already placed must keep off their hosts."""
    return pod(name, namespace, scheduler, labels={"color": "green"})


def pod_with_label(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-label.yaml`: `app: scheduler-perf` (a Service selects it), no requests."""
    return pod(name, namespace, scheduler, requests=False, ports=False, labels=SERVICE_SELECTOR)


def pod_with_node_inclusion_policy(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-node-inclusion-policy.yaml`: spread per host, maxSkew 1, DoNotSchedule,
    honouring node affinity and taints (upstream spells the two policies with capitals,
    which its case-insensitive decoding reads as these fields)."""
    constraint = {
        "maxSkew": 1,
        "topologyKey": HOSTNAME,
        "whenUnsatisfiable": "DoNotSchedule",
        "nodeAffinityPolicy": "Honor",
        "nodeTaintsPolicy": "Honor",
        "labelSelector": {"matchLabels": {"foo": "bar"}},
    }
    spec = {"topologySpreadConstraints": [constraint]}
    return pod(name, namespace, scheduler, labels={"foo": "bar"}, spec=spec)


def daemonset_pod(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`daemonset-pod.yaml`: requires the node named `scheduler-perf-node` (matchFields on
    metadata.name, as a DaemonSet's pods do), no requests."""
    field = {"key": "metadata.name", "operator": "In", "values": [DAEMONSET_NODE]}
    required = {"nodeSelectorTerms": [{"matchFields": [field]}]}
    spec = {"affinity": {"nodeAffinity": {_REQUIRED: required}}}
    return pod(name, namespace, scheduler, requests=False, ports=False, spec=spec)


def pod_hostport_80(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-hostport-80.yaml`: hostPort 80 (one such pod a node), 100m CPU, 100Mi, no
    limits."""
    return pod(name, namespace, scheduler, memory="100Mi", limits=False, host_port=80)


def pod_saturation(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-saturation.yaml`: 3 CPU and 1Gi (one such pod a 4-CPU node), no limits."""
    return pod(name, namespace, scheduler, cpu="3", memory="1Gi", limits=False, ports=False)


def pod_with_secret_volume(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-secret-volume.yaml`: pod-default with a secret volume (the secret need
    not exist for scheduling)."""
    spec = {"volumes": [{"name": "secret", "secret": {"secretName": "secret"}}]}
    return pod(name, namespace, scheduler, spec=spec)


def node_with_taint(name: str) -> dict[str, Any]:
    """`node-with-taint.yaml`: node-default with the taint `foo:NoSchedule`."""
    node = node_default(name, {})
    node["spec"] = {"taints": [{"key": "foo", "effect": "NoSchedule"}]}
    return node


def node_with_name() -> dict[str, Any]:
    """`node-with-name.yaml`: `scheduler-perf-node`, room for 90,000 pods."""
    node = node_default(DAEMONSET_NODE, {})
    capacity = {"pods": "90000", "cpu": "4", "memory": "32Gi"}
    node["status"]["capacity"] = capacity
    node["status"]["allocatable"] = dict(capacity)
    return node


def service(name: str, namespace: str) -> dict[str, Any]:
    """`service.yaml`: selects `app: scheduler-perf`, port 80 to 8000."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": dict(SERVICE_SELECTOR),
            "ports": [{"protocol": "TCP", "port": 80, "targetPort": 8000}],
        },
    }
