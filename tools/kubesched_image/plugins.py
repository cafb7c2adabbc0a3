"""Plugin modules in the image: `make image IMAGE_PLUGINS=path/to/module.py` is kubesched's
image plus one layer holding the modules at /opt/kubesched/plugins, with that folder on
PYTHONPATH, so that `--plugin-module NAME` imports them. The layers below are the plain
image's, byte for byte: what a Dockerfile `FROM kubesched:0.1.0` with a `COPY` and an `ENV`
makes (docs/writing-plugins.md). Each module is imported and registered by the image's own
Python before the layer is written, and its bytecode compiled by it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kubesched_image import oci, plugin_deps, sbom, spec, target, wheels
from kubesched_image.errors import ImageError, Progress, tail

SITE = wheels.site_packages(spec.PREFIX)
USAGE = "IMAGE_PLUGINS takes Python module files (NAME.py) and package folders (with __init__.py)"
_SKIPPED = ("__pycache__",)

# Run by the image's Python: a module must not hide one of the image's own (PYTHONPATH comes
# first), must import, and its register(registry) must add a plugin beside the in-tree ones
# (kubesched's --plugin-module, verbatim). Prints {module: [plugin names]}.
_CHECK = """
import importlib.util, json, sys
plugins, names = sys.argv[1], json.loads(sys.argv[2])
for name in names:
    if importlib.util.find_spec(name) is not None:
        sys.exit(f"plugin module {name} would hide the image's own module {name}: rename it")
sys.path.insert(0, plugins)
from kubesched.framework.registry import PluginRegistrationError, load_plugin_modules
from kubesched.plugins import in_tree_registry
registry = in_tree_registry()
found = {}
for name in names:
    before = set(registry.names())
    try:
        load_plugin_modules(registry, [name])
    except PluginRegistrationError as error:
        sys.exit(f"{error}: fix the module, then run `make image` again")
    found[name] = sorted(set(registry.names()) - before)
    if not found[name]:
        sys.exit(f"--plugin-module {name}: register(registry) registers no plugin: register one")
