"""A plugin shipped in the image, as the README and docs/writing-plugins.md say: `make image
IMAGE_PLUGINS=examples/prefer_label/prefer_label.py` (run here as written, its output sent to a
temporary folder) is the plain image plus one layer with the module on PYTHONPATH; kubesched
started from its unpacked root filesystem with `--plugin-module=prefer_label` loads the example
plugin and places a pod with it in the profile.

The plain image comes from the cache `make image` and tests/e2e/test_image.py share (about a
minute when its inputs changed); the plugin layer on top takes about 5 s.
"""

from __future__ import annotations

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
from kubesched_image.build import build
from kubesched_image.project import Project
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.image import Mount, Sandbox, config_dir, unpack_image
from tests.e2e.harness.kubesched import KubeschedProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "make image IMAGE_PLUGINS=examples/prefer_label/prefer_label.py"
"""The README's command (tests/e2e/test_readme_commands.py names this file for it)."""
SCHEDULER = "plugin-image-scheduler"
CONFIG_DIR = "/etc/kubesched"
CERT_DIR = "/var/lib/kubesched/serving-certs"


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's command, with the output in a temporary folder and this test's virtualenv
    (already installed: `-o` keeps make from reinstalling it)."""
    assert COMMAND in " ".join((ROOT / "README.md").read_text().split())
    out = tmp_path_factory.mktemp("plugin-image")
    venv = Path(sys.prefix)
    argv = [*COMMAND.split(), f"IMAGE_OUT={out}", f"BIN={venv}/bin", "-o", ".venv/.installed"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "\nkubesched:0.1.0-plugins sha256:" in done.stdout, done.stdout
    assert (out / "kubesched-0.1.0-plugins.tar").is_file()
    return out / "oci"


@pytest.fixture(scope="module")
def unpacked(
    layout: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, dict[str, Any]]]:
    rootfs = tmp_path_factory.mktemp("plugin-image-root") / "rootfs"
    config = unpack_image(layout, rootfs)
    yield rootfs, config
    shutil.rmtree(rootfs, ignore_errors=True)


def test_the_plugin_is_one_layer_on_top_of_the_plain_image(
    layout: Path, unpacked: tuple[Path, dict[str, Any]]
) -> None:
    rootfs, config = unpacked
    layers, _ = oci.read_image(layout)
    plain, plain_config = oci.read_image(build(Project.default()).layout)
    assert layers[:-1] == plain, "the plain image's layers, byte for byte"
    # What the image's Python registered from the module while the layer was built.
    assert layers[-1].created_by == f"{spec.PLUGINS_DIR}: prefer_label (PreferNodeLabel)"
    assert config["config"]["Env"] == [*plain_config["config"]["Env"], spec.PLUGINS_ENV]
    for key in ("Entrypoint", "User", "ExposedPorts", "Labels", "WorkingDir"):
        assert config["config"][key] == plain_config["config"][key]
    plugins = rootfs / spec.PLUGINS_DIR.lstrip("/")
    assert sorted(p.relative_to(plugins).as_posix() for p in plugins.rglob("*")) == [
        "__pycache__",
        "__pycache__/prefer_label.cpython-311.pyc",
        "prefer_label.py",
    ]
    example = ROOT / "examples" / "prefer_label" / "prefer_label.py"
    assert (plugins / "prefer_label.py").read_bytes() == example.read_bytes()


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
                "plugins": {"multiPoint": {"enabled": [{"name": "PreferNodeLabel", "weight": 5}]}},
                "pluginConfig": [
                    {
                        "name": "PreferNodeLabel",
                        "args": {"key": label, "values": ["true"], "required": True},
                    }
                ],
            }
        ],
    }


def _label(namespace: str) -> str:
    return f"plugin-image.kubesched.io/batch-{namespace[-6:]}"


@pytest.fixture
def sandbox(
    unpacked: tuple[Path, dict[str, Any]],
    local_cluster: LocalCluster,
    namespace: str,
    tmp_path: Path,
) -> Sandbox:
    """The image as its Deployment runs it: the configuration read-only, a writable cert dir."""
    rootfs, image_config = unpacked
    certs = tmp_path / "serving-certs"
    certs.mkdir()
    os.chown(certs, 65532, 65532)
    etc = config_dir(
        tmp_path / "etc-kubesched",
        inside=CONFIG_DIR,
        cluster=local_cluster,
        config=_config(namespace, _label(namespace)),
    )
    mounts = [Mount(etc, CONFIG_DIR), Mount(certs, CERT_DIR, writable=True)]
    return Sandbox(rootfs, image_config, mounts=mounts)


def test_kubesched_from_the_image_loads_the_plugin_and_places_a_pod_with_it(
    sandbox: Sandbox,
    local_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
    request: pytest.FixtureRequest,
) -> None:
    port = free_port()
    args = [f"--config={CONFIG_DIR}/config.yaml", "--plugin-module=prefer_label"]
    args += [f"--cert-dir={CERT_DIR}", f"--secure-port={port}", "--bind-address=127.0.0.1"]
    logs = Path(sandbox.mounts[1].source).parent
    proc = KubeschedProcess(
        argv=sandbox.argv([*sandbox.entrypoint, *args]),
        log_path=logs / "kubesched.log",
        port=port,
        env=sandbox.env,
        token=local_cluster.admin_token,
    )
    request.node.kubesched_processes = [proc]
    try:
        proc.wait_ready()
        # Two nodes; only the labelled one passes PreferNodeLabel's filter (`required`).
        api.create(make_node().name(f"plugin-plain-{namespace[-6:]}").obj())
        labelled = make_node().name(f"plugin-labelled-{namespace[-6:]}")
        labelled = labelled.label(_label(namespace), "true")
        api.create(labelled.obj())
        api.create(make_pod().name("p").namespace(namespace).scheduler(SCHEDULER).obj())
        bound = wait_for(
            lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="p is bound"
        )
        assert bound["spec"]["nodeName"] == f"plugin-labelled-{namespace[-6:]}"
        assert proc.get("/readyz") == (200, "ok")
    finally:
        code = proc.stop()
    assert code == 0, proc.tail()
