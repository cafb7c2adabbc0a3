"""Layers and the OCI layout are written reproducibly: the same files give the same bytes
whatever their mtimes, the order they were made in or who owns them on the build machine."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
from pathlib import Path

from kubesched_image import oci

EPOCH = 315532800


def _tree(root: Path, *, reverse: bool, mtime: int) -> Path:
    files = {"usr/bin/tool": (b"#!/bin/sh\n", 0o755), "etc/a.conf": (b"a\n", 0o644)}
    files["home/user/.keep"] = (b"", 0o600)
    for name, (data, mode) in sorted(files.items(), reverse=reverse):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(mode)
    (root / "usr" / "bin" / "link").symlink_to("tool")
    os.link(root / "etc" / "a.conf", root / "etc" / "b.conf")
    for path in [*root.rglob("*"), root]:
        os.utime(path, (mtime, mtime), follow_symlinks=False)
    return root


def _layer(tmp_path: Path, name: str, *, reverse: bool, mtime: int) -> oci.Layer:
    tree = _tree(tmp_path / name / "tree", reverse=reverse, mtime=mtime)
    owners = {"home/user": (65532, 65532)}
    return oci.write_layer(
        tree, tmp_path / name / "blobs", epoch=EPOCH, owners=owners, created_by="x"
    )


def test_the_same_files_give_the_same_layer(tmp_path: Path) -> None:
    one = _layer(tmp_path, "one", reverse=False, mtime=1_000_000_000)
    two = _layer(tmp_path, "two", reverse=True, mtime=1_700_000_000)
    assert one == two
    blob = (tmp_path / "one" / "blobs" / one.blob.hex).read_bytes()
    assert f"sha256:{hashlib.sha256(blob).hexdigest()}" == one.blob.digest
    raw = gzip.decompress(blob)
    assert f"sha256:{hashlib.sha256(raw).hexdigest()}" == one.diff_id
    assert blob[4:8] == b"\0\0\0\0", "no time in the gzip header"


def test_entries_are_sorted_parents_first_with_one_mtime_and_numeric_owners(tmp_path: Path) -> None:
    layer = _layer(tmp_path, "one", reverse=True, mtime=1_700_000_000)
    raw = gzip.decompress((tmp_path / "one" / "blobs" / layer.blob.hex).read_bytes())
    with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
        members = archive.getmembers()
    assert [m.name for m in members] == [
        "etc",
        "etc/a.conf",
        "etc/b.conf",
        "home",
        "home/user",
        "home/user/.keep",
        "usr",
        "usr/bin",
        "usr/bin/link",
        "usr/bin/tool",
    ]
    assert {m.mtime for m in members} == {EPOCH}
    owners = {m.name: (m.uid, m.gid, m.uname, m.gname) for m in members}
    assert owners["home/user"] == (65532, 65532, "", "")
    assert {v for k, v in owners.items() if k != "home/user"} == {(0, 0, "", "")}
    by_name = {m.name: m for m in members}
    links = {name: (m.type, m.linkname) for name, m in by_name.items() if m.linkname}
    assert links == {
        "etc/b.conf": (tarfile.LNKTYPE, "etc/a.conf"),
        "usr/bin/link": (tarfile.SYMTYPE, "tool"),
    }
    assert by_name["usr/bin/tool"].mode == 0o755
    assert by_name["home/user/.keep"].mode == 0o600


def _layout(tmp_path: Path, name: str) -> Path:
    layout = tmp_path / name / "oci"
    tree = _tree(tmp_path / name / "tree", reverse=name == "two", mtime=1)
    layer = oci.write_layer(
        tree, layout / "blobs" / "sha256", epoch=EPOCH, owners={}, created_by="x"
    )
    config = oci.ImageConfig(
        entrypoint=["/bin/x"], user="65532:65532", env=["A=b"], exposed_ports=["1/tcp"], labels={}
    )
    oci.write_image(
        layout, layers=[layer], config=config, epoch=EPOCH, ref_name="1", image_name="x:1"
    )
    oci.write_archive(layout, tmp_path / name / "x.tar", repo_tag="x:1", epoch=EPOCH)
    return tmp_path / name


def test_the_layout_and_the_tarball_are_reproducible_and_name_their_blobs(tmp_path: Path) -> None:
    one, two = _layout(tmp_path, "one"), _layout(tmp_path, "two")
    assert (one / "x.tar").read_bytes() == (two / "x.tar").read_bytes()
    index = json.loads((one / "oci" / "index.json").read_bytes())
    (entry,) = index["manifests"]
    assert entry["annotations"]["org.opencontainers.image.ref.name"] == "1"
    with tarfile.open(one / "x.tar") as archive:
        names = archive.getnames()
        docker = json.loads(archive.extractfile("manifest.json").read())  # type: ignore[union-attr]
    (image,) = docker
    assert image["RepoTags"] == ["x:1"]
    assert {image["Config"], *image["Layers"]} <= set(names)
    assert {"oci-layout", "index.json"} <= set(names)
    config = json.loads((one / "oci" / image["Config"]).read_bytes())
    assert config["created"] == "1980-01-01T00:00:00Z"
    assert config["config"]["User"] == "65532:65532"
