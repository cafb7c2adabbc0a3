"""A Framework for tests: the in-tree plugins and a test's own, over a FakeHandle."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.framework import Registry
from kubesched.runtime import Framework, build_framework
from kubesched.runtime.instrument import PluginRunObserver
from kubesched.testing.handle import FakeHandle


def build_test_framework(
    *,
    handle: FakeHandle,
    plugins: Iterable[type] = (),
    enabled: dict[str, Sequence[str | tuple[str, int]]] | None = None,
    plugin_config: dict[str, dict[str, Any]] | None = None,
    with_defaults: bool = True,
    observe_post_filter: PluginRunObserver | None = None,
) -> Framework:
    """A Framework over the in-tree plugins (unless `with_defaults=False`) plus `plugins`
    (classes with a `name`), enabled per extension point, e.g. `{"score": [("Mine", 2)]}`;
    `observe_post_filter` is told of each PostFilter plugin's run."""
    from kubesched.plugins import in_tree_registry  # noqa: PLC0415 - testing helper only

    registry = in_tree_registry() if with_defaults else Registry()
    for plugin_class in plugins:
        registry.register_class(plugin_class, source="test")
    sets = {
        point: PluginSet(enabled=tuple(_ref(item) for item in items))
        for point, items in (enabled or {}).items()
    }
    profile = Profile(
        scheduler_name="test-scheduler", plugins=sets, plugin_config=plugin_config or {}
    )
    return build_framework(
        profile=profile,
        registry=registry,
        handle=handle,
        observe_post_filter=observe_post_filter,
    )


def _ref(item: str | tuple[str, int]) -> PluginRef:
    return PluginRef(item) if isinstance(item, str) else PluginRef(item[0], item[1])
