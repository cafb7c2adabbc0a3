"""The queue's periodic flushes (backoff completed every 1 s, leftovers every 30 s)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def every(
    period: float, flush: Callable[[], None], *, clock: Callable[[], float] | None = None
) -> None:
    """`flush` every `period`; with `clock`, on the period's boundaries of that clock (the
    backoff flush runs at the start of each 1 s ordering window, as upstream's)."""
    if clock is not None:
        await asyncio.sleep(period - clock() % period)
        flush()
    while True:
        await asyncio.sleep(period)
        flush()
