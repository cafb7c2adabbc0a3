"""What-if filtering: Filter with the pods nominated to a node counted as running, and the
PreFilter AddPod/RemovePod extensions that keep PreFilter state right on node copies.

Upstream semantics (`RunFilterPluginsWithNominatedPods`, `addGENominatedPods`): the pods
nominated to the node with equal or higher priority than the pod (never the pod itself)
are added to a copy of the node and of the cycle state; Filter must pass with them and,
when it does, once more without them (pod affinity may need them absent). Lower-priority
nominated pods are ignored: the pod may take the room freed for them. Preemption's dry run
uses the same runners on node copies with victims removed (see `FilterRunner`).

With a memo key (every running Filter plugin signed the pod, `runtime.memo`), the copy of a
snapshot node with its nominated pods is kept between cycles, and its Filter results with it:
while neither the node nor the pods nominated to it change, the next pod that signs the same
is answered from that copy's memo instead of copying and filtering the node again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from kubesched.framework import interfaces as api
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.plugin_failures import PLUGIN_ERRORS, raised
from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.model import Pod
from kubesched.runtime.memo import store

if TYPE_CHECKING:
    from kubesched.framework.handle import Handle
    from kubesched.runtime.framework import PluginLists

FilterFunc = Callable[[CycleState, Pod, NodeInfo], Status]
"""`Framework.run_filter`'s shape: one pod on one node."""


@dataclass(frozen=True, slots=True)
class _NominatedCopy:
    """A snapshot node (as of `generation`) with the nominated pods `pods` added: `copy`,
    whose memo holds the Filter results on it."""

    node: NodeInfo
    generation: int
    pods: tuple[Pod, ...]
    copy: NodeInfo

    def matches(self, node: NodeInfo, pods: tuple[Pod, ...]) -> bool:
        if self.node is not node or self.generation != node.generation:
            return False
        if len(self.pods) != len(pods):
            return False
        return all(a is b for a, b in zip(self.pods, pods, strict=True))


