"""The files the builder writes into the root filesystem itself: the non-root user, the dpkg
database that scanners read, the virtualenv's skeleton; and what it prunes from the packages."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

UID = GID = 65532
USER = "nonroot"
HOME = f"home/{USER}"

PASSWD = f"root:x:0:0:root:/root:/sbin/nologin\n{USER}:x:{UID}:{GID}:{USER}:/{HOME}:/sbin/nologin\n"
GROUP = f"root:x:0:\n{USER}:x:{GID}:\n"
# Without it glibc asks DNS before /etc/hosts (which Kubernetes mounts).
NSSWITCH = "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\n"

# Documentation nobody reads in a container; the copyright files stay (licence compliance).
PRUNED = ("usr/share/man", "usr/share/info", "usr/share/lintian", "usr/share/bug")
DOC = "usr/share/doc"


def write_identity(root: Path) -> dict[str, tuple[int, int]]:
    """/etc/passwd, /etc/group, /etc/nsswitch.conf and the user's home; the owners that differ
    from root (for the layer)."""
    etc = root / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    (etc / "passwd").write_text(PASSWD)
    (etc / "group").write_text(GROUP)
    (etc / "nsswitch.conf").write_text(NSSWITCH)
    home = root / HOME
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o700)
    return {HOME: (UID, GID)}


def prune(root: Path) -> None:
    for relative in PRUNED:
        shutil.rmtree(root / relative, ignore_errors=True)
    doc = root / DOC
    if doc.is_dir():
        for path in sorted(doc.rglob("*"), reverse=True):  # children before their folder
            if path.is_symlink():
                if not path.is_dir() and path.name != "copyright":
                    path.unlink()  # a folder link names the package whose copyright applies
            elif path.is_dir():
                if not any(path.iterdir()):
                    path.rmdir()
            elif path.name != "copyright":
                path.unlink()


def write_dpkg_status(root: Path, controls: Mapping[str, str]) -> None:
    """/var/lib/dpkg/status listing every package as installed, so that vulnerability scanners
    (trivy, grype, syft) see the image's Debian packages and versions."""
    stanzas = []
    for name in sorted(controls):
        lines = controls[name].splitlines()
        stanzas.append("\n".join([lines[0], "Status: install ok installed", *lines[1:]]))
    status = root / "var" / "lib" / "dpkg" / "status"
    status.parent.mkdir(parents=True, exist_ok=True)
    status.write_text("\n\n".join(stanzas) + "\n")


def write_venv(root: Path, *, prefix: str, python: str, version: str) -> None:
    """What `python -m venv --without-pip {prefix}` makes (the Dockerfile's first step), for
    the interpreter `python` (e.g. /usr/bin/python3.11) of version `version`."""
    venv = root / prefix.lstrip("/")
    short = ".".join(version.split(".")[:2])
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    (venv / "include").mkdir(exist_ok=True)
    (venv / "lib" / f"python{short}" / "site-packages").mkdir(parents=True, exist_ok=True)
    (venv / "lib64").symlink_to("lib")
    (venv / "bin" / "python").symlink_to(python)
    (venv / "bin" / "python3").symlink_to("python")
    (venv / "bin" / f"python{short}").symlink_to("python")
    (venv / "pyvenv.cfg").write_text(
        f"home = {Path(python).parent}\n"
        "include-system-site-packages = false\n"
        f"version = {version}\n"
        f"executable = {python}\n"
        f"command = {python} -m venv --without-pip {prefix}\n"
    )
