"""The image in a real registry, as docs/deploying.md says: `make image-push REGISTRY=host/repo`
(run here as a user types it) pushes the OCI layout, linux/amd64 and linux/arm64 as one image
index, with crane built from go-containerregistry's Go module; the registry is crane's own
(`crane registry serve`) on 127.0.0.1. The image is then pulled by digest and kubesched runs
from the pulled linux/amd64 root filesystem and places a pod; the linux/arm64 image, which
cannot run here, is checked by its structure: its platform, its layers, its Python and every
extension module an aarch64 ELF file.

`make test` runs this file once crane is cached (`make image-registry-test` builds it and runs
it); the arm64 image is built by the first run (about a minute, then cached with the others).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster, ensure_crane
from kubesched.testing import make_node, make_pod
from kubesched_image import spec
from kubesched_image.platforms import ARM64, elf_machine
from kubesched_image.project import Project
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.image import Mount, Sandbox, config_dir, unpack_image
from tests.e2e.harness.kubesched import KubeschedProcess, free_port
from tests.e2e.harness.make_env import run_make

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "make image-push REGISTRY="
"""docs/deploying.md's command, its registry this test's."""
REPOSITORY = "platform/kubesched"
SCHEDULER = "registry-image-scheduler"
CONFIG_DIR = "/etc/kubesched"
CERT_DIR = "/var/lib/kubesched/serving-certs"
SITE = "opt/kubesched/lib/python3.11/site-packages"
VERSION = Project.default().name_and_version()[1]


@pytest.fixture(scope="module")
def crane() -> Path:
    return ensure_crane()


@pytest.fixture(scope="module")
def registry(crane: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`crane registry serve` on 127.0.0.1: host:port, once it answers /v2/."""
    port = free_port()
    log = tmp_path_factory.mktemp("registry") / "registry.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(crane), "registry", "serve", "--address", f"127.0.0.1:{port}"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/", timeout=2) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert server.poll() is None, log.read_text()
                assert time.monotonic() < deadline, (
                    f"the registry never answered: {log.read_text()}"
                )
                time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def pushed(registry: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The documented command's reference by digest (what it printed), and its output folder."""
    assert COMMAND in (ROOT / "docs" / "deploying.md").read_text()
    out = tmp_path_factory.mktemp("pushed-image")
    argv = ["make", "image-push", f"REGISTRY={registry}/{REPOSITORY}", f"IMAGE_OUT={out}"]
    argv += [f"BIN={Path(sys.prefix)}/bin", "-o", ".venv/.installed"]
    done = run_make(argv, timeout=900)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("pushed ")]
    assert len(lines) == 1, done.stdout
    reference = lines[0].removeprefix("pushed ")
    digest = (out / "digest").read_text().strip()
    assert reference == f"{registry}/{REPOSITORY}:{VERSION}@{digest}"
    return reference, out


