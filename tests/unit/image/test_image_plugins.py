"""`make image IMAGE_PLUGINS=...`: the paths it takes, each mistake one line with the fix; the
SBOM of the extended image; docs/writing-plugins.md's Dockerfile makes the same layer."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from kubesched_image import sbom, spec
from kubesched_image.errors import ImageError
from kubesched_image.plugins import plugin_sources, sources_digest
from kubesched_image.project import Project

PROJECT = Project.default()
EXAMPLE = PROJECT.root / "examples" / "prefer_label" / "prefer_label.py"


def test_a_module_file_and_a_package_folder_are_taken(tmp_path: Path) -> None:
    package = tmp_path / "team_rules"
    (package / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("from team_rules.core import register\n")
    (package / "core.py").write_text("def register(registry): ...\n")
    (package / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"stale")
    module, folder = plugin_sources([EXAMPLE, package])
    assert (module.name, [name for name, _ in module.files]) == (
        "prefer_label",
        ["prefer_label.py"],
    )
    assert folder.name == "team_rules"
    assert [name for name, _ in folder.files] == ["team_rules/__init__.py", "team_rules/core.py"]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda d: d / "missing.py", "no such file or folder: IMAGE_PLUGINS takes"),
        (lambda d: _write(d / "profile.yaml"), "is not a Python module: IMAGE_PLUGINS takes"),
        (lambda d: _write(d / "my-plugin.py"), "'my-plugin' is not a Python module name: rename"),
        (lambda d: _write(d / "loose" / "a.py").parent, "not a package (no __init__.py)"),
    ],
)
def test_a_path_that_is_no_module_says_what_to_pass(
    tmp_path: Path, make: Callable[[Path], Path], expected: str
) -> None:
    with pytest.raises(ImageError, match=re.escape(expected)) as caught:
        plugin_sources([make(tmp_path)])
    assert "\n" not in str(caught.value)


def test_a_folder_of_modules_names_the_module_to_pass(tmp_path: Path) -> None:
    module = _write(tmp_path / "plugins" / "prefer_label.py")
    with pytest.raises(ImageError, match=re.escape(f"e.g. IMAGE_PLUGINS={module}")):
        plugin_sources([module.parent])


def test_a_module_named_twice_is_refused(tmp_path: Path) -> None:
    other = _write(tmp_path / "prefer_label.py")
    with pytest.raises(ImageError, match="names the module prefer_label twice: name it once"):
        plugin_sources([EXAMPLE, other])


def test_the_cache_key_follows_the_modules_contents(tmp_path: Path) -> None:
    module = _write(tmp_path / "p.py", "A = 1\n")
    first = sources_digest("base", plugin_sources([module]))
    assert sources_digest("base", plugin_sources([module])) == first
    assert sources_digest("other", plugin_sources([module])) != first
    module.write_text("A = 2\n")
    assert sources_digest("base", plugin_sources([module])) != first


def test_the_sbom_of_the_extended_image_adds_the_modules() -> None:
    deb = sbom.Component("deb", "libc6", "2.36", "a" * 64, "libc6.deb", architecture="amd64")
    base = sbom.document(
        name="kubesched", version="0.1.0", manifest_digest="sha256:" + "1" * 64,
        components=[deb], epoch=315532800,
    )  # fmt: skip
    module = sbom.Component("generic", "prefer_label", "", "b" * 64, "prefer_label.py")
    extended = sbom.extended(
        base, name="kubesched", version="0.1.0-plugins", manifest_digest="sha256:" + "2" * 64,
        components=[module],
    )  # fmt: skip
    packages = {p["SPDXID"]: p for p in extended["packages"]}
    assert sorted(packages) == [
        "SPDXRef-deb-libc6",
        "SPDXRef-generic-prefer-label",
        "SPDXRef-image",
    ]
    assert packages["SPDXRef-image"]["checksums"][0]["checksumValue"] == "2" * 64
    assert packages["SPDXRef-image"]["versionInfo"] == "0.1.0-plugins"
    plugin = packages["SPDXRef-generic-prefer-label"]
    assert "versionInfo" not in plugin
    assert plugin["externalRefs"][0]["referenceLocator"] == (
        f"pkg:generic/prefer_label?checksum=sha256:{'b' * 64}"
    )
    contains = {r["relatedSpdxElement"] for r in extended["relationships"]}
    assert {"SPDXRef-deb-libc6", "SPDXRef-generic-prefer-label"} <= contains
    assert extended["documentNamespace"] != base["documentNamespace"]


def test_the_documented_dockerfile_adds_the_same_layer_and_environment() -> None:
    text = (PROJECT.root / "docs" / "writing-plugins.md").read_text()
    (block,) = re.findall(r"```dockerfile\n(.*?)```", text, flags=re.DOTALL)
    steps = [line.split(" ", 1) for line in block.splitlines() if line.strip()]
    name, version = PROJECT.name_and_version()
    assert steps[0] == ["FROM", f"{name}:{version}"]
    copies = [shlex.split(rest) for keyword, rest in steps if keyword == "COPY"]
    assert copies == [["examples/prefer_label/prefer_label.py", f"{spec.PLUGINS_DIR}/"]]
    assert [rest for keyword, rest in steps if keyword == "ENV"] == [spec.PLUGINS_ENV]
    assert {keyword for keyword, _ in steps} == {"FROM", "COPY", "ENV"}
    assert "make image IMAGE_PLUGINS=examples/prefer_label/prefer_label.py" in text


def _write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
