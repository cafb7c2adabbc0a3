"""What the rest of kubesched sees of the election: why leading stopped, and the
`Leadership` view the binder checks before each binding."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol


class StopReason(enum.Enum):
    """Why `LeaderElector.run` ended. Only `STOPPED` is a clean exit (status 0)."""

    STOPPED = "stopped"
    """We were asked to stop (`stop()` or cancellation), e.g. on SIGTERM."""
    RENEW_DEADLINE_EXCEEDED = "renew deadline exceeded"
    """The leader could not renew within renewDeadline (API server unreachable or slow)."""
    LEASE_TAKEN = "lease taken"
    """Another holder owns the Lease now."""
    LEADING_TASK_FAILED = "leading task failed"
    """`on_started_leading` raised; the work guarded by the lease is dead."""
    ELECTION_FAILED = "leader election failed"
    """An unexpected error inside the elector itself (a bug); logged with its traceback."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StoppedLeading:
    """The end of one `run`: passed to `on_stopped_leading` and returned by `run`."""

    reason: StopReason
    message: str
    """One line for the log: what happened and what follows."""
    was_leader: bool
    holder: str = ""
    """The holder we last saw ("" when released or unknown)."""
    released: bool = False
    """Whether we wrote the release (empty holder) before returning."""
    error: BaseException | None = None
    """The exception behind `LEADING_TASK_FAILED` or `ELECTION_FAILED`."""

    @property
    def exit_code(self) -> int:
        """kube-scheduler's convention: 0 when asked to stop, 1 when leadership was lost."""
        return 0 if self.reason is StopReason.STOPPED else 1


class Leadership(Protocol):
    """The leader-election view the scheduling core needs."""

    def is_leader(self) -> bool:
        """Whether we currently act as the leader."""
        ...

    def fenced(self) -> bool:
        """True when no new binding may start: not leading, stopping, or our last successful
        renew is older than renewDeadline (another replica may soon take over)."""
        ...


class ElectionMetrics(Protocol):
    """Hooks for `leader_election_master_status` and `leader_election_slowpath_total`."""

    def set_leading(self, leading: bool) -> None:
        """Called with True on acquiring and False on losing or releasing the Lease."""
        ...

    def slowpath_exercised(self) -> None:
        """Called when the leader had to read the Lease to renew it (fast path failed)."""
        ...