class WhatIfFiltering:
    """Mixin of `Framework`: the `FilterRunner` runners and filtering with nominated pods."""

    plugins: PluginLists
    handle: Handle

    def run_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        raise NotImplementedError  # Framework's

    @cached_property
    def _pre_filter_extensions(self) -> list[tuple[str, api.PreFilterExtensions]]:
        return [
            (pl.name, pl)
            for pl in self.plugins.pre_filter
            if isinstance(pl, api.PreFilterExtensions)
        ]

    @cached_property
    def _nominated_copies(self) -> dict[str, _NominatedCopy]:
        """Node name -> its last copy with nominated pods (one per node: a later one with
        other pods or of a changed node replaces it)."""
        return {}

    def has_nominated_pods(self) -> bool:
        """Whether any pod is nominated anywhere (else plain filtering is exact)."""
        return self.handle.has_nominated_pods()

    def with_nominated_pods(
        self, run_filter: FilterFunc, memo_key: int | None = None
    ) -> FilterFunc:
        """`run_filter`, except on nodes where nominated pods must be counted; with
        `memo_key`, the filtering with nominated pods is memoized on kept node copies."""

        def run(state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
            return self.run_filter_with_nominated_pods(
                state, pod, node_info, run_filter, memo_key=memo_key
            )

        return run

    def run_filter_with_nominated_pods(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        run_filter: FilterFunc | None = None,
        *,
        memo_key: int | None = None,
    ) -> Status:
        """Filter with the node's nominated pods of >= priority added, then without them.

        `run_filter` (default `run_filter`) does the pass on the unchanged node, so a
        memoizing runner can be reused for it. `memo_key` (only for snapshot nodes, never
        for a copy changed in place) keeps the pass with nominated pods for the next pod.
        """
        plain = run_filter or self.run_filter
        nominated = tuple(
            other
            for other in self.handle.nominated_pods_for_node(node_info.name)
            if other.priority >= pod.priority and other.uid != pod.uid
        )
        if not nominated:
            return plain(state, pod, node_info)
        if memo_key is None:
            status, _ = self._filter_with(state, pod, node_info, nominated)
        else:
            status = self._memoized_filter_with(state, pod, node_info, nominated, memo_key)
        if not status.is_success():
            return status
        return plain(state, pod, node_info)

    def _memoized_filter_with(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        nominated: tuple[Pod, ...],
        memo_key: int,
    ) -> Status:
        kept = self._nominated_copies.get(node_info.name)
        if kept is not None and kept.matches(node_info, nominated):
            memoized: Status | None = kept.copy.memo.get(memo_key)
            if memoized is not None:
                return memoized
        status, node_with = self._filter_with(state, pod, node_info, nominated)
        if node_with is None or status.code is Code.ERROR:
            return status
        if kept is None or not kept.matches(node_info, nominated):
            kept = _NominatedCopy(node_info, node_info.generation, nominated, node_with)
            self._nominated_copies[node_info.name] = kept
        store(kept.copy.memo, memo_key, status)
        return status

    def _filter_with(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, nominated: tuple[Pod, ...]
    ) -> tuple[Status, NodeInfo | None]:
        """Filter on a copy of the node with `nominated` added: the status and that copy
        (None when a PreFilter extension failed, its status then the answer)."""
        added = self._add_nominated_pods(state, pod, node_info, nominated)
        if isinstance(added, Status):
            return added, None
        state_with, node_with = added
        return self.run_filter(state_with, pod, node_with), node_with

    def _add_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, nominated: tuple[Pod, ...]
    ) -> tuple[CycleState, NodeInfo] | Status:
        state_with, node_with = state.clone(), node_info.clone()
        for other in nominated:
            node_with.add_pod(other)
            status = self.run_pre_filter_extension_add_pod(state_with, pod, other, node_with)
            if not status.is_success():
                return status
        return state_with, node_with

    def runs_pre_filter_extensions(self, state: CycleState) -> bool:
        """Whether some PreFilterExtensions plugin runs in this cycle (not skipped): else
        `run_pre_filter_extension_add_pod` / `_remove_pod` change nothing."""
        skip = state.skip_filter_plugins
        return any(name not in skip for name, _ in self._pre_filter_extensions)

    def pre_filter_extension_reach(
        self, state: CycleState, pod: Pod, other: Pod, node_info: NodeInfo
    ) -> frozenset[str] | None:
        """The label keys through which the extensions running in this cycle, told that
        `other` joined or left `node_info`, can change a Filter verdict for `pod` (the union
        of their `ExtensionReach`); None when one of them cannot tell."""
        skip = state.skip_filter_plugins
        keys: frozenset[str] = frozenset()
        for name, pl in self._pre_filter_extensions:
            if name in skip:
                continue
            extension_reach = getattr(pl, "extension_reach", None)  # api.ExtensionReach
            if extension_reach is None:
                return None
            try:
                reach = extension_reach(state, pod, other, node_info)
            except PLUGIN_ERRORS:
                return None
            if reach is None:
                return None
            keys |= reach
        return keys

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        """`add_pod` of every PreFilterExtensions plugin not skipped this cycle."""
        return self._run_extensions("AddPod", state, pod_to_schedule, pod_to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        """`remove_pod` of every PreFilterExtensions plugin not skipped this cycle."""
        return self._run_extensions("RemovePod", state, pod_to_schedule, pod_to_remove, node_info)

    def _run_extensions(
        self, point: str, state: CycleState, pod: Pod, other: Pod, node_info: NodeInfo
    ) -> Status:
        skip = state.skip_filter_plugins
        for name, pl in self._pre_filter_extensions:
            if name in skip:
                continue
            call = pl.add_pod if point == "AddPod" else pl.remove_pod
            try:
                status = call(state, pod, other, node_info)
            except PLUGIN_ERRORS as exc:
                return raised(name, point, exc)
            if status is not None and status.code is not Code.SUCCESS:
                # Upstream: `running AddPod on PreFilter plugin "X": <message>`, an error.
                message = f'running {point} on PreFilter plugin "{name}": {status.message}'
                return Status(Code.ERROR, message, plugin=name, error=status.error)
        return SUCCESS
