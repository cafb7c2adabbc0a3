"""Timings of the election, validated with client-go's rules.

client-go's `NewLeaderElector` refuses a config unless leaseDuration > renewDeadline,
renewDeadline > JitterFactor (1.2) x retryPeriod, every duration is positive and the lock
identity is not empty. The messages here say the same, with the configuration names a
kubesched user writes (`leaderElection.leaseDuration`, `--leader-elect-lease-duration`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesched.apis.config import LeaderElection
from kubesched.errors import FatalError

JITTER_FACTOR = 1.2
"""client-go's JitterFactor: acquire retries wait retryPeriod x [1, 1 + 1.2)."""


class ElectionConfigError(FatalError, ValueError):
    """The leader election timings (or identity) break client-go's rules."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ElectionConfig:
    """Durations in seconds, as `leaderElection` in KubeSchedulerConfiguration."""

    lease_duration: float = 15.0
    """How long standbys wait, from when they last saw the Lease change, before taking it."""
    renew_deadline: float = 10.0
    """How long the leader retries renewing before it gives up leading."""
    retry_period: float = 2.0
    """The pause between attempts to acquire or renew."""
    release_on_cancel: bool = True
    """Release the Lease (empty holder, leaseDurationSeconds 1) when asked to stop."""

    def __post_init__(self) -> None:
        problems = validation_problems(self)
        if problems:
            raise ElectionConfigError(
                "invalid leader election configuration: " + "; ".join(problems)
            )

    @classmethod
    def from_config(cls, config: LeaderElection) -> ElectionConfig:
        """The timings of a completed `leaderElection` section."""
        return cls(
            lease_duration=config.lease_duration,
            renew_deadline=config.renew_deadline,
            retry_period=config.retry_period,
        )

    @property
    def request_timeout(self) -> float:
        """The timeout of each request to the API server: max(1 s, renewDeadline / 2)."""
        return max(1.0, self.renew_deadline / 2)

    @property
    def lease_duration_seconds(self) -> int:
        """leaseDurationSeconds written into the Lease (whole seconds, at least 1)."""
        return max(1, int(self.lease_duration))


_FLAGS = {
    "leaseDuration": "--leader-elect-lease-duration",
    "renewDeadline": "--leader-elect-renew-deadline",
    "retryPeriod": "--leader-elect-retry-period",
}


def _names(field: str) -> str:
    return f"leaderElection.{field} ({_FLAGS[field]})"


def validation_problems(config: ElectionConfig) -> list[str]:
    """Every rule the timings break, worded like client-go's errors; empty when valid."""
    problems = [
        f"{_names(field)} must be greater than zero, got {value:g}s"
        for field, value in (
            ("leaseDuration", config.lease_duration),
            ("renewDeadline", config.renew_deadline),
            ("retryPeriod", config.retry_period),
        )
        if not value > 0
    ]
    if not config.lease_duration > config.renew_deadline:
        problems.append(
            f"{_names('leaseDuration')} must be greater than {_names('renewDeadline')}, "
            f"got {config.lease_duration:g}s <= {config.renew_deadline:g}s"
        )
    if not config.renew_deadline > JITTER_FACTOR * config.retry_period:
        problems.append(
            f"{_names('renewDeadline')} must be greater than "
            f"{_names('retryPeriod')} x JitterFactor ({JITTER_FACTOR:g}), "
            f"got {config.renew_deadline:g}s <= {JITTER_FACTOR * config.retry_period:g}s"
        )
    return problems


def validate_identity(identity: str) -> None:
    """client-go refuses a lock whose identity is empty; so do we."""
    if not identity:
        raise ElectionConfigError("invalid leader election configuration: Lock identity is empty")
