"""Shadow mode: decide, record, forget; compare when the other scheduler decides.

`kubesched run --shadow-scheduler-name=default-scheduler`: the informers queue the pending
pods of that other scheduler (the profile is renamed to it, `kubesched.server.shadow_setup`),
and `ShadowScheduler` replaces the scheduling loop. For each pod it pops, it runs the
profile's scheduling cycle (PreFilter, Filter, Score: no PostFilter, so no preemption; no
Reserve, Permit or binding) against the cache, records the decision and forgets the pod: the
cache never holds an assumed pod, so it mirrors the cluster, the other scheduler's bindings
included as they arrive.

`ShadowScheduler` also observes the pod informer ahead of the cache: when the other scheduler
binds a pod (an update with spec.nodeName) or marks it unschedulable (PodScheduled=False,
reason Unschedulable), the decision is compared with it before the cache counts the binding
(`shadow_compare.classify`), counted in `kubesched_shadow_decisions_total{profile,agreement}`
and, unless they agree, logged at info level with both nodes and kubesched's scores of them.
A decision made against a cache that has changed since (other pods bound meanwhile) is made
again first, so that both schedulers are judged on the same cluster. A kept decision holds the
chosen node only (a few bytes per waiting pod, whatever the cluster's size): when the other
scheduler chose another node, the cycle is run again on the same cache for the scores of both
(the top-score ties among them) before classifying.

Nothing here writes to the cluster; every API client of a shadow process is read-only
besides (`kubesched.kube.read_only`).
"""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import CollectorRegistry

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import CycleState
from kubesched.framework.logkv import kv
from kubesched.model import Pod
from kubesched.queue import SchedulingQueue
from kubesched.runtime import (
    FitError,
    Framework,
    NoNodesAvailableError,
    SchedulingError,
    schedule_pod,
)
from kubesched.scheduler.prom import Counter
from kubesched.scheduler.shadow_compare import (
    AGREEING,
    UNSCHEDULABLE_REASON,
    Agreement,
    Decision,
    classify,
    decided,
    unschedulable,
)

log = logging.getLogger(__name__)

DECISIONS_METRIC = "kubesched_shadow_decisions"
DISAGREEMENT = "shadow decision differs"


def decisions_counter(registry: CollectorRegistry) -> Counter:
    """`kubesched_shadow_decisions_total{profile,agreement}` on the process's registry."""
    return Counter(
        DECISIONS_METRIC,
        "Number of pods of the shadowed scheduler whose outcome was compared with "
        "kubesched's decision, by agreement.",
        ["profile", "agreement"],
        registry=registry,
    )


