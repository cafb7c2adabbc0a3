"""A pod's requests as kube-scheduler v1.37.2 counts them (k8s.io/component-helpers
`resource.PodRequests`).

The containers' requests are summed, sidecars (restartable init containers) added, the
largest classic init container (with the sidecars started before it) taken as a floor
(`aggregateContainerResourcesByFn`); pod-level requests replace cpu, memory and hugepages
when set (`applyPodLevelResources`); the overhead is added.

A pod resized in place (InPlacePodVerticalScaling, GA and locked on since 1.35) is counted,
on its node, by the larger of what its spec asks for and what the node has admitted
(`AggregateContainerRequests` with `UseStatusResources`): per resource, the maximum of the
spec's aggregate, the allocated one (`containerStatuses[].allocatedResources`) and the
actuated one (`containerStatuses[].resources.requests`, else allocated), each aggregated
with the same formula; when the `PodResizePending` condition says `Infeasible`, the spec is
left out (the larger of actuated and allocated, a container without status counting
nothing). InPlacePodLevelResourcesVerticalScaling is Beta and on by default in v1.37.2, so a
pod whose `status.allocatedResources` and `status.resources.requests` are both set is counted
by those aggregates instead of its container statuses, and pod-level requests by the larger
of `spec.resources.requests` and `status.resources.requests` / `status.allocatedResources`
(`effectivePodLevelResources`). A deferred resize is counted like one in progress (only the
alpha InPlacePodVerticalScalingSchedulerPreemption treats it apart).

Where the scheduler counts what (v1.37.2): the node's pods (`PodInfo.CalculateResource`) and
NodeResourcesBalancedAllocation's score with the status resources; NodeResourcesFit's
PreFilter (`computePodResourceRequest`) and its score (`calculatePodResourceRequest` on a
scorer built without the in-place flags) from the spec alone, the score also without the
pod-level requests. The non-zero requests replace a container's missing cpu and memory with
the defaults (`NonMissingContainerRequests`); with pod-level requests, only those missing
from the pod's requests altogether (`getNonMissingContainerRequests`).

Pods with neither pod-level requests nor status resources (all pending pods, and bound pods
whose kubelet reports none) take the short path: two sums over the containers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.model.quantity import milli_value, value
from kubesched.model.resources import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    Resource,
    is_scalar_resource,
)

HUGEPAGES_PREFIX = "hugepages-"
POD_RESIZE_PENDING = "PodResizePending"
REASON_INFEASIBLE = "Infeasible"
REASON_DEFERRED = "Deferred"

Amounts = dict[str, int]
"""A ResourceList in scheduler units (cpu in millicores, the rest in whole units); a name
present with 0 is not the same as an absent one (the non-zero defaults fill absent ones)."""

_DEFAULTS: Amounts = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}


@dataclass(frozen=True, slots=True)
class PodRequests:
    requests: Resource
    """On the node, and BalancedAllocation's: status resources and pod-level included."""
    non_zero: Resource
    """As `requests`, missing cpu/memory replaced by the defaults."""
    fit_score: Resource | None = None
    """NodeResourcesFit's score: the spec's containers, non-zero, plus overhead; None when
    equal to `non_zero`."""
    spec: Resource | None = None
    """NodeResourcesFit's filter: the spec alone (pod-level included); None when equal to
    `requests`."""


