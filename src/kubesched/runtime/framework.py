"""A profile's Framework: its plugins per extension point and the scheduling-cycle runners.

Build one with `kubesched.runtime.build_framework(profile=..., registry=..., handle=...)`.
Every plugin call is wrapped: an exception becomes an ERROR status naming the plugin (and is
logged with its traceback) and never escapes a runner. Runners return `Status` objects, the
shared SUCCESS on success, with `plugin` set on failures. The binding-cycle runners are in
`binding`, scoring in `scoring`, the whole "find a node" algorithm in `schedule`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from kubesched.framework import interfaces as api
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.events import WILDCARD_EVENT, ClusterEvent, ClusterEventWithHint
from kubesched.framework.handle import Handle
from kubesched.framework.interfaces import NodeToStatusReader, PostFilterResult
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.placement import PlacementFeasiblePlugin
from kubesched.framework.placement_points import PlacementGeneratePlugin, PlacementScorePlugin
from kubesched.framework.plugin_failures import PLUGIN_ERRORS, as_error, raised
from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.model import Pod
from kubesched.runtime.batch import OpportunisticBatch
from kubesched.runtime.binding import BindingCycle
from kubesched.runtime.columns import NodeColumns
from kubesched.runtime.enqueue import collect_enqueue_events
from kubesched.runtime.instrument import ExtensionPointObserver, PluginRunObserver, ignore, timed
from kubesched.runtime.kept_scores import Places, kept_scores
from kubesched.runtime.narrowing import narrowers
from kubesched.runtime.plugin_metrics import PluginMetrics, timed_call
from kubesched.runtime.queueing import HintObserver, QueueingHints
from kubesched.runtime.rescoring import Rescoring
from kubesched.runtime.result_keys import ResultKeys
from kubesched.runtime.scoring import ScoreResult, run_score
from kubesched.runtime.whatif import WhatIfFiltering


@dataclass(slots=True)
class PluginLists:
    """The plugins of each extension point, in the order they run."""

    pre_enqueue: list[api.PreEnqueuePlugin] = field(default_factory=list)
    queue_sort: list[api.QueueSortPlugin] = field(default_factory=list)
    pre_filter: list[api.PreFilterPlugin] = field(default_factory=list)
    filter: list[api.FilterPlugin] = field(default_factory=list)
    post_filter: list[api.PostFilterPlugin] = field(default_factory=list)
    pre_score: list[api.PreScorePlugin] = field(default_factory=list)
    score: list[api.ScorePlugin] = field(default_factory=list)
    reserve: list[api.ReservePlugin] = field(default_factory=list)
    permit: list[api.PermitPlugin] = field(default_factory=list)
    pre_bind: list[api.PreBindPlugin] = field(default_factory=list)
    bind: list[api.BindPlugin] = field(default_factory=list)
    post_bind: list[api.PostBindPlugin] = field(default_factory=list)
    placement_feasible: list[PlacementFeasiblePlugin] = field(default_factory=list)
    """multiPoint plugins with a `placement_feasible` method (the pod-group cycle)."""
    placement_generate: list[PlacementGeneratePlugin] = field(default_factory=list)
    placement_score: list[PlacementScorePlugin] = field(default_factory=list)
    """The `TopologyAwareWorkloadScheduling` points (`runtime.placement_points`)."""


@dataclass(frozen=True, slots=True)
class PreFilterOutcome:
    """What PreFilter decided: a status, and the node names the cycle is restricted to."""

    status: Status
    node_names: AbstractSet[str] | None = None
    """None: all nodes; else only these (the intersection of the plugins' results)."""
    plugins_with_nodes: frozenset[str] = frozenset()
    """The plugins that restricted the node set (they become unschedulable plugins)."""


_SUCCESS_CODE = Code.SUCCESS  # enum attribute reads are slow in per-node loops


class Framework(BindingCycle, WhatIfFiltering, ResultKeys, Rescoring):
    """The plugins of one profile and the runners the scheduler calls for each pod."""

    def __init__(
        self,
        *,
        profile_name: str,
        plugins: PluginLists,
        score_weights: dict[str, int],
        percentage_of_nodes_to_score: int | None,
        handle: Handle,
        observe: ExtensionPointObserver = ignore,
        plugin_metrics: PluginMetrics | None = None,
        observe_hint: HintObserver | None = None,
        observe_post_filter: PluginRunObserver | None = None,
    ) -> None:
        self.profile_name = profile_name
        self.observe_post_filter = observe_post_filter
        """Told of each PostFilter plugin's run (its code and seconds): a DefaultPreemption
        run is a preemption attempt (`scheduler_preemption_attempts_total`)."""
        self.observe = observe
        """Told the duration of each extension point run (see `runtime.instrument`)."""
        self.plugin_metrics = plugin_metrics
        """Where plugin calls are timed and counted (`runtime.plugin_metrics`); None: nowhere."""
        self.plugins = plugins
        self.score_weights = score_weights
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        """The profile's percentageOfNodesToScore, else the global one; None/0 = adaptive."""
        self.handle = handle
        self.next_start_node_index = 0
        """Where the next cycle starts filtering (rotates so all nodes get examined)."""
        self._filters = [(pl.name, pl.filter) for pl in plugins.filter]
        self._timed_filters = self._filters
        # Filter evaluations of cycles not yet added to the metrics: nodes that passed every
        # Filter, and per plugin the nodes it rejected (one increment per node that really
        # ran the plugins; see `runtime.plugin_metrics`).
        self._filter_passes = 0
        self._filter_stops: dict[str, int] = {}
        self._filter_calls: dict[str, int] = {}
        """Per plugin, its calls by `filter_each` (the split part of a cycle, counted by call)."""
        self._counted_skip: frozenset[str] = frozenset()
        if plugin_metrics is not None:
            self._timed_filters = [
                (name, timed_call(plugin_metrics, name, "Filter", call))
                for name, call in self._filters
            ]
            plugin_metrics.add_flusher(self.flush_filter_evaluations)
        self._enqueue_events = collect_enqueue_events(plugins)
        self.queueing_hints = QueueingHints(self._enqueue_events, observe=observe_hint)
        """The plugins' events and hints, asked by the queue (`runtime.queueing`)."""
        self._observe_hint = observe_hint
        self._init_result_keys(plugins)
        self.node_columns = NodeColumns()
        """The memo's Filter and Score results by snapshot position (`runtime.columns`)."""
        self.narrowers = narrowers(plugins.filter)
        """Filter plugins naming resources a node must offer (`runtime.narrowing`)."""
        self.batch: OpportunisticBatch | None = None
        """OpportunisticBatching (`runtime.batch`), when its gate is on (`build_framework`)."""
        self.topology_aware = False
        """The `TopologyAwareWorkloadScheduling` gate (`build_framework`): pod groups are
        placed through placements (`scheduler.podgroup_placement`)."""
        self.placement_score_weights: dict[str, int] = {}
        """The PlacementScore plugins' weights (`build_framework`)."""

    def consult_extenders(self, name: str) -> None:
        """Pods also go to extenders (`scheduler.extender_cycle`): as upstream, no batching
        (no signatures), and any cluster event requeues a pod they rejected (`name` among
        its rejecting plugins: upstream's `defaultEnqueueExtension`)."""
        self.batch = None
        anything = (ClusterEventWithHint(WILDCARD_EVENT),)
        registrations = {**self._enqueue_events, name: anything}
        self.queueing_hints = QueueingHints(registrations, observe=self._observe_hint)

    @property
    def has_filter_plugins(self) -> bool:
        return bool(self.plugins.filter)

    @property
    def has_post_filter_plugins(self) -> bool:
        return bool(self.plugins.post_filter)

    @property
    def has_score_plugins(self) -> bool:
        return bool(self.plugins.score)

    def list_plugins(self) -> dict[str, list[str]]:
        """Plugin names per extension point (`preFilter`; score ones with `:weight`)."""
        listed = {}
        for point in PluginLists.__slots__:
            names = [pl.name for pl in getattr(self.plugins, point)]
            if point == "score":
                names = [f"{name}:{self.score_weights[name]}" for name in names]
            if point == "placement_score":
                names = [f"{name}:{self.placement_score_weights[name]}" for name in names]
            if names:
                head, *rest = point.split("_")
                listed[head + "".join(part.title() for part in rest)] = names
        return listed

    # --- queueing -------------------------------------------------------------------------

    def run_pre_enqueue(self, pod: Pod) -> Status:
        """SUCCESS if the pod may enter the active/backoff queue; else why not (`plugin` set)."""
        for pl in self.plugins.pre_enqueue:
            try:
                status = pl.pre_enqueue(pod)
            except PLUGIN_ERRORS as exc:
                return raised(pl.name, "PreEnqueue", exc)
            if status is not None and status.code is not Code.SUCCESS:
                if not status.is_rejected():
                    return as_error(pl.name, "PreEnqueue", status)
                return status.with_plugin(pl.name)
        return SUCCESS

    def queue_sort_less(self, first: api.QueuedPodInfo, second: api.QueuedPodInfo) -> bool:
        """The QueueSort plugin's order (True: `first` goes before `second`)."""
        return self.plugins.queue_sort[0].less(first, second)

    def events_to_register(self) -> dict[str, tuple[ClusterEvent, ...]]:
        """Per plugin that can reject a pod: the events that may make such a pod schedulable."""
        return {
            name: tuple(reg.event for reg in events)
            for name, events in self._enqueue_events.items()
        }

    # --- filtering ------------------------------------------------------------------------

    @timed("PreFilter")
    def run_pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> PreFilterOutcome:
        """Run PreFilter plugins (upstream `RunPreFilterPlugins`); records Skip in `state`."""
        skipped: set[str] = set()
        self.flush_filter_evaluations()
        try:
            return self._pre_filter(state, pod, nodes, skipped)
        finally:
            state.skip_filter_plugins = self._counted_skip = frozenset(skipped)

    def flush_filter_evaluations(self) -> None:
        """Add the pending Filter evaluations to `scheduler_plugin_evaluation_total`."""
        passes, stops, calls = self._filter_passes, self._filter_stops, self._filter_calls
        if not passes and not stops and not calls:
            return
        self._filter_passes, self._filter_stops, self._filter_calls = 0, {}, {}
        if self.plugin_metrics is None:
            return
        for name, count in calls.items():
            self.plugin_metrics.evaluated(name, "Filter", self.profile_name, count)
        if not passes and not stops:
            return
        reached = passes + sum(stops.values())
        for name, _ in self._filters:
            if name in self._counted_skip:
                continue
            self.plugin_metrics.evaluated(name, "Filter", self.profile_name, reached)
            reached -= stops.get(name, 0)

    def _pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], skipped: set[str]
    ) -> PreFilterOutcome:
        result: AbstractSet[str] | None = None
        with_nodes: set[str] = set()
        rejected: Status | None = None
        for pl in self.plugins.pre_filter:
            try:
                out = self._pre_filter_plugin(pl, state, pod, nodes)
            except PLUGIN_ERRORS as exc:
                return PreFilterOutcome(raised(pl.name, "PreFilter", exc))
            if isinstance(out, Status):
                if out.code is Code.SKIP:
                    skipped.add(pl.name)
                    continue
                if out.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return PreFilterOutcome(out.with_plugin(pl.name))
                if out.code is Code.UNSCHEDULABLE:
                    rejected = out.with_plugin(pl.name)
                    continue
                if out.code is not Code.SUCCESS:
                    return PreFilterOutcome(as_error(pl.name, "PreFilter", out))
            elif out is not None:
                with_nodes.add(pl.name)
                result = frozenset(out) if result is None else result & out
                if not result:
                    return PreFilterOutcome(
                        _no_common_nodes(with_nodes), result, frozenset(with_nodes)
                    )
        return PreFilterOutcome(rejected or SUCCESS, result, frozenset(with_nodes))

    def _pre_filter_plugin(
        self, pl: api.PreFilterPlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Status | api.PreFilterResult | None:
        out = self.metered(state, pl.name, "PreFilter", pl.pre_filter)(state, pod, nodes)
        if not (isinstance(out, Status) and out.code is Code.SKIP):
            self._evaluated(pl.name, "PreFilter")
        return out

    def run_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Run Filter plugins on one node, stopping at the first rejection (`plugin` set)."""
        skip = state.skip_filter_plugins
        filters = self._timed_filters if state.record_plugin_metrics else self._filters
        for name, filter_ in filters:
            if skip and name in skip:
                continue
            try:
                status = filter_(state, pod, node_info)
            except PLUGIN_ERRORS as exc:
                self._filter_stops[name] = self._filter_stops.get(name, 0) + 1
                return raised(name, "Filter", exc)
            if status is not None and status.code is not _SUCCESS_CODE:
                self._filter_stops[name] = self._filter_stops.get(name, 0) + 1
                if not status.is_rejected():
                    return as_error(name, "Filter", status)
                status.plugin = name
                return status
        self._filter_passes += 1
        return SUCCESS

    def _evaluated(self, plugin: str, point: str, count: int = 1) -> None:
        if self.plugin_metrics is not None:
            self.plugin_metrics.evaluated(plugin, point, self.profile_name, count)

    @timed("PostFilter")
    def run_post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status]:
        """Run PostFilter plugins until one succeeds or is unresolvable (upstream semantics).

        The result of the last plugin that returned one (None: the nomination stays); a
        success keeps its message (it becomes the FitError's PostFilter message)."""
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        state.write(api.FILTER_RUNNER_KEY, self)
        for pl in self.plugins.post_filter:
            started = time.monotonic()
            try:
                post_filter = self.metered(state, pl.name, "PostFilter", pl.post_filter)
                out, status = post_filter(state, pod, statuses)
            except PLUGIN_ERRORS as exc:
                self._post_filter_ran(pl.name, Code.ERROR, started)
                return None, raised(pl.name, "PostFilter", exc)
            self._post_filter_ran(pl.name, Code.SUCCESS if status is None else status.code, started)
            if status is None or status.code is Code.SUCCESS:
                return out, status or SUCCESS
            if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return out, status.with_plugin(pl.name)
            if not status.is_rejected():
                # Upstream `AsStatus(s.AsError())`: the plugin's message as it is.
                return None, Status(Code.ERROR, status.message, plugin=pl.name, error=status.error)
            if out is not None:
                result = out
            reasons.extend(status.reasons)
            rejector = rejector or pl.name
        return result, Status(Code.UNSCHEDULABLE, *reasons, plugin=rejector)

    def _post_filter_ran(self, plugin: str, code: Code, started: float) -> None:
        if self.observe_post_filter is not None:
            self.observe_post_filter(plugin, code, time.monotonic() - started)

    # --- scoring --------------------------------------------------------------------------

    @timed("PreScore")
    def run_pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """Run PreScore plugins on the feasible nodes; records Skip in `state`."""
        skipped: set[str] = set()
        try:
            for pl in self.plugins.pre_score:
                try:
                    status = self.metered(state, pl.name, "PreScore", pl.pre_score)(
                        state, pod, nodes
                    )
                except PLUGIN_ERRORS as exc:
                    return raised(pl.name, "PreScore", exc)
                if status is None or status.code is not Code.SKIP:
                    self._evaluated(pl.name, "PreScore")
                if status is None or status.code is Code.SUCCESS:
                    continue
                if status.code is Code.SKIP:
                    skipped.add(pl.name)
                    continue
                return as_error(pl.name, "PreScore", status)
            return SUCCESS
        finally:
            state.skip_score_plugins = frozenset(skipped)

    @timed("Score")
    def run_score(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        *,
        places: Places | None = None,
    ) -> ScoreResult:
        """Score, normalize, weigh and sum (see `ScoreResult`); `result.status` on failure.
        `places`: the snapshot's list and the nodes' positions in it, when this cycle caught
        up with its journal (kept scores are then read by position)."""
        plugins = self._running_scores(state)
        memo = self.score_memo_key(state, pod)
        kept = None
        if memo is not None:
            key, signed = memo
            kept = signed, kept_scores(key, nodes, places, self.node_columns)
        return run_score(
            state=state,
            pod=pod,
            nodes=nodes,
            plugins=plugins,
            weights=self.score_weights,
            kept=kept,
            metered=self.metered,
            evaluated=self._evaluated,
        )


def _no_common_nodes(plugins: set[str]) -> Status:
    names = sorted(plugins)
    if len(names) == 1:
        message = f"node(s) didn't satisfy plugin {names[0]}"
    else:
        message = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)
