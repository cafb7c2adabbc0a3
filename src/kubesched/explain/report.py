"""What `kubesched explain` found for one pod: plain, frozen data (rendered by `render`).

Verdicts are sorted as the table shows them: feasible nodes by total score (highest first),
then name; rejected nodes after them, by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesched.explain.findings import PluginFinding
from kubesched.explain.group_report import GroupReport

PREFILTER = "PreFilter"
FILTER = "Filter"


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a node (or, at PreFilter, every node) cannot take the pod."""

    plugin: str
    """The plugin that rejected (several names, space-separated, for a PreFilterResult)."""
    stage: str
    """`PreFilter` or `Filter`."""
    code: str
    """`Unschedulable`, `UnschedulableAndUnresolvable`, `Pending` or `Error`."""
    reasons: tuple[str, ...]

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    @property
    def is_error(self) -> bool:
        return self.code == "Error"


@dataclass(frozen=True, slots=True)
class PluginScore:
    """One Score plugin's verdict on one feasible node."""

    plugin: str
    weight: int
    raw: int
    """What the plugin's `score()` returned."""
    normalized: int
    """After its `normalize_score` (0..100)."""
    weighted: int
    """`normalized * weight`; the node's total is the sum of these."""


@dataclass(frozen=True, slots=True)
class NodeVerdict:
    node: str
    rejection: Rejection | None = None
    """None: the node passed PreFilter and every Filter plugin."""
    scores: tuple[PluginScore, ...] = ()
    total: int | None = None
    """The sum of the weighted scores; None when the node was not scored."""
    notes: tuple[str, ...] = ()
    """What Filter plugins would do on this feasible node (`explain_node`), e.g. the
    devices DynamicResources would allocate."""

    @property
    def feasible(self) -> bool:
        return self.rejection is None


@dataclass(frozen=True, slots=True)
class Sampling:
    """How many nodes the scheduler itself would filter before it stops looking."""

    candidates: int
    """Nodes left after PreFilter (all nodes, unless a PreFilterResult restricted them)."""
    num_feasible_nodes_to_find: int
    """The scheduler stops filtering once this many nodes passed (upstream's sampling)."""
    percentage_of_nodes_to_score: int | None
    """The profile's (else the global) percentageOfNodesToScore; None or 0: adaptive."""

    @property
    def samples(self) -> bool:
        return self.num_feasible_nodes_to_find < self.candidates


@dataclass(frozen=True, slots=True)
class Victim:
    """A pod preemption would evict."""

    pod: str
    """`namespace/name`."""
    priority: int


@dataclass(frozen=True, slots=True)
class Explanation:
    pod: str
    """`namespace/name`."""
    scheduler_name: str
    hypothetical: bool
    """True for a pod read from a file (`-f`), not from the cluster."""
    num_nodes: int
    verdicts: tuple[NodeVerdict, ...]
    sampling: Sampling
    pre_filter: Rejection | None = None
    """A PreFilter rejection, which applies to every node."""
    restricted_to: tuple[str, ...] | None = None
    """The nodes a PreFilterResult restricted the cycle to (None: no restriction)."""
    score_plugins: tuple[tuple[str, int], ...] = ()
    """(name, weight) of the Score plugins that ran, in order."""
    skipped_score_plugins: tuple[str, ...] = ()
    """Score plugins whose PreScore said Skip for this pod."""
    best: tuple[str, ...] = ()
    """The feasible nodes with the highest total (more than one: a tie)."""
    chosen: str = ""
    """The node kubesched would bind the pod to ("" when none fits, on a tie or an error)."""
    failed_scheduling: str = ""
    """The FailedScheduling message kubesched would report when nothing fits."""
    error: str = ""
    """A plugin error that would fail the scheduling cycle (reported as SchedulerError)."""
    preemption: str = ""
    """What preemption would do, or why it would not run."""
    nominated_node: str = ""
    """The node preemption would nominate the pod to ("" when none)."""
    victims: tuple[Victim, ...] = ()
    """The pods preemption would evict from `nominated_node`."""
    preemption_choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(node, victims) of every candidate preemption ranks highest, `nominated_node` among
    them; kube-scheduler picks any one of equals (its candidate search runs in parallel)."""
    notes: tuple[str, ...] = ()
    group: GroupReport | None = None
    """The group the pod belongs to (a PodGroup of either API), None for none."""
    findings: tuple[PluginFinding, ...] = ()
    """What plugins say about the pod as a whole (CapacityScheduling: its quota verdict)."""

    @property
    def feasible(self) -> tuple[NodeVerdict, ...]:
        return tuple(v for v in self.verdicts if v.feasible)

    @property
    def tie(self) -> bool:
        return len(self.best) > 1
