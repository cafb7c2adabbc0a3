"""A Pod reduced to what scheduling needs, parsed straight from the API server's JSON.

Requests follow upstream `resource.PodRequests` (`kubesched.model.pod_requests`): the sum of
the containers, sidecars (restartable init containers) added to it, the largest classic init
container (counting the sidecars started before it) as a floor, pod-level requests when set,
and the pod overhead; a pod resized in place counts the larger of its spec and what its node
admitted (the status resources).

A Pod can be weakly referenced, so that a cache keyed by pod object (InterPodAffinity's
compiled terms) forgets a pod when it is freed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

from kubesched.model.affinity import Affinity, TopologySpreadConstraint, spread_constraints
from kubesched.model.pod_containers import (
    PodContainerResources,
    container_resources,
)
from kubesched.model.pod_containers import qos_class as pod_qos_class
from kubesched.model.pod_extended import ContainerRequests, container_requests
from kubesched.model.pod_features import required_features
from kubesched.model.pod_requests import pod_requests
from kubesched.model.pod_volumes import (
    PodResourceClaim,
    PodVolume,
    generated_claim_names,
    pod_resource_claims,
    pod_volumes,
    resource_claim_names,
)
from kubesched.model.resources import Resource


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Toleration:
        return cls(
            obj.get("key", ""),
            obj.get("operator") or "Equal",
            obj.get("value", ""),
            obj.get("effect", ""),
            obj.get("tolerationSeconds"),
        )


@dataclass(frozen=True, slots=True)
class HostPort:
    ip: str
    protocol: str
    port: int


@dataclass(frozen=True, slots=True)
class OwnerReference:
    kind: str
    name: str
    uid: str
    controller: bool
    api_version: str = ""


@dataclass(slots=True, weakref_slot=True)
class Pod:
    """The fields of a v1 Pod that scheduling reads, parsed once from the API server's JSON
    (`Pod.from_json`); everything else of the object is dropped, so tens of thousands of
    pods fit in little memory.

    A Pod is treated as a value: an update from the informer is a new Pod, and the scheduler
    assumes a pod onto a node with a copy (`on_node`). Caches key results by the object
    (`id(pod)`, a weak reference), which is why it has a weakref slot. No field is written
    after parsing (what kubesched patched since is kept beside the object:
    `kubesched.scheduler.podstatus`); its parts are immutable but for the label, annotation
    and node-selector dicts. The class itself is not a frozen dataclass: that `__init__`
    costs 4.0 µs instead of 0.5 µs for its 40 fields, and several Pods are built for every
    pod scheduled (each informer event, the assumed copy). `affinity` and
    `topology_spread_constraints` are typed structs (`kubesched.model.affinity`) whose
    selectors the plugins compile (`kubesched.model.nodeselector`, the InterPodAffinity and
    PodTopologySpread plugins)."""

    namespace: str
    name: str
    uid: str = ""
    resource_version: str = ""
    generation: int = 0
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    scheduler_name: str = "default-scheduler"
    node_name: str = ""
    nominated_node_name: str = ""
    priority: int = 0
    preemption_policy: str = "PreemptLowerPriority"
    phase: str = "Pending"
    deleting: bool = False
    creation_timestamp: str = ""
    owners: tuple[OwnerReference, ...] = ()
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: Affinity | None = None
    """`spec.affinity` (None when unset or empty)."""
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    host_ports: tuple[HostPort, ...] = ()
    scheduling_gates: tuple[str, ...] = ()
    pod_group_name: str = ""
    """`spec.schedulingGroup.podGroupName`: the scheduling.k8s.io PodGroup (in the pod's
    namespace) this pod belongs to, kube-scheduler's native gang scheduling (v1.36+)."""
    images: tuple[str, ...] = ()
    image_refs: tuple[str, ...] = ()
    """Every image the pod pulls, as ImageLocality counts them: init containers, containers,
    then image volumes (`image.reference`); "" for a container without an image."""
    requests: Resource = field(default_factory=Resource)
    """What the pod holds on its node (upstream `PodInfo.CalculateResource`): the status
    resources of a pod resized in place included."""
    non_zero_requests: Resource = field(default_factory=Resource)
    container_non_zero_requests: Resource | None = None
    """The non-zero requests of the spec's containers alone (pod-level `spec.resources` and
    the status resources ignored), plus overhead; None when they equal `non_zero_requests`.
    See `fit_score_requests`."""
    spec_requests: Resource | None = None
    """The requests of the spec alone (status resources ignored); None when they equal
    `requests`, as for every pod not resized in place. See `fit_requests`."""
    scheduled_condition: tuple[str, str, str] | None = None
    start_time: str = ""
    """`status.startTime` (set by the kubelet); preemption prefers victims started later."""
    volumes: tuple[PodVolume, ...] = ()
    """`spec.volumes` (claims and the in-tree sources the volume plugins read)."""
    resource_claims: tuple[str, ...] = ()
    """The names in `spec.resourceClaims` (dynamic resource allocation)."""
    claim_sources: tuple[PodResourceClaim, ...] = ()
    """`spec.resourceClaims` in full: each claim's name or template."""
    generated_claims: tuple[tuple[str, str | None], ...] = ()
    """`status.resourceClaimStatuses`: the claims made from the pod's templates."""
    container_requests: tuple[ContainerRequests, ...] = ()
    """Each container's own requests, only when the pod requests an extended resource."""
    required_features: frozenset[str] = frozenset()
    """Node features the pod needs (NodeDeclaredFeatures, `model.pod_features`)."""
    preempted_by_scheduler: bool = False
    """A `DisruptionTarget=True` condition with reason `PreemptionByScheduler`: a scheduler
    chose this pod as a preemption victim (upstream `PodTerminatingByPreemption` with
    `deleting`)."""
    qos_class: str = ""
    """`status.qosClass` (the API server sets it at creation), else computed from the spec."""
    container_resources: PodContainerResources | None = None
    """QoS class and each container's exact requests, only while the pod is not bound
    (NodeResourceTopologyMatch, `model.pod_containers`)."""

    def on_node(self, node_name: str) -> Pod:
        """A copy of the pod with `node_name` set (as `dataclasses.replace`, 5x faster: the
        scheduler assumes every pod it places)."""
        values = list(_ALL_FIELDS(self))
        values[_NODE_NAME_INDEX] = node_name
        return Pod(*values)

    @property
    def key(self) -> str:
        """`namespace/name`, the form events and logs use."""
        return f"{self.namespace}/{self.name}"

    @property
    def fit_score_requests(self) -> Resource:
        """What NodeResourcesFit's score counts for this pod: the spec's containers' non-zero
        requests (+ overhead), never the pod-level ones nor the status resources. Upstream's
        `NewFit` enables pod-level resources and in-place resize on the Fit plugin but not on
        the `resourceAllocationScorer` it embeds, so `calculatePodResourceRequest` runs with
        `SkipPodLevelResources` and without `UseStatusResources` (v1.37.2); its Filter and
        BalancedAllocation do use the pod-level requests."""
        own = self.container_non_zero_requests
        return self.non_zero_requests if own is None else own

    @property
    def fit_requests(self) -> Resource:
        """What NodeResourcesFit's Filter asks of a node for this pod: upstream's PreFilter
        (`computePodResourceRequest`) reads the spec alone, never the status resources the
        node's accounting (`requests`) includes."""
        own = self.spec_requests
        return self.requests if own is None else own

    @property
    def terminal(self) -> bool:
        """Succeeded and Failed pods hold no resources on their node."""
        return self.phase in ("Succeeded", "Failed")

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Pod:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        containers = spec.get("containers") or []
        init_containers = spec.get("initContainers") or []
        counted = pod_requests(spec, status, containers, init_containers)
        requests = counted.requests
        return cls(
            namespace=meta.get("namespace", ""),
            name=meta.get("name", ""),
            uid=meta.get("uid", ""),
            resource_version=meta.get("resourceVersion", ""),
            generation=int(meta.get("generation") or 0),
            labels=dict(meta.get("labels") or {}),
            annotations=dict(meta.get("annotations") or {}),
            scheduler_name=spec.get("schedulerName") or "default-scheduler",
            node_name=spec.get("nodeName") or "",
            nominated_node_name=status.get("nominatedNodeName") or "",
            priority=int(spec.get("priority") or 0),
            preemption_policy=spec.get("preemptionPolicy") or "PreemptLowerPriority",
            phase=status.get("phase") or "Pending",
            deleting=meta.get("deletionTimestamp") is not None,
            creation_timestamp=meta.get("creationTimestamp") or "",
            owners=tuple(owner_reference(ref) for ref in meta.get("ownerReferences") or ()),
            node_selector=dict(spec.get("nodeSelector") or {}),
            affinity=Affinity.from_json(spec.get("affinity")),
            tolerations=tuple(Toleration.from_json(t) for t in spec.get("tolerations") or ()),
            topology_spread_constraints=spread_constraints(spec.get("topologySpreadConstraints")),
            host_ports=tuple(_host_ports(containers, init_containers)),
            scheduling_gates=tuple(g.get("name", "") for g in spec.get("schedulingGates") or ()),
            pod_group_name=(spec.get("schedulingGroup") or {}).get("podGroupName") or "",
            images=tuple(c.get("image", "") for c in containers if c.get("image")),
            image_refs=_image_refs(spec, containers, init_containers),
            requests=requests,
            non_zero_requests=counted.non_zero,
            container_non_zero_requests=counted.fit_score,
            spec_requests=counted.spec,
            scheduled_condition=_scheduled_condition(status),
            start_time=status.get("startTime") or "",
            volumes=pod_volumes(meta.get("name", ""), spec),
            resource_claims=resource_claim_names(spec),
            claim_sources=pod_resource_claims(spec),
            generated_claims=generated_claim_names(status),
            container_requests=(
                container_requests(containers, init_containers) if requests.scalar else ()
            ),
            required_features=required_features(spec),
            preempted_by_scheduler=_preempted_by_scheduler(status),
            qos_class=pod_qos_class(spec, status),
            container_resources=(
                None if spec.get("nodeName") else container_resources(spec, status)
            ),
        )


