"""What explain found about a gang's topology placements (the `TopologyAwareWorkloadScheduling`
feature gate): one trial per placement the PlacementGenerate plugin made (one per domain of
the PodGroup's topology key), what each member did there, how the feasible ones scored and
which one the scheduler would take. Plain, frozen data (printed by `placement_render`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MemberTrial:
    """One member tried in one placement."""

    name: str
    node: str = ""
    """The node the trial put it on; "" when it did not fit (or was not tried)."""
    message: str = ""
    """Why not: its FailedScheduling text within the placement, or why it was not tried."""
    plugins: tuple[str, ...] = ()
    """The plugins that rejected it."""
    tried: bool = True
    """False: the group was found unschedulable in this placement before its turn."""


@dataclass(frozen=True, slots=True)
class PlacementTrial:
    """The whole group tried on one placement's nodes alone."""

    domain: str
    """The topology key's value ("" for the one placement of every node)."""
    nodes: tuple[str, ...]
    feasible: bool
    status: str = ""
    """The group's status in this placement ("" when feasible)."""
    members: tuple[MemberTrial, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    """(PlacementScore plugin, normalized score times its weight), when scored."""
    total: int | None = None
    """The sum of `scores`; None when the placement was not scored."""


@dataclass(frozen=True, slots=True)
class PlacementsReport:
    """The placement cycle of the group, as the scheduler would run it now."""

    topology_key: str
    """`spec.schedulingConstraints.topology[0].key`; "" for a group without a constraint."""
    generator: str = ""
    """The profile's PlacementGenerate plugin; "" when it enables none."""
    members: tuple[str, ...] = ()
    """The pending members tried, in the queue's order."""
    scheduled: tuple[tuple[str, str], ...] = ()
    """(member, node) of those bound or held at Permit before the cycle."""
    placements: tuple[PlacementTrial, ...] = ()
    chosen: str = ""
    """The domain the scheduler would take; "" when none fits or several tie."""
    best: tuple[str, ...] = ()
    """The domains with the highest total (more than one: the scheduler picks at random)."""
    outcome: str = ""
    """One sentence: the choice, or the group's FailedScheduling text, or the error."""
    notes: tuple[str, ...] = ()
    pod: str = ""
    """The member explain was asked about."""

    @property
    def feasible(self) -> tuple[PlacementTrial, ...]:
        return tuple(p for p in self.placements if p.feasible)

    @property
    def pod_node(self) -> str:
        """Where the chosen placement's trial put the explained member ("" for none)."""
        chosen = next((p for p in self.placements if p.feasible and p.domain == self.chosen), None)
        if not self.chosen or chosen is None:
            return ""
        return next((m.node for m in chosen.members if m.name == self.pod), "")
