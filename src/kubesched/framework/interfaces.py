"""One small Protocol per extension point (the Handle plugins reach the cluster through is in
`kubesched.framework.handle`).

A plugin is any object with a `name` and the methods of the extension points it serves;
no base class is needed. Extension-point methods take positional arguments (they run per
pod and node; this mirrors upstream's signatures). A plugin signals:

* success by returning `None` (or a SUCCESS status),
* a verdict by returning a `Status` (see `Code` for what each code means to the queue),
* an internal failure by raising: the framework turns any exception into an ERROR status
  naming the plugin, so a buggy plugin never takes the scheduler down.

Scheduling-cycle methods are synchronous (the cycle must see one consistent snapshot);
`pre_bind` and `bind` run in the binding cycle and may be `async` (plain methods work too).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, MutableSequence, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Protocol, TypeAlias, runtime_checkable

from kubesched.framework.cycle_state import CycleState, StateKey
from kubesched.framework.events import ClusterEvent, ClusterEventWithHint
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import Status
from kubesched.model import Pod

MAX_NODE_SCORE = 100
"""The highest score a Score plugin may give a node (after normalization)."""
MIN_NODE_SCORE = 0

PreFilterResult: TypeAlias = AbstractSet[str]
"""Returned by `pre_filter` to restrict the cycle to these node names (ANDed across plugins)."""


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    """What a PostFilter plugin (e.g. preemption) achieved: the node the pod is nominated to."""

    nominated_node_name: str = ""


@runtime_checkable
class QueuedPodInfo(Protocol):
    """What the queue hands to QueueSort: the pod and when it was (last) queued."""

    @property
    def pod(self) -> Pod: ...
    @property
    def timestamp(self) -> float: ...


@runtime_checkable
class Plugin(Protocol):
    """The parent of every plugin: its name as used in profiles (`NodeResourcesFit`)."""

    @property
    def name(self) -> str: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Gates a pod before it enters activeQ/backoffQ; keep it cheap (runs in event handlers)."""

    def pre_enqueue(self, pod: Pod, /) -> Status | None: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    """Orders the active queue; exactly one is enabled per profile."""

    def less(self, first: QueuedPodInfo, second: QueuedPodInfo, /) -> bool: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    """Runs once per cycle before Filter: precompute per-pod data into the CycleState.

    Return a Status to reject the pod (or SKIP: this plugin's Filter is then not called),
    a set of node names to restrict the cycle to them, or None.
    """

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], /
    ) -> Status | PreFilterResult | None: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    """Says whether the pod fits one node; runs for (many) nodes per cycle, so keep it lean."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo, /) -> Status | None: ...


class NodeToStatusReader(Protocol):
    """Why each node was rejected (what PostFilter plugins get)."""

    def get(self, node_name: str) -> Status: ...
    def items(self) -> Sequence[tuple[str, Status]]: ...


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Optional on PreFilter plugins whose PreFilter state depends on the pods on nodes
    (topology spread counts, inter-pod affinity): keep that state right when a what-if
    evaluation adds or removes a pod on `node_info` (filtering with nominated pods,
    preemption's dry run). `node_info` (a copy) already reflects the change when called.

    Return a non-success Status (or raise) to fail the evaluation with an ERROR. Plugins
    whose PreFilter was skipped this cycle are not called (upstream `PreFilterExtensions`).
    """

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo, /
    ) -> Status | None: ...

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_to_remove: Pod,
        node_info: NodeInfo,
        /,
    ) -> Status | None: ...


@runtime_checkable
class ExtensionReach(Protocol):
    """Optional on PreFilterExtensions plugins: the node label keys through which adding or
    removing `other` on `node_info` (`add_pod` / `remove_pod`) can change this cycle's Filter
    verdicts for `pod_to_schedule`: a verdict on a node can change only if that node has
    `node_info`'s value for one of the keys (empty: on no node). None: on any node. Pod-group
    preemption's reprieve skips the victims that cannot change a placed member's verdict
    (`scheduler.podgroup_reprieve`); a plugin without it counts as None."""

    def extension_reach(
        self, state: CycleState, pod_to_schedule: Pod, other: Pod, node_info: NodeInfo, /
    ) -> frozenset[str] | None: ...


class FilterRunner(Protocol):
    """The profile's Filter machinery, for PostFilter plugins that evaluate what-ifs
    (preemption's dry run). The Framework implements it and hands itself to PostFilter
    plugins in the CycleState under `FILTER_RUNNER_KEY` (upstream's Handle *is* the
    framework; kubesched's Handle is the application's)."""

    def run_filter_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status:
        """Filter `pod` on `node_info` counting the pods nominated to that node with equal or
        higher priority as running (and, if that passes, once more without them)."""
        ...

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        """Tell every PreFilterExtensions plugin that `pod_to_add` joined `node_info`."""
        ...

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        """Tell every PreFilterExtensions plugin that `pod_to_remove` left `node_info`."""
        ...


