"""The plugin registry: plugin name -> factory, filled from three places.

1. The in-tree plugins (`kubesched.plugins.in_tree_registry()`).
2. `--plugin-module my.module` (repeatable): the module must define
   `register(registry: Registry) -> None`, which calls `registry.register(...)`.
3. Installed distributions advertising the entry-point group `kubesched.plugins`; each entry
   point loads either such a `register` function or a plugin factory (usually the plugin
   class) registered under the entry point's name:

       [project.entry-points."kubesched.plugins"]
       PreferLabel = "my_plugins.prefer_label:PreferLabel"

A name can be registered once; a second registration is an error that names both sources.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from importlib.metadata import EntryPoint, entry_points
from typing import cast

from kubesched.errors import FatalError
from kubesched.framework.interfaces import PluginFactory
from kubesched.framework.plugin_failures import PLUGIN_ERRORS

ENTRY_POINT_GROUP = "kubesched.plugins"


class PluginRegistrationError(FatalError):
    """A plugin module or entry point could not be loaded or registered."""


class Registry:
    """Plugin factories by name, with the source of each for error messages."""

    def __init__(self) -> None:
        self._factories: dict[str, PluginFactory] = {}
        self._sources: dict[str, str] = {}

    def register(self, name: str, factory: PluginFactory, *, source: str = "") -> None:
        """Add a factory; raises PluginRegistrationError if `name` is taken."""
        if not name:
            raise PluginRegistrationError(
                f"a plugin from {source or 'unknown source'} has an empty name"
            )
        if name in self._factories:
            raise PluginRegistrationError(
                f"plugin {name!r} is registered twice: by {self._sources[name] or 'in-tree'}"
                f" and by {source or 'in-tree'}"
            )
        self._factories[name] = factory
        self._sources[name] = source

    def register_class(self, plugin_class: type, *, source: str = "") -> None:
        """Register a plugin class under its `name` class attribute."""
        name = getattr(plugin_class, "name", None)
        if not isinstance(name, str):
            raise PluginRegistrationError(f"{plugin_class!r} has no `name` class attribute")
        self.register(name, cast("PluginFactory", plugin_class), source=source)

    def get(self, name: str) -> PluginFactory | None:
        return self._factories.get(name)

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._factories)

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._factories)


def load_plugin_modules(registry: Registry, modules: Iterable[str]) -> None:
    """Import each module and call its `register(registry)` (the `--plugin-module` flag)."""
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except PLUGIN_ERRORS as exc:
            raise PluginRegistrationError(
                f"--plugin-module {module_name}: cannot import it: {type(exc).__name__}: {exc}"
            ) from exc
        register = getattr(module, "register", None)
        if not callable(register):
            raise PluginRegistrationError(
                f"--plugin-module {module_name}: the module defines no "
                "`register(registry)` function"
            )
        _call_register(register, registry, source=f"module {module_name}")


def load_entry_points(registry: Registry, *, group: str = ENTRY_POINT_GROUP) -> list[str]:
    """Register plugins of installed distributions; returns the entry point names loaded."""
    loaded = []
    for entry_point in entry_points(group=group):
        _load_entry_point(registry, entry_point)
        loaded.append(entry_point.name)
    return loaded


def _load_entry_point(registry: Registry, entry_point: EntryPoint) -> None:
    source = f"entry point {entry_point.name} = {entry_point.value}"
    try:
        target = entry_point.load()
    except PLUGIN_ERRORS as exc:
        raise PluginRegistrationError(
            f"{source}: cannot load it: {type(exc).__name__}: {exc}"
        ) from exc
    if getattr(target, "__name__", "") == "register" and not isinstance(target, type):
        _call_register(target, registry, source=source)
    elif callable(target):
        registry.register(entry_point.name, cast("PluginFactory", target), source=source)
    else:
        raise PluginRegistrationError(f"{source}: expected a plugin factory or a register function")


def _call_register(register: Callable[..., object], registry: Registry, *, source: str) -> None:
    proxy = _SourceRegistry(registry, source)
    try:
        register(proxy)
    except PluginRegistrationError:
        raise
    except PLUGIN_ERRORS as exc:
        raise PluginRegistrationError(
            f"{source}: register() raised {type(exc).__name__}: {exc}"
        ) from exc


class _SourceRegistry(Registry):
    """A view of a registry that tags every registration with where it came from."""

    def __init__(self, target: Registry, source: str) -> None:
        super().__init__()
        self._target = target
        self._source = source

    def register(self, name: str, factory: PluginFactory, *, source: str = "") -> None:
        self._target.register(name, factory, source=source or self._source)

    def get(self, name: str) -> PluginFactory | None:
        return self._target.get(name)

    def names(self) -> list[str]:
        return self._target.names()

    def __contains__(self, name: object) -> bool:
        return name in self._target

    def __len__(self) -> int:
        return len(self._target)
