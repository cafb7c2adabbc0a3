"""A pending pod's QoS class and its containers' own requests, exact, for plugins that place
containers one by one (scheduler-plugins' NodeResourceTopologyMatch aligns each container
to a NUMA zone).

Kept only for pods not yet bound (`Pod.container_resources`): nothing reads them for pods
already on a node, and tens of thousands of those must stay small.

Amounts are milli-values (`1` cpu is 1000, `1Gi` of memory is 1073741824000), exact for
every quantity with at most three decimals, so comparing them is Go's `Quantity.Cmp`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.model.quantity import QuantityError, milli_value

GUARANTEED = "Guaranteed"
BURSTABLE = "Burstable"
BEST_EFFORT = "BestEffort"
_QOS_RESOURCES = ("cpu", "memory")
_CANONICAL = {name: name for name in (GUARANTEED, BURSTABLE, BEST_EFFORT)}

KIND_INIT = "init"
KIND_SIDECAR = "sidecar"
KIND_APP = "app"


@dataclass(frozen=True, slots=True)
class ContainerResources:
    """One container of `initContainers + containers`, in that order."""

    name: str
    kind: str
    """`init`, `sidecar` (an init container with `restartPolicy: Always`) or `app`."""
    requests: Mapping[str, int] = field(default_factory=dict)
    """Its `resources.requests` as milli-values, every name kept (zero ones too)."""


@dataclass(frozen=True, slots=True)
class PodContainerResources:
    """What a NUMA-aware plugin reads of a pending pod."""

    qos_class: str
    containers: tuple[ContainerResources, ...] = ()
    overhead: Mapping[str, int] = field(default_factory=dict)
    """`spec.overhead` as milli-values."""

    @property
    def init_containers(self) -> tuple[ContainerResources, ...]:
        return tuple(c for c in self.containers if c.kind != KIND_APP)

    @property
    def app_containers(self) -> tuple[ContainerResources, ...]:
        return tuple(c for c in self.containers if c.kind == KIND_APP)


def container_resources(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> PodContainerResources:
    """The pod's containers' requests and its QoS class (`status.qosClass`, which the API
    server sets at creation, else computed as kubelet's `ComputePodQOS`).

    Pods alike (a Deployment's, a Job's) share one object: the result is kept by what it is
    made of, for up to `_SHARED_LIMIT` different shapes (then the memo starts again)."""
    given = status.get("qosClass")
    key = _shape(spec, given) if given else None
    if key is not None and (shared := _SHARED.get(key)) is not None:
        return shared
    made = _make(spec, status)
    if key is not None:
        if len(_SHARED) >= _SHARED_LIMIT:
            _SHARED.clear()
        _SHARED[key] = made
    return made


_SHARED: dict[tuple[Any, ...], PodContainerResources] = {}
_SHARED_LIMIT = 4096


def _shape(spec: Mapping[str, Any], qos: str) -> tuple[Any, ...] | None:
    """What the result is made of, hashable; None when it cannot be (odd JSON)."""
    parts: list[Any] = [qos]
    for field_name in ("initContainers", "containers"):
        for raw in spec.get(field_name) or ():
            requests = (raw.get("resources") or {}).get("requests") or {}
            parts.append((raw.get("name"), raw.get("restartPolicy"), *requests.items()))
        parts.append(field_name)
    parts.extend((spec.get("overhead") or {}).items())
    key = tuple(parts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _make(spec: Mapping[str, Any], status: Mapping[str, Any]) -> PodContainerResources:
    init = spec.get("initContainers") or []
    app = spec.get("containers") or []
    containers = [
        ContainerResources(
            name=str(raw.get("name") or ""),
            kind=(KIND_SIDECAR if raw.get("restartPolicy") == "Always" else KIND_INIT)
            if index < len(init)
            else KIND_APP,
            requests=_milli_values((raw.get("resources") or {}).get("requests")),
        )
        for index, raw in enumerate([*init, *app])
    ]
    return PodContainerResources(
        qos_class=qos_class(spec, status),
        containers=tuple(containers),
        overhead=_milli_values(spec.get("overhead")),
    )


def qos_class(spec: Mapping[str, Any], status: Mapping[str, Any]) -> str:
    """`status.qosClass` (set by the API server at creation), else `compute_qos_class`; one
    shared string per class."""
    given = status.get("qosClass")
    if given:
        return _CANONICAL.get(given, str(given))
    return compute_qos_class(spec)


def compute_qos_class(spec: Mapping[str, Any]) -> str:
    """Kubernetes' `ComputePodQOS` (PodLevelResources on, as in v1.35 and later): from the
    pod-level resources when `spec.resources` is set, else from every container's cpu and
    memory (each container must limit both for Guaranteed)."""
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    pod_level = spec.get("resources")
    if isinstance(pod_level, Mapping):
        _add_positive(requests, pod_level.get("requests"))
        if pod_level.get("limits"):
            found = _add_positive(limits, pod_level.get("limits"))
            guaranteed = found.issuperset(_QOS_RESOURCES)
    else:
        for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
            resources = container.get("resources") or {}
            _add_positive(requests, resources.get("requests"))
            found = _add_positive(limits, resources.get("limits"))
            guaranteed = guaranteed and found.issuperset(_QOS_RESOURCES)
    if not requests and not limits:
        return BEST_EFFORT
    matched = all(limits.get(name) == amount for name, amount in requests.items())
    if guaranteed and matched and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE


def _add_positive(total: dict[str, int], quantities: Mapping[str, Any] | None) -> set[str]:
    """Add the positive cpu and memory amounts to `total`; the names found."""
    found = set()
    for name, amount in _milli_values(quantities).items():
        if name in _QOS_RESOURCES and amount > 0:
            total[name] = total.get(name, 0) + amount
            found.add(name)
    return found


def _milli_values(quantities: Mapping[str, Any] | None) -> dict[str, int]:
    out = {}
    for name, quantity in (quantities or {}).items():
        amount = _milli_value(quantity)
        if amount is not None:
            out[str(name)] = amount
    return out


def _milli_value(quantity: Any) -> int | None:
    """`milli_value`, remembered for the quantities seen (they repeat across pods); None for
    a malformed one."""
    try:
        return _MILLI[quantity]
    except (KeyError, TypeError):
        pass
    try:
        amount = milli_value(quantity)
    except (QuantityError, ValueError, TypeError):
        return None
    if len(_MILLI) >= _SHARED_LIMIT:
        _MILLI.clear()
    _MILLI[quantity] = amount
    return amount


_MILLI: dict[Any, int] = {}
