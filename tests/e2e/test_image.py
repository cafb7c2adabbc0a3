"""The image `make image` builds runs kubesched: its root filesystem, unpacked from the OCI
layout, read-only, as uid/gid 65532 without supplementary groups, with the image's entrypoint
and environment, places a pod on the local control plane and serves /readyz.

The build is the one `make image` makes (tools/kubesched_image), reused from the cache when
its inputs have not changed (a second or so), else built (about a minute, downloads cached).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.utils import canonicalize_name

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from kubesched_image.build import Result, build
from kubesched_image.lockfiles import read_debian_lock, read_requirement_pins
from kubesched_image.project import Project
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.image import Mount, Sandbox, config_dir, unpack_image
from tests.e2e.harness.kubesched import KubeschedProcess, free_port

SCHEDULER = "image-scheduler"
CONFIG_DIR = "/etc/kubesched"
CERT_DIR = "/var/lib/kubesched/serving-certs"
SITE = "opt/kubesched/lib/python3.11/site-packages"

# What the process may do, asked from inside the sandbox by the image's own Python.
PROBE = """
import errno, json, os, sys
def write(folder):
    path = os.path.join(folder, ".probe")
    try:
        with open(path, "w"):
            pass
    except OSError as error:
        return errno.errorcode[error.errno]
    os.unlink(path)
    return "written"
