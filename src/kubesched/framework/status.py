"""The result of a plugin call: a `Code` plus human-readable reasons, as upstream's `*Status`.

Plugins return `Status | None`; `None` means success (upstream's nil Status) and costs
nothing on the hot path. Runners of the framework always return a `Status`, the shared
`SUCCESS` singleton when all went well, so callers can write `status.is_success()`.

A plugin may return a module-level constant Status for a rejection it repeats on many nodes
(saves an allocation per node): the runner only ever sets `plugin` on it, and a plugin's name
never changes. Never mutate `SUCCESS`.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from kubesched.errors import KubeschedError


class Code(IntEnum):
    """Status codes, in upstream's order; each one's requeue meaning is in its comment."""

    SUCCESS = 0
    """The plugin ran and found the pod schedulable (here)."""
    ERROR = 1
    """An internal failure (a plugin raised, bad input, an API error). Not a verdict on the
    pod: the queue requeues it without unschedulable plugins, so it goes back to activeQ or
    backoffQ soon, with an error backoff."""
    UNSCHEDULABLE = 2
    """The pod does not fit; PostFilter (preemption) may make room. The reasons say why.
    The pod waits in the unschedulable pool until an event registered by the rejecting
    plugin fires, then goes through backoff (the penalty for a wasted cycle)."""
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    """The pod does not fit and preemption would not help (PostFilter is skipped for such
    nodes). Requeued like UNSCHEDULABLE: on a registered event, then through backoff."""
    WAIT = 4
    """Permit only: hold the pod until a plugin allows or rejects it, or its timeout ends."""
    SKIP = 5
    """Bind: this plugin does not bind this pod (the next one is asked). PreFilter/PreScore:
    nothing to do for this pod, so the coupled Filter/Score of the same plugin is skipped."""
    PENDING = 6
    """The cycle ends successfully for the pod, but the plugin waits for something external.
    Requeued on a registered event straight to activeQ, without backoff."""

    def __str__(self) -> str:
        return _NAMES[self]


_NAMES: Final = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}
_REJECTED: Final = frozenset(
    {Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING}
)


class Status:
    """A code, the reasons behind it, and (set by the framework) the plugin that returned it.

    `Status(Code.UNSCHEDULABLE, "Insufficient cpu", "Insufficient memory")`
    """

    __slots__ = ("code", "error", "plugin", "reasons")

    def __init__(
        self, code: Code, *reasons: str, plugin: str = "", error: BaseException | None = None
    ) -> None:
        self.code: Final = code
        self.reasons: Final = reasons
        self.plugin = plugin
        self.error: Final = error

    @staticmethod
    def success() -> Status:
        """The shared success status (the framework's runners return it on success)."""
        return SUCCESS

    @classmethod
    def from_error(cls, error: BaseException, *, plugin: str = "") -> Status:
        """An ERROR status carrying the exception (its text is the reason)."""
        return cls(Code.ERROR, f"{error}", plugin=plugin, error=error)

    @property
    def message(self) -> str:
        """The reasons joined by ", " (upstream `Status.Message()`)."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        """Record the plugin that produced this status; returns self."""
        self.plugin = plugin
        return self

    def is_success(self) -> bool:
        return self.code is Code.SUCCESS

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending (the pod is turned away)."""
        return self.code in _REJECTED

    def is_error(self) -> bool:
        return self.code is Code.ERROR

    def is_skip(self) -> bool:
        return self.code is Code.SKIP

    def is_wait(self) -> bool:
        return self.code is Code.WAIT

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (self.code, self.reasons, self.plugin) == (other.code, other.reasons, other.plugin)

    def __hash__(self) -> int:
        return hash((self.code, self.reasons, self.plugin))

    def __repr__(self) -> str:
        plugin = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"Status({self.code!s}, {list(self.reasons)!r}{plugin})"

    def __str__(self) -> str:
        return self.message


SUCCESS: Final = Status(Code.SUCCESS)
"""The one success status the runners return. Treat it as read-only."""


def is_success(result: Status | None) -> bool:
    """True for `None` and for SUCCESS-coded statuses (plugins may return either)."""
    return result is None or result.code is Code.SUCCESS


class StatusError(KubeschedError):
    """Carries a non-success Status out of a nested call, for the runner that turns it back
    into the Status it returns (upstream returns `*Status` through every level)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status
