"""Jitter bounds and the loop clock."""

from __future__ import annotations

import asyncio
import random
from datetime import tzinfo

from hypothesis import given
from hypothesis import strategies as st

from kubesched.leaderelection import JITTER_FACTOR, LoopClock, jittered
from tests.unit.leaderelection.conftest import Harness


@given(base=st.floats(min_value=0.01, max_value=60), seed=st.integers(0, 2**32))
def test_jitter_stays_within_retry_and_2_2_retry(base: float, seed: int) -> None:
    wait = jittered(base, JITTER_FACTOR, rng=random.Random(seed))
    assert base <= wait < base * (1 + JITTER_FACTOR)


def test_jitter_spreads_over_the_whole_range() -> None:
    rng = random.Random(7)
    waits = [jittered(2.0, JITTER_FACTOR, rng=rng) for _ in range(2000)]
    assert min(waits) < 2.05
    assert max(waits) > 4.35


def test_no_jitter_factor_means_the_base() -> None:
    assert jittered(2.0, 0) == 2.0


def test_loop_clock_uses_loop_time(h: Harness) -> None:
    clock = LoopClock()

    async def main() -> tuple[float, tzinfo | None]:
        start = clock.monotonic()
        await clock.sleep(12.5)
        return clock.monotonic() - start, clock.now().tzinfo

    elapsed, tz = h.run(main())
    assert elapsed == 12.5
    assert tz is not None


def test_virtual_loop_makes_long_waits_instant(h: Harness) -> None:
    async def main() -> float:
        await asyncio.sleep(3600)
        return asyncio.get_running_loop().time()

    assert h.run(main()) == 3600
