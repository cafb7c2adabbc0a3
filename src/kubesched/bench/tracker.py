"""Follow the measured pods through a watch, stamping each change with the client's clock.

For every pod it keeps when it was first seen (creation, as the watch reports it) and when
`spec.nodeName` went from empty to set; a nodeName that changes once set, or a measured pod
deleted, is recorded as a violation (in a steady-state run, where the benchmark deletes
every bound pod, a deletion is expected; `on_bound` hears of each pod bound). API
timestamps have 1 s resolution, so latencies come from these client-side stamps.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ConnectionFailed

INACTIVITY_TIMEOUT = 30.0


class TrackerError(KubeschedError):
    """The watch of the measured pods broke in a way that loses events (e.g. 410 Gone)."""


@dataclass(slots=True)
class PodRecord:
    seen_at: float
    node: str = ""
    bound_at: float = 0.0
    waiting: str = ""
    """While unbound: its nominated node and PodScheduled condition, as last seen."""


class PodTracker:
    """List, then watch, the pods of one namespace until cancelled; given several
    namespaces, the pods of all namespaces are watched and those of the others ignored
    (pod names must then be unique across the namespaces); with `selector` (a label
    selector), only the pods that carry it."""

    def __init__(
        self,
        client: KubeClient,
        namespace: str | Sequence[str],
        *,
        steady: bool = False,
        on_bound: Callable[[str], None] | None = None,
        selector: str = "",
    ) -> None:
        self._client = client
        self._selector = {"labelSelector": selector} if selector else {}
        self._steady = steady
        self._on_bound = on_bound
        names = (namespace,) if isinstance(namespace, str) else tuple(namespace)
        self._namespaces = frozenset(names) if len(names) > 1 else None
        self._path = "/api/v1/pods" if len(names) > 1 else f"/api/v1/namespaces/{names[0]}/pods"
        self.pods: dict[str, PodRecord] = {}
        self.bound = 0
        self.violations: list[str] = []
        self._version = ""

    async def start(self) -> None:
        """List what is there already (normally nothing); the watch starts from there."""
        listing = await self._client.get(self._path, params=self._selector, timeout=60)
        now = time.monotonic()
        for pod in listing.get("items") or ():
            self._apply("ADDED", pod, now)
        self._version = str((listing.get("metadata") or {}).get("resourceVersion", ""))

    async def run(self) -> None:
        """Watch until cancelled, resuming from the last resourceVersion after a break."""
        while True:
            params = {
                "resourceVersion": self._version,
                "allowWatchBookmarks": "true",
                "timeoutSeconds": "3600",
                **self._selector,
            }
            try:
                events = self._client.watch(
                    self._path, params=params, inactivity_timeout=INACTIVITY_TIMEOUT
                )
                async for event in events:
                    self._apply(str(event.get("type")), event.get("object") or {}, time.monotonic())
            except ConnectionFailed:
                await asyncio.sleep(0.5)

    def _apply(self, kind: str, obj: dict[str, Any], now: float) -> None:
        meta = obj.get("metadata") or {}
        version = meta.get("resourceVersion")
        if version:
            self._version = str(version)
        if kind == "ERROR":
            raise TrackerError(f"the watch of measured pods failed: {obj.get('message', obj)}")
        if kind == "BOOKMARK" or not self._followed(meta):
            return
        name = str(meta.get("name", ""))
        record = self.pods.get(name)
        if record is None:
            record = self.pods[name] = PodRecord(seen_at=now)
        if kind == "DELETED":
            if not self._steady:
                self.violations.append(f"measured pod {name} was deleted")
            return
        node = (obj.get("spec") or {}).get("nodeName") or ""
        if not node:
            record.waiting = _waiting(obj.get("status") or {})
            if record.node:
                self.violations.append(f"pod {name} lost its node {record.node}")
            return
        self._bound(name, record, node, now)

    def _followed(self, meta: dict[str, Any]) -> bool:
        return self._namespaces is None or meta.get("namespace") in self._namespaces

    def _bound(self, name: str, record: PodRecord, node: str, now: float) -> None:
        if not record.node:
            record.node, record.bound_at = node, now
            self.bound += 1
            if self._on_bound is not None:
                self._on_bound(name)
        elif record.node != node:
            self.violations.append(f"pod {name} moved from {record.node} to {node}")

    def pending(self, limit: int = 3) -> str:
        """The first `limit` unbound pods and why they wait, for a stall's message."""
        waiting = [(n, r.waiting) for n, r in sorted(self.pods.items()) if not r.node]
        shown = [f"{name} ({why or 'never tried'})" for name, why in waiting[:limit]]
        more = f" and {len(waiting) - limit} more" if len(waiting) > limit else ""
        return ", ".join(shown) + more

    def latencies(self) -> list[float]:
        """Seconds from first seen to bound, for every bound pod."""
        return [r.bound_at - r.seen_at for r in self.pods.values() if r.node]

    def bound_times(self) -> list[float]:
        """Monotonic times at which pods became bound, ascending."""
        return sorted(r.bound_at for r in self.pods.values() if r.node)


def _waiting(status: dict[str, Any]) -> str:
    """`nominated to n2; Unschedulable: 0/5 nodes are available: ...` from a pod's status."""
    nominated = status.get("nominatedNodeName")
    parts = [f"nominated to {nominated}"] if nominated else []
    parts.extend(
        f"{condition.get('reason', '')}: {condition.get('message', '')}"
        for condition in status.get("conditions") or ()
        if condition.get("type") == "PodScheduled" and condition.get("status") != "True"
    )
    return "; ".join(parts)
