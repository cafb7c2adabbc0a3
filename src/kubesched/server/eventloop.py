"""The event loop the scheduler process runs on: uvloop when it is installed, else asyncio's.

Every per-pod step outside the scheduling cycle (the binding POST, the pod watch, events,
status patches) is socket and TLS work driven by the event loop; uvloop (libuv) does that
part in C (docs/performance.md has the measured effect). It is a dependency of kubesched,
but a missing or broken install falls back to the standard loop, and
`KUBESCHED_EVENT_LOOP=asyncio` chooses the standard loop on purpose (to compare the two).
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

ENV_VAR = "KUBESCHED_EVENT_LOOP"
"""`asyncio` forces the standard loop; anything else (or unset) takes uvloop if it is there."""


def loop_factory(
    environ: Mapping[str, str] | None = None,
) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's `new_event_loop`, or None for asyncio's default loop."""
    env = os.environ if environ is None else environ
    if env.get(ENV_VAR, "").strip().lower() == "asyncio":
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], *, environ: Mapping[str, str] | None = None) -> T:
    """`asyncio.run(main)` on the loop `loop_factory` chooses."""
    with asyncio.Runner(loop_factory=loop_factory(environ)) as runner:
        return runner.run(main)
