"""Timing each extension point for `scheduler_framework_extension_point_duration_seconds`.

The framework imports no metrics: `build_framework(observe=...)` takes a callable told
`(extension_point, status, seconds)` after each run of an extension point, with upstream's
names (`PreFilter`, `PostFilter`, `PreScore`, `Score`, `Reserve`, `Unreserve`, `Permit`,
`PreBind`, `Bind`, `PostBind`) and status codes (`Success`, `Unschedulable`, ...). As
upstream, Filter is not timed as a whole (it runs per node).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeAlias, TypeVar

from kubesched.framework.status import Code, Status

ExtensionPointObserver: TypeAlias = Callable[[str, str, float], None]
"""Told `(extension_point, status, seconds)`."""


def ignore(point: str, status: str, seconds: float) -> None:
    """The observer when nobody records metrics."""


PluginRunObserver: TypeAlias = Callable[[str, Code, float], None]
"""Told `(plugin, code, seconds)` of each run of a plugin at one extension point."""


class _Observed(Protocol):
    observe: ExtensionPointObserver


F = TypeVar("F", bound=Callable[..., Any])


def status_label(result: object) -> str:
    """The status label of a runner's or a plugin call's result: the Status itself, the one in
    a tuple (PostFilter's `(result, status)`, Permit's `(status, timeout)`), a result's
    `status` (ScoreResult); None or no Status is Success."""
    if isinstance(result, tuple):
        result = next((item for item in result if isinstance(item, Status)), None)
    status = getattr(result, "status", result)
    if isinstance(status, Status):
        return str(status.code)
    return "Success"


def timed(point: str) -> Callable[[F], F]:
    """Decorate a synchronous runner of the Framework with the timing of `point`."""

    def decorate(run: F) -> F:
        @functools.wraps(run)
        def wrapper(self: _Observed, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            result = run(self, *args, **kwargs)
            self.observe(point, status_label(result), time.perf_counter() - started)
            return result

        return wrapper  # type: ignore[return-value]

    return decorate


def timed_async(point: str) -> Callable[[F], F]:
    """`timed` for the binding cycle's coroutine runners."""

    def decorate(run: F) -> F:
        @functools.wraps(run)
        async def wrapper(self: _Observed, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            result = await run(self, *args, **kwargs)
            self.observe(point, status_label(result), time.perf_counter() - started)
            return result

        return wrapper  # type: ignore[return-value]

    return decorate
