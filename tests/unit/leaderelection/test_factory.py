"""new_elector from the completed config, and the Leadership views."""

from __future__ import annotations

import asyncio

import pytest

from kubesched.apis.config import LeaderElection
from kubesched.leaderelection import (
    ElectionConfigError,
    new_elector,
)
from tests.unit.leaderelection.conftest import Harness


def test_new_elector_uses_the_section(h: Harness) -> None:
    settings = LeaderElection(
        lease_duration=30,
        renew_deadline=20,
        retry_period=4,
        resource_name="my-custom-scheduler",
        resource_namespace="custom-scheduler-ns",
    )
    elector = new_elector(h.api("a"), settings=settings, scheduler_names=("my-custom-scheduler",))
    assert elector.lease == "custom-scheduler-ns/my-custom-scheduler"
    assert elector.config.lease_duration == 30
    assert elector.config.request_timeout == 10
    assert "_" in elector.identity

    async def main() -> None:
        task = asyncio.create_task(elector.run())
        await h.wait_until(elector.is_leader)
        task.cancel()

    h.run(main())
    assert h.api("a").timeouts[0] == 10
    assert h.store.leases["custom-scheduler-ns", "my-custom-scheduler"]


def test_new_elector_refuses_bad_timings(h: Harness) -> None:
    settings = LeaderElection(lease_duration=5, renew_deadline=10, resource_name="x")
    with pytest.raises(ElectionConfigError):
        new_elector(h.api("a"), settings=settings, scheduler_names=("x",))
