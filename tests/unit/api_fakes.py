"""In-memory fakes of `KubeApi`/`WatchApi`, a fake clock and small async helpers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from kubesched.kube.api import STRATEGIC_MERGE_PATCH


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def step(self, seconds: float) -> None:
        self.now += seconds


@dataclass(slots=True)
class Call:
    method: str
    path: str
    body: Any = None
    params: dict[str, str] | None = None
    content_type: str = ""
    timeout: float | None = None


HANG: dict[str, Any] = {"type": "__hang__"}
"""A watch step that blocks until the watch is cancelled (an idle, healthy watch)."""

Step = dict[str, Any] | BaseException
"""One scripted watch step: an event to yield, an exception to raise, or HANG."""


@dataclass
class FakeApi:
    """Records every request; answers from scripts.

    * `errors`: path suffix -> exception raised by every request whose path ends with it
      (e.g. `"/binding"`); `fail_next` raises an exception once.
    * `lists`: one entry per list (each a list of pages, or an exception raised instead);
      the last entry is reused when they run out.
    * `watches`: one script per watch call; after the scripts run out a watch blocks
      until cancelled (like a healthy, idle watch).
    """

    calls: list[Call] = field(default_factory=list)
    errors: dict[str, BaseException] = field(default_factory=dict)
    once: list[BaseException] = field(default_factory=list)
    lists: list[list[dict[str, Any]] | BaseException] = field(default_factory=list)
    watches: list[list[Step]] = field(default_factory=list)
    watch_calls: list[dict[str, str]] = field(default_factory=list)
    watch_inactivity: list[float] = field(default_factory=list)
    on_post: Callable[[str, dict[str, Any]], None] | None = None
    _list_index: int = 0
    _pages: list[dict[str, Any]] = field(default_factory=list)

    def fail_next(self, exc: BaseException) -> None:
        self.once.append(exc)

    def _check(self, path: str) -> None:
        if self.once:
            raise self.once.pop(0)
        for suffix, exc in self.errors.items():
            if path.endswith(suffix):
                raise exc

    def of(self, method: str, suffix: str = "") -> list[Call]:
        """The `method` requests whose path ends with `suffix`, in order."""
        return [c for c in self.calls if c.method == method and c.path.endswith(suffix)]

    def posts(self, suffix: str = "") -> list[Call]:
        return self.of("POST", suffix)

    def patches(self, suffix: str = "") -> list[Call]:
        return self.of("PATCH", suffix)

    def gets(self) -> list[Call]:
        return [c for c in self.calls if c.method == "GET"]

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        self.calls.append(Call("GET", path, params=dict(params or {}), timeout=timeout))
        self._check(path)
        if not (params or {}).get("continue"):
            entry = self.lists[min(self._list_index, len(self.lists) - 1)]
            self._list_index += 1
            if isinstance(entry, BaseException):
                raise entry
            self._pages = list(entry)
        return self._pages.pop(0)

    async def post(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        self.calls.append(Call("POST", path, body=body, timeout=timeout))
        if self.on_post is not None:
            self.on_post(path, body)
        self._check(path)
        return body

    async def put(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        self.calls.append(Call("PUT", path, body=body, timeout=timeout))
        self._check(path)
        return body

    async def patch(
        self,
        path: str,
        body: dict[str, Any] | list[Any],
        *,
        content_type: str = STRATEGIC_MERGE_PATCH,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        self.calls.append(
            Call("PATCH", path, body=body, content_type=content_type, timeout=timeout)
        )
        self._check(path)
        return {}

    async def delete(
        self, path: str, *, body: dict[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        self.calls.append(Call("DELETE", path, body=body, timeout=timeout))
        self._check(path)
        return {}

    async def watch(
        self, path: str, *, params: dict[str, str], inactivity_timeout: float
    ) -> AsyncIterator[dict[str, Any]]:
        self.watch_calls.append(dict(params))
        self.watch_inactivity.append(inactivity_timeout)
        index = len(self.watch_calls) - 1
        if index >= len(self.watches):
            await asyncio.Event().wait()  # idle until cancelled
            return
        for step in self.watches[index]:
            await asyncio.sleep(0)
            if isinstance(step, BaseException):
                raise step
            if step is HANG:
                await asyncio.Event().wait()
            yield step


async def wait_for(condition: Callable[[], object], *, timeout: float = 1.0) -> None:
    """Yield to the loop until `condition()` is true (fails the test after `timeout`)."""
    async with asyncio.timeout(timeout):
        while not condition():  # noqa: ASYNC110 - polls state the code under test owns
            await asyncio.sleep(0.001)


async def settle(rounds: int = 20) -> None:
    """Let every ready task run a few steps."""
    for _ in range(rounds):
        await asyncio.sleep(0)
