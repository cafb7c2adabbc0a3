"""One tryAcquireOrRenew / release at a time: client-go's table cases on a fake API."""

from __future__ import annotations

import asyncio

import pytest

from kubesched.kube.errors import ApiError, Conflict
from kubesched.leaderelection.candidate import Attempt
from tests.unit.leaderelection.conftest import FakeMetrics, Harness

SECOND_LATER = "2026-01-02T03:04:06.000000Z"


def test_acquire_with_no_object_creates_it(h: Harness) -> None:
    a = h.candidate("a")

    async def main() -> Attempt:
        return await a.try_acquire_or_renew()

    assert h.run(main()) is Attempt.SUCCEEDED
    spec = h.store.spec()
    assert spec["holderIdentity"] == "a"
    assert spec["leaseDurationSeconds"] == 15
    assert spec["leaseTransitions"] == 0
    assert spec["acquireTime"] == spec["renewTime"] == "2026-01-02T03:04:05.000000Z"
    assert [verb for verb, _ in h.api("a").calls] == ["get", "post"]
    assert a.holds()
    assert a.last_renew_start == 0.0


def test_acquire_with_an_empty_holder_takes_it_at_once(h: Harness) -> None:
    h.foreign("", leaseTransitions=4)
    a = h.candidate("a")
    assert h.run(a.try_acquire_or_renew()) is Attempt.SUCCEEDED
    assert h.store.spec()["holderIdentity"] == "a"
    assert h.store.spec()["leaseTransitions"] == 5


def test_refuse_a_fresh_holder(h: Harness) -> None:
    h.foreign("b")
    a = h.candidate("a")
    assert h.run(a.try_acquire_or_renew()) is Attempt.HELD
    assert h.store.holder() == "b"
    assert [verb for verb, _ in h.api("a").calls] == ["get"]


def test_acquire_from_a_holder_that_stopped_renewing_after_lease_duration(h: Harness) -> None:
    h.foreign("b")
    a = h.candidate("a")

    async def main() -> tuple[Attempt, Attempt, Attempt]:
        first = await a.try_acquire_or_renew()
        await asyncio.sleep(14.9)
        early = await a.try_acquire_or_renew()
        await asyncio.sleep(0.1)
        late = await a.try_acquire_or_renew()
        return first, early, late

    assert h.run(main()) == (Attempt.HELD, Attempt.HELD, Attempt.SUCCEEDED)
    assert h.store.spec()["holderIdentity"] == "a"
    assert h.store.spec()["leaseTransitions"] == 5
    assert h.store.spec()["acquireTime"] == "2026-01-02T03:04:20.000000Z"


def test_refuse_a_holder_that_keeps_renewing(h: Harness) -> None:
    h.foreign("b")
    a = h.candidate("a")

    async def main() -> list[Attempt]:
        results = []
        for second in range(1, 60):
            await asyncio.sleep(1)
            if second % 2 == 0:  # b renews every 2 s: the record changes
                h.foreign("b", renewTime=f"2026-01-02T03:05:{second:02d}.000000Z")
            results.append(await a.try_acquire_or_renew())
        return results

    assert set(h.run(main())) == {Attempt.HELD}


@pytest.mark.parametrize(
    "renew_time", ["2027-01-02T03:04:05.000000Z", "2025-01-02T03:04:05.000000Z", None]
)
def test_only_observed_change_counts_never_the_holders_timestamps(
    h: Harness, renew_time: str | None
) -> None:
    """A renewTime a year ahead does not keep the lease; a year behind does not expire it."""
    h.foreign("b", renewTime=renew_time)
    a = h.candidate("a")

    async def main() -> tuple[Attempt, Attempt]:
        fresh = await a.try_acquire_or_renew()
        await asyncio.sleep(15)
        return fresh, await a.try_acquire_or_renew()

    assert h.run(main()) == (Attempt.HELD, Attempt.SUCCEEDED)


def test_the_holders_lease_duration_is_used(h: Harness) -> None:
    h.foreign("b", leaseDurationSeconds=40)
    a = h.candidate("a")

    async def main() -> tuple[Attempt, Attempt]:
        await a.try_acquire_or_renew()
        await asyncio.sleep(30)
        mid = await a.try_acquire_or_renew()
        await asyncio.sleep(10)
        return mid, await a.try_acquire_or_renew()

    assert h.run(main()) == (Attempt.HELD, Attempt.SUCCEEDED)