def _crane(crane: Path, *args: str) -> str:
    done = subprocess.run(
        [str(crane), *args], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_tag_serves_one_index_of_amd64_and_arm64(
    crane: Path, pushed: tuple[str, Path], registry: str
) -> None:
    reference, _ = pushed
    by_digest = reference.replace(f":{VERSION}@", "@")
    tag_digest = _crane(crane, "digest", f"{registry}/{REPOSITORY}:{VERSION}").strip()
    assert by_digest.endswith(f"@{tag_digest}")
    index = json.loads(_crane(crane, "manifest", by_digest))
    assert index["mediaType"] == "application/vnd.oci.image.index.v1+json"
    platforms = [entry["platform"] for entry in index["manifests"]]
    assert platforms == [
        {"architecture": "amd64", "os": "linux"},
        {"architecture": "arm64", "os": "linux", "variant": "v8"},
    ]


def _image(crane: Path, reference: str, platform: str) -> tuple[dict[str, Any], dict[str, Any]]:
    manifest = json.loads(_crane(crane, "manifest", "--platform", platform, reference))
    config = json.loads(_crane(crane, "config", "--platform", platform, reference))
    return manifest, config


def test_the_arm64_image_is_the_amd64_one_built_for_aarch64(
    crane: Path, pushed: tuple[str, Path], tmp_path: Path
) -> None:
    reference, _ = pushed
    amd64, amd64_config = _image(crane, reference, "linux/amd64")
    arm64, arm64_config = _image(crane, reference, "linux/arm64")
    assert (arm64_config["architecture"], arm64_config["os"], arm64_config["variant"]) == (
        "arm64",
        "linux",
        "v8",
    )
    assert arm64_config["config"] == amd64_config["config"]  # entrypoint, user, env, labels
    assert [h["created_by"] for h in arm64_config["history"]] == [
        h["created_by"] for h in amd64_config["history"]
    ]
    # Debian's packages and the wheels differ per architecture; kubesched's own layer (its
    # wheel, bytecode compiled by the same CPython) is the same blob, stored once.
    digests = [[layer["digest"] for layer in m["layers"]] for m in (amd64, arm64)]
    assert len(digests[0]) == len(digests[1]) == 3
    assert digests[0][:2] != digests[1][:2]
    assert digests[0][2] == digests[1][2]

    exported = tmp_path / "arm64.tar"
    _crane(crane, "export", "--platform", "linux/arm64", reference, str(exported))
    machines: dict[str, int | None] = {}
    with tarfile.open(exported) as archive:
        for member in archive:
            wanted = member.name in ("usr/bin/python3.11", f"lib/{ARM64.multiarch}/{ARM64.loader}")
            if member.isreg() and (wanted or member.name.endswith(".so")):
                stream = archive.extractfile(member)
                assert stream is not None
                machines[member.name] = elf_machine(stream.read(64))
    assert machines["usr/bin/python3.11"] == ARM64.elf_machine
    assert machines[f"lib/{ARM64.multiarch}/{ARM64.loader}"] == ARM64.elf_machine
    extensions = {name: machine for name, machine in machines.items() if name.startswith(SITE)}
    assert len(extensions) > 10  # aiohttp, orjson, msgspec, yaml, ...
    assert set(machines.values()) == {ARM64.elf_machine}, "every ELF file is aarch64"


@pytest.fixture(scope="module")
def pulled(
    crane: Path, pushed: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The linux/amd64 image pulled by digest as an OCI layout, unpacked (every digest checked)."""
    reference, _ = pushed
    layout = tmp_path_factory.mktemp("pulled") / "oci"
    _crane(crane, "pull", "--format=oci", "--platform=linux/amd64", reference, str(layout))
    rootfs = layout.parent / "rootfs"
    config = unpack_image(layout, rootfs)
    yield rootfs, config
    shutil.rmtree(rootfs, ignore_errors=True)


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


@pytest.fixture
def sandbox(
    pulled: tuple[Path, dict[str, Any]],
    local_cluster: LocalCluster,
    namespace: str,
    tmp_path: Path,
) -> Sandbox:
    """The pulled image as its Deployment runs it: the configuration read-only, a writable
    cert dir."""
    rootfs, image_config = pulled
    assert image_config["architecture"] == "amd64"
    certs = tmp_path / "serving-certs"
    certs.mkdir()
    os.chown(certs, 65532, 65532)
    etc = config_dir(
        tmp_path / "etc", inside=CONFIG_DIR, cluster=local_cluster, config=_config(namespace)
    )
    mounts = [Mount(etc, CONFIG_DIR), Mount(certs, CERT_DIR, writable=True)]
    return Sandbox(rootfs, image_config, mounts=mounts)


def test_kubesched_from_the_pulled_image_places_a_pod(
    sandbox: Sandbox,
    local_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
    request: pytest.FixtureRequest,
) -> None:
    port = free_port()
    args = [f"--config={CONFIG_DIR}/config.yaml", f"--cert-dir={CERT_DIR}"]
    args += [f"--secure-port={port}", "--bind-address=127.0.0.1"]
    proc = KubeschedProcess(
        argv=sandbox.argv([*sandbox.entrypoint, *args]),
        log_path=sandbox.mounts[1].source.parent / "kubesched.log",
        port=port,
        env=sandbox.env,
        token=local_cluster.admin_token,
    )
    request.node.kubesched_processes = [proc]
    try:
        proc.wait_ready()
        api.create(make_node().name(f"pulled-{namespace[-6:]}").obj())
        api.create(make_pod().name("p").namespace(namespace).scheduler(SCHEDULER).obj())
        bound = wait_for(
            lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="p is bound"
        )
        assert bound["spec"]["nodeName"] == f"pulled-{namespace[-6:]}"
        assert proc.get("/readyz") == (200, "ok")
    finally:
        code = proc.stop()
    assert code == 0, proc.tail()


def test_a_push_the_registry_refuses_ends_in_one_line(pushed: tuple[str, Path]) -> None:
    """The image is built (cached by `pushed`); the registry's address is wrong."""
    closed = f"127.0.0.1:{free_port()}/{REPOSITORY}"
    argv = ["make", "image-push", f"REGISTRY={closed}", f"IMAGE_OUT={pushed[1]}"]
    argv += [f"BIN={Path(sys.prefix)}/bin", "-o", ".venv/.installed"]
    done = run_make(argv, timeout=300)
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if line.startswith("kubesched-image:")]
    assert len(said) == 1, done.stderr
    assert said[0].startswith(f"kubesched-image: crane push to {closed}:{VERSION} failed: ")
    assert said[0].endswith(
        "connection refused: check the registry's address and that it is reachable"
    )
    assert done.stderr.splitlines()[-1].startswith("make: ***")
    assert "Traceback" not in done.stderr


def test_a_plugin_image_is_pushed_for_both_platforms_with_one_plugin_layer(
    crane: Path, pushed: tuple[str, Path], registry: str, tmp_path: Path
) -> None:
    """`make image-push ... IMAGE_PLUGINS=...`: the plugin layer the amd64 build checked is
    pure Python, so the same blob goes on top of the arm64 image too."""
    argv = ["make", "image-push", f"REGISTRY={registry}/{REPOSITORY}", f"IMAGE_OUT={tmp_path}"]
    argv += ["IMAGE_PLUGINS=examples/prefer_label/prefer_label.py"]
    argv += [f"BIN={Path(sys.prefix)}/bin", "-o", ".venv/.installed"]
    done = run_make(argv, timeout=600)
    assert done.returncode == 0, done.stderr
    reference = f"{registry}/{REPOSITORY}:{VERSION}{spec.PLUGINS_TAG_SUFFIX}"
    assert f"pushed {reference}@sha256:" in done.stdout
    plain, _ = pushed
    for platform in ("linux/amd64", "linux/arm64"):
        manifest, config = _image(crane, reference, platform)
        base, base_config = _image(crane, plain, platform)
        assert manifest["layers"][:-1] == base["layers"], platform
        assert config["config"]["Env"] == [*base_config["config"]["Env"], spec.PLUGINS_ENV]
        assert config["history"][-1]["created_by"] == (
            f"{spec.PLUGINS_DIR}: prefer_label (PreferNodeLabel)"
        )
        assert config["architecture"] == base_config["architecture"]
    layers = [_image(crane, reference, p)[0]["layers"][-1] for p in ("linux/amd64", "linux/arm64")]
    assert layers[0] == layers[1]
