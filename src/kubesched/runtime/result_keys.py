"""The keys under which a cycle's results are reused (upstream `SignPod`): a mixin of
`Framework`.

A plugin that signs a pod (`sign_pod`, `kubesched.runtime.memo`) says which of the pod's
fields its verdict on a node depends on. Pods whose running Filter plugins all sign alike
share a Filter memo key: the result on a node that has not changed since is the one kept
(`filter_memo_key`, or the leading signed plugins' key with `filter_split`); likewise the
raw scores of the signing Score plugins (`score_memo_key`), and OpportunisticBatching's pod
signature (`pod_signature`), over every PreFilter, Filter, PreScore and Score plugin.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import SUCCESS, Status
from kubesched.model import Pod
from kubesched.model.interning import KeyTable
from kubesched.runtime import memo
from kubesched.runtime.filter_each import FilterCalls, FilterRun, FilterSplit, filter_each
from kubesched.runtime.instrument import ExtensionPointObserver
from kubesched.runtime.plugin_metrics import PluginMetrics

if TYPE_CHECKING:
    from kubesched.runtime.framework import PluginLists


class ResultKeys:
    """Mixin of `Framework`: memo keys, the Filter split and pod signatures."""

    plugin_metrics: PluginMetrics | None
    observe: ExtensionPointObserver
    _filters: FilterCalls
    _timed_filters: FilterCalls
    _filter_calls: dict[str, int]

    def _init_result_keys(self, plugins: PluginLists) -> None:
        """The signing plugins of each extension point, once, when the framework is built."""
        self._memo_keys = KeyTable()
        self._filter_plugins_by_name = {pl.name: pl for pl in plugins.filter}
        self._filters_unsigned = frozenset(self._filter_plugins_by_name) - memo.can_sign(
            plugins.filter
        )
        signers = memo.can_sign(plugins.score)
        self._signing_scores = [pl for pl in plugins.score if pl.name in signers]
        self._pod_signers = _pod_signers(plugins)

    def filter_memo_key(self, state: CycleState, pod: Pod) -> int | None:
        """The key of this cycle's Filter results on a node (the signatures of the Filter
        plugins that run, together), or None when one of them cannot sign the pod."""
        skip = state.skip_filter_plugins
        if not self._filters_unsigned <= skip:
            return None
        running = [pl for name, pl in self._filter_plugins_by_name.items() if name not in skip]
        signatures = memo.cycle_signatures(state, pod, running)
        combined = tuple(signatures[pl.name] for pl in running)
        if None in combined:
            return None
        return self._memo_keys.id_of(("filter", skip, combined))

    def filter_split(self, state: CycleState, pod: Pod) -> FilterSplit | None:
        """When some running Filter plugin cannot sign the pod (no `filter_memo_key`): the
        leading running plugins that all signed it, whose results are memoized together
        under the returned key, and the plugins after them, which then run on every node
        the leading ones pass (`run_filters`). None when the first running plugin did not
        sign, or every one did."""
        skip = state.skip_filter_plugins
        filters = self._timed_filters if state.record_plugin_metrics else self._filters
        running = [(name, call) for name, call in filters if not (skip and name in skip)]
        signatures = memo.cycle_signatures(
            state, pod, [self._filter_plugins_by_name[name] for name, _ in running]
        )
        lead = 0
        while lead < len(running) and signatures[running[lead][0]] is not None:
            lead += 1
        if lead in {0, len(running)}:
            return None
        signed = tuple((name, signatures[name]) for name, _ in running[:lead])
        key = self._memo_keys.id_of(("filter-lead", skip, signed))
        return FilterSplit(key, running[:lead], running[lead:])

    def filter_each(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        filters: FilterCalls,
        run: FilterRun,
    ) -> tuple[int, Status | None]:
        """Run `filters` (a part of `filter_split`) on the nodes at `run.positions`
        (`runtime.filter_each`); each call is counted for the metrics."""
        return filter_each(state, pod, nodes, filters, run=run, calls=self._filter_calls)

    def run_filters(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, filters: FilterCalls
    ) -> Status:
        """Run `filters` (a part of `filter_split`) on one node, stopping at the first
        rejection (`plugin` set); each plugin call counted for the metrics."""
        run = FilterRun([0], 1)
        consumed, error = self.filter_each(state, pod, [node_info], filters, run)
        if error is not None:
            return error
        assert consumed == 1
        return run.rejected[0][1] if run.rejected else SUCCESS

    def score_memo_key(self, state: CycleState, pod: Pod) -> tuple[int, frozenset[str]] | None:
        """The key of this cycle's raw scores on a node, and the Score plugins it covers
        (those that run and signed the pod; the others score every node: unlike Filter, Score
        has no order to keep). None when no running Score plugin signed the pod."""
        skip = state.skip_score_plugins
        running = [pl for pl in self._signing_scores if pl.name not in skip]
        signatures = memo.cycle_signatures(state, pod, running)
        signed = tuple(
            (pl.name, signatures[pl.name]) for pl in running if signatures[pl.name] is not None
        )
        if not signed:
            return None
        key = self._memo_keys.id_of(("score", skip, signed))
        return key, frozenset(name for name, _ in signed)

    # --- signatures (upstream `SignPod`) -------------------------------------------------

    def pod_signature(self, state: CycleState, pod: Pod) -> Hashable:
        """The pod's signature for OpportunisticBatching: its scheduler name and every
        signature of the profile's PreFilter, Filter, PreScore and Score plugins; None when
        one of them cannot sign this pod, or has no `sign_pod` at all (then no pod of the
        profile is signed, as upstream's `computeBatchablePlugins` decides)."""
        started = time.perf_counter()
        try:
            return self._pod_signature(state, pod)
        finally:
            self.observe("Sign", "Success", time.perf_counter() - started)

    def _pod_signature(self, state: CycleState, pod: Pod) -> Hashable:
        signers = self._pod_signers
        if signers is None:
            return None
        signatures = memo.cycle_signatures(state, pod, ())  # shared with the memo's keys
        parts: list[Hashable] = [pod.scheduler_name]
        for pl in signers:
            if pl.name in signatures:
                signature = signatures[pl.name]
            else:
                signature = signatures[pl.name] = self._sign(pl, pod)
            if signature is None:
                return None
            parts.append(signature)
        return tuple(parts)

    def _sign(self, pl: Any, pod: Pod) -> tuple[Hashable, ...] | None:
        """One plugin's signature, timed into `scheduler_plugin_execution_duration_seconds`
        (extension point Sign, every call as upstream's)."""
        if self.plugin_metrics is None:
            return memo.sign(pl, pod)
        started = time.perf_counter()
        signature = memo.sign(pl, pod)
        label = "Success" if signature is not None else "Unschedulable"
        self.plugin_metrics.observe(pl.name, "Sign", label, time.perf_counter() - started)
        return signature


def _pod_signers(plugins: PluginLists) -> list[Any] | None:
    """The PreFilter, Filter, PreScore and Score plugins once each, if all of them can sign a
    pod; else None (upstream `computeBatchablePlugins` turns signatures off for the profile)."""
    candidates: dict[str, Any] = {}
    for pl in [*plugins.pre_filter, *plugins.filter, *plugins.pre_score, *plugins.score]:
        candidates.setdefault(pl.name, pl)
    signers = memo.can_sign(candidates.values())
    if len(signers) < len(candidates):
        return None
    return list(candidates.values())
