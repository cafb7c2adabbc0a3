"""OpportunisticBatching (upstream `pkg/scheduler/framework/runtime/batch.go`, KEP-5598; the
feature gate is beta and on by default since v1.35).

After a cycle that scored its nodes, the scheduler keeps the other scored nodes, best first.
When the next pod has the same signature (`Framework.pod_signature`: every PreFilter,
Filter, PreScore and Score plugin of the profile signed it), comes in the very next cycle of
this profile (or the same one, for members of a pod group under GenericWorkload), has no
nominated node, and the list is at most `MAX_BATCH_AGE` old, the head of that list is its
*hint*: the cycle filters that one node (as a nominated node is filtered) and takes it if it
fits, skipping the full Filter/Score pass. Before the hint is given, the node the previous pod
went to is filtered again for this pod: if it still fits, it is rescored (PreScore over all
the candidates, Score on it alone, every plugin's NormalizeScore over all of them again) and
competes with the kept nodes, so a pod that does not fill a node is not sent elsewhere. A
failure on the way (the node gone, a plugin error) gives no hint: the cycle runs in full.

The metrics are upstream's (`scheduler_batch_attempts_total`, `..._cache_flushed_total`,
`..._rescore_attempts_total`, `scheduler_batch_rescore_duration_seconds`,
`scheduler_get_node_hint_duration_seconds`, `scheduler_store_schedule_results_duration_seconds`),
reported through a `BatchMetrics` (the runtime imports no metrics library).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.handle import Handle
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import Status
from kubesched.model import Pod

MAX_BATCH_AGE = 0.5
"""Upstream `maxBatchAge` (500 ms): older kept scores are not reused."""

# `scheduler_batch_attempts_total{result}` (upstream `BatchAttempt*`).
NO_HINT = "no_hint"
HINT_USED = "hint_used"
HINT_NOT_USED = "hint_not_used"

# `scheduler_batch_cache_flushed_total{reason}` (upstream `BatchFlush*`).
FLUSH_POD_FAILED = "pod_failed"
FLUSH_POD_SKIPPED = "pod_skipped"
FLUSH_POD_NOMINATED = "pod_nominated"
FLUSH_NODE_MISSING = "node_missing"
FLUSH_EMPTY_LIST = "empty_list"
FLUSH_EXPIRED = "expired"
FLUSH_POD_INCOMPATIBLE = "pod_incompatible"
FLUSH_POD_NOT_BATCHABLE = "pod_not_batchable"
FLUSH_FILTER_ERROR = "filter_error"
FLUSH_PRESCORE_ERROR = "prescore_error"
FLUSH_RESCORE_ERROR = "rescore_error"
FLUSH_NORMALIZE_ERROR = "normalize_error"


class BatchMetrics(Protocol):
    """Where one profile's batch reports (the scheduler binds the profile label)."""

    def attempt(self, result: str) -> None:
        """`scheduler_batch_attempts_total{result}`."""

    def flushed(self, reason: str) -> None:
        """`scheduler_batch_cache_flushed_total{reason}`."""

    def hint_duration(self, hinted: str, seconds: float) -> None:
        """`scheduler_get_node_hint_duration_seconds{hinted}` (`hint` / `no_hint`)."""

    def store_duration(self, seconds: float) -> None:
        """`scheduler_store_schedule_results_duration_seconds`."""

    def rescored(self, seconds: float) -> None:
        """`scheduler_batch_rescore_attempts_total`, `scheduler_batch_rescore_duration_seconds`."""


class _Unrecorded:
    def attempt(self, result: str) -> None:
        del result

    def flushed(self, reason: str) -> None:
        del reason

    def hint_duration(self, hinted: str, seconds: float) -> None:
        del hinted, seconds

    def store_duration(self, seconds: float) -> None:
        del seconds

    def rescored(self, seconds: float) -> None:
        del seconds


UNRECORDED: BatchMetrics = _Unrecorded()
"""The metrics when nobody records them."""


@dataclass(frozen=True, slots=True)
class ScoredNode:
    """A node's scores of one cycle (upstream `NodePluginScores`)."""

    name: str
    total: int
    raw: Mapping[str, int]
    """Plugin -> the score `score()` returned (before NormalizeScore and weight)."""


