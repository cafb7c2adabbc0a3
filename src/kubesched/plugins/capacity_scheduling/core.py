"""CapacityScheduling's bookkeeping and its PreFilter verdict, without the framework.

`QuotaBook` keeps one `QuotaInfo` per namespace current, as scheduler-plugins' plugin does
from its informers: an ElasticQuota added (a namespace that has one already keeps it),
updated (the new `min`/`max`, the used totals carried over) or deleted; a pod counted when
it is bound (or found bound), reserved, and no longer counted when it is deleted, ends
(Succeeded or Failed) or is unreserved. A bound pod in a namespace the book has no quota for
yet looks its quota up in the ElasticQuota lister (the first by name), as upstream lists
them then.

`pre_filter` is the PreFilter check (upstream texts):
`Pod <ns>/<name> is rejected in PreFilter because ElasticQuota <ns> is more than Max` and
`Pod <ns>/<name> is rejected in PreFilter because total ElasticQuota used is more than min`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kubesched.framework import StateKey
from kubesched.framework.listers import Lister
from kubesched.framework.logkv import kv
from kubesched.model import ApiObject, Pod, Resource
from kubesched.plugins.capacity_scheduling.problems import MIN_EXCEEDS_MAX, QuotaProblems
from kubesched.plugins.capacity_scheduling.quota import (
    QuotaInfo,
    QuotaInfos,
    min_over_max,
    pod_request,
)

log = logging.getLogger(__name__)

MIN_EXCEEDS_MAX_FIX = "its pods are held to max; lower min or raise max"
ENDED = ("Succeeded", "Failed")
ACTIVE = ("Running", "Pending")


@dataclass(frozen=True, slots=True)
class PreFilterState:
    """What PreFilter computed for the pod (read again by PostFilter's preemption)."""

    pod_request: Resource
    in_quota_with_pod: Resource = field(default_factory=Resource)
    """The pod's request plus those of the pods nominated in its namespace with at least
    its priority (upstream `nominatedPodsReqInEQWithPodReq`)."""
    all_with_pod: Resource = field(default_factory=Resource)
    """`in_quota_with_pod` plus the pods nominated in other namespaces whose quota is not
    over its `min` (upstream `nominatedPodsReqWithPodReq`)."""


@dataclass(slots=True)
class QuotaSnapshot:
    """The quotas as PreFilter saw them; the preemption dry run changes a clone per node."""

    infos: QuotaInfos

    def clone(self) -> QuotaSnapshot:
        return QuotaSnapshot(self.infos.clone())


SNAPSHOT_KEY: StateKey[QuotaSnapshot] = StateKey("ElasticQuotaSnapshot")
PRE_FILTER_KEY: StateKey[PreFilterState] = StateKey("PreFilterCapacityScheduling")


PodUsage = Callable[[Pod], Resource]
"""What a pod is charged (`pod_request`, or `devices.PodUsage` with its claims' devices)."""


class QuotaBook:
    """The live quotas by namespace with their used totals."""

    def __init__(
        self,
        quotas: Lister[ApiObject],
        usage: PodUsage = pod_request,
        problems: QuotaProblems | None = None,
    ) -> None:
        """`problems`: where a quota whose `min` exceeds its `max` is reported (an Event on
        it, `problems.MIN_EXCEEDS_MAX`)."""
        self.infos = QuotaInfos()
        self._quotas = quotas
        self.usage = usage
        self.problems = problems if problems is not None else QuotaProblems()

    def snapshot(self) -> QuotaSnapshot:
        return QuotaSnapshot(self.infos.clone())

    # ---- ElasticQuota events ------------------------------------------------------------

    def quota_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        """The ElasticQuota lister's listener (added, updated or deleted)."""
        if new is None:
            if old is not None:
                self.infos.pop(old.namespace, None)
                self.problems.forget_quota(old)
            return
        _warn_min_over_max(new, self.problems)
        if old is None:
            if new.namespace not in self.infos:
                self.infos[new.namespace] = QuotaInfo.from_object(new)
            return
        info = QuotaInfo.from_object(new)
        previous = self.infos.get(old.namespace)
        if previous is not None:
            info.pods, info.used, info.shared = previous.pods, previous.used, previous.shared
        self.infos[new.namespace] = info

    # ---- pod events (bound pods only) -----------------------------------------------------

    def pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        """The pod lister's listener, filtered to bound pods as upstream's handler is."""
        was = old is not None and bool(old.node_name)
        now = new is not None and bool(new.node_name)
        if now and not was and new is not None:
            self.pod_bound(new)
        elif was and now and old is not None and new is not None:
            self._pod_updated(old, new)
        elif was and old is not None:
            self.pod_gone(old)

    def pod_bound(self, pod: Pod) -> None:
        info = self.infos.get(pod.namespace) or self._look_up(pod.namespace)
        if info is not None:
            info.add_pod(pod, self.usage(pod))

    def charge_again(self, pods: Iterable[Pod]) -> None:
        """Count counted `pods` again with what they use now (a claim they name arrived)."""
        for pod in pods:
            info = self.infos.get(pod.namespace)
            if info is not None and pod.uid in info.pods:
                info.remove_pod(pod)
                info.add_pod(pod, self.usage(pod))

    def _look_up(self, namespace: str) -> QuotaInfo | None:
        quotas = sorted(self._quotas.list(namespace), key=lambda obj: obj.name)
        if not quotas:
            return None
        info = self.infos[namespace] = QuotaInfo.from_object(quotas[0])
        return info

    def _pod_updated(self, old: Pod, new: Pod) -> None:
        if old.phase in ENDED:
            return
        if new.phase not in ACTIVE:
            self.pod_gone(new)

    def pod_gone(self, pod: Pod) -> None:
        info = self.infos.get(pod.namespace)
        if info is not None:
            info.remove_pod(pod)

    # ---- Reserve / Unreserve --------------------------------------------------------------

    def reserve(self, pod: Pod) -> None:
        """Count a pod placed in this cycle (its namespace's quota as the book holds it)."""
        info = self.infos.get(pod.namespace)
        if info is not None:
            info.add_pod(pod, self.usage(pod))

    def unreserve(self, pod: Pod) -> None:
        self.pod_gone(pod)


def _warn_min_over_max(obj: ApiObject, problems: QuotaProblems) -> None:
    """One warning line and one Warning Event for a quota whose `min` exceeds its `max`
    (it is kept as written), again only when the resources in question change."""
    wrong = ",".join(min_over_max(QuotaInfo.from_object(obj)))
    note = f"ElasticQuota min exceeds its max in {wrong}: {MIN_EXCEEDS_MAX_FIX}"
    found = [(obj, note)] if wrong else []
    if problems.update(MIN_EXCEEDS_MAX, found, among=(obj.key,)):
        log.warning(
            f"ElasticQuota min exceeds its max: {MIN_EXCEEDS_MAX_FIX}",
            extra=kv(elasticQuota=obj.key, resources=wrong),
        )


def pre_filter(
    pod: Pod, infos: QuotaInfos, nominated: Iterable[Pod], usage: PodUsage = pod_request
) -> tuple[PreFilterState, str]:
    """PreFilter's state for `pod` and its refusal ("" when it may go on).

    `nominated`: the pods nominated to any node (the pod itself is skipped); `usage`: what
    a pod is charged."""
    request = usage(pod)
    info = infos.get(pod.namespace)
    if info is None:
        return PreFilterState(request), ""
    in_quota, everywhere = Resource(), Resource()
    for other in nominated:
        other_info = infos.get(other.namespace)
        if other.uid == pod.uid or other_info is None:
            continue
        if other.namespace == pod.namespace and other.priority >= pod.priority:
            in_quota.add(usage(other))
            everywhere.add(usage(other))
        elif other.namespace != pod.namespace and not other_info.used_over_min():
            everywhere.add(usage(other))
    in_quota.add(request)
    everywhere.add(request)
    state = PreFilterState(request, in_quota, everywhere)
    prefix = f"Pod {pod.namespace}/{pod.name} is rejected in PreFilter because"
    if info.used_over_max_with(in_quota):
        return state, f"{prefix} ElasticQuota {info.namespace} is more than Max"
    if infos.aggregated_used_over_min_with(everywhere):
        return state, f"{prefix} total ElasticQuota used is more than min"
    return state, ""
