"""Client-side token bucket like client-go's `flowcontrol.NewTokenBucketRateLimiter(qps, burst)`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class TokenBucket:
    """`qps` tokens per second, at most `burst` saved up; `acquire()` waits for a token.

    Waiters are served in arrival order: each one reserves the next token time, so a
    burst of callers spreads out at exactly `qps` without a thundering herd.
    """

    def __init__(
        self,
        *,
        qps: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if qps <= 0 or burst <= 0:
            raise ValueError(f"qps ({qps}) and burst ({burst}) must be positive")
        self._interval = 1.0 / qps
        self._capacity = float(burst)
        self._tokens = float(burst)
        self._clock = clock
        self._sleep = sleep
        self._last = clock()

    def _refill(self) -> None:
        now = self._clock()
        elapsed = now - self._last
        self._last = now
        self._tokens = min(self._capacity, self._tokens + elapsed / self._interval)

    def try_acquire(self) -> bool:
        """Take a token if one is available now."""
        self._refill()
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    async def acquire(self) -> None:
        """Take a token, waiting until one is due (the reservation is made at once)."""
        self._refill()
        self._tokens -= 1.0
        if self._tokens < 0:
            await self._sleep(-self._tokens * self._interval)
