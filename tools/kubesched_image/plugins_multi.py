"""The plugin layer on the other platforms' images: `make image-push IMAGE_PLUGINS=...` (or
`make image IMAGE_PLUGINS=... IMAGE_PLATFORMS=linux/amd64,linux/arm64`). The layer the native
build made and checked (kubesched_image.plugins) holds Python sources, their bytecode (the
same CPython on every platform) and pure-Python wheels, the same files for every machine, so
the very same blob goes on top of the arm64 image; a layer holding an ELF file (a plugin
dependency with compiled code) is refused for another platform in one line."""

from __future__ import annotations

import json
import os
import shutil
import tarfile
import uuid
from pathlib import Path
from typing import Any

from kubesched_image import oci, spec
from kubesched_image.errors import ImageError
from kubesched_image.platforms import elf_machine
from kubesched_image.plugins import Extended


def transplant(
    plugged: Path, base: Path, out: Path, *, name: str, tag: str, epoch: int
) -> Extended:
    """The image of the build folder `base` (another platform's plain image) plus the last
    layer of the build folder `plugged` (the native plugin image), written into `out`."""
    plugged_layers, _ = oci.read_image(plugged / "oci")
    layer = plugged_layers[-1]
    _refuse_machine_code(plugged / "oci" / "blobs" / "sha256" / layer.blob.hex)
    layers, config = oci.read_image(base / "oci")
    layout = out / "oci"
    blobs = layout / "blobs" / "sha256"
    blobs.mkdir(parents=True)
    sources = [(base / "oci", item) for item in layers] + [(plugged / "oci", layer)]
    for folder, item in sources:
        _link_or_copy(folder / "blobs" / "sha256" / item.blob.hex, blobs / item.blob.hex)
    settings = config["config"]
    image_config = oci.ImageConfig(
        entrypoint=settings["Entrypoint"],
        user=settings["User"],
        env=[*settings["Env"], spec.PLUGINS_ENV],
        exposed_ports=sorted(settings["ExposedPorts"]),
        labels=settings["Labels"],
        working_dir=settings["WorkingDir"],
    )
    platform: dict[str, str] = {
        k: config[k] for k in ("architecture", "os", "variant") if k in config
    }
    manifest = oci.write_image(
        layout,
        layers=[*layers, layer],
        config=image_config,
        epoch=epoch,
        ref_name=tag,
        image_name=f"docker.io/library/{name}:{tag}",
        platform=platform,
    )
    suffix = f"-{config['architecture']}"
    archive_name, sbom_name = f"{name}-{tag}{suffix}.tar", f"{name}-{tag}{suffix}.spdx.json"
    oci.write_archive(layout, out / archive_name, repo_tag=f"{name}:{tag}", epoch=epoch)
    document = _sbom(plugged, base, name=name, tag=tag, manifest_digest=manifest.digest)
    (out / sbom_name).write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    return Extended(f"{name}:{tag}", manifest.digest, archive_name, sbom_name)


def _refuse_machine_code(blob: Path) -> None:
    with tarfile.open(blob, mode="r:gz") as archive:
        for member in archive:
            stream = archive.extractfile(member) if member.isreg() else None
            if stream is not None and elf_machine(stream.read(64)) is not None:
                raise ImageError(
                    f"/{member.name} of the plugin layer is machine code: build that plugin "
                    "image for linux/amd64 only (IMAGE_PLATFORMS=linux/amd64)"
                )


def _sbom(plugged: Path, base: Path, *, name: str, tag: str, manifest_digest: str) -> Any:
    """The base image's SBOM plus what the plugin image's SBOM adds (its modules, wheels)."""
    plugin_doc = json.loads(next(plugged.glob("*.spdx.json")).read_text())
    base_doc = json.loads(next(base.glob("*.spdx.json")).read_text())
    known = {package["SPDXID"] for package in base_doc["packages"]}
    added = [p for p in plugin_doc["packages"] if p["SPDXID"] not in known]
    contains = [
        r
        for r in plugin_doc["relationships"]
        if r["spdxElementId"] == "SPDXRef-image" and r["relatedSpdxElement"] not in known
    ]
    image = next(p for p in plugin_doc["packages"] if p["SPDXID"] == "SPDXRef-image")
    digest = manifest_digest.removeprefix("sha256:")
    image = {**image, "checksums": [{"algorithm": "SHA256", "checksumValue": digest}]}
    image["externalRefs"] = [
        {**ref, "referenceLocator": f"pkg:oci/{name}@sha256%3A{digest}?tag={tag}"}
        for ref in image["externalRefs"]
    ]
    others = [p for p in base_doc["packages"] if p["SPDXID"] != "SPDXRef-image"]
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, f"oci:{name}@{manifest_digest}")
    return {
        **base_doc,
        "name": f"{name}-{tag}",
        "documentNamespace": f"https://spdx.org/spdxdocs/{name}-{tag}-{namespace}",
        "packages": [image, *others, *[p for p in added if p["SPDXID"] != "SPDXRef-image"]],
        "relationships": [*base_doc["relationships"], *contains],
    }


def _link_or_copy(source: Path, copy: Path) -> None:
    try:
        os.link(source, copy)
    except OSError:
        shutil.copyfile(source, copy)