class ShadowScheduler:
    """The shadow's loop and its pod observer (`on_add`/`on_update`/`on_delete`)."""

    def __init__(
        self,
        *,
        framework: Framework,
        profile: str,
        cache: SchedulerCache,
        snapshot: Snapshot,
        queue: SchedulingQueue,
        registry: CollectorRegistry,
    ) -> None:
        """`framework` is the profile's (renamed to the shadowed scheduler); `profile` its
        own name, the metric's label; `snapshot` the one the profile's Handle reads."""
        self.shadowed = framework.profile_name
        self._framework = framework
        self._profile = profile
        self._cache = cache
        self._snapshot = snapshot
        self._queue = queue
        self._decisions: dict[str, Decision] = {}
        self._counter = decisions_counter(registry)
        for agreement in Agreement:
            self._counter.labels(profile, agreement.value)

    async def run_until(self, stop: asyncio.Event) -> int:
        """Decide the queue's pods until `stop` is set; the exit code (0)."""
        loop = asyncio.create_task(self.run(), name="shadow loop")
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({loop, stopped}, return_when=asyncio.FIRST_COMPLETED)
        for task in (loop, stopped):
            task.cancel()
        await asyncio.gather(loop, stopped, return_exceptions=True)
        return 0

    async def run(self) -> None:
        """Pop each pod, decide, record, forget (the pod leaves the queue: no assume)."""
        while (qpi := await self._queue.pop()) is not None:
            pod = qpi.pod
            try:
                if not pod.deleting:
                    self._decisions[pod.uid] = self.decide(pod).compact()
            except Exception:  # the loop never dies because of one pod
                log.exception("shadow cycle crashed", extra=kv(pod=pod.key))
            finally:
                self._queue.done(pod.uid)
            await asyncio.sleep(0)

    def decide(self, pod: Pod) -> Decision:
        """One scheduling cycle for `pod` against the cache as it is now."""
        self._cache.update_snapshot(self._snapshot)
        generation = self._snapshot.generation
        snapshot = self._snapshot
        try:
            result = schedule_pod(
                self._framework,
                CycleState(),
                pod,
                snapshot.node_infos,
                journal=snapshot,
                post_filter=False,
            )
        except (FitError, NoNodesAvailableError) as err:
            return unschedulable(str(err), generation=generation)
        except SchedulingError as err:
            return unschedulable(f"scheduling error: {err.status}", generation=generation)
        return decided(result, generation=generation)

    def pending_decisions(self) -> int:
        """Decisions waiting for the other scheduler's outcome."""
        return len(self._decisions)

    # The pod informer's handler, called before the cache's (see the module docstring).

    def on_add(self, pod: Pod) -> None:
        """A new pod: the loop decides it once the queue hands it over."""

    def on_update(self, old: Pod, new: Pod) -> None:
        """Compare when the shadowed scheduler bound the pod or found it unschedulable."""
        if new.scheduler_name != self.shadowed:
            return
        try:
            if new.node_name and not old.node_name:
                self._compare(old, new, new.node_name)
            elif not new.node_name and _newly_unschedulable(old, new):
                self._compare(new, new, "")
        except Exception:  # an observer never breaks the informer's handlers
            log.exception("shadow comparison failed", extra=kv(pod=new.key))

    def on_delete(self, pod: Pod) -> None:
        """A deleted pod's decision is never compared."""
        self._decisions.pop(pod.uid, None)

    def _compare(self, pending: Pod, outcome: Pod, real_node: str) -> None:
        """`pending`: the pod as it waited (decided again if needed); `outcome`: as the
        other scheduler left it; `real_node`: its node, "" when unschedulable."""
        decision = self._decisions.pop(pending.uid, None)
        self._cache.update_snapshot(self._snapshot)
        if (
            decision is None
            or decision.generation != self._snapshot.generation
            or _needs_scores(decision, real_node)
        ):
            decision = self.decide(pending)
        agreement = classify(decision, real_node)
        self._counter.labels(self._profile, agreement.value).inc()
        if agreement not in AGREEING:
            self._log_disagreement(outcome, decision, real_node, agreement)

    def _log_disagreement(
        self, pod: Pod, decision: Decision, real_node: str, agreement: Agreement
    ) -> None:
        details = {
            "pod": pod.key,
            "agreement": agreement.value,
            "profile": self._profile,
            "kubeschedNode": decision.node or "<none>",
            "schedulerNode": real_node or "<none>",
        }
        if decision.node:
            details["kubeschedNodeScore"] = decision.score_of(decision.node)
        if decision.node and real_node:
            details["schedulerNodeScore"] = decision.score_of(real_node)
        if decision.reason:
            details["kubeschedReason"] = decision.reason
        if not real_node and pod.scheduled_condition is not None:
            details["schedulerReason"] = pod.scheduled_condition[2]
        log.info(DISAGREEMENT, extra=kv(**details))


def _needs_scores(decision: Decision, real_node: str) -> bool:
    """Two different nodes: the comparison (a tie?) and the log need the cycle's scores,
    which a kept decision does not hold (`Decision.compact`)."""
    return bool(decision.node and real_node) and decision.node != real_node


def _newly_unschedulable(old: Pod, new: Pod) -> bool:
    """The other scheduler set (or changed) PodScheduled=False, reason Unschedulable."""
    condition = new.scheduled_condition
    if condition is None or condition[:2] != ("False", UNSCHEDULABLE_REASON):
        return False
    return old.scheduled_condition != condition