def _image_refs(
    spec: dict[str, Any], containers: list[dict[str, Any]], init_containers: list[dict[str, Any]]
) -> tuple[str, ...]:
    refs = [c.get("image") or "" for c in [*init_containers, *containers]]
    for volume in spec.get("volumes") or ():
        image = volume.get("image")
        if image is not None:
            refs.append((image or {}).get("reference") or "")
    return tuple(refs)


def owner_reference(ref: dict[str, Any]) -> OwnerReference:
    """One `metadata.ownerReferences` entry."""
    return OwnerReference(
        ref.get("kind", ""),
        ref.get("name", ""),
        ref.get("uid", ""),
        bool(ref.get("controller")),
        ref.get("apiVersion", ""),
    )


def _is_sidecar(container: dict[str, Any]) -> bool:
    return container.get("restartPolicy") == "Always"


def _host_ports(
    containers: list[dict[str, Any]], init_containers: list[dict[str, Any]]
) -> Iterable[HostPort]:
    for container in [*containers, *filter(_is_sidecar, init_containers)]:
        for port in container.get("ports") or ():
            host_port = int(port.get("hostPort") or 0)
            if host_port > 0:
                yield HostPort(
                    port.get("hostIP") or "0.0.0.0",  # noqa: S104 - the API's "all addresses"
                    port.get("protocol") or "TCP",
                    host_port,
                )


def _scheduled_condition(status: dict[str, Any]) -> tuple[str, str, str] | None:
    for condition in status.get("conditions") or ():
        if condition.get("type") == "PodScheduled":
            return (
                condition.get("status", ""),
                condition.get("reason", ""),
                condition.get("message", ""),
            )
    return None


DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


def _preempted_by_scheduler(status: dict[str, Any]) -> bool:
    for condition in status.get("conditions") or ():
        if condition.get("type") == DISRUPTION_TARGET:
            return bool(
                condition.get("status") == "True"
                and condition.get("reason") == PREEMPTION_BY_SCHEDULER
            )
    return False


_FIELD_NAMES = tuple(each.name for each in fields(Pod))
_ALL_FIELDS = attrgetter(*_FIELD_NAMES)
_NODE_NAME_INDEX = _FIELD_NAMES.index("node_name")