folders = ["/", "/opt/kubesched", "/tmp", "/home/nonroot", "/etc/kubesched", sys.argv[1]]
print(json.dumps({
    "ids": [os.getuid(), os.geteuid(), os.getgid(), os.getegid()],
    "groups": os.getgroups(),
    "prefix": sys.prefix,
    "python": sys.version_info[:2],
    "writes": {folder: write(folder) for folder in folders},
}))
"""


@pytest.fixture(scope="module")
def image() -> Result:
    return build(Project.default())


@pytest.fixture(scope="module")
def unpacked(
    image: Result, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, dict[str, Any]]]:
    rootfs = tmp_path_factory.mktemp("image") / "rootfs"
    config = unpack_image(image.layout, rootfs)
    yield rootfs, config
    shutil.rmtree(rootfs, ignore_errors=True)


def test_the_root_filesystem_belongs_to_root_but_the_users_home_and_has_no_setuid_files(
    unpacked: tuple[Path, dict[str, Any]],
) -> None:
    rootfs, config = unpacked
    assert config["config"]["User"] == "65532:65532"
    assert config["config"]["Entrypoint"] == ["/opt/kubesched/bin/kubesched"]
    odd = []
    for path in [rootfs, *rootfs.rglob("*")]:
        status = path.lstat()
        name = str(path.relative_to(rootfs))
        owner = (status.st_uid, status.st_gid)
        if owner != (0, 0) and not (name == "home/nonroot" and owner == (65532, 65532)):
            odd.append(f"{name} is owned by {owner}")
        if stat.S_ISREG(status.st_mode) and status.st_mode & 0o6000:
            odd.append(f"{name} is setuid or setgid")
        sticky_dir = stat.S_ISDIR(status.st_mode) and status.st_mode & stat.S_ISVTX
        if not path.is_symlink() and status.st_mode & 0o002 and not sticky_dir:
            odd.append(f"{name} is writable by everyone")
    assert odd == []
    passwd = (rootfs / "etc" / "passwd").read_text()
    assert "nonroot:x:65532:65532:" in passwd
    assert "nonroot:x:65532:" in (rootfs / "etc" / "group").read_text()


def test_the_sbom_lists_every_debian_package_and_python_distribution_in_the_image(
    image: Result, unpacked: tuple[Path, dict[str, Any]]
) -> None:
    rootfs, _ = unpacked
    packages = json.loads(image.sbom.read_text())["packages"]
    listed = {
        (p["name"], p["versionInfo"]) for p in packages if p["SPDXID"].startswith("SPDXRef-deb-")
    }
    status = (rootfs / "var" / "lib" / "dpkg" / "status").read_text().split("\n\n")
    fields = [dict(line.split(": ", 1) for line in s.splitlines() if ": " in line) for s in status]
    assert listed == {(f["Package"], f["Version"]) for f in fields}
    project = Project.default()
    assert listed == {(pin.name, pin.version) for pin in read_debian_lock(project.debian_lock)}

    python = {
        (canonicalize_name(p["name"]), p["versionInfo"])
        for p in packages
        if p["SPDXID"].startswith("SPDXRef-pypi-")
    }
    installed = set()
    for metadata in (rootfs / SITE).glob("*.dist-info/METADATA"):
        head = dict(
            line.split(": ", 1) for line in metadata.read_text().splitlines()[:3] if ": " in line
        )
        installed.add((canonicalize_name(head["Name"]), head["Version"]))
    assert python == installed
    _, version = project.name_and_version()
    assert python == {*read_requirement_pins(project.runtime_lock).items(), ("kubesched", version)}


def _config(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": f"{CONFIG_DIR}/kubeconfig"},
        "leaderElection": {
            "leaderElect": True,
            "resourceNamespace": namespace,
            "resourceName": SCHEDULER,
        },
        "profiles": [{"schedulerName": SCHEDULER}],
    }


@dataclass(frozen=True)
class Run:
    """The sandbox of one test: the image with its mounts, and a folder for logs."""

    sandbox: Sandbox
    certs: Path
    logs: Path


@pytest.fixture
def run(
    unpacked: tuple[Path, dict[str, Any]],
    local_cluster: LocalCluster,
    namespace: str,
    tmp_path: Path,
) -> Run:
    rootfs, config = unpacked
    certs = tmp_path / "serving-certs"
    certs.mkdir()
    os.chown(certs, 65532, 65532)
    certs.chmod(0o700)
    etc = config_dir(
        tmp_path / "etc-kubesched",
        inside=CONFIG_DIR,
        cluster=local_cluster,
        config=_config(namespace),
    )
    mounts = [Mount(etc, CONFIG_DIR), Mount(certs, CERT_DIR, writable=True)]
    return Run(sandbox=Sandbox(rootfs, config, mounts=mounts), certs=certs, logs=tmp_path)


def test_the_image_runs_as_uid_65532_without_groups_on_a_read_only_root(run: Run) -> None:
    probe = subprocess.run(
        run.sandbox.argv(["/opt/kubesched/bin/python", "-c", PROBE, CERT_DIR]),
        env=run.sandbox.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    facts = json.loads(probe.stdout)
    assert facts["ids"] == [65532] * 4
    assert facts["groups"] == []
    assert facts["prefix"] == "/opt/kubesched"
    assert facts["python"] == [3, 11]
    read_only = dict.fromkeys(["/", "/opt/kubesched", "/tmp", "/home/nonroot", CONFIG_DIR], "EROFS")
    assert facts["writes"] == {**read_only, CERT_DIR: "written"}


def _proc_status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def test_kubesched_from_the_image_places_a_pod_and_is_ready(
    run: Run,
    local_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
    request: pytest.FixtureRequest,
) -> None:
    port = free_port()
    args = [f"--config={CONFIG_DIR}/config.yaml", f"--cert-dir={CERT_DIR}"]
    args += [f"--secure-port={port}", "--bind-address=127.0.0.1"]
    proc = KubeschedProcess(
        argv=run.sandbox.argv([*run.sandbox.entrypoint, *args]),
        log_path=run.logs / "kubesched.log",
        port=port,
        env=run.sandbox.env,
        token=local_cluster.admin_token,
    )
    request.node.kubesched_processes = [proc]
    try:
        proc.wait_ready()
        assert Path(f"/proc/{proc.pid}/root").readlink() == run.sandbox.rootfs
        status = _proc_status(proc.pid)
        assert status["Uid"].split() == ["65532"] * 4
        assert status["Gid"].split() == ["65532"] * 4
        assert status["Groups"].strip() == ""
        assert int(status["CapEff"], 16) == 0

        api.create(make_node().name("image-node").obj())
        api.create(make_pod().name("p").namespace(namespace).scheduler(SCHEDULER).obj())
        bound = wait_for(
            lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="p is bound"
        )
        assert bound["spec"]["nodeName"] == "image-node"
        scheduled = wait_for(
            lambda: api.events(namespace, regarding="p", reason="Scheduled"),
            message="a Scheduled event",
        )
        assert scheduled[0].reporting_controller == SCHEDULER
        assert scheduled[0].note == f"Successfully assigned {namespace}/p to image-node"
        assert proc.get("/readyz") == (200, "ok")
        assert (run.certs / "kubesched.crt").is_file(), "its self-signed serving certificate"
    finally:
        code = proc.stop()
    assert code == 0, proc.tail()