print(json.dumps(found))
"""


@dataclass(frozen=True)
class PluginSource:
    """A plugin module or package of this machine, as `IMAGE_PLUGINS` named it."""

    path: Path
    name: str
    """Its module name: what `--plugin-module` takes."""
    files: tuple[tuple[str, Path], ...]
    """(path under /opt/kubesched/plugins, file on this machine), sorted."""

    def sha256(self) -> str:
        """Of its files' names and contents (the SBOM's checksum, part of the cache key)."""
        digest = hashlib.sha256()
        for relative, path in self.files:
            content = path.read_bytes()
            digest.update(f"{relative}\0{len(content)}\0".encode())
            digest.update(content)
        return digest.hexdigest()


def plugin_sources(paths: Sequence[Path]) -> tuple[PluginSource, ...]:
    """Each path as a module file or a package folder; a mistake is one line saying the fix."""
    sources = tuple(_source(path) for path in paths)
    names = [source.name for source in sources]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ImageError(f"IMAGE_PLUGINS names the module {twice[0]} twice: name it once")
    return sources


def _source(path: Path) -> PluginSource:
    if path.is_file():
        if path.suffix != ".py":
            raise ImageError(f"{path} is not a Python module: {USAGE}")
        return PluginSource(path, _module_name(path, path.stem), ((path.name, path),))
    if not path.is_dir():
        raise ImageError(f"{path}: no such file or folder: {USAGE}")
    if not (path / "__init__.py").is_file():
        modules = sorted(path.glob("*.py"))
        hint = f", e.g. IMAGE_PLUGINS={modules[0]}" if modules else ""
        raise ImageError(f"{path} is a folder but not a package (no __init__.py): {USAGE}{hint}")
    name = _module_name(path, path.name)
    files = [
        (f"{name}/{file.relative_to(path).as_posix()}", file)
        for file in sorted(path.rglob("*"))
        if file.is_file()
        and file.suffix not in (".pyc", ".pyo")
        and not any(part in _SKIPPED for part in file.relative_to(path).parts)
    ]
    return PluginSource(path, name, tuple(files))


def _module_name(path: Path, name: str) -> str:
    if not name.isidentifier():
        raise ImageError(
            f"{path}: {name!r} is not a Python module name: rename it (letters, digits, _)"
        )
    return name


def sources_digest(
    base_digest: str,
    sources: Sequence[PluginSource],
    requirements: plugin_deps.PluginRequirements | None = None,
) -> str:
    """The cache key of the image with plugins: the plain image's inputs, the modules and
    their requirements."""
    digest = hashlib.sha256(f"base={base_digest}\n".encode())
    for source in sources:
        digest.update(f"plugin={source.name}:{source.sha256()}\n".encode())
    if requirements is not None and requirements.pins:
        digest.update(f"requirements\n{requirements.digest_text()}".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Extended:
    """What `extend` wrote into its `out` folder (as `assemble.Assembled`)."""

    image: str
    manifest_digest: str
    archive_name: str
    sbom_name: str


def extend(
    base: Path,
    sources: Sequence[PluginSource],
    scratch: Path,
    out: Path,
    *,
    name: str,
    version: str,
    epoch: int,
    progress: Progress,
    requirements: plugin_deps.PluginRequirements | None = None,
    cache: Path | None = None,
) -> Extended:
    """The image of the folder `base` (a build: oci/ and its SBOM) plus a layer with
    `sources` (and the wheels of their `requirements`, downloaded into `cache`), written
    into `out`."""
    layers, config = oci.read_image(base / "oci")
    progress("image: unpacking the image to check the plugin modules with its Python")
    root = scratch / "root"
    oci.unpack(base / "oci", layers, root)
    stage = scratch / "plugins"
    folder = stage / spec.PLUGINS_DIR.lstrip("/")
    _copy(sources, folder)
    dependencies: list[sbom.Component] = []
    if requirements is not None and requirements.pins:
        assert cache is not None, "plugin requirements need a download cache"
        dependencies = plugin_deps.install(
            requirements, root=root, stage=stage, cache=cache, progress=progress
        )
    sites = [root / SITE.lstrip("/"), stage / SITE.lstrip("/")]
    python = target.TargetPython(root)
    try:
        registered = _check(python, sites=sites, plugins=folder, sources=sources)
        for module, plugins in registered.items():
            progress(f"image: plugin module {module} registers {', '.join(plugins)}")
        trees = [(folder, spec.PLUGINS_DIR)]
        if dependencies:
            trees.append((sites[1], SITE))
        failed = target.compile_bytecode(python, trees)
    finally:
        python.close()
    if failed:
        raise ImageError(f"{failed[0]} does not compile with the image's Python: fix it")
    tag = f"{version}{spec.PLUGINS_TAG_SUFFIX}"
    manifest = _write_layout(
        base / "oci",
        out / "oci",
        layers=layers,
        config=config,
        stage=stage,
        said=_said(registered, dependencies),
        name=name,
        tag=tag,
        epoch=epoch,
    )
    image = f"{name}:{tag}"
    archive_name, sbom_name = f"{name}-{tag}.tar", f"{name}-{tag}.spdx.json"
    oci.write_archive(out / "oci", out / archive_name, repo_tag=image, epoch=epoch)
    base_sbom = json.loads(next(base.glob("*.spdx.json")).read_text())
    components = [
        sbom.Component(
            ecosystem="generic",
            name=source.name,
            version="",
            sha256=source.sha256(),
            file_name=source.path.name,
        )
        for source in sources
    ]
    components += dependencies
    document = sbom.extended(
        base_sbom, name=name, version=tag, manifest_digest=manifest.digest, components=components
    )
    (out / sbom_name).write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    return Extended(image, manifest.digest, archive_name, sbom_name)


def _copy(sources: Sequence[PluginSource], folder: Path) -> None:
    folder.mkdir(parents=True)
    for source in sources:
        for relative, path in source.files:
            copy = folder / relative
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
            copy.chmod(0o644)
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)


def _said(registered: dict[str, list[str]], dependencies: Sequence[sbom.Component]) -> str:
    """The layer's history entry: the modules and the plugins they register, the wheels."""
    said = "; ".join(f"{module} ({', '.join(plugins)})" for module, plugins in registered.items())
    if dependencies:
        said += "; with " + ", ".join(f"{c.name} {c.version}" for c in dependencies)
    return f"{spec.PLUGINS_DIR}: {said}"


def _check(
    python: target.TargetPython,
    *,
    sites: Sequence[Path],
    plugins: Path,
    sources: Sequence[PluginSource],
) -> dict[str, list[str]]:
    names = json.dumps([source.name for source in sources])
    done = subprocess.run(
        python.argv("-c", _CHECK, str(plugins), names),
        capture_output=True,
        text=True,
        check=False,
        env=python.env({"PYTHONPATH": ":".join(map(str, sites))}),
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["(no output)"]
        if len(lines) == 1:
            raise ImageError(lines[0])
        raise ImageError(
            "the image's Python failed to import the plugin modules: fix them, then run "
            "`make image` again",
            details=tail(done.stderr),
        )
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


def _write_layout(
    base: Path,
    layout: Path,
    *,
    layers: Sequence[oci.Layer],
    config: dict[str, object],
    stage: Path,
    said: str,
    name: str,
    tag: str,
    epoch: int,
) -> oci.Blob:
    blobs = layout / "blobs" / "sha256"
    blobs.mkdir(parents=True)
    for layer in layers:
        _link_or_copy(base / "blobs" / "sha256" / layer.blob.hex, blobs / layer.blob.hex)
    layer = oci.write_layer(stage, blobs, epoch=epoch, owners={}, created_by=said)
    settings = config["config"]
    assert isinstance(settings, dict)
    image_config = oci.ImageConfig(
        entrypoint=settings["Entrypoint"],
        user=settings["User"],
        env=[*settings["Env"], spec.PLUGINS_ENV],
        exposed_ports=sorted(settings["ExposedPorts"]),
        labels=settings["Labels"],
        working_dir=settings["WorkingDir"],
    )
    return oci.write_image(
        layout,
        layers=[*layers, layer],
        config=image_config,
        epoch=epoch,
        ref_name=tag,
        image_name=f"docker.io/library/{name}:{tag}",
    )


def _link_or_copy(source: Path, copy: Path) -> None:
    try:
        os.link(source, copy)
    except OSError:
        shutil.copyfile(source, copy)
