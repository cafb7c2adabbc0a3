"""TokenBucket: a burst at once, then one token every 1/qps seconds (fake clock and sleep)."""

from __future__ import annotations

import asyncio

import pytest

from kubesched.kube.ratelimit import TokenBucket
from tests.unit.api_fakes import FakeClock


class FakeSleep:
    """Records the requested sleeps; optionally advances the clock by each one."""

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.clock = clock
        self.sleeps: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if self.clock is not None:
            self.clock.step(seconds)


@pytest.mark.parametrize(("qps", "burst"), [(0, 1), (-1, 1), (1, 0), (1, -3)])
def test_rejects_non_positive_settings(qps: float, burst: int) -> None:
    with pytest.raises(ValueError, match="must be positive"):
        TokenBucket(qps=qps, burst=burst, clock=FakeClock())


async def test_burst_is_free_then_callers_are_spaced_at_qps() -> None:
    clock = FakeClock()
    sleep = FakeSleep(clock)
    bucket = TokenBucket(qps=10, burst=3, clock=clock, sleep=sleep)
    for _ in range(3):
        await bucket.acquire()
    assert sleep.sleeps == []
    for _ in range(4):
        await bucket.acquire()
    assert sleep.sleeps == pytest.approx([0.1, 0.1, 0.1, 0.1])
    assert clock.now == pytest.approx(1000.4)


async def test_concurrent_waiters_reserve_consecutive_slots() -> None:
    clock = FakeClock()
    sleep = FakeSleep()  # the clock stands still: every waiter reserves at once
    bucket = TokenBucket(qps=5, burst=2, clock=clock, sleep=sleep)
    await asyncio.gather(*(bucket.acquire() for _ in range(5)))
    assert sorted(sleep.sleeps) == pytest.approx([0.2, 0.4, 0.6])


async def test_tokens_refill_over_time_up_to_burst_only() -> None:
    clock = FakeClock()
    sleep = FakeSleep(clock)
    bucket = TokenBucket(qps=2, burst=3, clock=clock, sleep=sleep)
    for _ in range(3):
        await bucket.acquire()
    clock.step(1000)  # a long idle time saves up no more than `burst`
    for _ in range(3):
        await bucket.acquire()
    assert sleep.sleeps == []
    await bucket.acquire()
    assert sleep.sleeps == pytest.approx([0.5])


def test_try_acquire_takes_available_tokens_only() -> None:
    clock = FakeClock()
    bucket = TokenBucket(qps=4, burst=2, clock=clock)
    assert bucket.try_acquire()
    assert bucket.try_acquire()
    assert not bucket.try_acquire()
    clock.step(0.1)
    assert not bucket.try_acquire()
    clock.step(0.15)
    assert bucket.try_acquire()
    assert not bucket.try_acquire()


async def test_try_acquire_respects_reservations_of_waiters() -> None:
    clock = FakeClock()
    sleep = FakeSleep()
    bucket = TokenBucket(qps=10, burst=1, clock=clock, sleep=sleep)
    await bucket.acquire()
    await bucket.acquire()  # reserved the token due at +0.1 s
    clock.step(0.1)
    assert not bucket.try_acquire()  # that token belongs to the waiter
    clock.step(0.1)
    assert bucket.try_acquire()
