"""Which cluster events each plugin registered (upstream `fillEnqueueExtensions`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubesched.framework import interfaces as api
from kubesched.framework.events import WILDCARD_EVENT, ClusterEventWithHint, with_hint
from kubesched.framework.plugin_failures import PLUGIN_ERRORS, raised

if TYPE_CHECKING:
    from kubesched.runtime.framework import PluginLists

_REQUEUE_POINTS = ("pre_enqueue", "pre_filter", "filter", "reserve", "permit")


_EVERY_EVENT = (ClusterEventWithHint(WILDCARD_EVENT),)


def collect_enqueue_events(plugins: PluginLists) -> dict[str, tuple[ClusterEventWithHint, ...]]:
    """Upstream `fillEnqueueExtensions`: only plugins that can reject a pod register events;
    one that says nothing gets every event (no hint)."""
    events: dict[str, tuple[ClusterEventWithHint, ...]] = {}
    for point in _REQUEUE_POINTS:
        for pl in getattr(plugins, point):
            if pl.name not in events:
                events[pl.name] = _plugin_events(pl.name, pl)
    return events


def _plugin_events(name: str, plugin: Any) -> tuple[ClusterEventWithHint, ...]:
    if not isinstance(plugin, api.EnqueueExtensions):
        return _EVERY_EVENT
    try:
        return tuple(with_hint(registration) for registration in plugin.events_to_register())
    except PLUGIN_ERRORS as exc:
        raised(name, "EventsToRegister", exc)
        return _EVERY_EVENT
