"""NodeResourcesFit (PreFilter, Filter, PreScore, Score): does the node have room, and how full.

Filter, as upstream: `Too many pods`, `Insufficient cpu`, `Insufficient memory`,
`Insufficient ephemeral-storage`, `Insufficient <extended resource>` (all that apply);
UnschedulableAndUnresolvable when the pod asks for more than the node's whole allocatable
(preemption could not help), else Unschedulable. Pods placed by any scheduler count, a pod
resized in place by the larger of its spec and what its node admitted (`Pod.requests`), while
the incoming pod is checked by its spec alone (`Pod.fit_requests`), as upstream. An
extended resource the node does not offer but a DeviceClass provides (DRAExtendedResource)
is not checked here: DynamicResources allocates devices for it.

Score: `scoringStrategy.type` LeastAllocated (default; spread), MostAllocated (bin pack) or
RequestedToCapacityRatio (`requestedToCapacityRatio.shape`), over `scoringStrategy.resources`
(default cpu and memory, weight 1), using the non-zero requests (100m/200Mi for containers
without requests) like upstream, and, like upstream v1.37.2, the containers' requests even
when the pod has pod-level `spec.resources` (the Filter uses the pod-level ones; see
`Pod.fit_score_requests`). An extended resource a DeviceClass
backs, on a node that does not offer it itself, is scored by the node's devices of that
class and how many of them are allocated (DRAExtendedResource, as upstream's
`calculateDRAExtendedResourceAllocatableRequest`; `dra_totals.py` counts them over the
scheduler's shared DRA manager, `Handle.shared_dra_manager()`); a pod requesting such a
resource is not signable, as upstream.

Args (`NodeResourcesFitArgs`): `ignoredResources` (extended resource names the filter
ignores), `ignoredResourceGroups` (their prefixes before `/`), `scoringStrategy`.

Queueing hints (upstream's, v1.37.2 default gates): a rejected pod is requeued when a bound
or nominated pod is deleted; a node is added that fits the pod, or its allocatable grows in
a resource the pod requests (or in pods) and now fits it; a bound pod's request the pod also
requests shrinks; the pod itself is scaled down; a DeviceClass names an extended resource the
pod requests (`spec.extendedResourceName`, or `deviceclass.resource.kubernetes.io/<class>`
when added).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    QueueingHint,
    StateKey,
    Status,
)
from kubesched.framework.dra import DEVICE_CLASSES
from kubesched.framework.signs import resources_sign
from kubesched.model import ApiObject, Node, Pod, Resource
from kubesched.plugins.helper.event_objects import (
    added_or_updated,
    deleted,
    event_objects,
    updated,
)
from kubesched.plugins.helper.extended_resources import (
    DEVICE_CLASS_PREFIX,
    dra_backed,
    extended_resource_classes,
)
from kubesched.plugins.node_resources import resource_scoring as rs
from kubesched.plugins.node_resources.dra_totals import DraTotals
from kubesched.plugins.node_resources.fit_args import NodeResourcesFitArgs

NAME = names.NODE_RESOURCES_FIT
"""The implicit extended resource of a DeviceClass: this prefix and the class's name."""

_QUEUE = QueueingHint.QUEUE
_SKIP = QueueingHint.QUEUE_SKIP


