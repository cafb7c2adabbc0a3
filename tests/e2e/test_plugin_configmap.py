"""Plugins from a ConfigMap, as docs/writing-plugins.md says: its three commands (`kubectl create
configmap` from the example plugin, `kubesched manifests ... | kubectl apply -f -`, `kubectl
patch deployment` with its `plugins-patch.yaml`), run as written on the local control plane
in a namespace of this test's own; then the plain image, unpacked, runs what the patched
Deployment says: the ConfigMap's files laid out as the kubelet lays out a configMap volume
(`..data` and symlinks), mounted read-only at the volume's mountPath, the container's
PYTHONPATH and `--plugin-module`. PreferNodeLabel, loaded from that folder, places a pod.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from kubesched_image.build import build
from kubesched_image.project import Project
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.image import Mount, Sandbox, config_dir, unpack_image
from tests.e2e.harness.kubesched import KubeschedProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "writing-plugins.md"
SECTION = "### Plugins from a ConfigMap"
DOC_NAMESPACE = "kubesched-system"
DEPLOYMENT = "my-custom-scheduler"  # examples/prefer_label/profile.yaml's scheduler name
CONFIG_DIR = "/etc/kubesched"
CERT_DIR = "/var/lib/kubesched/serving-certs"


def _section() -> tuple[list[str], str]:
    """The section's shell commands (continuations joined) and its YAML patch."""
    text = DOC.read_text()
    section = text[text.index(SECTION) :]
    section = section[: section.index("\n## ", 1)] if "\n## " in section else section
    shell = re.search(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    patch = re.search(r"```yaml\n(.*?)```", section, flags=re.DOTALL)
    assert shell, f"{DOC} {SECTION} lost its commands"
    assert patch, f"{DOC} {SECTION} lost its patch"
    commands = [line.strip() for line in shell[1].replace("\\\n", " ").splitlines() if line]
    return commands, patch[1]


def _run(command: str, *, cluster: LocalCluster, cwd: Path) -> None:
    """One command of the section, its pipes included: kubectl is the built one with the
    admin kubeconfig, kubesched this test's."""
    stdin = None
    for part in command.split(" | "):
        words = shlex.split(part)
        env = dict(os.environ)
        while "=" in words[0] and not words[0].startswith("-"):
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        program, args = words[0], words[1:]
        if program == "kubectl":
            assert cluster.binaries is not None
            argv = [str(cluster.binaries.kubectl), f"--kubeconfig={cluster.kubeconfig_path}"]
        else:
            assert program == "kubesched", command
            argv = [str(Path(sys.prefix) / "bin" / "kubesched")]
        done = subprocess.run(
            [*argv, *args],
            input=stdin,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, f"{part}: {done.stderr}"
        stdin = done.stdout


@pytest.fixture(scope="module")
def plain_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The plain image (from the cache `make image` fills), unpacked."""
    rootfs = tmp_path_factory.mktemp("configmap-plugin-root") / "rootfs"
    config = unpack_image(build(Project.default()).layout, rootfs)
    yield rootfs, config
    shutil.rmtree(rootfs, ignore_errors=True)


@pytest.fixture
def deployment(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, tmp_path: Path
) -> Iterator[dict[str, Any]]:
    """The section's commands run in `namespace`; the patched Deployment as the API serves it."""
    commands, patch = _section()
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    (workdir / "examples").symlink_to(ROOT / "examples")
    (workdir / "plugins-patch.yaml").write_text(patch)
    try:
        for command in commands:
            _run(command.replace(DOC_NAMESPACE, namespace), cluster=local_cluster, cwd=workdir)
        yield api.get("Deployment", DEPLOYMENT, namespace=namespace)
    finally:
        for kind in ("ClusterRole", "ClusterRoleBinding"):
            for item in api.list(kind):
                if item["metadata"]["name"].startswith(f"kubesched:{namespace}:"):
                    api.delete(kind, item["metadata"]["name"])


def _configmap_volume(data: dict[str, str], folder: Path) -> Path:
    """A configMap volume as the kubelet writes it: the files in a timestamped folder, `..data`
    pointing at it, one symlink per key through `..data`; read-only for everyone."""
    stamped = folder / "..2026_01_01_00_00_00.000000000"
    stamped.mkdir(parents=True)
    for key, value in data.items():
        (stamped / key).write_text(value)
        (stamped / key).chmod(0o644)
        (folder / key).symlink_to(f"..data/{key}")
    (folder / "..data").symlink_to(stamped.name)
    stamped.chmod(0o755)
    return folder


def _config(namespace: str, label: str) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": f"{CONFIG_DIR}/kubeconfig"},
        "leaderElection": {"leaderElect": True, "resourceNamespace": namespace},
        "profiles": [
            {
                "schedulerName": f"configmap-plugin-{namespace[-6:]}",
                "plugins": {"filter": {"enabled": [{"name": "PreferNodeLabel"}]}},
                "pluginConfig": [
                    {"name": "PreferNodeLabel", "args": {"key": label, "required": True}}
                ],
            }
        ],
    }


def test_the_plain_image_loads_the_plugin_from_the_configmap_and_places_a_pod(
    deployment: dict[str, Any],
    plain_root: tuple[Path, dict[str, Any]],
    local_cluster: LocalCluster,
    api: ApiClient,
    request: pytest.FixtureRequest,
) -> None:
    namespace = deployment["metadata"]["namespace"]
    tmp_path = Path(request.getfixturevalue("tmp_path"))
    pod_spec = deployment["spec"]["template"]["spec"]
    (container,) = [c for c in pod_spec["containers"] if c["name"] == "kubesched"]
    (mount,) = [m for m in container["volumeMounts"] if m["name"] == "plugins"]
    (volume,) = [v for v in pod_spec["volumes"] if v["name"] == "plugins"]
    env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    assert mount["readOnly"] is True
    assert env["PYTHONPATH"] == mount["mountPath"]
    modules = [a for a in container["args"] if a.startswith("--plugin-module=")]
    assert modules == ["--plugin-module=prefer_label"]
    configmap = api.get("ConfigMap", volume["configMap"]["name"], namespace=namespace)
    plugins = _configmap_volume(configmap["data"], tmp_path / "configmap-volume")

    rootfs, image_config = plain_root
    certs = tmp_path / "serving-certs"
    certs.mkdir()
    os.chown(certs, 65532, 65532)
    label = f"configmap-plugin.kubesched.io/ok-{namespace[-6:]}"
    etc = config_dir(
        tmp_path / "etc", inside=CONFIG_DIR, cluster=local_cluster, config=_config(namespace, label)
    )
    mounts = [
        Mount(etc, CONFIG_DIR),
        Mount(certs, CERT_DIR, writable=True),
        Mount(plugins, mount["mountPath"]),
    ]
    sandbox = Sandbox(rootfs, image_config, mounts=mounts)
    port = free_port()
    args = [f"--config={CONFIG_DIR}/config.yaml", *modules, f"--cert-dir={CERT_DIR}"]
    args += [f"--secure-port={port}", "--bind-address=127.0.0.1"]
    proc = KubeschedProcess(
        argv=sandbox.argv([*sandbox.entrypoint, *args]),
        log_path=tmp_path / "kubesched.log",
        port=port,
        env={**sandbox.env, "PYTHONPATH": env["PYTHONPATH"]},
        token=local_cluster.admin_token,
    )
    request.node.kubesched_processes = [proc]
    scheduler = f"configmap-plugin-{namespace[-6:]}"
    try:
        proc.wait_ready()
        api.create(make_node().name(f"cm-plain-{namespace[-6:]}").obj())
        api.create(make_node().name(f"cm-labelled-{namespace[-6:]}").label(label, "x").obj())
        api.create(make_pod().name("p").namespace(namespace).scheduler(scheduler).obj())
        bound = wait_for(
            lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="p is bound"
        )
        assert bound["spec"]["nodeName"] == f"cm-labelled-{namespace[-6:]}"
    finally:
        code = proc.stop()
    assert code == 0, proc.tail()