class SortedScoredNodes:
    """Scored nodes, best total first (upstream `SortedScoredNodes`); nodes with equal totals
    in a random order, as kubesched breaks the ties of host selection at random.

    `SortedScoredNodes.lazy(count, build)` sorts only when a node is first asked for: most
    kept lists are replaced before the next pod could use them."""

    def __init__(self, nodes: Iterable[ScoredNode], *, rng: random.Random | None = None) -> None:
        self._rng = rng or _RNG
        self._build: Callable[[], Iterable[ScoredNode]] | None = None
        self._count = 0
        self._nodes = self._sorted(nodes)

    @classmethod
    def lazy(cls, count: int, build: Callable[[], Iterable[ScoredNode]]) -> SortedScoredNodes:
        """`count` nodes that `build()` makes when they are first needed."""
        lazy = cls(())
        lazy._build, lazy._count = build, count
        return lazy

    def _sorted(self, nodes: Iterable[ScoredNode]) -> list[ScoredNode]:
        ordered = list(nodes)
        self._rng.shuffle(ordered)
        ordered.sort(key=_total)  # stable: ties stay shuffled; the best is last
        return ordered

    def _materialized(self) -> list[ScoredNode]:
        if self._build is not None:
            self._nodes, self._build = self._sorted(self._build()), None
        return self._nodes

    def pop(self) -> ScoredNode:
        """Take the best node off the list."""
        return self._materialized().pop()

    def __len__(self) -> int:
        return self._count if self._build is not None else len(self._nodes)

    def unordered(self) -> list[ScoredNode]:
        """Every node, in no particular order (a copy)."""
        return list(self._materialized())

    def names(self) -> list[str]:
        """The nodes' names, best first."""
        return [node.name for node in reversed(self._materialized())]


def _total(node: ScoredNode) -> int:
    return node.total


_RNG = random.Random()  # noqa: S311 - spreading ties between nodes, not cryptography