@dataclass(frozen=True, slots=True)
class FitRequest:
    """The pod's requests, minus ignored and zero extended resources."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    scalar: tuple[tuple[str, int], ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or self.scalar)


_PRE_FILTER_KEY: StateKey[FitRequest] = StateKey("PreFilter" + NAME)
_PRE_SCORE_KEY: StateKey[tuple[list[int], rs.DraExtended | None]] = StateKey("PreScore" + NAME)


class NodeResourcesFit:
    name = NAME
    resources = (DEVICE_CLASSES,)
    """DeviceClasses: an extended resource a class provides is DynamicResources' to
    allocate on a node that does not offer it itself (DRAExtendedResource)."""

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self.classes = extended_resource_classes(handle)
        self.args = NodeResourcesFitArgs.from_v1(args)
        self._names = [name for name, _ in self.args.resources]
        self._kinds = rs.resource_kinds(self._names)
        self._scorer = self.args.scorer()
        self._dra = rs.DraScoredResources(
            self._names, self.classes, DraTotals(handle.shared_dra_manager())
        )

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...] | None:
        """Upstream `SignPod`: the pod's requests; none (not signable) when a DeviceClass
        backs one of its extended resources, whose fit and score depend on the devices.
        Equal signatures, equal results on a node (`kubesched.framework.signs`)."""
        if dra_backed(pod, self.classes):
            return None
        if pod.requests.scalar:  # which of them DRA provides depends on the classes
            return (resources_sign(pod), self.classes.version)
        return (resources_sign(pod),)

    def fit_request(self, pod: Pod) -> FitRequest:
        requests = pod.fit_requests  # the spec alone, as upstream's PreFilter
        scalar = tuple(
            (name, amount)
            for name, amount in requests.scalar.items()
            if amount and not self.args.ignores(name)
        )
        return FitRequest(requests.milli_cpu, requests.memory, requests.ephemeral_storage, scalar)

    def pre_filter(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(_PRE_FILTER_KEY, self.fit_request(pod))
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        request = state.get(_PRE_FILTER_KEY)
        if request is None:
            request = self.fit_request(pod)
        return insufficient_resources(request, node_info, self.classes.class_for)

    def required_node_resources(self, state: CycleState, pod: Pod) -> list[str]:
        """The extended resources a node must offer (allocatable above zero) for Filter to
        pass it: those the pod asks that no DeviceClass provides (`runtime.narrowing`)."""
        request = state.get(_PRE_FILTER_KEY)
        if request is None:
            request = self.fit_request(pod)
        class_for = self.classes.class_for
        return [name for name, amount in request.scalar if amount > 0 and class_for(name) is None]

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(_PRE_SCORE_KEY, self._score_inputs(pod))
        return None

    def _score_inputs(self, pod: Pod) -> tuple[list[int], rs.DraExtended | None]:
        requests = rs.pod_requests(pod, self._names, use_requested=False)
        return requests, self._dra.for_pod(requests)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        inputs = state.get(_PRE_SCORE_KEY)
        requests, dra = inputs if inputs is not None else self._score_inputs(pod)
        alloc, req = rs.allocatable_and_requested(
            node_info, self._kinds, requests, use_requested=False, dra=dra
        )
        return self._scorer(req, alloc)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Upstream's with the v1.37.2 default gates: DRAExtendedResource (GA) adds the
        DeviceClass event, InPlacePodVerticalScaling (GA) the scale-downs; the scale-ups of
        InPlacePodVerticalScalingSchedulerPreemption (alpha, off) are not registered."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                self.is_schedulable_after_assigned_pod_delete,
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
                ),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
                self.is_schedulable_after_device_class_event,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_SCALE_DOWN),
                self.is_schedulable_after_assigned_pod_scale_down,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_SCALE_DOWN),
                self.is_schedulable_after_target_pod_scale_down,
            ),
        )

    # The hints leave out upstream's deferred-resize branches (a bound pod whose resize the
    # kubelet deferred: InPlacePodVerticalScalingSchedulerPreemption, alpha and off).

    def is_schedulable_after_assigned_pod_delete(
        self, _pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """Any bound (or nominated) pod's deletion may free room for the pod."""
        removed = deleted(Pod, old, new)
        if not removed.node_name and not removed.nominated_node_name:
            return _SKIP
        return _QUEUE

    def is_schedulable_after_target_pod_scale_down(
        self, _pod: Pod, _old: Any, _new: Any
    ) -> QueueingHint:
        """The pod asks for less: it may fit now."""
        return _QUEUE

    def is_schedulable_after_assigned_pod_scale_down(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """A bound pod shrank in a resource the pod requests."""
        original, modified = updated(Pod, old, new)
        if not modified.node_name:
            return _SKIP  # an unscheduled pod frees nothing on a node
        # Upstream compares `resource.PodRequests` with the status resources (the larger of
        # spec, allocated and actuated requests), what `Pod.requests` and the node's
        # accounting count.
        before, after = original.requests, modified.requests
        for name in pod.requests.names():
            if before.get(name) > after.get(name):
                return _QUEUE
        return _SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A new node the pod fits, or a node that grew in what the pod asks for (or in
        pods) and now fits it. As upstream, ignoredResources do not apply here, and the fit
        is on the node alone (its pods are not counted)."""
        original, modified = event_objects(Node, old, new)
        requests = pod.fit_requests  # upstream `computePodResourceRequest`: the spec alone
        if modified is None or not fits_empty_node(requests, modified.allocatable):
            return _SKIP
        if original is None:
            return _QUEUE
        if any_requested_resource_increased(requests, original.allocatable, modified.allocatable):
            return _QUEUE
        return _SKIP

    def is_schedulable_after_device_class_event(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A DeviceClass that now provides an extended resource the pod requests."""
        original, modified = added_or_updated(ApiObject, old, new)
        extended = _extended_resource_name(modified)
        requested = pod.requests.scalar
        if original is not None:
            if (_extended_resource_name(original) or "") == (extended or ""):
                return _SKIP
        elif DEVICE_CLASS_PREFIX + modified.name in requested:
            return _QUEUE  # only on add: a class's name never changes
        if extended is not None and extended in requested:
            return _QUEUE
        return _SKIP


def insufficient_resources(
    request: FitRequest,
    node_info: NodeInfo,
    dra_class: Callable[[str], str | None] | None = None,
) -> Status | None:
    """None if the pod fits the node, else the status listing every shortage; an extended
    resource the node does not offer but a DeviceClass provides (`dra_class`) is left to
    DynamicResources (upstream `shouldDelegateResourceToDRA`)."""
    allocatable = node_info.node.allocatable
    used = node_info.requested
    if (
        len(node_info.pods) < allocatable.allowed_pods
        and request.milli_cpu <= allocatable.milli_cpu - used.milli_cpu
        and request.memory <= allocatable.memory - used.memory
        and request.ephemeral_storage <= allocatable.ephemeral_storage - used.ephemeral_storage
        and not request.scalar
    ):
        return None  # the common case, without building the list of checks
    reasons: list[str] = []
    if len(node_info.pods) + 1 > allocatable.allowed_pods:
        reasons.append("Too many pods")
    if request.empty:
        return Status(Code.UNSCHEDULABLE, *reasons) if reasons else None
    unresolvable = False
    checks = (
        ("cpu", request.milli_cpu, allocatable.milli_cpu, used.milli_cpu),
        ("memory", request.memory, allocatable.memory, used.memory),
        (
            "ephemeral-storage",
            request.ephemeral_storage,
            allocatable.ephemeral_storage,
            used.ephemeral_storage,
        ),
    )
    for name, wanted, capacity, in_use in checks:
        if wanted > 0 and wanted > capacity - in_use:
            reasons.append(f"Insufficient {name}")
            unresolvable = unresolvable or wanted > capacity
    for name, wanted in request.scalar:
        capacity = allocatable.scalar.get(name, 0)
        if capacity <= 0 and dra_class is not None and dra_class(name) is not None:
            continue
        if wanted > capacity - used.scalar.get(name, 0):
            reasons.append(f"Insufficient {name}")
            unresolvable = unresolvable or wanted > capacity
    if not reasons:
        return None
    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
    return Status(code, *reasons)


def fits_empty_node(requests: Resource, allocatable: Resource) -> bool:
    """Upstream `isFit`: the pod fits a node with no pods on it (no resource ignored)."""
    if allocatable.allowed_pods < 1:
        return False
    return all(requests.get(name) <= allocatable.get(name) for name in requests.names())


def any_requested_resource_increased(
    requests: Resource, original: Resource, modified: Resource
) -> bool:
    """Upstream `haveAnyRequestedResourcesIncreased`: more pods allowed, or more of a
    resource the pod requests. (Upstream also answers yes for an extended resource a
    DeviceClass backs; kubesched knows no DeviceClasses.)"""
    if modified.allowed_pods > original.allowed_pods:
        return True
    return any(modified.get(name) > original.get(name) for name in requests.names())


def _extended_resource_name(device_class: ApiObject) -> str | None:
    name = device_class.spec.get("extendedResourceName")
    return name if isinstance(name, str) else None
