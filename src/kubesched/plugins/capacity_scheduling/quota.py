"""scheduler-plugins' ElasticQuota (`scheduling.x-k8s.io/v1alpha1`) as CapacityScheduling
counts it: one quota per namespace, its `min` and `max`, and what the namespace's pods use.

Every comparison is scheduler-plugins' `cmp2`: cpu, memory, ephemeral-storage and pods are
compared as they are (a resource the quota does not name counts as 0, so a quota with
`max: {cpu: 6}` refuses any pod that requests memory), extended resources (`nvidia.com/gpu`)
only when the request names them, against the quota's amount or, when the quota does not
name them, 0 for `min` and unlimited for `max`. A quota without `max` is unlimited in cpu,
memory and ephemeral-storage; one without `min` guarantees nothing.

A pod uses what scheduler-plugins' `computePodResourceRequest` counts: its containers'
requests summed, at least each init container's, plus the overhead (`pod_request`).
Testable without the framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.framework.resources import ResourceSpec
from kubesched.model import ApiObject, Pod, Resource
from kubesched.model.resources import CPU, EPHEMERAL_STORAGE, MEMORY

ELASTIC_QUOTAS = ResourceSpec("scheduling.x-k8s.io", "v1alpha1", "elasticquotas")
"""The ElasticQuota custom resource CapacityScheduling reads (get/list/watch)."""

UPPER_BOUND_OF_MAX = 2**63 - 1
"""scheduler-plugins' `UpperBoundOfMax` (math.MaxInt64): `max` of what a quota leaves out."""
LOWER_BOUND_OF_MIN = 0


def pod_request(pod: Pod) -> Resource:
    """What a pod counts against its quota: the requests of its spec, each resource the
    larger of the containers' sum and any init container's, plus the overhead (the spec's
    requests, never the resources a resize has admitted)."""
    return pod.fit_requests


def _unbounded() -> Resource:
    """scheduler-plugins' `makeResourceListForBound(MaxInt64)`: cpu (in millicores),
    memory and ephemeral-storage unlimited, nothing else named."""
    return Resource(
        milli_cpu=UPPER_BOUND_OF_MAX,
        memory=UPPER_BOUND_OF_MAX,
        ephemeral_storage=UPPER_BOUND_OF_MAX,
    )


def exceeds(request: Resource, used: Resource, limit: Resource, *, bound: int) -> bool:
    """Whether `request + used` exceeds `limit` in any resource (scheduler-plugins' `cmp2`):
    extended resources are checked only where `request` names them, against `bound` when
    `limit` does not name them."""
    if request.milli_cpu + used.milli_cpu > limit.milli_cpu:
        return True
    if request.memory + used.memory > limit.memory:
        return True
    if request.ephemeral_storage + used.ephemeral_storage > limit.ephemeral_storage:
        return True
    if request.allowed_pods + used.allowed_pods > limit.allowed_pods:
        return True
    return any(
        amount + used.scalar.get(name, 0) > limit.scalar.get(name, bound)
        for name, amount in request.scalar.items()
    )


@dataclass(slots=True)
class QuotaInfo:
    """One namespace's ElasticQuota with what its pods use (scheduler-plugins'
    `ElasticQuotaInfo`); `pods` holds the UIDs counted in `used`, each with what it was
    charged (so a pod is taken off as it was counted). `min` and `max` are never changed in
    place."""

    namespace: str
    min: Resource = field(default_factory=Resource)
    max: Resource = field(default_factory=_unbounded)
    used: Resource = field(default_factory=Resource)
    pods: dict[str, Resource] = field(default_factory=dict)
    shared: bool = field(default=False, compare=False)
    """`pods` is shared with a clone: copied before either changes it."""

    @classmethod
    def of(
        cls,
        namespace: str,
        *,
        min: Mapping[str, Any] | None = None,  # noqa: A002 - the API's field name
        max: Mapping[str, Any] | None = None,  # noqa: A002 - the API's field name
    ) -> QuotaInfo:
        """A quota from the spec's `min` and `max` ResourceLists (absent: the bounds)."""
        return cls(
            namespace,
            min=Resource() if min is None else Resource.from_list(dict(min)),
            max=_unbounded() if max is None else Resource.from_list(dict(max)),
        )

    @classmethod
    def from_object(cls, obj: ApiObject) -> QuotaInfo:
        """The quota an ElasticQuota object sets for its namespace."""
        spec = obj.spec
        return cls.of(obj.namespace, min=spec.get("min"), max=spec.get("max"))

    def clone(self) -> QuotaInfo:
        """A copy that changes apart from this one; the pod set is copied on the first write
        of either (PreFilter clones every quota each cycle, preemption once per node tried)."""
        self.shared = True
        used = self.used.copy()
        return QuotaInfo(self.namespace, self.min, self.max, used, self.pods, shared=True)

    def _own_pods(self) -> dict[str, Resource]:
        if self.shared:
            self.pods, self.shared = dict(self.pods), False
        return self.pods

    def add_pod(self, pod: Pod, usage: Resource | None = None) -> None:
        """Count `pod` (once: a pod counted already is left alone), charged `usage`
        (`pod_request(pod)` when not given; `devices.PodUsage` adds its claims' devices)."""
        if pod.uid in self.pods:
            return
        charged = pod_request(pod) if usage is None else usage
        self._own_pods()[pod.uid] = charged
        self.used.add(charged)

    def remove_pod(self, pod: Pod) -> None:
        """Stop counting `pod`, taking off what it was charged (a pod not counted is left
        alone)."""
        if pod.uid not in self.pods:
            return
        self.used.subtract(self._own_pods().pop(pod.uid))

    def used_over_min_with(self, request: Resource) -> bool:
        return exceeds(request, self.used, self.min, bound=LOWER_BOUND_OF_MIN)

    def used_over_max_with(self, request: Resource) -> bool:
        return exceeds(request, self.used, self.max, bound=UPPER_BOUND_OF_MAX)

    def used_over_min(self) -> bool:
        return exceeds(self.used, Resource(), self.min, bound=LOWER_BOUND_OF_MIN)


class QuotaInfos(dict[str, QuotaInfo]):
    """The quotas by namespace (scheduler-plugins' `ElasticQuotaInfos`)."""

    def clone(self) -> QuotaInfos:
        return QuotaInfos({namespace: info.clone() for namespace, info in self.items()})

    def aggregated_used_over_min_with(self, request: Resource) -> bool:
        """Whether the quotas' used totals plus `request` exceed the sum of their `min`s:
        borrowing beyond what the quotas guarantee together is refused."""
        used, minimum = Resource(), Resource()
        for info in self.values():
            used.add(info.used)
            minimum.add(info.min)
        used.add(request)
        return exceeds(used, Resource(), minimum, bound=LOWER_BOUND_OF_MIN)


def min_over_max(info: QuotaInfo) -> list[str]:
    """The resources a quota guarantees more of than it allows (`min` above `max`), sorted:
    scheduler-plugins accepts such a quota, and its pods are held to `max` all the same."""
    return sorted(name for name in info.min.names() if info.min.get(name) > _limit(info, name))


def _limit(info: QuotaInfo, name: str) -> int:
    """`max` of one resource; unlimited for an extended resource `max` does not name."""
    scalar = name not in (CPU, MEMORY, EPHEMERAL_STORAGE)
    if scalar and name not in info.max.scalar:
        return UPPER_BOUND_OF_MAX
    return info.max.get(name)