class BatchFramework(Protocol):
    """What of a profile's Framework the batch uses (upstream `batchHandle`)."""

    @property
    def handle(self) -> Handle: ...

    def run_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status: ...

    def run_pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status: ...

    def run_raw_scores(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[dict[str, int], Status]: ...

    def normalize_scores(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        raw: Sequence[Mapping[str, int]],
    ) -> tuple[list[int], Status]: ...


@dataclass(slots=True)
class _BatchState:
    signature: Hashable
    sorted_nodes: SortedScoredNodes
    created: float


@dataclass(frozen=True, slots=True)
class _LastCycle:
    cycle: int = 0
    chosen_node: str = ""
    succeeded: bool = False


Clock = Callable[[], float]


class OpportunisticBatch:
    """One profile's batch: `node_hint` before Filter, `store_results` after a node is found."""

    def __init__(
        self,
        fw: BatchFramework,
        *,
        generic_workload: bool = False,
        metrics: BatchMetrics = UNRECORDED,
        clock: Clock = time.monotonic,
    ) -> None:
        self._fw = fw
        self._generic_workload = generic_workload
        self._metrics = metrics
        self._clock = clock
        self._state: _BatchState | None = None
        self._last = _LastCycle()
        self.batched_pods = 0
        """Pods placed on their hint (upstream counts them for its tests)."""

    def node_hint(self, state: CycleState, pod: Pod, signature: Hashable, cycle: int) -> str:
        """The node to try first for `pod` in scheduling cycle `cycle`, or "" (upstream
        `GetNodeHint`). `state` is the pod's cycle state after PreFilter."""
        started = time.perf_counter()
        hint = ""
        try:
            if self._compatible(pod, signature, cycle) and self._refresh(state, pod):
                assert self._state is not None
                hint = self._state.sorted_nodes.pop().name
        finally:
            if not hint:
                self._metrics.attempt(NO_HINT)
            hinted = "hint" if hint else "no_hint"
            self._metrics.hint_duration(hinted, time.perf_counter() - started)
        return hint

    def store_results(
        self,
        signature: Hashable,
        hinted_node: str,
        chosen_node: str,
        other_nodes: SortedScoredNodes | None,
        cycle: int,
    ) -> None:
        """Remember where cycle `cycle` placed its pod, and the other scored nodes for the
        next pod (upstream `StoreScheduleResults`). A used hint keeps the list as it is."""
        started = time.perf_counter()
        try:
            self._store(signature, hinted_node, chosen_node, other_nodes, cycle)
        finally:
            self._metrics.store_duration(time.perf_counter() - started)

    def _store(
        self,
        signature: Hashable,
        hinted_node: str,
        chosen_node: str,
        other_nodes: SortedScoredNodes | None,
        cycle: int,
    ) -> None:
        self._last = _LastCycle(cycle, chosen_node, succeeded=True)
        if hinted_node and hinted_node == chosen_node:
            self._metrics.attempt(HINT_USED)
            self.batched_pods += 1
            return
        if hinted_node:
            self._metrics.attempt(HINT_NOT_USED)
        if signature is not None and other_nodes is not None and len(other_nodes) > 0:
            self._state = _BatchState(signature, other_nodes, self._clock())
            return
        empty = other_nodes is None or len(other_nodes) == 0
        self._metrics.flushed(FLUSH_EMPTY_LIST if empty else FLUSH_POD_NOT_BATCHABLE)
        self._state = None

    def _compatible(self, pod: Pod, signature: Hashable, cycle: int) -> bool:
        """Whether the kept list may serve this pod (upstream `batchStateCompatible`); a
        reason it may not is counted, and the list is left for `store_results` to replace."""
        kept = self._state
        if kept is None or len(kept.sorted_nodes) == 0:
            return False
        last = self._last
        reason = ""
        # Another pod (maybe of another profile) had a cycle in between; members of a pod
        # group share their group's cycle.
        same_group = self._generic_workload and cycle == last.cycle
        if cycle != last.cycle + 1 and not same_group:
            reason = FLUSH_POD_SKIPPED
        elif not last.succeeded:
            reason = FLUSH_POD_FAILED
        elif pod.nominated_node_name:
            reason = FLUSH_POD_NOMINATED
        elif signature is None or signature != kept.signature:
            reason = FLUSH_POD_INCOMPATIBLE
        elif self._clock() > kept.created + MAX_BATCH_AGE:
            reason = FLUSH_EXPIRED
        if reason:
            self._metrics.flushed(reason)
            return False
        return True

    def _refresh(self, state: CycleState, pod: Pod) -> bool:
        """Filter the previous pod's node for this pod; rescore it into the list if it still
        fits (upstream `refreshHintCandidates`). False: no hint can be given."""
        last_node = self._fw.handle.get_node_info(self._last.chosen_node)
        if last_node is None:
            self._metrics.flushed(FLUSH_NODE_MISSING)
            return False
        status = self._fw.run_filter(state, pod, last_node)
        if status.is_success():
            return self._rescore(state, pod, last_node)
        if not status.is_rejected():
            self._metrics.flushed(FLUSH_FILTER_ERROR)
            return False
        return True

    def _rescore(self, state: CycleState, pod: Pod, last_node: NodeInfo) -> bool:
        started = time.perf_counter()
        try:
            reason = self._rescored(state, pod, last_node)
        finally:
            self._metrics.rescored(time.perf_counter() - started)
        if reason:
            self._metrics.flushed(reason)
            return False
        return True

    def _rescored(self, state: CycleState, pod: Pod, last_node: NodeInfo) -> str:
        """Put `last_node` back among the candidates with fresh scores, normalized again over
        all of them (upstream `rescoreHintedNode`); the flush reason on failure, else ""."""
        assert self._state is not None
        cached = self._state.sorted_nodes.unordered()
        nodes: list[NodeInfo] = []
        for entry in cached:
            info = self._fw.handle.get_node_info(entry.name)
            if info is None:
                return FLUSH_NODE_MISSING
            nodes.append(info)
        nodes.append(last_node)  # PreScore sees every candidate, the rescored one too
        rescore_state = state.clone()  # what the rescore writes stays out of the pod's cycle
        if not self._fw.run_pre_score(rescore_state, pod, nodes).is_success():
            return FLUSH_PRESCORE_ERROR
        fresh, status = self._fw.run_raw_scores(rescore_state, pod, last_node)
        if not status.is_success():
            return FLUSH_RESCORE_ERROR
        raw = [*(entry.raw for entry in cached), fresh]
        totals, status = self._fw.normalize_scores(rescore_state, pod, nodes, raw)
        if not status.is_success():
            return FLUSH_NORMALIZE_ERROR
        names = [*(entry.name for entry in cached), last_node.name]
        self._state.sorted_nodes = SortedScoredNodes(
            ScoredNode(name, total, scores)
            for name, total, scores in zip(names, totals, raw, strict=True)
        )
        return ""
