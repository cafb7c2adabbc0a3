"""Pods held at Permit: each waits until every plugin that asked it to WAIT allows it, any
plugin rejects it, or a plugin's timeout expires (a rejection, as upstream).

The application creates one `WaitingPods` for all profiles and exposes it on its Handle;
Permit plugins find their pods there (`handle.waiting_pods.get(uid)`) to `allow`/`reject`.
Everything runs on the scheduler's event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping

from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.model import Pod

MAX_PERMIT_TIMEOUT = 15 * 60.0
"""Upstream's cap on a Permit plugin's wait (seconds)."""


def go_duration(seconds: float) -> str:
    """`seconds` as Go prints a time.Duration (`10s`, `1m30s`, `500ms`)."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    whole = int(seconds)
    frac = seconds - whole
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    sec_text = f"{secs + frac:g}s"
    if hours:
        return f"{hours}h{minutes}m{sec_text}"
    return f"{minutes}m{sec_text}" if minutes else sec_text


class WaitingPod:
    """One pod waiting at Permit, with the plugins it still waits for."""

    def __init__(
        self, *, pod: Pod, plugin_timeouts: Mapping[str, float], node_name: str = ""
    ) -> None:
        self.pod = pod
        self.node_name = node_name
        """The node the pod is assumed on while it waits."""
        loop = asyncio.get_running_loop()
        self.since = loop.time()
        self.deadline = loop.time() + max(plugin_timeouts.values(), default=0.0)
        """When the first plugin's timeout expires (loop time)."""
        self._result: asyncio.Future[Status] = loop.create_future()
        self._timers = {
            name: loop.call_later(timeout, self._expire, name, timeout)
            for name, timeout in plugin_timeouts.items()
        }

    @property
    def pending_plugins(self) -> list[str]:
        return list(self._timers)

    def allow(self, plugin: str) -> None:
        """`plugin` lets the pod go; it is released when no plugin is left pending."""
        timer = self._timers.pop(plugin, None)
        if timer is not None:
            timer.cancel()
        if not self._timers and not self._result.done():
            self._result.set_result(SUCCESS)

    def reject(self, plugin: str, message: str) -> bool:
        """Reject the pod (UNSCHEDULABLE from `plugin`); False if it was already decided."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        if self._result.done():
            return False
        self._result.set_result(Status(Code.UNSCHEDULABLE, message, plugin=plugin))
        return True

    def _expire(self, plugin: str, timeout: float) -> None:
        self.reject(
            plugin,
            f"rejected due to timeout after waiting {go_duration(timeout)} at plugin {plugin}",
        )

    async def wait(self) -> Status:
        """The decision: SUCCESS when allowed, else the rejection."""
        return await asyncio.shield(self._result)


class WaitingPods:
    """The waiting pods by UID."""

    def __init__(self) -> None:
        self._pods: dict[str, WaitingPod] = {}

    def add(self, waiting: WaitingPod) -> None:
        self._pods[waiting.pod.uid] = waiting

    def get(self, uid: str) -> WaitingPod | None:
        return self._pods.get(uid)

    def remove(self, uid: str) -> None:
        self._pods.pop(uid, None)

    def reject(self, uid: str, message: str = "removed") -> bool:
        """Reject a waiting pod (e.g. it was deleted); False if no such pod waits."""
        waiting = self._pods.get(uid)
        if waiting is None:
            return False
        waiting.reject("", message)
        return True

    def __iter__(self) -> Iterator[WaitingPod]:
        return iter(list(self._pods.values()))

    # ---- groups (gang scheduling) --------------------------------------------------------

    def group(self, member: Callable[[Pod], bool]) -> list[WaitingPod]:
        """The waiting pods `member` selects, e.g. one PodGroup's (oldest first)."""
        return sorted((w for w in self._pods.values() if member(w.pod)), key=lambda w: w.since)

    def allow_group(self, member: Callable[[Pod], bool], plugin: str) -> int:
        """`plugin` allows every waiting pod `member` selects; returns how many."""
        waiting = self.group(member)
        for pod in waiting:
            pod.allow(plugin)
        return len(waiting)

    def reject_group(self, member: Callable[[Pod], bool], plugin: str, message: str) -> int:
        """`plugin` rejects every waiting pod `member` selects (their binding cycles end with
        `message` as FailedScheduling); returns how many were still undecided."""
        return sum(pod.reject(plugin, message) for pod in self.group(member))

    def __len__(self) -> int:
        return len(self._pods)
