"""Run a profile's Framework over every node for one pod and keep every verdict.

The steps are the scheduler's (`kubesched.runtime.schedule`): PreEnqueue, PreFilter,
Filter (counting nominated pods as the scheduler does), PreScore, Score, select the highest
total, and PostFilter (preemption) when nothing fits; with two differences that make the
answer complete rather than fast: Filter runs on ALL nodes (the scheduler stops after
`num_feasible_nodes_to_find` feasible ones) and nothing is ever assumed, reserved, bound or
evicted (the Handle only records what preemption asks for, see `handle`).
When nothing fits, the FailedScheduling message is built by the framework's own `FitError`
from the same per-node statuses and PostFilter message, so it is the scheduler's text word
for word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kubesched.apis import names
from kubesched.explain.findings import pod_findings
from kubesched.explain.handle import ReadOnlyHandle
from kubesched.explain.report import (
    FILTER,
    PREFILTER,
    Explanation,
    NodeVerdict,
    PluginScore,
    Rejection,
    Sampling,
    Victim,
)
from kubesched.explain.ties import preemption_choices
from kubesched.framework import Code, CycleState, Diagnosis, NodeInfo, PostFilterResult, Status
from kubesched.model import Pod
from kubesched.runtime import FitError, Framework, NoNodesAvailableError, num_feasible_nodes_to_find

PREEMPTION_PLUGIN = names.DEFAULT_PREEMPTION
PREEMPTING_PLUGINS = (PREEMPTION_PLUGIN, names.CAPACITY_SCHEDULING)
"""PostFilter plugins that preempt (CapacityScheduling with its own victim rules)."""
NOT_ENABLED = "not enabled in this profile"
PREEMPTION_PREFIX = "preemption: "  # DefaultPreemption's, in the FailedScheduling message


def explain_pod(
    fw: Framework, pod: Pod, nodes: Sequence[NodeInfo], *, hypothetical: bool = False
) -> Explanation:
    """Everything the scheduler would decide for `pod` on `nodes` (the snapshot's nodes)."""
    run = _Run(fw=fw, pod=pod, nodes=nodes)
    run.check_queueing()
    if nodes:
        run.pre_filter()
    if run.candidates is not None:
        run.filter()
        run.score()
    run.post_filter()
    return run.explanation(hypothetical=hypothetical)


@dataclass
class _Run:
    fw: Framework
    pod: Pod
    nodes: Sequence[NodeInfo]
    state: CycleState = field(default_factory=CycleState)
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    rejections: dict[str, Rejection] = field(default_factory=dict)
    candidates: list[NodeInfo] | None = None
    """Nodes left after PreFilter; None when PreFilter rejected the pod (or no nodes)."""
    pre_rejection: Rejection | None = None
    restricted_to: tuple[str, ...] | None = None
    feasible: list[NodeInfo] = field(default_factory=list)
    scores: dict[str, tuple[tuple[PluginScore, ...], int]] = field(default_factory=dict)
    score_plugins: tuple[tuple[str, int], ...] = ()
    skipped_score_plugins: tuple[str, ...] = ()
    error: str = ""
    post_filter_result: tuple[PostFilterResult | None, Status] | None = None
    nominated_fits: bool = False
    """The pod's own `status.nominatedNodeName` passes Filter (the scheduler takes it)."""
    preemptions_before: int = 0
    """How many preemptions the (read-only) Handle had recorded before this PostFilter."""
    notes: list[str] = field(default_factory=list)
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Preemption's equally ranked candidates (see `ties`)."""

    # --- the scheduling cycle, on every node ----------------------------------------------

    def check_queueing(self) -> None:
        status = self.fw.run_pre_enqueue(self.pod)
        if not status.is_success():
            self.notes.append(
                f"the pod does not enter the scheduling queue yet ({status.plugin}: "
                f"{status.message}); the verdicts below apply once it does"
            )
        if self.pod.deleting:
            self.notes.append("the pod is being deleted: kubesched does not schedule it")

    def pre_filter(self) -> None:
        pre = self.fw.run_pre_filter(self.state, self.pod, self.nodes)
        restricting = " ".join(sorted(pre.plugins_with_nodes))
        self.diagnosis.unschedulable_plugins = set(pre.plugins_with_nodes)
        status = pre.status
        if not status.is_success():
            self.pre_rejection = _rejection(status, PREFILTER, plugin=status.plugin or restricting)
            if status.is_rejected():  # as the scheduler's `_pre_filter_failed`
                self.diagnosis.node_to_status.absent_nodes_status = status
                self.diagnosis.pre_filter_msg = status.message
                self.diagnosis.add_plugin_status(status)
            else:
                self.error = status.message
            return
        self.candidates = list(self.nodes)
        if pre.node_names is not None:
            allowed = pre.node_names
            self.restricted_to = tuple(sorted(allowed))
            self.candidates = [node for node in self.nodes if node.name in allowed]
            absent = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f"node(s) didn't satisfy plugin(s) [{restricting}]",
            )
            self.diagnosis.node_to_status.absent_nodes_status = absent
            for node in self.nodes:
                if node.name not in allowed:
                    self.rejections[node.name] = _rejection(absent, PREFILTER, plugin=restricting)

    def filter(self) -> None:
        assert self.candidates is not None
        statuses = self.diagnosis.node_to_status
        run_filter: Callable[[CycleState, Pod, NodeInfo], Status] = self.fw.run_filter
        if self.fw.has_nominated_pods():  # their room is held for them, as in the scheduler
            run_filter = self.fw.with_nominated_pods(run_filter)
        for node in self.candidates:
            status = run_filter(self.state, self.pod, node)
            if status.is_success():
                self.feasible.append(node)
                continue
            self.rejections[node.name] = _rejection(status, FILTER, plugin=status.plugin)
            if status.is_rejected():
                statuses.set(node.name, status)
                self.diagnosis.add_plugin_status(status)
            elif not self.error:
                self.error = status.message
        self._nominated_node()

    def _nominated_node(self) -> None:
        """The scheduler tries `status.nominatedNodeName` first and takes it if it fits."""
        name = self.pod.nominated_node_name
        if not name:
            return
        node = next((n for n in self.nodes if n.name == name), None)
        if node is None:
            self.notes.append(f"the pod is nominated to node {name}, which does not exist")
        elif self.fw.run_filter_with_nominated_pods(self.state, self.pod, node).is_success():
            self.nominated_fits = True
            if node not in self.feasible:  # outside a PreFilterResult: still taken
                self.rejections.pop(node.name, None)
                self.feasible.append(node)
            self.notes.append(
                f"the pod is nominated to node {name} (status.nominatedNodeName) and fits "
                "there: kubesched takes that node without scoring"
            )

    def score(self) -> None:
        if self.error or not self.feasible:
            return
        if not self.fw.has_score_plugins:
            self.notes.append(
                "the profile has no Score plugins: kubesched takes the first node that passes "
                "Filter, starting where its previous cycle stopped"
            )
            return
        status = self.fw.run_pre_score(self.state, self.pod, self.feasible)
        if not status.is_success():
            self.error = status.message
            return
        result = self.fw.run_score(self.state, self.pod, self.feasible)
        if not result.status.is_success():
            self.error = result.status.message
            return
        self.score_plugins = tuple((ps.plugin, ps.weight) for ps in result.plugins)
        ran = {name for name, _ in self.score_plugins}
        self.skipped_score_plugins = tuple(
            pl.name for pl in self.fw.plugins.score if pl.name not in ran
        )
        for index, node in enumerate(result.nodes):
            row = tuple(
                PluginScore(
                    plugin=ps.plugin,
                    weight=ps.weight,
                    raw=ps.raw[index],
                    normalized=ps.normalized[index],
                    weighted=ps.weighted(index),
                )
                for ps in result.plugins
            )
            self.scores[node.name] = (row, result.totals[index])

    def post_filter(self) -> None:
        """When nothing fits: PostFilter (preemption), as `runtime.schedule.run_post_filter`."""
        if self.error or self.feasible or not self.nodes or not self.fw.has_post_filter_plugins:
            return
        handle = self.fw.handle
        if isinstance(handle, ReadOnlyHandle):
            self.preemptions_before = len(handle.preemptions)
        result, status = self.fw.run_post_filter(
            self.state, self.pod, self.diagnosis.node_to_status
        )
        self.diagnosis.post_filter_msg = status.message
        if status.plugin:
            self.diagnosis.add_plugin_status(status)
        self.post_filter_result = (result, status)
        if result is not None and result.nominated_node_name:
            statuses = self.diagnosis.node_to_status
            self.choices = preemption_choices(self.fw, self.state, self.pod, statuses)

    # --- the answer -----------------------------------------------------------------------

    def explanation(self, *, hypothetical: bool) -> Explanation:
        victims = self._victims()
        best = self._best()
        chosen = best[0] if len(best) == 1 else ""
        if self.nominated_fits:
            chosen = self.pod.nominated_node_name
        if len(self.feasible) == 1 and not self.error:
            self.notes.append("only one node fits: kubesched takes it without scoring")
        sampling = self._sampling()
        if sampling.samples and len(self.feasible) > sampling.num_feasible_nodes_to_find:
            self.notes.append(
                f"{len(self.feasible)} nodes fit, but kubesched stops filtering after "
                f"{sampling.num_feasible_nodes_to_find} feasible nodes (starting where its "
                "previous cycle stopped) and scores only those: it may choose another node"
            )
        return Explanation(
            pod=self.pod.key,
            scheduler_name=self.pod.scheduler_name,
            hypothetical=hypothetical,
            num_nodes=len(self.nodes),
            verdicts=self._verdicts(),
            sampling=sampling,
            pre_filter=self.pre_rejection,
            restricted_to=self.restricted_to,
            score_plugins=self.score_plugins,
            skipped_score_plugins=self.skipped_score_plugins,
            best=best,
            chosen="" if self.error else chosen,
            failed_scheduling=self._failed_scheduling(),
            error=self.error,
            preemption=self._preemption(),
            nominated_node=self._nominated(),
            victims=victims,
            preemption_choices=self.choices,
            notes=tuple(self.notes),
            findings=pod_findings(self.fw, self.pod, [victim.pod for victim in victims]),
        )

    def _best(self) -> tuple[str, ...]:
        if self.error or not self.feasible:
            return ()
        if not self.scores:  # no Score plugins: any feasible node
            return tuple(sorted(node.name for node in self.feasible))
        top = max(total for _, total in self.scores.values())
        return tuple(sorted(name for name, (_, total) in self.scores.items() if total == top))

    def _verdicts(self) -> tuple[NodeVerdict, ...]:
        rows = []
        for node in self.nodes:
            rejection = self.pre_rejection or self.rejections.get(node.name)
            scores, total = self.scores.get(node.name, ((), None))
            notes = () if rejection is not None else self._notes(node.name)
            rows.append(NodeVerdict(node.name, rejection, scores, total, notes))
        rows.sort(key=lambda v: (not v.feasible, -(v.total or 0), v.node))
        return tuple(rows)

    def _notes(self, node_name: str) -> tuple[str, ...]:
        """What the Filter plugins with an `explain_node(state, node_name)` say."""
        found = []
        for plugin in self.fw.plugins.filter:
            explain = getattr(plugin, "explain_node", None)
            if explain is None:
                continue
            try:
                note = explain(self.state, node_name)
            except Exception as exc:  # a plugin's note never stops explain
                note = f"{plugin.name}: explain_node raised {type(exc).__name__}: {exc}"
            if note:
                found.append(str(note))
        return tuple(found)

    def _sampling(self) -> Sampling:
        count = len(self.candidates) if self.candidates is not None else len(self.nodes)
        percentage = self.fw.percentage_of_nodes_to_score
        wanted = num_feasible_nodes_to_find(count, percentage)
        if not self.fw.has_score_plugins:
            wanted = min(1, count)
        return Sampling(count, wanted, percentage)

    def _failed_scheduling(self) -> str:
        if self.error or self.feasible:
            return ""
        if not self.nodes:
            return str(NoNodesAvailableError())
        error = FitError(pod=self.pod, num_all_nodes=len(self.nodes), diagnosis=self.diagnosis)
        return str(error)

    def _preemption(self) -> str:
        names = [pl.name for pl in self.fw.plugins.post_filter]
        if not any(name in PREEMPTING_PLUGINS for name in names):
            others = ", ".join(names)
            return f"{NOT_ENABLED} (PostFilter plugin(s) {others} ran)" if others else NOT_ENABLED
        if self.error:
            return "not attempted: the scheduling cycle fails with an error"
        if self.feasible:
            return "not needed: the pod fits"
        return self._preemption_outcome()

    def _preemption_outcome(self) -> str:
        if self.post_filter_result is None:
            return "not attempted: there are no nodes"
        nominated, victims = self._nominated(), self._victims()
        if nominated and victims:
            evicted = ", ".join(f"{v.pod} (priority {v.priority})" for v in victims)
            return (
                f"would evict {len(victims)} pod(s) from node {nominated}: {evicted}; the pod "
                f"is nominated to {nominated} and scheduled there once they are gone"
            )
        if nominated:
            return f"would nominate the pod to node {nominated}"
        _, status = self.post_filter_result
        message = status.message.removeprefix(PREEMPTION_PREFIX) or "no candidate node"
        if not isinstance(self.fw.handle, ReadOnlyHandle):  # the plugin could only evaluate
            return message
        return f"would not help: {message}"

    def _nominated(self) -> str:
        if self.post_filter_result is None:
            return ""
        result, _ = self.post_filter_result
        return result.nominated_node_name if result is not None else ""

    def _victims(self) -> tuple[Victim, ...]:
        handle = self.fw.handle
        if not isinstance(handle, ReadOnlyHandle):
            return ()
        recorded = handle.preemptions[self.preemptions_before :]
        return tuple(Victim(pod.key, pod.priority) for rec in recorded for pod in rec.victims)


def _rejection(status: Status, stage: str, *, plugin: str) -> Rejection:
    return Rejection(plugin=plugin, stage=stage, code=str(status.code), reasons=status.reasons)