FILTER_RUNNER_KEY: StateKey[FilterRunner] = StateKey("FrameworkFilterRunner")
"""Where a PostFilter plugin finds the profile's `FilterRunner` in the cycle state."""


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    """Runs when no node fits, e.g. to preempt; returns a result (nomination) and a status.

    The result sets the pod's nominated node (`PostFilterResult("")` clears it); None leaves
    it as it is. `state.read(FILTER_RUNNER_KEY)` re-runs the profile's filters on what-ifs.
    """

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatusReader, /
    ) -> tuple[PostFilterResult | None, Status | None]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    """Runs once per cycle before Score with the feasible nodes (SKIP skips this Score)."""

    def pre_score(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], /
    ) -> Status | None: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    """Ranks one feasible node; returns an int (0..100 unless `normalize_score` rescales it).

    Raise to report an internal error (the cycle then fails with ERROR).
    """

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo, /) -> int: ...


@runtime_checkable
class SignPlugin(Plugin, Protocol):
    """Optional on Filter and Score plugins (upstream `SignPlugin`): what of `pod` this
    plugin's Filter and Score read, as hashable fragments (`()` when nothing of the pod
    matters), or None when it cannot sign this pod. Pods with equal signatures get the same
    results on the same node, so kubesched reuses them and batches such pods
    (`kubesched.framework.signs`).
    """

    def sign_pod(self, pod: Pod, /) -> tuple[Hashable, ...] | None: ...


@runtime_checkable
class ScoreExtensions(Protocol):
    """Optional on Score plugins: rescale all raw scores in place to 0..MAX_NODE_SCORE.

    `scores[i]` belongs to `nodes[i]` of the `pre_score` call of this cycle.
    """

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: MutableSequence[int], /
    ) -> Status | None: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    """Reserve per-node resources of the chosen node; `unreserve` must undo it (idempotent)."""

    def reserve(self, state: CycleState, pod: Pod, node_name: str, /) -> Status | None: ...
    def unreserve(self, state: CycleState, pod: Pod, node_name: str, /) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    """Approve, reject or delay (WAIT, with a timeout in seconds) the binding of the pod."""

    def permit(
        self, state: CycleState, pod: Pod, node_name: str, /
    ) -> tuple[Status | None, float]: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    """Work before binding (e.g. provisioning); may be `async def`."""

    def pre_bind(
        self, state: CycleState, pod: Pod, node_name: str, /
    ) -> Awaitable[Status | None] | Status | None: ...


@runtime_checkable
class PreBindPreFlightExtensions(Protocol):
    """Optional on PreBind plugins (upstream `PreBindPreFlight`): whether `pre_bind` will do
    any work for this pod on `node_name`, asked before the binding cycle starts. Return None
    (it will: kube-scheduler then sets the pod's `nominatedNodeName` to that node, so that
    autoscalers see where it is going while PreBind runs), `Status(Code.SKIP)` (nothing to do:
    its `pre_bind` is not called) or raise / return ERROR. A PreBind plugin without this
    method is taken to have work.
    """

    def pre_bind_pre_flight(
        self, state: CycleState, pod: Pod, node_name: str, /
    ) -> Status | None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    """Binds the pod; return SKIP to let the next bind plugin do it. May be `async def`."""

    def bind(
        self, state: CycleState, pod: Pod, node_name: str, /
    ) -> Awaitable[Status | None] | Status | None: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    """Informational, after a successful bind (clean-up)."""

    def post_bind(self, state: CycleState, pod: Pod, node_name: str, /) -> None: ...


@runtime_checkable
class EnqueueExtensions(Protocol):
    """Optional: the cluster events that may make a pod this plugin rejected schedulable,
    each bare or with a queueing hint (`ClusterEventWithHint`) that looks at the event's
    objects and says QUEUE or QUEUE_SKIP for one rejected pod.

    Without it the framework registers every event for the plugin (correct, but slower);
    an event without a hint queues every pod the plugin rejected.
    """

    def events_to_register(self) -> Sequence[ClusterEvent | ClusterEventWithHint]: ...


PluginFactory: TypeAlias = Callable[..., Plugin]
"""Builds a plugin; called as `factory(args=<pluginConfig args dict>, handle=<Handle>)`.

A plugin class whose `__init__(self, *, args, handle)` has that signature is its own factory.
"""
