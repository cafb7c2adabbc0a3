"""PlacementGenerate and PlacementScore: the extension points of kube-scheduler's
topology-aware workload scheduling (the `TopologyAwareWorkloadScheduling` feature gate,
alpha, on top of `GenericWorkload`).

With the gate on, a pod group's cycle no longer tries its members on every node at once:

1. the profile's PlacementGenerate plugin (at most one) splits the nodes into candidate
   `Placement`s (e.g. one per rack: `TopologyPlacementGenerator`);
2. the group is tried on each placement's nodes alone (the usual per-member cycle, with
   PlacementFeasible);
3. the PlacementScore plugins score the placements where the group fits
   (`PodGroupPodsCount`), each score normalized to 0..MAX_PLACEMENT_SCORE and weighted;
   the highest total wins (ties broken at random), and the members bind there.

A profile enables their plugins through multiPoint (a plugin with the method takes part) or
at `plugins.placementGenerate` / `plugins.placementScore` (weights there win), as upstream.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import Status
from kubesched.model import Pod, SchedulingPodGroup

MAX_PLACEMENT_SCORE = 100
"""The highest score a PlacementScore plugin may give once normalized (upstream MaxScore)."""
MIN_PLACEMENT_SCORE = 0


@dataclass(frozen=True, slots=True)
class Placement:
    """A set of nodes a pod group may be placed on (upstream `fwk.Placement`)."""

    name: str
    """Chosen by the plugin that made it (a topology domain's value); for logs."""
    nodes: Sequence[NodeInfo]
    """In the snapshot's order."""


@dataclass(frozen=True, slots=True)
class ScheduledMember:
    """A member of the group bound (or assumed) before this cycle, and its node."""

    pod: Pod
    node_name: str


@dataclass(frozen=True, slots=True)
class PodGroupInfo:
    """The pod group a cycle places (upstream `fwk.PodGroupInfo` with the snapshot's
    `PodGroupState`): the PodGroup and the members already bound or assumed."""

    group: SchedulingPodGroup
    scheduled: tuple[ScheduledMember, ...] = ()

    @property
    def topology_key(self) -> str:
        """The node label key of `spec.schedulingConstraints.topology[0]`, "" for none."""
        return self.group.topology_key


@dataclass(frozen=True, slots=True)
class ProposedAssignment:
    """One member's node in a placement, as the cycle found it."""

    pod: Pod
    node_name: str
    state: CycleState = field(default_factory=CycleState)


@dataclass(frozen=True, slots=True)
class PodGroupAssignments:
    """A feasible placement and where its members would go (upstream
    `fwk.PodGroupAssignments`)."""

    placement: Placement
    proposed: tuple[ProposedAssignment, ...]


@runtime_checkable
class PlacementGeneratePlugin(Protocol):
    """Splits the nodes of `parent` into candidate placements (they may overlap). Return
    the placements (none: the group fits nowhere), or a Status to fail the cycle; raise to
    report an internal error."""

    @property
    def name(self) -> str: ...

    def generate_placements(
        self, group: PodGroupInfo, parent: Placement, /
    ) -> Sequence[Placement] | Status: ...


@runtime_checkable
class PlacementScorePlugin(Protocol):
    """Scores one feasible placement of the group (higher is better); raise to report an
    internal error. Without `normalize_placement_score` the score must be in
    MIN_PLACEMENT_SCORE..MAX_PLACEMENT_SCORE."""

    @property
    def name(self) -> str: ...

    def score_placement(self, group: PodGroupInfo, assignments: PodGroupAssignments, /) -> int: ...


@runtime_checkable
class PlacementScoreExtensions(Protocol):
    """Optional on PlacementScore plugins: rescale the scores of all feasible placements
    in place (`scores[i]` is the i-th placement scored), to 0..MAX_PLACEMENT_SCORE."""

    def normalize_placement_score(
        self, group: PodGroupInfo, scores: MutableSequence[int], /
    ) -> Status | None: ...


__all__ = [
    "MAX_PLACEMENT_SCORE",
    "MIN_PLACEMENT_SCORE",
    "Placement",
    "PlacementGeneratePlugin",
    "PlacementScoreExtensions",
    "PlacementScorePlugin",
    "PodGroupAssignments",
    "PodGroupInfo",
    "ProposedAssignment",
    "ScheduledMember",
]