def test_renew_own_lease_by_the_fast_path(h: Harness) -> None:
    a = h.candidate("a")

    async def main() -> Attempt:
        await a.try_acquire_or_renew()
        await asyncio.sleep(2)
        h.api("a").calls.clear()
        return await a.try_acquire_or_renew()

    assert h.run(main()) is Attempt.SUCCEEDED
    assert [verb for verb, _ in h.api("a").calls] == ["put"]
    spec = h.store.spec()
    assert spec["acquireTime"] == "2026-01-02T03:04:05.000000Z"
    assert spec["renewTime"] == "2026-01-02T03:04:07.000000Z"
    assert spec["leaseTransitions"] == 0
    assert a.last_renew_start == 2.0


def test_renew_by_the_slow_path_after_a_conflict(h: Harness, fake_metrics: FakeMetrics) -> None:
    metrics = fake_metrics
    a = h.candidate("a", metrics=metrics)

    async def main() -> Attempt:
        await a.try_acquire_or_renew()
        # Someone edits the Lease (a label): new resourceVersion, same record.
        h.store.leases["ns", "lease"]["metadata"]["resourceVersion"] = h.store.next_rv()
        await asyncio.sleep(2)
        h.api("a").calls.clear()
        return await a.try_acquire_or_renew()

    assert h.run(main()) is Attempt.SUCCEEDED
    assert [verb for verb, _ in h.api("a").calls] == ["put", "get", "put"]
    assert metrics.slowpath == 1
    assert h.store.spec()["leaseTransitions"] == 0
    assert h.store.spec()["renewTime"] == "2026-01-02T03:04:07.000000Z"


def test_two_candidates_taking_over_an_expired_lease_one_wins(h: Harness) -> None:
    h.foreign("old")
    a, b = h.candidate("a"), h.candidate("b")
    h.api("a").latency = h.api("b").latency = 0.1

    async def main() -> tuple[Attempt, Attempt]:
        await asyncio.gather(a.try_acquire_or_renew(), b.try_acquire_or_renew())
        await asyncio.sleep(15)
        return await asyncio.gather(a.try_acquire_or_renew(), b.try_acquire_or_renew())

    results = h.run(main())
    assert sorted(r.value for r in results) == ["failed", "succeeded"]
    assert h.store.spec()["leaseTransitions"] == 5
    assert h.store.writes == [("update", h.store.holder())]


def test_two_candidates_creating_the_lease_one_wins(h: Harness) -> None:
    a, b = h.candidate("a"), h.candidate("b")
    h.api("a").latency = h.api("b").latency = 0.1

    async def main() -> tuple[Attempt, Attempt]:
        return await asyncio.gather(a.try_acquire_or_renew(), b.try_acquire_or_renew())

    assert sorted(r.value for r in h.run(main())) == ["failed", "succeeded"]
    assert len(h.store.writes) == 1


def test_an_api_error_is_a_failed_attempt(h: Harness) -> None:
    a = h.candidate("a")
    h.api("a").failures.append(ApiError(500, "InternalError", "etcd unavailable"))
    assert h.run(a.try_acquire_or_renew()) is Attempt.FAILED
    assert a.observed is None


def test_release_writes_an_empty_holder_and_keeps_transitions(h: Harness) -> None:
    h.foreign("", leaseTransitions=6)
    a = h.candidate("a")

    async def main() -> bool:
        await a.try_acquire_or_renew()
        await asyncio.sleep(1)
        return await a.release()

    assert h.run(main()) is True
    spec = h.store.spec()
    assert spec["holderIdentity"] == ""
    assert spec["leaseDurationSeconds"] == 1
    assert spec["leaseTransitions"] == 7
    assert spec["renewTime"] == spec["acquireTime"] == SECOND_LATER
    assert not a.holds()


def test_release_retries_on_conflict(h: Harness) -> None:
    a = h.candidate("a")

    async def main() -> bool:
        await a.try_acquire_or_renew()
        h.api("a").calls.clear()
        h.api("a").put_failures.append(Conflict(409, "Conflict", "modified"))
        return await a.release()

    assert h.run(main()) is True
    assert [verb for verb, _ in h.api("a").calls] == ["get", "put", "get", "put"]
    assert h.store.holder() == ""


def test_release_leaves_another_holders_lease_alone(h: Harness) -> None:
    a = h.candidate("a")

    async def main() -> bool:
        await a.try_acquire_or_renew()
        h.foreign("b")
        h.store.writes.clear()
        return await a.release()

    assert h.run(main()) is True
    assert h.store.holder() == "b"
    assert h.store.writes == []


def test_release_of_a_deleted_lease_reports_failure(h: Harness) -> None:
    a = h.candidate("a")

    async def main() -> bool:
        await a.try_acquire_or_renew()
        h.store.leases.clear()
        return await a.release()

    assert h.run(main()) is False
