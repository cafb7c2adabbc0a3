"""OCI image layout, written reproducibly: layers as gzip'ed tar streams of a folder in sorted
order, every entry with the same mtime and numeric owners, JSON with sorted keys; and a tarball
of the layout with Docker's manifest.json beside it, which `docker load` reads.

Spec: https://github.com/opencontainers/image-spec (image-layout.md, manifest.md, config.md).
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import io
import json
import os
import shutil
import stat
import tarfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubesched_image.errors import ImageError

LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip"
CONFIG_TYPE = "application/vnd.oci.image.config.v1+json"
MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json"
INDEX_TYPE = "application/vnd.oci.image.index.v1+json"
GZIP_LEVEL = 6
AMD64 = {"architecture": "amd64", "os": "linux"}


@dataclass(frozen=True)
class Blob:
    digest: str
    """`sha256:<hex>` of the bytes as stored."""
    size: int
    media_type: str

    @property
    def hex(self) -> str:
        return self.digest.removeprefix("sha256:")

    def descriptor(self, **extra: Any) -> dict[str, Any]:
        return {"mediaType": self.media_type, "digest": self.digest, "size": self.size, **extra}


@dataclass(frozen=True)
class Layer:
    blob: Blob
    diff_id: str
    """sha256 of the uncompressed tar (the config's rootfs.diff_ids)."""
    created_by: str


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class _Hashing(io.RawIOBase):
    """A write-only stream that hashes and counts what passes through to `target`."""

    def __init__(self, target: io.BufferedIOBase | io.RawIOBase | None) -> None:
        self.target = target
        self.sha = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self.sha.update(view)
        self.size += len(view)
        if self.target is not None:
            self.target.write(view)
        return len(view)


def _entries(folder: Path) -> Iterator[tuple[str, Path]]:
    """(name in the layer, path) of everything under `folder`, parents first, sorted by name."""
    for path in sorted(folder.rglob("*"), key=lambda p: p.relative_to(folder).parts):
        yield path.relative_to(folder).as_posix(), path


def _tarinfo(name: str, path: Path, *, epoch: int, owner: tuple[int, int]) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    status = path.lstat()
    info.mode = stat.S_IMODE(status.st_mode)
    info.mtime = epoch
    info.uid, info.gid = owner
    info.uname = info.gname = ""
    if stat.S_ISLNK(status.st_mode):
        info.type = tarfile.SYMTYPE
        info.linkname = str(path.readlink())
    elif stat.S_ISDIR(status.st_mode):
        info.type = tarfile.DIRTYPE
    elif stat.S_ISREG(status.st_mode):
        info.size = status.st_size
    else:
        raise ImageError(
            f"{path} is neither a file, a folder nor a symlink: it cannot be in a layer"
        )
    return info


def write_layer(
    folder: Path,
    blobs: Path,
    *,
    epoch: int,
    owners: Mapping[str, tuple[int, int]],
    created_by: str,
) -> Layer:
    """The tar.gz of `folder` as a blob in `blobs` (owner root unless `owners` says otherwise;
    hard links kept as links to the first name)."""
    blobs.mkdir(parents=True, exist_ok=True)
    partial = blobs / ".layer.partial"
    with partial.open("wb") as out:
        compressed = _Hashing(out)
        with gzip.GzipFile(
            filename="", mode="wb", fileobj=compressed, mtime=0, compresslevel=GZIP_LEVEL
        ) as zipped:
            raw = _Hashing(zipped)
            with tarfile.open(fileobj=raw, mode="w|", format=tarfile.PAX_FORMAT) as archive:
                _add_all(archive, folder, epoch=epoch, owners=owners)
    digest = f"sha256:{compressed.sha.hexdigest()}"
    partial.replace(blobs / compressed.sha.hexdigest())
    blob = Blob(digest=digest, size=compressed.size, media_type=LAYER_TYPE)
    return Layer(blob=blob, diff_id=f"sha256:{raw.sha.hexdigest()}", created_by=created_by)


def _add_all(
    archive: tarfile.TarFile, folder: Path, *, epoch: int, owners: Mapping[str, tuple[int, int]]
) -> None:
    first_names: dict[tuple[int, int], str] = {}
    for name, path in _entries(folder):
        info = _tarinfo(name, path, epoch=epoch, owner=owners.get(name, (0, 0)))
        if info.isreg():
            status = path.lstat()
            if status.st_nlink > 1:
                key = (status.st_dev, status.st_ino)
                if key in first_names:
                    info.type, info.linkname, info.size = tarfile.LNKTYPE, first_names[key], 0
                    archive.addfile(info)
                    continue
                first_names[key] = name
            with path.open("rb") as stream:
                archive.addfile(info, stream)
        else:
            archive.addfile(info)


def write_blob(blobs: Path, data: bytes, media_type: str) -> Blob:
    hexdigest = hashlib.sha256(data).hexdigest()
    (blobs / hexdigest).write_bytes(data)
    return Blob(digest=f"sha256:{hexdigest}", size=len(data), media_type=media_type)


@dataclass(frozen=True)
class ImageConfig:
    """What the Dockerfile's final stage says: user, entrypoint, environment, ports, labels."""

    entrypoint: Sequence[str]
    user: str
    env: Sequence[str]
    exposed_ports: Sequence[str]
    labels: Mapping[str, str]
    working_dir: str = "/"


def write_image(
    layout: Path,
    *,
    layers: Sequence[Layer],
    config: ImageConfig,
    epoch: int,
    ref_name: str,
    image_name: str,
    platform: Mapping[str, str] | None = None,
) -> Blob:
    """Config, manifest, index.json and oci-layout in `layout` (the layers' blobs are already in
    its blobs/sha256); the manifest's blob. `platform`: its OCI platform (linux/amd64)."""
    blobs = layout / "blobs" / "sha256"
    created = _rfc3339(epoch)
    platform = dict(platform or AMD64)
    document = {
        **platform,
        "created": created,
        "config": {
            "User": config.user,
            "Env": list(config.env),
            "Entrypoint": list(config.entrypoint),
            "WorkingDir": config.working_dir,
            "ExposedPorts": {port: {} for port in config.exposed_ports},
            "Labels": dict(config.labels),
        },
        "rootfs": {"type": "layers", "diff_ids": [layer.diff_id for layer in layers]},
        "history": [{"created": created, "created_by": layer.created_by} for layer in layers],
    }
    config_blob = write_blob(blobs, canonical_json(document), CONFIG_TYPE)
    manifest = {
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "config": config_blob.descriptor(),
        "layers": [layer.blob.descriptor() for layer in layers],
    }
    manifest_blob = write_blob(blobs, canonical_json(manifest), MANIFEST_TYPE)
    annotations = {
        "org.opencontainers.image.ref.name": ref_name,
        "io.containerd.image.name": image_name,
    }
    index = {
        "schemaVersion": 2,
        "mediaType": INDEX_TYPE,
        "manifests": [manifest_blob.descriptor(platform=platform, annotations=annotations)],
    }
    (layout / "index.json").write_bytes(canonical_json(index))
    (layout / "oci-layout").write_bytes(canonical_json({"imageLayoutVersion": "1.0.0"}))
    return manifest_blob


def write_index(layout: Path, images: Sequence[Path], *, ref_name: str, image_name: str) -> Blob:
    """An OCI layout holding one image index of the images of the layouts `images` (each as
    write_image wrote it, with its platform): their blobs linked in, the index as a blob,
    index.json naming it by `ref_name`. A registry serves the index under one tag; a client
    pulls the manifest of its own platform."""
    blobs = layout / "blobs" / "sha256"
    blobs.mkdir(parents=True, exist_ok=True)
    manifests = []
    for image in images:
        for blob in sorted((image / "blobs" / "sha256").iterdir()):
            if not (blobs / blob.name).exists():
                _link_or_copy(blob, blobs / blob.name)
        (descriptor,) = json.loads((image / "index.json").read_bytes())["manifests"]
        manifests.append(
            {key: descriptor[key] for key in ("mediaType", "digest", "size", "platform")}
        )
    document = {"schemaVersion": 2, "mediaType": INDEX_TYPE, "manifests": manifests}
    index_blob = write_blob(blobs, canonical_json(document), INDEX_TYPE)
    annotations = {
        "org.opencontainers.image.ref.name": ref_name,
        "io.containerd.image.name": image_name,
    }
    top = {
        "schemaVersion": 2,
        "mediaType": INDEX_TYPE,
        "manifests": [index_blob.descriptor(annotations=annotations)],
    }
    (layout / "index.json").write_bytes(canonical_json(top))
    (layout / "oci-layout").write_bytes(canonical_json({"imageLayoutVersion": "1.0.0"}))
    return index_blob


def _link_or_copy(source: Path, copy: Path) -> None:
    try:
        os.link(source, copy)
    except OSError:
        shutil.copyfile(source, copy)


def _rfc3339(epoch: int) -> str:
    moment = dt.datetime.fromtimestamp(epoch, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_archive(
    layout: Path, archive: Path, *, repo_tag: str, epoch: int, manifest_digest: str = ""
) -> None:
    """A tarball of the layout plus Docker's manifest.json (config and layers by blob path) of
    its image (or of the image `manifest_digest` of an index):
    `docker load -i`, `podman load -i`, `skopeo copy oci-archive:` and `crane push` read it."""
    index = json.loads((layout / "index.json").read_bytes())
    manifest_hex = (manifest_digest or index["manifests"][0]["digest"]).removeprefix("sha256:")
    manifest = json.loads((layout / "blobs" / "sha256" / manifest_hex).read_bytes())
    docker = [
        {
            "Config": f"blobs/sha256/{manifest['config']['digest'].removeprefix('sha256:')}",
            "RepoTags": [repo_tag],
            "Layers": [
                f"blobs/sha256/{d['digest'].removeprefix('sha256:')}" for d in manifest["layers"]
            ],
        }
    ]
    partial = archive.with_name(archive.name + ".partial")
    with tarfile.open(partial, mode="w", format=tarfile.PAX_FORMAT) as out:
        for name, path in _entries(layout):
            info = _tarinfo(name, path, epoch=epoch, owner=(0, 0))
            if info.isreg():
                with path.open("rb") as stream:
                    out.addfile(info, stream)
            else:
                out.addfile(info)
        data = canonical_json(docker)
        info = tarfile.TarInfo("manifest.json")
        info.size, info.mtime, info.mode = len(data), epoch, 0o644
        out.addfile(info, io.BytesIO(data))
    partial.replace(archive)


def read_image(layout: Path) -> tuple[list[Layer], dict[str, Any]]:
    """The layers (with their diff_ids and history) and the config document of the layout's
    only image, as `write_image` wrote them."""
    blobs = layout / "blobs" / "sha256"
    try:
        index = json.loads((layout / "index.json").read_bytes())
        (descriptor,) = index["manifests"]
        manifest = json.loads((blobs / descriptor["digest"].removeprefix("sha256:")).read_bytes())
        config = json.loads(
            (blobs / manifest["config"]["digest"].removeprefix("sha256:")).read_bytes()
        )
    except (OSError, ValueError, KeyError) as error:
        raise ImageError(
            f"{layout} is not an image layout this builder wrote ({error}): "
            "run `make image` again with `--force`"
        ) from None
    history = [entry["created_by"] for entry in config["history"]]
    layers = [
        Layer(
            blob=Blob(digest=d["digest"], size=d["size"], media_type=d["mediaType"]),
            diff_id=diff_id,
            created_by=created_by,
        )
        for d, diff_id, created_by in zip(
            manifest["layers"], config["rootfs"]["diff_ids"], history, strict=True
        )
    ]
    return layers, config


def unpack(layout: Path, layers: Sequence[Layer], into: Path) -> None:
    """Apply `layers` of `layout` to `into`, in order: the layers this builder wrote (no
    whiteouts), to run the image's Python on them."""
    into.mkdir(parents=True, exist_ok=True)
    for layer in layers:
        path = layout / "blobs" / "sha256" / layer.blob.hex
        with tarfile.open(path, mode="r:gz") as archive:
            # Our own layers (write_layer); the "tar" filter still refuses a path leaving `into`.
            archive.extractall(into, numeric_owner=True, filter="tar")