def is_supported_pod_level_resource(name: str) -> bool:
    """Upstream `IsSupportedPodLevelResource`: cpu, memory and hugepages."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def pod_requests(
    spec: Mapping[str, Any],
    status: Mapping[str, Any],
    containers: list[dict[str, Any]],
    init_containers: list[dict[str, Any]],
) -> PodRequests:
    pod_level = (spec.get("resources") or {}).get("requests") or {}
    pod_level_set = any(is_supported_pod_level_resource(name) for name in pod_level)
    if not pod_level_set and _status_is_spec(status, containers, init_containers):
        overhead = Resource.from_list(spec.get("overhead"))
        requests = _sum_requests(containers, init_containers, non_zero=False)
        non_zero = _sum_requests(containers, init_containers, non_zero=True)
        requests.add(overhead)
        non_zero.add(overhead)
        return PodRequests(requests, non_zero)
    return _PodView(spec, status, containers, init_containers, pod_level_set).requests()


def _status_is_spec(
    status: Mapping[str, Any],
    containers: list[dict[str, Any]],
    init_containers: list[dict[str, Any]],
) -> bool:
    """Whether the status resources cannot change the requests: none reported at pod level,
    no infeasible resize, and each container's allocated and actuated requests the very
    lists of its spec (as a kubelet reports a pod it has not resized)."""
    if status.get("resources") is not None or status.get("allocatedResources") is not None:
        return False
    statuses = status.get("containerStatuses") or ()
    init_statuses = status.get("initContainerStatuses") or ()
    if not statuses and not init_statuses and not status.get("conditions"):
        return True  # a pending pod
    if resize_pending_reason(status) == REASON_INFEASIBLE:
        return False
    specs = {
        c.get("name"): (c.get("resources") or {}).get("requests") or {}
        for c in (*containers, *init_containers)
    }
    for each in (*statuses, *init_statuses):
        own = specs.get(each.get("name"))
        if own is None:
            continue  # no container of that name: upstream never looks it up
        allocated = each.get("allocatedResources")
        if allocated and allocated != own:
            return False
        actuated = (each.get("resources") or {}).get("requests")
        if actuated and actuated != own:
            return False
    return True


def resize_pending_reason(status: Mapping[str, Any]) -> str:
    """The reason of the `PodResizePending` condition ("Deferred", "Infeasible"), else ""."""
    for condition in status.get("conditions") or ():
        if condition.get("type") == POD_RESIZE_PENDING:
            return str(condition.get("reason") or "")
    return ""


# -- the short path: spec only, no pod-level requests ----------------------------------------


def _container_requests(container: dict[str, Any], *, non_zero: bool) -> Resource:
    requests = (container.get("resources") or {}).get("requests") or {}
    result = Resource.from_list(requests)
    if non_zero:
        if CPU not in requests:
            result.milli_cpu = DEFAULT_MILLI_CPU_REQUEST
        if MEMORY not in requests:
            result.memory = DEFAULT_MEMORY_REQUEST
    return result


def _sum_requests(
    containers: list[dict[str, Any]], init_containers: list[dict[str, Any]], *, non_zero: bool
) -> Resource:
    total = Resource()
    for container in containers:
        total.add(_container_requests(container, non_zero=non_zero))
    sidecars = Resource()
    init_floor = Resource()
    for container in init_containers:
        own = _container_requests(container, non_zero=non_zero)
        if container.get("restartPolicy") == "Always":
            total.add(own)
            sidecars.add(own)
            init_floor.set_max(sidecars)
        else:
            own.add(sidecars)
            init_floor.set_max(own)
    total.set_max(init_floor)
    return total


# -- the full path: resource lists with names, as upstream ---------------------------------


def amounts(resources: Mapping[str, Any] | None) -> Amounts | None:
    """A ResourceList in scheduler units; None for an absent or empty one (kube-scheduler
    reads pods as protobuf, where an empty list arrives as nil)."""
    if not resources:
        return None
    return {
        name: milli_value(quantity) if name == CPU else value(quantity)
        for name, quantity in resources.items()
    }


def _add(total: Amounts, other: Amounts | None) -> None:
    for name, amount in (other or {}).items():
        total[name] = total.get(name, 0) + amount


def _set_max(total: Amounts, other: Amounts | None) -> None:
    for name, amount in (other or {}).items():
        if name not in total or amount > total[name]:
            total[name] = amount


def larger(*lists: Amounts | None) -> Amounts:
    """Upstream `max(a, b...)`: per name, the largest amount of the lists naming it."""
    result: Amounts = {}
    for each in lists:
        _set_max(result, each)
    return result


def to_resource(named: Amounts) -> Resource:
    """The `framework.Resource` of a resource list (`Resource.Add`)."""
    result = Resource()
    scalar = result.scalar
    for name, amount in named.items():
        if name == CPU:
            result.milli_cpu = amount
        elif name == MEMORY:
            result.memory = amount
        elif name == EPHEMERAL_STORAGE:
            result.ephemeral_storage = amount
        elif name == PODS:
            result.allowed_pods = amount
        elif is_scalar_resource(name):
            scalar[name] = amount
    return result


@dataclass(frozen=True, slots=True)
class _Container:
    spec: Amounts | None
    allocated: Amounts | None
    """`allocatedResources` of its status (None: no status, or none reported)."""
    actuated: Amounts | None
    """`resources.requests` of its status, else `allocated`."""
    sidecar: bool = False

    def pick(self, kind: str, infeasible: bool) -> Amounts | None:
        """`containerSpecRequests`, `containerAllocatedRequests`, `containerActuatedRequests`."""
        if kind == "spec":
            return self.spec
        chosen = self.actuated if kind == "actuated" else self.allocated
        if chosen is not None:
            return chosen
        return None if infeasible else self.spec


class _PodView:
    """One pod's containers with their statuses, aggregated the upstream ways."""

    def __init__(
        self,
        spec: Mapping[str, Any],
        status: Mapping[str, Any],
        containers: list[dict[str, Any]],
        init_containers: list[dict[str, Any]],
        pod_level_set: bool,
    ) -> None:
        statuses: dict[str, Mapping[str, Any]] = {}
        for key in ("containerStatuses", "initContainerStatuses"):  # upstream's search order
            for each in status.get(key) or ():
                statuses.setdefault(str(each.get("name") or ""), each)
        self.containers = [_container(c, statuses) for c in containers]
        self.init_containers = [_container(c, statuses) for c in init_containers]
        self.infeasible = resize_pending_reason(status) == REASON_INFEASIBLE
        self.pod_level_set = pod_level_set
        self.pod_level = amounts((spec.get("resources") or {}).get("requests")) or {}
        self.overhead = amounts(spec.get("overhead")) or {}
        resources = status.get("resources")
        self.status_resources = resources is not None
        self.status_actuated = amounts((resources or {}).get("requests"))
        self.status_allocated = amounts(status.get("allocatedResources"))

    def requests(self) -> PodRequests:
        requests = self.pod_requests(status=True, pod_level=True, non_missing=None)
        if not self.pod_level_set:
            non_missing = _DEFAULTS
        else:
            non_missing = {k: v for k, v in _DEFAULTS.items() if k not in requests}
        non_zero = (
            self.pod_requests(status=True, pod_level=True, non_missing=non_missing)
            if non_missing
            else requests
        )
        fit_score = self.pod_requests(status=False, pod_level=False, non_missing=_DEFAULTS)
        spec = self.pod_requests(status=False, pod_level=True, non_missing=None)
        result = to_resource(requests)
        non_zero_result = to_resource(non_zero)
        fit_score_result = to_resource(fit_score)
        spec_result = to_resource(spec)
        return PodRequests(
            result,
            non_zero_result,
            None if fit_score_result == non_zero_result else fit_score_result,
            None if spec_result == result else spec_result,
        )

    def pod_requests(
        self, *, status: bool, pod_level: bool, non_missing: Amounts | None
    ) -> Amounts:
        """Upstream `PodRequests` (overhead included) with `UseStatusResources=status`,
        `SkipPodLevelResources=not pod_level`, `NonMissingContainerRequests=non_missing`."""
        if status:
            total = self.container_requests(non_missing)
        else:
            total = self.aggregate("spec", non_missing, infeasible=False)
        if pod_level and self.pod_level_set:
            effective: Amounts | None = self.pod_level
            if status and self.status_resources:  # `effectivePodLevelResources`
                spec = None if self.infeasible else self.pod_level
                effective = larger(spec, self.status_actuated, self.status_allocated)
            for name, amount in (effective or {}).items():
                if is_supported_pod_level_resource(name):
                    total[name] = amount
        _add(total, self.overhead)
        return total

    def container_requests(self, non_missing: Amounts | None) -> Amounts:
        """Upstream `AggregateContainerRequests` with `UseStatusResources`."""
        spec = self.aggregate("spec", non_missing, infeasible=self.infeasible)
        if self.status_allocated is not None and self.status_actuated is not None:
            allocated, actuated = self.status_allocated, self.status_actuated
        else:
            allocated = self.aggregate("allocated", non_missing, infeasible=self.infeasible)
            actuated = self.aggregate("actuated", non_missing, infeasible=self.infeasible)
        if self.infeasible:
            return larger(actuated, allocated)
        return larger(spec, actuated, allocated)

    def aggregate(self, kind: str, non_missing: Amounts | None, *, infeasible: bool) -> Amounts:
        """Upstream `aggregateContainerResourcesByFn`: containers + sidecars, the init
        containers' peak (each with the sidecars started before it) as a floor."""
        total: Amounts = {}
        for container in self.containers:
            _add(total, _non_missing(container.pick(kind, infeasible), non_missing))
        sidecars: Amounts = {}
        floor: Amounts = {}
        for container in self.init_containers:
            own = _non_missing(container.pick(kind, infeasible), non_missing)
            if container.sidecar:
                _add(total, own)
                _add(sidecars, own)
                _set_max(floor, sidecars)
            else:
                combined: Amounts = {}
                _add(combined, own)
                _add(combined, sidecars)
                _set_max(floor, combined)
        _set_max(total, floor)
        return total


def _non_missing(requests: Amounts | None, non_missing: Amounts | None) -> Amounts | None:
    """Upstream `applyNonMissing`: the defaults for the names the container leaves out."""
    if not non_missing:
        return requests
    out = dict(requests or {})
    for name, amount in non_missing.items():
        if name not in out:
            out[name] = amount
    return out


def _container(raw: dict[str, Any], statuses: Mapping[str, Mapping[str, Any]]) -> _Container:
    spec = amounts((raw.get("resources") or {}).get("requests"))
    sidecar = raw.get("restartPolicy") == "Always"
    status = statuses.get(str(raw.get("name") or ""))
    if status is None:
        return _Container(spec, None, None, sidecar=sidecar)
    allocated = amounts(status.get("allocatedResources"))
    actuated = amounts((status.get("resources") or {}).get("requests"))
    return _Container(spec, allocated, allocated if actuated is None else actuated, sidecar)
