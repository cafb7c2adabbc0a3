"""What explain found about the group a pod belongs to: plain, frozen data (summarised by
`group_summary`, printed by `group_render`).

Two kinds of group: scheduler-plugins' PodGroup (`scheduling.x-k8s.io/v1alpha1`, joined by
the pod label `scheduling.x-k8s.io/pod-group`, placed by Coscheduling) and kube-scheduler's
native one (`scheduling.k8s.io/v1beta1`, joined by `spec.schedulingGroup.podGroupName`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesched.apis.waitingpods import WaitingPodRecord
from kubesched.explain.placement_report import PlacementsReport

BOUND = "bound"
WAITING = "waiting at Permit"
GATED = "gated"
PENDING = "pending"


@dataclass(frozen=True, slots=True)
class Member:
    """One pod of the group (not finished)."""

    name: str
    node: str = ""
    """The node it is bound to; "" while pending."""
    gates: tuple[str, ...] = ()
    """Its `spec.schedulingGates`."""
    last_failure: str = ""
    """Its `PodScheduled=False` message: the last FailedScheduling it was reported."""
    waiting: WaitingPodRecord | None = None
    """Held at Permit by the scheduler (known only with `--scheduler-url`)."""

    @property
    def state(self) -> str:
        if self.node:
            return BOUND
        if self.waiting is not None:
            return WAITING
        return GATED if self.gates else PENDING


@dataclass(frozen=True, slots=True)
class PermitView:
    """What the running scheduler holds at Permit, from its `/debug/waitingpods`."""

    url: str = ""
    """`--scheduler-url`; "" when not given."""
    error: str = ""
    """One line: why it could not be read."""
    leading: bool = False
    observed_at: float = 0.0
    """The scheduler's clock when it answered (seconds since the epoch)."""
    held: tuple[WaitingPodRecord, ...] = ()
    """The group's members it holds."""

    @property
    def known(self) -> bool:
        """True when the view can be trusted: read without error from the leader."""
        return bool(self.url) and not self.error and self.leading


@dataclass(frozen=True, slots=True)
class GroupReport:
    api_version: str
    namespace: str
    name: str
    min_field: str
    """`minMember` (Coscheduling) or `minCount` (native)."""
    min_count: int = 0
    """0 when the group was not read or sets none."""
    found: bool = True
    problem: str = ""
    """Why the group could not be read (one line); "" when it was."""
    timeout: str = ""
    """How long placed members wait at Permit for the others, and where that comes from."""
    status: tuple[tuple[str, str], ...] = ()
    """(field, value) of its `status`, as the API server has it."""
    conditions: tuple[str, ...] = ()
    members: tuple[Member, ...] = ()
    permit: PermitView = PermitView()
    notes: tuple[str, ...] = ()
    enforced_by: str = ""
    """The enabled plugin that holds the members together; "" when the profile enables none
    (kubesched then places them one by one)."""
    lacks: str = ""
    """One sentence: what the group still lacks (`group_summary.lacks`)."""
    placements: PlacementsReport | None = None
    """The group's topology placements (`TopologyAwareWorkloadScheduling`); None without."""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def count(self, state: str) -> int:
        return sum(1 for member in self.members if member.state == state)
