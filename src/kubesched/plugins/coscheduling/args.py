"""`CoschedulingArgs` (scheduler-plugins): how long members wait at Permit, how long a
rejected group backs off, and when PostFilter rejects the members waiting with one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import PluginArgs, check_fields, integer

_PERMIT, _BACKOFF, _REJECT = (
    "permitWaitingTimeSeconds",
    "podGroupBackoffSeconds",
    "podGroupRejectPercentage",
)


@dataclass(frozen=True, slots=True)
class CoschedulingArgs(PluginArgs):
    """scheduler-plugins' `CoschedulingArgs`, with its defaults."""

    KIND: ClassVar[str] = "CoschedulingArgs"

    permit_waiting_time_seconds: int = 60
    """How long members wait at Permit for their group (0..86400)."""
    pod_group_backoff_seconds: int = 0
    """How long a group rejected at PostFilter stays out of the queue (0..3600)."""
    pod_group_reject_percentage: int = 10
    """PostFilter leaves the waiting members alone while the group's unassigned share of
    minMember is at or below this percentage (0..100)."""

    @property
    def reject_threshold(self) -> float:
        """`pod_group_reject_percentage` as a fraction."""
        return self.pod_group_reject_percentage / 100.0

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        default = cls.default()
        check_fields(args, kind=cls.KIND, allowed=(_PERMIT, _BACKOFF, _REJECT))
        reject = args.get(_REJECT)
        return cls(
            permit_waiting_time_seconds=integer(
                args.get(_PERMIT, default.permit_waiting_time_seconds),
                path=_PERMIT,
                low=0,
                high=24 * 3600,
            ),
            pod_group_backoff_seconds=integer(
                args.get(_BACKOFF, default.pod_group_backoff_seconds),
                path=_BACKOFF,
                low=0,
                high=3600,
            ),
            pod_group_reject_percentage=integer(
                default.pod_group_reject_percentage if reject is None else reject,
                path=_REJECT,
                low=0,
                high=100,
            ),
        )

    def to_v1(self) -> dict[str, Any]:
        return {
            _PERMIT: self.permit_waiting_time_seconds,
            _BACKOFF: self.pod_group_backoff_seconds,
            _REJECT: self.pod_group_reject_percentage,
        }
