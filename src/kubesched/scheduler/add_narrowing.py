"""Which unschedulable pods an add event is offered to, from the profiles' queueing hints
(`queue.added_index` indexes the pool with it; `framework.AddedIndex` is the hints' promise).

A pod's keys are those of its own profile's hints for the plugins that rejected it; an
added object reaches the keys of every profile. A gated pod, or one rejected by a plugin
whose hint promised nothing, hears every add.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from kubesched.framework import ClusterEvent
from kubesched.queue.types import QueuedPodInfo
from kubesched.runtime import Framework


class ProfileAddNarrowing:
    """`queue.added_index.AddNarrowing` over the profiles' frameworks."""

    def __init__(self, frameworks: Mapping[str, Framework]) -> None:
        self._frameworks = frameworks
        self._first = next(iter(frameworks.values()))
        self.events: frozenset[object] = frozenset().union(
            *(fw.queueing_hints.indexed_add_events() for fw in frameworks.values())
        )

    def pod_keys(self, event: object, qpi: QueuedPodInfo) -> frozenset[Hashable] | None:
        if not isinstance(event, ClusterEvent) or qpi.gating_plugin is not None:
            return None
        hints = self._frameworks.get(qpi.pod.scheduler_name, self._first).queueing_hints
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        return hints.added_pod_keys(event, qpi.pod, rejectors)

    def added_keys(self, event: object, new: Any) -> list[Hashable]:
        if not isinstance(event, ClusterEvent):
            return []
        found: list[Hashable] = []
        for fw in self._frameworks.values():
            found.extend(fw.queueing_hints.added_keys(event, new))
        return found
