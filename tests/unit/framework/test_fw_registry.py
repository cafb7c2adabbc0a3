from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from kubesched.framework import (
    PluginRegistrationError,
    Registry,
    load_entry_points,
    load_plugin_modules,
)
from kubesched.framework import registry as registry_module
from kubesched.plugins import IN_TREE_PLUGINS, in_tree_registry


class Mine:
    name = "Mine"

    def __init__(self, *, args: Any, handle: Any) -> None:
        self.args = args


def test_in_tree_registry_has_every_default_plugin() -> None:
    registry = in_tree_registry()
    assert len(registry) == len(IN_TREE_PLUGINS)
    assert "NodeResourcesFit" in registry
    assert registry.names() == sorted(registry.names())


def test_registering_a_name_twice_names_both_sources() -> None:
    registry = in_tree_registry()
    with pytest.raises(
        PluginRegistrationError, match="'NodeName' is registered twice: by in-tree and by module x"
    ):
        registry.register("NodeName", Mine, source="module x")


def write_module(tmp_path: Path, name: str, body: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))


def test_plugin_module_register_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_module(
        tmp_path,
        "kubesched_test_mod_ok",
        """
        class Hello:
            name = "Hello"
            def __init__(self, *, args, handle):
                pass

        def register(registry):
            registry.register_class(Hello)
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry()
    load_plugin_modules(registry, ["kubesched_test_mod_ok"])
    assert registry.names() == ["Hello"]
    with pytest.raises(
        PluginRegistrationError, match="by module kubesched_test_mod_ok and by module"
    ):
        load_plugin_modules(registry, ["kubesched_test_mod_ok"])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("X = 1\n", "defines no `register(registry)` function"),
        (
            "def register(registry):\n    raise ValueError('nope')\n",
            "register() raised ValueError: nope",
        ),
        ("import does_not_exist_anywhere\n", "cannot import it: ModuleNotFoundError"),
    ],
)
def test_plugin_module_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, message: str
) -> None:
    name = f"kubesched_test_mod_{abs(hash(body))}"
    write_module(tmp_path, name, body)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginRegistrationError, match=re.escape(message)):
        load_plugin_modules(Registry(), [name])


class FakeEntryPoint:
    def __init__(self, name: str, target: Any) -> None:
        self.name = name
        self.value = f"pkg:{name}"
        self._target = target

    def load(self) -> Any:
        return self._target


def test_entry_points_register_factories_and_register_functions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def register(registry: Registry) -> None:
        registry.register("ViaFunction", Mine)

    points = [FakeEntryPoint("Mine", Mine), FakeEntryPoint("bundle", register)]
    monkeypatch.setattr(
        registry_module,
        "entry_points",
        lambda group: points if group == "kubesched.plugins" else [],
    )
    registry = Registry()
    assert load_entry_points(registry) == ["Mine", "bundle"]
    assert registry.names() == ["Mine", "ViaFunction"]
