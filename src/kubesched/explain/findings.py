"""What plugins say about the pod as a whole, after its cycle: each plugin of the profile with
an `explain_pod(pod, victims)` method (CapacityScheduling's quota verdict, for one) returns
lines for the table and a dict for `-o json`, or None when it has nothing to say.

Duck-typed, as `explain_node` is for Filter plugins, so explain never imports a plugin; a
plugin whose `explain_pod` raises gets one line saying so, and explain goes on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.model import Pod
from kubesched.runtime import Framework

POINTS = ("pre_filter", "filter", "post_filter", "reserve", "permit")
"""The extension points whose plugins are asked (each plugin once, in this order)."""


@dataclass(frozen=True, slots=True)
class PluginFinding:
    plugin: str
    lines: tuple[str, ...]
    data: Mapping[str, Any] = field(default_factory=dict)


def _plugins(fw: Framework) -> Iterable[Any]:
    seen: set[str] = set()
    for point in POINTS:
        for plugin in getattr(fw.plugins, point, ()):
            if plugin.name not in seen:
                seen.add(plugin.name)
                yield plugin


def pod_findings(fw: Framework, pod: Pod, victims: Sequence[str]) -> tuple[PluginFinding, ...]:
    """The findings of the plugins with `explain_pod`, in the profile's order."""
    found: list[PluginFinding] = []
    for plugin in _plugins(fw):
        explain = getattr(plugin, "explain_pod", None)
        if explain is None:
            continue
        try:
            answer = explain(pod, victims)
        except Exception as exc:  # a plugin's finding never stops explain
            line = f"{plugin.name}: explain_pod raised {type(exc).__name__}: {exc}"
            found.append(PluginFinding(plugin.name, (line,)))
            continue
        if answer is not None:
            lines, data = answer
            found.append(PluginFinding(plugin.name, tuple(lines), dict(data)))
    return tuple(found)
