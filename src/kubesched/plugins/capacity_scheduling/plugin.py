"""CapacityScheduling (scheduler-plugins): elastic quotas per namespace with the ElasticQuota
CRD (`scheduling.x-k8s.io/v1alpha1`). A namespace's pods may use up to its quota's `max`;
its `min` is guaranteed: capacity other quotas leave idle may be borrowed, and is taken back
by preemption when its owner needs it.

PreFilter refuses a pod that would take its quota over `max` or all quotas together over
the sum of their `min`s (`core.pre_filter`); its PreFilterExtensions keep the quota snapshot
right while preemption tries removing pods. PostFilter preempts with the plugin's own
victim rules (`preemption`, `victims`); Reserve and Unreserve count the pod placed. Used
totals are kept from the ElasticQuota and pod listers (`core.QuotaBook`).

Queueing: as scheduler-plugins, any pod deleted and any ElasticQuota change requeue the pods
it rejected (no hints). kubesched's own args (`args.py`): `fairQueueing: true` makes the
queue serve quotas by dominant share (`dominant.py`). The evictions go through the Handle
(`Handle.preempt`), in the background like DefaultPreemption's; scheduler-plugins' plugin
evicts before PostFilter returns, which changes when the preemptor is retried, not where it
goes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubesched.apis import names
from kubesched.framework import (
    FILTER_RUNNER_KEY,
    POD_DISRUPTION_BUDGETS,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    NodeToStatusReader,
    PostFilterResult,
    Status,
)
from kubesched.framework.resources import resource_event
from kubesched.model import ApiObject, Pod, PodDisruptionBudget
from kubesched.plugins.capacity_scheduling.args import CapacitySchedulingArgs
from kubesched.plugins.capacity_scheduling.core import (
    PRE_FILTER_KEY,
    SNAPSHOT_KEY,
    QuotaBook,
    QuotaSnapshot,
    pre_filter,
)
from kubesched.plugins.capacity_scheduling.devices import CLAIMS, PodUsage, pod_claim_names
from kubesched.plugins.capacity_scheduling.dominant import QuotaFairness, share_json, share_line
from kubesched.plugins.capacity_scheduling.fair import FairShare, share_refusal
from kubesched.plugins.capacity_scheduling.preemption import Decision, decide
from kubesched.plugins.capacity_scheduling.problems import QuotaProblems
from kubesched.plugins.capacity_scheduling.quota import ELASTIC_QUOTAS
from kubesched.plugins.capacity_scheduling.report import QuotaRow
from kubesched.plugins.capacity_scheduling.verdict import quota_dict, quota_lines, quota_verdict
from kubesched.plugins.helper.listers import declared_lister

NAME = names.CAPACITY_SCHEDULING
NO_RUNNER = "no FilterRunner in the cycle state"


class CapacityScheduling:
    """PreFilter (+ extensions), PostFilter and Reserve for scheduler-plugins' ElasticQuotas."""

    name = NAME
    resources = (ELASTIC_QUOTAS, POD_DISRUPTION_BUDGETS, CLAIMS)

    def __init__(
        self, *, args: Mapping[str, Any], handle: Handle, clock: Callable[[], float] = time.time
    ) -> None:
        self.args = CapacitySchedulingArgs.from_v1(args)
        self._handle = handle
        self._clock = clock
        quotas = declared_lister(handle, ELASTIC_QUOTAS)
        self._pdbs = declared_lister(handle, POD_DISRUPTION_BUDGETS)
        claims = declared_lister(handle, CLAIMS)
        self.usage = PodUsage(claims)
        self.problems = QuotaProblems(handle)
        self.book = QuotaBook(quotas, self.usage, self.problems)
        self.fair = FairShare(self.usage, self.problems)
        claims.subscribe(self._claim_changed)
        self.fairness = QuotaFairness(self.book, self.fair)
        for on_quota in (
            self.book.quota_changed,
            self.fair.quota_changed,
            self.fairness.quota_changed,
        ):
            quotas.subscribe(on_quota)
            for quota in quotas.list():
                on_quota(None, quota)
        for on_pod in (self.book.pod_changed, self.fair.demand.pod_changed):
            handle.pod_lister().subscribe(on_pod)
            for pod in handle.pod_lister().list():
                on_pod(None, pod)

    def _claim_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        """A claim that arrives after the pods naming it were counted: count them again."""
        if old is not None or new is None:
            return  # a claim's spec never changes; a deleted one's pods keep their charge
        pods = self._handle.pod_lister().list(new.namespace)
        naming = [pod for pod in pods if new.name in pod_claim_names(pod)]
        self.book.charge_again(naming)
        for pod in naming:
            self.fair.demand.pod_changed(pod, pod)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE)),
            ClusterEventWithHint(resource_event(ELASTIC_QUOTAS, ActionType.ALL)),
        )

    def fair_queueing(self) -> QuotaFairness | None:
        """The queue's fair order across quotas (`framework.fair_queueing`), with
        `fairQueueing: true`; else None (the queue keeps QueueSort order)."""
        return self.fairness if self.args.fair_queueing else None

    # ---- PreFilter and its extensions ----------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        self.problems.flush()  # a problem found while this replica did not lead
        snapshot = self.book.snapshot()
        effective = self.fair.effective(snapshot.infos, pod, nodes)
        if effective is not None:
            snapshot = QuotaSnapshot(effective)
        state.write(SNAPSHOT_KEY, snapshot)
        nominated = self._nominated(nodes) if pod.namespace in snapshot.infos else []
        pre, refusal = pre_filter(pod, snapshot.infos, nominated, self.usage)
        state.write(PRE_FILTER_KEY, pre)
        if effective is not None and refusal:
            refusal = share_refusal(pod, self.book.infos, pre, refusal)
        return Status(Code.UNSCHEDULABLE, refusal) if refusal else None

    def _nominated(self, nodes: Sequence[NodeInfo]) -> list[Pod]:
        handle = self._handle
        if not handle.has_nominated_pods():
            return []
        return [pod for node in nodes for pod in handle.nominated_pods_for_node(node.name)]

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        del pod_to_schedule, node_info
        info = state.read(SNAPSHOT_KEY).infos.get(pod_to_add.namespace)
        if info is not None:
            info.add_pod(pod_to_add, self.usage(pod_to_add))
        return None

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        del pod_to_schedule, node_info
        info = state.read(SNAPSHOT_KEY).infos.get(pod_to_remove.namespace)
        if info is not None:
            info.remove_pod(pod_to_remove)
        return None

    # ---- PostFilter ---------------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status | None]:
        decision = self.decide(state, pod, statuses)
        candidate = decision.candidate
        if candidate is None:
            result = PostFilterResult("") if decision.clear_nomination else None
            return result, decision.status
        self._handle.preempt(
            pod,
            node_name=candidate.node_name,
            victims=candidate.victims,
            pdb_violations=candidate.num_pdb_violations,
        )
        return PostFilterResult(candidate.node_name), Status(Code.SUCCESS)

    def decide(self, state: CycleState, pod: Pod, statuses: NodeToStatusReader) -> Decision:
        """What preempting for `pod` would do (a dry run: nothing is evicted)."""
        runner = state.get(FILTER_RUNNER_KEY)
        if runner is None:
            return Decision(None, Status(Code.ERROR, NO_RUNNER))
        latest = self._handle.pod_lister().get(pod.name, pod.namespace)
        return decide(
            runner,
            state,
            latest if latest is not None and latest.uid == pod.uid else pod,
            nodes=self._handle.list_node_infos(),
            statuses=statuses,
            pdbs=[PodDisruptionBudget.of(obj) for obj in self._pdbs.list()],
            now=self._clock(),
        )

    # ---- what it holds (metrics, explain) -----------------------------------------------

    def quota_rows(self) -> list[QuotaRow]:
        """Each namespace's quota now: used, min, max and the runtime share of a tree."""
        fair = self.fair
        return [
            QuotaRow(fair.quota_name(ns), ns, info.clone(), fair.runtime_of(ns))
            for ns, info in sorted(self.book.infos.items())
        ]

    def explain_pod(
        self, pod: Pod, victims: Sequence[str]
    ) -> tuple[list[str], dict[str, Any]] | None:
        """`kubesched explain`'s quota verdict for `pod` (lines, JSON), after its cycle;
        None when its namespace has no quota."""
        verdict = quota_verdict(self.quota_rows(), pod, victims, self.usage)
        if verdict is None:
            return None
        lines, data = quota_lines(verdict), quota_dict(verdict)
        if self.args.fair_queueing:
            share = self.fairness.dominant_share(pod.namespace)
            lines.append(share_line(share))
            data["dominantShare"] = share_json(share)
        return lines, data

    # ---- Reserve ------------------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        del state, node_name
        self.book.reserve(pod)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        del state, node_name
        self.book.unreserve(pod)
