"""One profile's queueing hints (upstream `QueueingHintMap` and `isPodWorthRequeuing`).

Built from the plugins' `events_to_register()`: per registered event, the plugins that
registered it and their hints (none: always QUEUE). The queue asks `strategy` for each
rejected pod an incoming event may concern, and for each event recorded while a pod was in
flight when that pod comes back; the answer says whether the pod stays in the unschedulable
pool, goes back after its backoff, or straight to activeQ (a Pending plugin said QUEUE).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from kubesched.framework.events import (
    ActionType,
    AddedIndex,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework.logkv import kv
from kubesched.model import Pod

log = logging.getLogger(__name__)

_NOT_ONE_RESOURCE = frozenset({EventResource.POD, EventResource.WILDCARD})
"""Registered resources that cover several incoming ones: their adds are not indexed."""

HintObserver = Callable[[str, str, str, float], None]
"""Called with (plugin, event label, "Queue"|"QueueSkip"|"Error", seconds) per hint run,
for `scheduler_queueing_hint_execution_duration_seconds`."""


class Requeue(IntEnum):
    """Where an event sends a rejected pod (upstream `queueingStrategy`), weakest first."""

    SKIP = 0
    """Stay in the unschedulable pool."""
    AFTER_BACKOFF = 1
    """backoffQ while the pod still backs off, else activeQ."""
    IMMEDIATELY = 2
    """activeQ now (a plugin that returned Pending said QUEUE)."""


@dataclass(frozen=True, slots=True, eq=False)
class _Hint:
    plugin: str
    hint: QueueingHintFn | None
    index: AddedIndex | None = None


class _EventFacts:
    """What the hints need of one incoming event, worked out once: the queue asks about
    every waiting pod with the same event object, one after the other."""

    __slots__ = ("event", "label", "matching", "registered", "wildcard")

    def __init__(self, event: ClusterEvent, matching: tuple[_Hint, ...]) -> None:
        self.event = event
        self.wildcard = event.is_wildcard
        self.label = event.label
        self.matching = matching
        self.registered: dict[str, bool] = {}


class QueueingHints:
    """The registered events of one profile with the plugins' hints for them."""

    def __init__(
        self,
        registrations: Mapping[str, tuple[ClusterEventWithHint, ...]],
        *,
        observe: HintObserver | None = None,
    ) -> None:
        table: dict[ClusterEvent, list[_Hint]] = {}
        for plugin, events in registrations.items():
            for registration in events:
                table.setdefault(registration.event, []).append(
                    _Hint(plugin, registration.hint, registration.added_index)
                )
        self._table = tuple((event, tuple(hints)) for event, hints in table.items())
        self._by_plugin = {
            plugin: tuple(reg.event for reg in events) for plugin, events in registrations.items()
        }
        self._observe = observe
        self._matching: dict[ClusterEvent, tuple[_Hint, ...]] = {}
        self._last: _EventFacts | None = None

    def _facts(self, event: ClusterEvent) -> _EventFacts:
        """The facts of `event`, kept for the last event object asked about (compared by
        identity: a ClusterEvent is immutable, and the one kept cannot be reused)."""
        last = self._last
        if last is None or last.event is not event:
            last = self._last = _EventFacts(event, self._matching_hints(event))
        return last

    def interested(self, event: ClusterEvent) -> bool:
        """Upstream `isEventOfInterest`: a wildcard, or an event some plugin registered."""
        return event.is_wildcard or bool(self._matching_hints(event))

    def registered_by(self, plugin: str, event: ClusterEvent) -> bool:
        """Whether `plugin` registered an event matching `event` (a gated pod is looked at
        only for its gating plugin's events)."""
        facts = self._facts(event)
        known = facts.registered.get(plugin)
        if known is None:
            known = any(reg.matches(event) for reg in self._by_plugin.get(plugin, ()))
            facts.registered[plugin] = known
        return known

    def gated_by_another_event(self, plugin: str, event: ClusterEvent) -> bool:
        """Whether `event` cannot ungate a pod gated by `plugin`: it is no wildcard and not
        one `plugin` registered."""
        return not self._facts(event).wildcard and not self.registered_by(plugin, event)

    def strategy(
        self,
        *,
        pod: Pod,
        rejectors: AbstractSet[str],
        pending: AbstractSet[str],
        event: ClusterEvent,
        old: Any,
        new: Any,
    ) -> Requeue:
        """Upstream `isPodWorthRequeuing` for a pod rejected by `rejectors` (`pending`:
        those that returned Pending, a subset)."""
        if not rejectors:
            return Requeue.AFTER_BACKOFF
        facts = self._facts(event)
        if facts.wildcard:
            if new is not None and (not isinstance(new, Pod) or new.uid != pod.uid):
                return Requeue.SKIP  # a wildcard for another pod (ForceActivate)
            return Requeue.AFTER_BACKOFF
        found = Requeue.SKIP
        for entry in facts.matching:
            if entry.plugin not in rejectors:
                continue
            if self._ask(entry, pod, facts, old, new) is QueueingHint.QUEUE_SKIP:
                continue
            if entry.plugin in pending:
                return Requeue.IMMEDIATELY
            if not pending:
                return Requeue.AFTER_BACKOFF
            found = Requeue.AFTER_BACKOFF
        return found

    def indexed_add_events(self) -> frozenset[ClusterEvent]:
        """The add events (one resource, action ADD) some hint promised an index for."""
        return frozenset(
            ClusterEvent(event.resource, ActionType.ADD)
            for event, hints in self._table
            if event.action & ActionType.ADD
            and not event.is_wildcard
            and event.resource not in _NOT_ONE_RESOURCE
            and any(entry.index is not None for entry in hints)
        )

    def added_pod_keys(
        self, event: ClusterEvent, pod: Pod, rejectors: AbstractSet[str]
    ) -> frozenset[Hashable] | None:
        """Keys of a pod rejected by `rejectors` for an add `event` (no old object): an
        added object sharing none of them gets QUEUE_SKIP from every hint `strategy` asks,
        as each one's `AddedIndex` promises. None: some hint promised nothing (the pod
        hears every such add)."""
        if not rejectors or event.is_wildcard:
            return None
        keys: set[Hashable] = set()
        for entry in self._matching_hints(event):
            if entry.plugin not in rejectors:
                continue
            if entry.hint is None or entry.index is None:
                return None
            try:
                own = entry.index.pod_keys(pod)
            except Exception:  # no promise
                return None
            if own is None:
                return None
            tag = id(entry)
            keys.update((tag, key) for key in own)
        return frozenset(keys)

    def added_keys(self, event: ClusterEvent, new: Any) -> list[Hashable]:
        """The keys an object added by `event` reaches (see `added_pod_keys`)."""
        found: list[Hashable] = []
        for entry in self._matching_hints(event):
            if entry.index is not None:
                tag = id(entry)
                found.extend((tag, key) for key in entry.index.added_keys(new))
        return found

    def _matching_hints(self, event: ClusterEvent) -> tuple[_Hint, ...]:
        """Every plugin's hint for the registrations matching `event`, cached per event."""
        matching = self._matching.get(event)
        if matching is None:
            matching = tuple(
                entry
                for registered, hints in self._table
                if registered.matches(event)
                for entry in hints
            )
            self._matching[event] = matching
        return matching

    def _ask(self, entry: _Hint, pod: Pod, facts: _EventFacts, old: Any, new: Any) -> QueueingHint:
        if entry.hint is None:
            return QueueingHint.QUEUE
        started = time.perf_counter()
        try:
            answer = entry.hint(pod, old, new)
            hint = answer if type(answer) is QueueingHint else QueueingHint(answer)
            result = "Queue" if hint is QueueingHint.QUEUE else "QueueSkip"
        except Exception as exc:  # a broken hint must not strand the pod: QUEUE
            log.warning(
                "QueueingHintFn returns error",
                extra=kv(event=facts.label, plugin=entry.plugin, pod=pod.key, err=exc),
            )
            hint, result = QueueingHint.QUEUE, "Error"
        if self._observe is not None:
            self._observe(entry.plugin, facts.label, result, time.perf_counter() - started)
        return hint
