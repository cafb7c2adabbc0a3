"""An asyncio event loop on the replay's virtual clock, so the timers the engine sets with
the loop (a pod waiting at Permit: each plugin's timeout, `WaitingPod`) expire in virtual
time: the replay loop moves the clock to the earliest Permit deadline, and the loop's next
turn fires it, as kube-scheduler's timer would fire in the cluster.

    run_on_virtual_time(replay_config(...))

`Replay.run` points the loop at its engine's clock (`VirtualTimeLoop.clock`); until then the
loop keeps the monotonic time. The replay never waits on a timer itself (it moves the
clock), so the loop never sleeps for a virtual interval.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """`time()` reads `clock` once it is set."""

    def __init__(self) -> None:
        super().__init__()
        self.clock: Callable[[], float] | None = None

    def time(self) -> float:
        return self.clock() if self.clock is not None else super().time()


def run_on_virtual_time(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)` on a `VirtualTimeLoop`."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(coro)


def use_virtual_time(clock: Callable[[], float]) -> bool:
    """Point the running loop at `clock`; False when it is not a `VirtualTimeLoop` (its
    timers then run on the monotonic clock)."""
    loop = asyncio.get_running_loop()
    if isinstance(loop, VirtualTimeLoop):
        loop.clock = clock
        return True
    return False
