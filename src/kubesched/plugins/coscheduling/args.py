"""`CoschedulingArgs` (scheduler-plugins): how long members wait at Permit, how long a
rejected group backs off, and when PostFilter rejects the members waiting with one; plus
kubesched's opt-in `gangPreemption` (gang_preemption.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import ArgsError, PluginArgs, check_fields, integer

_PERMIT, _BACKOFF, _REJECT, _GANG = (
    "permitWaitingTimeSeconds",
    "podGroupBackoffSeconds",
    "podGroupRejectPercentage",
    "gangPreemption",
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
    gang_preemption: bool = False
    """kubesched's own, off by default (scheduler-plugins has no such field): this plugin's
    PostFilter preempts for every pod of the profile, a gang as a whole and a gang's pods
    as one victim; the profile must disable DefaultPreemption at postFilter."""

    @property
    def reject_threshold(self) -> float:
        """`pod_group_reject_percentage` as a fraction."""
        return self.pod_group_reject_percentage / 100.0

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        default = cls.default()
        check_fields(args, kind=cls.KIND, allowed=(_PERMIT, _BACKOFF, _REJECT, _GANG))
        reject = args.get(_REJECT)
        gang = args.get(_GANG, False)
        if not isinstance(gang, bool):
            raise ArgsError(
                f"{cls.KIND}.{_GANG}: expected true or false, got {gang!r}; write "
                f"{_GANG}: true to let gangs preempt as a whole, or leave it out"
            )
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
            gang_preemption=gang,
        )

    def to_v1(self) -> dict[str, Any]:
        v1: dict[str, Any] = {
            _PERMIT: self.permit_waiting_time_seconds,
            _BACKOFF: self.pod_group_backoff_seconds,
            _REJECT: self.pod_group_reject_percentage,
        }
        if self.gang_preemption:  # written only when on: the defaults stay scheduler-plugins'
            v1[_GANG] = True
        return v1
