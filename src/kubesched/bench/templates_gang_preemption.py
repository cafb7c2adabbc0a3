"""The templates of scheduler_perf's `workload_preemption` test cases (kubernetes/kubernetes
`test/integration/scheduler_perf/workload_preemption/templates/`, v1.37) and of
`default_preemption/`'s PreemptionPodGroupDisruptionMode (its `gang-pod.yaml`, the shared
`podgroup.yaml` with a `disruptionMode`), as builders in the style of `templates`.

Upstream's templates set `spec.priority` (8888888 unless a case names another); with the
Priority admission plugin on, the benchmark creates one PriorityClass per value
(`priority_class`) and the pods and PodGroups name it, so the API server resolves the same
priorities. Low-priority pods keep priority 0 (no class, as no class is the global default).
Pods that upstream spreads with host ports (`hostPort: <base> + ...`) keep those ports.
"""

from __future__ import annotations

from typing import Any

from kubesched.bench.templates import HOSTNAME, PodTemplate, pod
from kubesched.bench.templates_podgroups import pod_group

GANG_PRIORITY = 8888888
"""The priority of `gang-pod.yaml` and `podgroup.yaml` when a case names none."""
HIGH_PRIORITY = 9999999
"""`pod-anchor-high-priority.yaml`'s priority, and the preemptor gangs' of
GangPreemptionPodGroups."""
BLUE = {"app": "blue", "label1": "value1", "label2": "value2"}
BLUE |= {"label3": "value3", "label4": "value4"}
"""The labels of the low-priority and anchor pods, which the affinity gangs select."""


def priority_class(value: int) -> str:
    """The PriorityClass the benchmark creates for priority `value`."""
    return f"bench-priority-{value}"


def _index(name: str) -> int:
    return int(name.rsplit("-", 1)[-1])


def _spread_port(base: int, pods: int, nodes: int, index: int) -> int:
    """`{{AddInt base (Mod .Index (DivideInt .podsCount .nodesCount))}}`."""
    return base + index % max(pods // nodes, 1)


def low_priority_pod(pods: int, nodes: int) -> PodTemplate:
    """`pod-low-priority.yaml`: 40m CPU, 100Mi, the blue labels, priority 0, grace 0, host
    port 8000 + index mod (pods / nodes), which spreads them evenly over the nodes."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        port = _spread_port(8000, pods, nodes, _index(name))
        spec: dict[str, Any] = {"terminationGracePeriodSeconds": 0}
        return _blue(name, namespace, scheduler, cpu="40m", port=port, spec=spec)

    return template


def anchor_pod(nodes: int) -> PodTemplate:
    """`pod-anchor-high-priority.yaml` with podsCount = nodesCount: 10m CPU, 100Mi, the
    blue labels, priority 9999999, host port 7000 (one anchor on each node)."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        port = _spread_port(7000, nodes, nodes, _index(name))
        spec: dict[str, Any] = {"priorityClassName": priority_class(HIGH_PRIORITY)}
        spec["terminationGracePeriodSeconds"] = 0
        return _blue(name, namespace, scheduler, cpu="10m", port=port, spec=spec)

    return template


def _blue(
    name: str, namespace: str, scheduler: str, *, cpu: str, port: int, spec: dict[str, Any]
) -> dict[str, Any]:
    return pod(
        name,
        namespace,
        scheduler,
        cpu=cpu,
        memory="100Mi",
        host_port=port,
        labels=BLUE,
        spec=spec,
    )


def gang_pod(
    per_group: int, cpu: str, *, priority: int = GANG_PRIORITY, host_port_base: int = 0
) -> PodTemplate:
    """`gang-pod.yaml`: pod i joins PodGroup `gang-<i // per_group>`; `cpu` and 100Mi,
    grace 0; with `host_port_base`, host port base + group index (a group's pods on
    different nodes), else no ports."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        group = _index(name) // per_group
        spec = _member_spec(group, priority)
        port = host_port_base + group if host_port_base else None
        ports = bool(host_port_base)
        return pod(
            name,
            namespace,
            scheduler,
            cpu=cpu,
            memory="100Mi",
            ports=ports,
            host_port=port,
            spec=spec,
        )

    return template


def gang_affinity_pod(per_group: int) -> PodTemplate:
    """`pod-gang-affinity.yaml`: pod i joins `gang-<i // per_group>`, requires a blue pod
    (of any namespace) on its node, 3970m CPU and 500Mi, grace 0, no ports."""
    term = {
        "labelSelector": {"matchLabels": dict(BLUE)},
        "topologyKey": HOSTNAME,
        "namespaceSelector": {},
    }
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        spec = _member_spec(_index(name) // per_group, GANG_PRIORITY) | {"affinity": affinity}
        return pod(name, namespace, scheduler, cpu="3970m", memory="500Mi", ports=False, spec=spec)

    return template


def _member_spec(group: int, priority: int) -> dict[str, Any]:
    return {
        "priorityClassName": priority_class(priority),
        "schedulingGroup": {"podGroupName": f"gang-{group}"},
        "terminationGracePeriodSeconds": 0,
    }


def gang_group(
    index: int, namespace: str, per_group: int, priority: int, disruption: str = ""
) -> dict[str, Any]:
    """`podgroup.yaml`: PodGroup `gang-<index>`, `gang: {minCount: per_group}`, with the
    PriorityClass of `priority`; `disruption` (`single` or `all`) sets its
    `disruptionMode`."""
    body = pod_group(f"gang-{index}", namespace, min_count=per_group)
    body["spec"]["priorityClassName"] = priority_class(priority)
    if disruption:
        body["spec"]["disruptionMode"] = {disruption: {}}
    return body


def disruption_gang_pod(per_group: int, cpu: str, priority: int, *, grouped: bool) -> PodTemplate:
    """`default_preemption/templates/gang-pod.yaml`: `cpu` and 50Mi (limits equal), the
    PriorityClass of `priority`, grace 0, no ports; with `grouped` (upstream's
    `disruptionMode` set), pod i joins PodGroup `gang-<i // per_group>`."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        spec: dict[str, Any] = {"priorityClassName": priority_class(priority)}
        spec["terminationGracePeriodSeconds"] = 0
        if grouped:
            spec["schedulingGroup"] = {"podGroupName": f"gang-{_index(name) // per_group}"}
        return pod(name, namespace, scheduler, cpu=cpu, memory="50Mi", ports=False, spec=spec)

    return template
