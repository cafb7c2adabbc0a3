"""ElectionConfig validation: client-go's rules, with kubesched's option names."""

from __future__ import annotations

import math
from typing import TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.apis.config import LeaderElection
from kubesched.leaderelection import (
    JITTER_FACTOR,
    ElectionConfig,
    ElectionConfigError,
    LeaderElector,
    LeaseLock,
)


class Durations(TypedDict, total=False):
    lease_duration: float
    renew_deadline: float
    retry_period: float


def test_defaults_are_kube_schedulers() -> None:
    config = ElectionConfig()
    assert (config.lease_duration, config.renew_deadline, config.retry_period) == (15, 10, 2)
    assert config.release_on_cancel
    assert config.request_timeout == 5.0
    assert config.lease_duration_seconds == 15


LEASE = "leaderElection.leaseDuration (--leader-elect-lease-duration)"
RENEW = "leaderElection.renewDeadline (--leader-elect-renew-deadline)"
RETRY = "leaderElection.retryPeriod (--leader-elect-retry-period)"


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"lease_duration": 10, "renew_deadline": 10},
            f"{LEASE} must be greater than {RENEW}, got 10s <= 10s",
        ),
        ({"lease_duration": 5, "renew_deadline": 10}, f"{LEASE} must be greater than {RENEW}"),
        (
            {"renew_deadline": 2.4, "retry_period": 2},
            f"{RENEW} must be greater than {RETRY} x JitterFactor (1.2), got 2.4s <= 2.4s",
        ),
        ({"lease_duration": 0}, f"{LEASE} must be greater than zero"),
        ({"renew_deadline": -1}, f"{RENEW} must be greater than zero"),
        ({"retry_period": 0}, f"{RETRY} must be greater than zero"),
        ({"retry_period": math.nan}, f"{RETRY} must be greater than zero"),
    ],
)
def test_each_rule_is_enforced_with_a_clear_message(kwargs: Durations, expected: str) -> None:
    with pytest.raises(ElectionConfigError, match="invalid leader election configuration") as info:
        ElectionConfig(**kwargs)
    assert expected in str(info.value)


def test_all_problems_are_reported_at_once() -> None:
    with pytest.raises(ElectionConfigError) as info:
        ElectionConfig(lease_duration=0, renew_deadline=0, retry_period=0)
    message = str(info.value)
    assert message.count("must be greater than zero") == 3
    assert "must be greater than leaderElection.renewDeadline" in message


def test_renew_deadline_just_above_jittered_retry_is_valid() -> None:
    ElectionConfig(lease_duration=3, renew_deadline=2.41, retry_period=2)


def test_empty_identity_is_refused() -> None:
    lock = LeaseLock(object(), namespace="ns", name="l", identity="", scheduler_names=("s",))  # type: ignore[arg-type]
    with pytest.raises(ElectionConfigError, match="Lock identity is empty"):
        LeaderElector(lock)


@pytest.mark.parametrize(("renew", "timeout"), [(10, 5.0), (1.5, 1.0), (0.5, 1.0), (30, 15.0)])
def test_request_timeout_is_half_the_renew_deadline_at_least_one_second(
    renew: float, timeout: float
) -> None:
    config = ElectionConfig(lease_duration=renew + 1, renew_deadline=renew, retry_period=0.1)
    assert config.request_timeout == timeout


def test_from_config_takes_the_completed_section() -> None:
    section = LeaderElection(lease_duration=30, renew_deadline=20, retry_period=4)
    config = ElectionConfig.from_config(section)
    assert (config.lease_duration, config.renew_deadline, config.retry_period) == (30, 20, 4)


durations = st.floats(min_value=-5, max_value=100, allow_nan=False)


@given(lease=durations, renew=durations, retry=durations)
def test_valid_exactly_when_client_go_would_accept(
    lease: float, renew: float, retry: float
) -> None:
    accepted = lease > renew > JITTER_FACTOR * retry and min(lease, renew, retry) > 0
    try:
        ElectionConfig(lease_duration=lease, renew_deadline=renew, retry_period=retry)
    except ElectionConfigError:
        assert not accepted
    else:
        assert accepted
