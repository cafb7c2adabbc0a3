"""PlacementFeasible: the extension point of kube-scheduler's pod-group scheduling cycle
(the `GenericWorkload` feature gate) that says whether a group's placement can still meet
its constraints, checked before the first member is tried and after each one.

It has no entry in a profile's `plugins` (upstream neither): a plugin enabled through
multiPoint that has a `placement_feasible` method takes part.

    SUCCESS         the constraints are met: the group may be bound
    WAIT            not yet met; more members may meet them
    UNSCHEDULABLE   cannot be met whatever the remaining members do: the cycle stops
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from kubesched.framework.status import Status
from kubesched.model import SchedulingPodGroup


@dataclass(frozen=True, slots=True)
class PlacementProgress:
    """How far the cycle got: members placed (in this cycle or before), members left."""

    scheduled: int
    remaining: int


@runtime_checkable
class PlacementFeasiblePlugin(Protocol):
    """Judges a pod group's placement as the cycle proceeds."""

    @property
    def name(self) -> str: ...

    def placement_feasible(
        self, group: SchedulingPodGroup, progress: PlacementProgress, /
    ) -> Status | None: ...
