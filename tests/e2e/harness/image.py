"""Run an OCI image from its unpacked root filesystem, as a container runtime would, without one.

    config = unpack_image(layout, rootfs)          # layers in order, every digest checked
    sandbox = Sandbox(rootfs, config, mounts=[Mount(host_dir, "/etc/kubesched")])
    subprocess.run(sandbox.argv(["/opt/kubesched/bin/python", "-c", "..."]), env=sandbox.env)

The process gets a mount namespace of its own (`unshare --mount`), in which the root filesystem
is bind-mounted read-only (a Deployment's `readOnlyRootFilesystem`), the mounts are added
(read-only unless asked), /proc and a few /dev nodes too; then `unshare --root` changes its root
to it, clears its supplementary groups and sets the image's uid and gid, and execs the command.
`setpriv --reuid --regid --clear-groups` cannot do that last step: it must come after the
chroot (which needs CAP_SYS_CHROOT, gone once the uid is not 0) and the image has no setpriv
to run. The network is the host's: the process serves and connects on 127.0.0.1 only.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shlex
import shutil
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from kubesched.localcluster import LocalCluster

DEV_NODES = ("null", "zero", "random", "urandom")
WHITEOUT = ".wh."
OPAQUE = ".wh..wh..opq"


def _blob(layout: Path, digest: str) -> bytes:
    data = (layout / "blobs" / "sha256" / digest.removeprefix("sha256:")).read_bytes()
    assert f"sha256:{hashlib.sha256(data).hexdigest()}" == digest, f"blob {digest} is corrupt"
    return data


def unpack_image(layout: Path, into: Path) -> dict[str, Any]:
    """Apply the layers of the layout's (only) image to `into`, in order, with OCI whiteouts;
    check every blob's digest and every layer's diff_id. Returns the image config."""
    index = json.loads((layout / "index.json").read_bytes())
    (descriptor,) = index["manifests"]
    manifest = json.loads(_blob(layout, descriptor["digest"]))
    config: dict[str, Any] = json.loads(_blob(layout, manifest["config"]["digest"]))
    diff_ids = config["rootfs"]["diff_ids"]
    into.mkdir(parents=True, exist_ok=True)
    for layer, diff_id in zip(manifest["layers"], diff_ids, strict=True):
        raw = gzip.decompress(_blob(layout, layer["digest"]))
        assert f"sha256:{hashlib.sha256(raw).hexdigest()}" == diff_id, f"{diff_id} differs"
        with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
            for member in archive:
                _apply(archive, member, into)
    return config


def _apply(archive: tarfile.TarFile, member: tarfile.TarInfo, into: Path) -> None:
    name = PurePosixPath(member.name)
    assert not name.is_absolute(), f"absolute path {member.name}"
    assert ".." not in name.parts, f"path {member.name} leaves the root"
    for depth in range(1, len(name.parts)):
        parent = into.joinpath(*name.parts[:depth])
        assert not parent.is_symlink(), f"{member.name} goes through the symlink {parent}"
    target = into / name
    if name.name == OPAQUE:
        for child in target.parent.iterdir():
            _remove(child)
        return
    if name.name.startswith(WHITEOUT):
        _remove(target.with_name(name.name.removeprefix(WHITEOUT)))
        return
    if target.is_symlink() or (target.exists() and not (target.is_dir() and member.isdir())):
        _remove(target)
    archive.extract(member, into, numeric_owner=True, filter="fully_trusted")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


@dataclass(frozen=True)
class Mount:
    """A folder of this machine mounted into the root filesystem."""

    source: Path
    target: str
    """Absolute path inside the root filesystem."""
    writable: bool = False


class Sandbox:
    """The unpacked image `rootfs` with the image `config`'s user and environment."""

    def __init__(self, rootfs: Path, config: dict[str, Any], *, mounts: Sequence[Mount]) -> None:
        assert os.geteuid() == 0, (
            "running an image needs root (a mount namespace, a change of root): run as root"
        )
        self.rootfs = rootfs
        self.config = config["config"]
        self.mounts = list(mounts)
        uid, _, gid = self.config["User"].partition(":")
        self.uid, self.gid = int(uid), int(gid)
        self._tools = {name: _tool(name) for name in ("unshare", "mount", "sh")}
        self._make_mountpoints()

    @property
    def entrypoint(self) -> list[str]:
        return list(self.config["Entrypoint"])

    @property
    def env(self) -> dict[str, str]:
        """The image's environment, and HOME from its /etc/passwd (as runc sets it)."""
        env = dict(item.split("=", 1) for item in self.config["Env"])
        for line in (self.rootfs / "etc" / "passwd").read_text().splitlines():
            fields = line.split(":")
            if fields[2] == str(self.uid):
                env.setdefault("HOME", fields[5])
        return env

    def _make_mountpoints(self) -> None:
        """What a runtime creates before it mounts (the image itself stays as built)."""
        for mount in self.mounts:
            (self.rootfs / mount.target.lstrip("/")).mkdir(parents=True, exist_ok=True)
        for node in DEV_NODES:
            (self.rootfs / "dev" / node).touch()

    def argv(self, command: Sequence[str]) -> list[str]:
        """The command line that runs `command` in the sandbox."""
        root = shlex.quote(str(self.rootfs))
        mount = self._tools["mount"]
        script = ["set -eu", f"{mount} --bind {root} {root}"]
        script.append(f"{mount} -t proc -o nosuid,nodev,noexec proc {root}/proc")
        script += [f"{mount} --bind /dev/{node} {root}/dev/{node}" for node in DEV_NODES]
        for item in self.mounts:
            inside = shlex.quote(str(self.rootfs / item.target.lstrip("/")))
            script.append(f"{mount} --bind {shlex.quote(str(item.source))} {inside}")
            if not item.writable:
                script.append(f"{mount} -o remount,bind,ro {inside}")
        script.append(f"{mount} -o remount,bind,ro {root}")
        unshare = self._tools["unshare"]
        chroot = [unshare, f"--root={self.rootfs}", "--wd=/"]
        chroot += [f"--setgid={self.gid}", f"--setuid={self.uid}", "--", *command]
        script.append("exec " + shlex.join(chroot))
        return [
            unshare,
            "--mount",
            "--propagation=private",
            "--",
            self._tools["sh"],
            "-c",
            "\n".join(script),
        ]


def config_dir(folder: Path, *, inside: str, cluster: LocalCluster, config: dict[str, Any]) -> Path:
    """What a Deployment mounts at `inside` (/etc/kubesched): the scheduler's configuration
    `config.yaml`, and here a `kubeconfig` for the local control plane with its CA (no
    ServiceAccount outside a pod); readable by the image's user."""
    folder.mkdir()
    shutil.copyfile(cluster.ca_file, folder / "ca.crt")
    kubeconfig = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "local",
                "cluster": {"server": cluster.server, "certificate-authority": f"{inside}/ca.crt"},
            }
        ],
        "users": [{"name": "admin", "user": {"token": cluster.admin_token}}],
        "contexts": [{"name": "local", "context": {"cluster": "local", "user": "admin"}}],
        "current-context": "local",
    }
    (folder / "kubeconfig").write_text(yaml.safe_dump(kubeconfig))
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def _tool(name: str) -> str:
    path = shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
    assert path, f"{name} is needed to run the image (util-linux)"
    return path
