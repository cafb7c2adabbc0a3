"""Time for the elector: a monotonic clock for every decision, a wall clock only to write.

The elector judges expiry and fencing with `monotonic()` alone; `now()` only fills the
acquireTime/renewTime it writes (other readers show them, nobody should trust them).
`LoopClock`, the default, reads the running event loop's clock, the same one
`asyncio.sleep` and `asyncio.timeout` use, so a test running on a virtual-time event loop
makes every wait, timeout and age in the elector virtual and instant.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """Where the elector gets the time. `monotonic` must tick with the event loop's clock
    (request and renew deadlines are `asyncio.timeout`s)."""

    def monotonic(self) -> float:
        """Seconds on a clock that never jumps; only differences mean anything."""
        ...

    def now(self) -> datetime:
        """The wall-clock time (aware, UTC), written into the Lease."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` on the monotonic clock."""
        ...


def utc_now() -> datetime:
    """The current wall-clock time in UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class LoopClock:
    """The running event loop's monotonic clock and sleep; wall time from `wall`."""

    wall: Callable[[], datetime] = field(default=utc_now)

    def monotonic(self) -> float:
        """The event loop's time (time.monotonic for the default loops)."""
        return asyncio.get_running_loop().time()

    def now(self) -> datetime:
        """The wall clock."""
        return self.wall()

    async def sleep(self, seconds: float) -> None:
        """asyncio.sleep."""
        await asyncio.sleep(seconds)


def jittered(base: float, factor: float, *, rng: random.Random | None = None) -> float:
    """A wait in [base, base x (1 + factor)), as apimachinery's `wait.Jitter`.

    With client-go's JitterFactor 1.2 an acquire retry waits between retryPeriod and
    2.2 x retryPeriod, which spreads the candidates' requests apart.
    """
    if factor <= 0:
        return base
    return base + (rng or _RANDOM).random() * factor * base


_RANDOM = random.Random()  # noqa: S311 - jitter, not cryptography
