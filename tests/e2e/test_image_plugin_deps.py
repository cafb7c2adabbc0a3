"""A plugin with a third-party dependency shipped in the image, as docs/writing-plugins.md says:
`make image IMAGE_PLUGINS=... IMAGE_PLUGIN_REQUIREMENTS=requirements.txt` (run here as typed,
its output in a temporary folder) installs the hash-locked wheel (tabulate) beside kubesched's
pins in the plugin layer; kubesched started from the unpacked root filesystem imports the
plugin, which imports tabulate, and places a pod with it. A requirements file pinning a
distribution kubesched pins at another version is refused in one line naming both pins.

The plain image comes from the cache `make image` and tests/e2e/test_image.py share; the
plugin layer on top takes a few seconds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from kubesched_image import oci, spec
from kubesched_image.lockfiles import read_requirement_hashes, read_requirement_pins
from kubesched_image.project import Project
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.image import Mount, Sandbox, config_dir, unpack_image
from tests.e2e.harness.kubesched import KubeschedProcess, free_port
from tests.e2e.harness.make_env import run_make

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "plugin_deps"
PLUGIN = DATA.relative_to(ROOT) / "label_table.py"
SCHEDULER = "plugin-deps-scheduler"
CONFIG_DIR = "/etc/kubesched"
CERT_DIR = "/var/lib/kubesched/serving-certs"
SITE = "opt/kubesched/lib/python3.11/site-packages"


def _make_image(requirements: str, out: Path) -> subprocess.CompletedProcess[str]:
    argv = ["make", "image", f"IMAGE_PLUGINS={PLUGIN}"]
    argv += [f"IMAGE_PLUGIN_REQUIREMENTS={DATA.relative_to(ROOT) / requirements}"]
    argv += [f"IMAGE_OUT={out}", f"BIN={Path(sys.prefix)}/bin", "-o", ".venv/.installed"]
    return run_make(argv, timeout=600)


def test_a_requirement_clashing_with_kubeschedss_pins_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    done = _make_image("clashing.txt", tmp_path)
    ours = read_requirement_pins(Project.default().runtime_lock)["pyyaml"]
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if not line.startswith("make:")]
    expected = (
        f"kubesched-image: {DATA.relative_to(ROOT) / 'clashing.txt'} pins pyyaml==5.4.1 but "
        f"kubesched pins pyyaml=={ours} (requirements/runtime.lock): pin pyyaml=={ours} in it "
        "(or leave it out) so both fit in the one virtualenv"
    )
    assert lines == [expected]
    assert not (tmp_path / "oci").exists()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plugin-deps-image")
    done = _make_image("requirements.txt", out)
    assert done.returncode == 0, done.stderr
    assert "\nkubesched:0.1.0-plugins sha256:" in done.stdout, done.stdout
    return out


@pytest.fixture(scope="module")
def unpacked(
    built: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, dict[str, Any]]]:
    rootfs = tmp_path_factory.mktemp("plugin-deps-root") / "rootfs"
    config = unpack_image(built / "oci", rootfs)
    yield rootfs, config
    shutil.rmtree(rootfs, ignore_errors=True)


def test_the_dependency_is_in_the_plugin_layer_beside_kubeschedss_pins(
    built: Path, unpacked: tuple[Path, dict[str, Any]]
) -> None:
    rootfs, config = unpacked
    layers, _ = oci.read_image(built / "oci")
    assert layers[-1].created_by == (
        f"{spec.PLUGINS_DIR}: label_table (LabelTable); with tabulate 0.9.0"
    )
    assert config["config"]["Env"][-1] == spec.PLUGINS_ENV
    site = rootfs / SITE
    assert (site / "tabulate" / "__init__.py").is_file()
    assert (site / "tabulate" / "__pycache__" / "__init__.cpython-311.pyc").is_file()
    assert (site / "tabulate-0.9.0.dist-info" / "INSTALLER").read_text() == "kubesched-image\n"
    assert (site / "kubesched").is_dir()  # kubesched's own layer, untouched
    locked = read_requirement_hashes(DATA / "requirements.txt")["tabulate"]
    document = json.loads((built / "kubesched-0.1.0-plugins.spdx.json").read_text())
    listed = {
        p["name"]: p["checksums"][0]["checksumValue"]
        for p in document["packages"]
        if p["SPDXID"] == "SPDXRef-pypi-tabulate"
    }
    assert listed.keys() == {"tabulate"}
    assert listed["tabulate"] in locked


def _config(namespace: str, label: str) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": f"{CONFIG_DIR}/kubeconfig"},
        "leaderElection": {
            "leaderElect": True,
            "resourceNamespace": namespace,
            "resourceName": SCHEDULER,
        },
        "profiles": [
            {
                "schedulerName": SCHEDULER,
                "plugins": {"filter": {"enabled": [{"name": "LabelTable"}]}},
                "pluginConfig": [{"name": "LabelTable", "args": {"key": label}}],
            }
        ],
    }


@pytest.fixture
def sandbox(
    unpacked: tuple[Path, dict[str, Any]],
    local_cluster: LocalCluster,
    namespace: str,
    tmp_path: Path,
) -> Sandbox:
    rootfs, image_config = unpacked
    certs = tmp_path / "serving-certs"
    certs.mkdir()
    os.chown(certs, 65532, 65532)
    label = f"plugin-deps.kubesched.io/ok-{namespace[-6:]}"
    etc = config_dir(
        tmp_path / "etc", inside=CONFIG_DIR, cluster=local_cluster, config=_config(namespace, label)
    )
    mounts = [Mount(etc, CONFIG_DIR), Mount(certs, CERT_DIR, writable=True)]
    return Sandbox(rootfs, image_config, mounts=mounts)


def test_kubesched_from_the_image_runs_the_plugin_with_its_dependency(
    sandbox: Sandbox,
    local_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
    request: pytest.FixtureRequest,
) -> None:
    port = free_port()
    args = [f"--config={CONFIG_DIR}/config.yaml", "--plugin-module=label_table"]
    args += [f"--cert-dir={CERT_DIR}", f"--secure-port={port}", "--bind-address=127.0.0.1"]
    proc = KubeschedProcess(
        argv=sandbox.argv([*sandbox.entrypoint, *args]),
        log_path=sandbox.mounts[1].source.parent / "kubesched.log",
        port=port,
        env=sandbox.env,
        token=local_cluster.admin_token,
    )
    request.node.kubesched_processes = [proc]
    label = f"plugin-deps.kubesched.io/ok-{namespace[-6:]}"
    node = f"plugin-deps-{namespace[-6:]}"
    try:
        proc.wait_ready()
        api.create(make_node().name(node).obj())
        api.create(make_pod().name("p").namespace(namespace).scheduler(SCHEDULER).obj())
        # The rejection tabulate formatted inside the image: the label and tabulate's version.
        expected = f"0/1 nodes are available: 1 {label} 0.9.0."
        wait_for(
            lambda: api.events(namespace, regarding="p", reason="FailedScheduling"),
            until=lambda events: any(e.note.startswith(expected) for e in events),
            message=f"a FailedScheduling event saying {expected!r}",
        )
        api.patch("Node", node, {"metadata": {"labels": {label: "yes"}}})
        bound = wait_for(
            lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="p is bound"
        )
        assert bound["spec"]["nodeName"] == node
    finally:
        code = proc.stop()
    assert code == 0, proc.tail()
