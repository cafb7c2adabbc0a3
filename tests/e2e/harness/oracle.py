"""Invariants checked after every end-to-end test, independently of kubesched's own code.

`assert_no_node_overcommitted(api)`: for every Node, the requests of the non-terminal pods
bound to it fit its allocatable, for every resource it lists (cpu, memory, pods,
ephemeral-storage, extended resources). A pod's request follows kube-scheduler:
max(sum of containers + sidecars, largest init container + sidecars started before it),
pod-level `spec.resources.requests` replacing container sums where set, plus overhead.
Extended resources a DeviceClass serves through a claim (the pod's
`status.extendedResourceClaimStatus.requestMappings`) take no room of the node's allocatable.
"""

from __future__ import annotations

import re
from collections import defaultdict
from decimal import Decimal
from typing import Any

_SUFFIXES = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$")
Resources = dict[str, Decimal]


def quantity(text: str | float) -> Decimal:
    """A Kubernetes quantity ("100m", "1Gi", "2e3") as an exact Decimal."""
    match = _QUANTITY.match(str(text).strip())
    if not match:
        raise ValueError(f"not a quantity: {text!r}")
    number, exponent, suffix = match.groups()
    if exponent:
        return Decimal(number + exponent)
    return Decimal(number) * _SUFFIXES[suffix or ""]


def _requests(entity: dict[str, Any]) -> Resources:
    raw = (entity.get("resources") or {}).get("requests") or {}
    return {name: quantity(value) for name, value in raw.items()}


def _add(total: Resources, more: Resources) -> Resources:
    result = dict(total)
    for name, value in more.items():
        result[name] = result.get(name, Decimal(0)) + value
    return result


def _max(left: Resources, right: Resources) -> Resources:
    return {
        name: max(left.get(name, Decimal(0)), right.get(name, Decimal(0)))
        for name in {*left, *right}
    }


def pod_requests(pod: dict[str, Any]) -> Resources:
    """The resources a pod occupies on its node, `pods: 1` included."""
    spec = pod.get("spec", {})
    total: Resources = {}
    for container in spec.get("containers", []):
        total = _add(total, _requests(container))
    sidecars: Resources = {}
    init_peak: Resources = {}
    for init in spec.get("initContainers", []) or []:
        if init.get("restartPolicy") == "Always":
            sidecars = _add(sidecars, _requests(init))
            init_peak = _max(init_peak, sidecars)
        else:
            init_peak = _max(init_peak, _add(sidecars, _requests(init)))
    total = _max(_add(total, sidecars), init_peak)
    total.update(_requests(spec))  # pod-level resources win where they are set
    total = _add(total, {name: quantity(v) for name, v in (spec.get("overhead") or {}).items()})
    total["pods"] = Decimal(1)
    served = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
    for mapping in served.get("requestMappings") or ():
        total.pop(mapping.get("resourceName", ""), None)
    return total


def overcommitted_nodes(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> list[str]:
    """One line per (node, resource) whose bound pods request more than allocatable."""
    used: dict[str, Resources] = defaultdict(dict)
    names: dict[str, list[str]] = defaultdict(list)
    for pod in pods:
        node = pod.get("spec", {}).get("nodeName")
        if not node or pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
            continue
        used[node] = _add(used[node], pod_requests(pod))
        names[node].append(f"{pod['metadata']['namespace']}/{pod['metadata']['name']}")
    problems = []
    for node in nodes:
        name = node["metadata"]["name"]
        allocatable = {
            k: quantity(v) for k, v in (node.get("status", {}).get("allocatable") or {}).items()
        }
        for resource, amount in used.get(name, {}).items():
            limit = allocatable.get(resource, Decimal(0))
            if amount > limit:  # a resource the node does not list has room 0, as upstream
                who = ", ".join(names[name])
                used_text, limit_text = f"{amount.normalize():f}", f"{limit.normalize():f}"
                problems.append(
                    f"node {name}: {resource} {used_text} > allocatable {limit_text} ({who})"
                )
    return problems


def assert_no_node_overcommitted(api: Any) -> None:
    """Fail when any node's bound, non-terminal pods request more than it can hold."""
    problems = overcommitted_nodes(api.list("Node"), api.list("Pod"))
    assert not problems, "node overcommitted:\n" + "\n".join(problems)
