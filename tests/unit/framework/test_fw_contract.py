"""The plugin contract: `kubesched.framework` exports the contract and only the contract, the
examples and docs import nothing else of kubesched's core, each in-tree plugin is named from
the names table, and the static protocol claims list every class that serves a protocol."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

import kubesched.framework
import kubesched.runtime
from kubesched.apis import names
from kubesched.framework import interfaces
from kubesched.framework.placement import PlacementFeasiblePlugin
from kubesched.plugins import IN_TREE_PLUGINS, in_tree_registry
from kubesched.plugins.claims import CLAIMS

ROOT = Path(__file__).resolve().parents[3]
PUBLIC_MODULES = {"kubesched.framework", "kubesched.model", "kubesched.testing"}
"""What a plugin outside the tree may import: the contract, the object model, test helpers."""


def test_every_exported_name_exists_once() -> None:
    exported = kubesched.framework.__all__
    assert all(hasattr(kubesched.framework, name) for name in exported)
    assert len(set(exported)) == len(exported)


def test_the_contract_exports_no_engine_name() -> None:
    assert not set(kubesched.framework.__all__) & set(kubesched.runtime.__all__)
    assert all(hasattr(kubesched.runtime, name) for name in kubesched.runtime.__all__)


def _imports(source: str) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kubesched"):
            found += [(node.module or "", alias.name) for alias in node.names]
        if isinstance(node, ast.Import):
            found += [
                (alias.name, "") for alias in node.names if alias.name.startswith("kubesched")
            ]
    return found


def _doc_code_blocks() -> list[tuple[str, str]]:
    guide = ROOT / "docs" / "writing-plugins.md"
    blocks = re.findall(r"```python\n(.*?)```", guide.read_text(), flags=re.DOTALL)
    return [(guide.name, block) for block in blocks]


def _plugin_sources() -> list[tuple[str, str]]:
    examples = sorted((ROOT / "examples").rglob("*.py"))
    return [(str(p.relative_to(ROOT)), p.read_text()) for p in examples] + _doc_code_blocks()


@pytest.mark.parametrize(("where", "source"), _plugin_sources(), ids=lambda v: v[:40])
def test_examples_and_docs_use_only_the_public_names(where: str, source: str) -> None:
    for module, name in _imports(source):
        assert module in PUBLIC_MODULES, f"{where} imports {module}"
        if module == "kubesched.framework":
            assert name in kubesched.framework.__all__, f"{where} imports {name}"


def _plugin_name(plugin: type) -> str:
    """The `name` class attribute every in-tree plugin class carries."""
    name = getattr(plugin, "name", None)
    assert isinstance(name, str), plugin
    return name


def test_each_in_tree_plugin_is_named_from_the_names_table() -> None:
    assert sorted(_plugin_name(plugin) for plugin in IN_TREE_PLUGINS) == sorted(names.IN_TREE)
    assert set(in_tree_registry().names()) >= set(names.IN_TREE)


def _serves(cls: type, protocol: type) -> bool:
    methods = [m for m, v in vars(protocol).items() if not m.startswith("_") and callable(v)]
    return all(hasattr(cls, method) for method in methods)


@pytest.mark.parametrize("protocol", list(CLAIMS), ids=lambda p: p.__name__)
def test_the_static_claims_list_every_class_that_serves_a_protocol(protocol: type[object]) -> None:
    serving = [cls for cls in IN_TREE_PLUGINS if _serves(cls, protocol)]
    assert list(CLAIMS[protocol]) == serving


def test_the_claims_cover_every_extension_point_protocol() -> None:
    protocols = {
        value
        for value in vars(interfaces).values()
        if isinstance(value, type) and interfaces.Plugin in value.__mro__[1:]
    }
    optional = {
        interfaces.PreFilterExtensions,
        interfaces.ScoreExtensions,
        interfaces.EnqueueExtensions,
        interfaces.PreBindPreFlightExtensions,
        PlacementFeasiblePlugin,
    }
    assert set(CLAIMS) == protocols | optional


def _normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("plugin", IN_TREE_PLUGINS, ids=lambda p: p.name)
def test_each_plugin_readme_carries_its_module_docstring(plugin: type) -> None:
    module = Path(inspect.getfile(plugin))
    docstring = ast.get_docstring(ast.parse(module.read_text()))
    assert docstring, f"{module} has no docstring"
    readme = module.parent / "README.md"
    assert f"## `{module.name}`" in readme.read_text(), f"{readme} has no {module.name} section"
    assert _normalized(docstring) in _normalized(readme.read_text()), (
        f"{readme}'s `{module.name}` section differs from the module's docstring: copy it over"
    )


def test_the_guide_describes_every_handle_member() -> None:
    """docs/writing-plugins.md's "The Handle, member by member" table names each member."""
    guide = (ROOT / "docs" / "writing-plugins.md").read_text()
    table = guide.split("### The Handle, member by member", 1)[1].split("\n### ", 1)[0]
    members = {name for name in vars(kubesched.framework.Handle) if not name.startswith("_")}
    missing = {name for name in members if not re.search(rf"`(await )?{name}[(`]", table)}
    assert not missing, f"the Handle table lacks {sorted(missing)}"
