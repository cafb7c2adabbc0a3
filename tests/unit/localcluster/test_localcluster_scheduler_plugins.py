"""scheduler-plugins as the second oracle: its pinned wrapper module, build commands, CRDs
and the completed scheduler config."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from kubesched.cli import devcluster
from kubesched.localcluster import Binaries, binaries, devstate, gobuild, paths
from kubesched.localcluster import scheduler_plugins as splugins
from kubesched.localcluster.errors import LocalClusterError


def test_the_module_pins_scheduler_plugins_with_its_replace_block() -> None:
    module = gobuild.scheduler_plugins_module()
    go_mod = (module.directory / "go.mod").read_text()

    assert module.version == "v0.35.4-devel"
    assert module.cache_name == "scheduler-plugins-v0.35.4-devel"
    assert module.packages == {
        "scheduler-plugins-scheduler": "sigs.k8s.io/scheduler-plugins/cmd/scheduler",
        "scheduler-plugins-controller": "sigs.k8s.io/scheduler-plugins/cmd/controller",
    }
    assert "k8s.io/kubernetes => k8s.io/kubernetes v1.35.4" in go_mod
    stamp = "gitVersion=v1.35.4+scheduler-plugins.v0.35.4-devel"
    assert f"-X k8s.io/component-base/version.{stamp}" in module.ldflags


def test_renamed_binaries_are_built_one_command_each(tmp_path: Path) -> None:
    module = gobuild.scheduler_plugins_module()
    names = list(module.packages)

    groups = gobuild.build_groups(module, names)
    argvs = [
        gobuild.build_argv(go=Path("go"), module=module, names=g, outdir=tmp_path) for g in groups
    ]

    assert groups == [[name] for name in names]
    assert [argv[argv.index("-o") + 1] for argv in argvs] == [str(tmp_path / n) for n in names]


def test_binaries_named_after_their_package_still_build_together() -> None:
    module = gobuild.k8s_module()

    assert gobuild.build_groups(module, ["kube-scheduler", "kubectl"]) == [
        ["kube-scheduler", "kubectl"]
    ]
    assert gobuild.build_groups(gobuild.etcd_module(), ["etcd"]) == [["etcd"]]


def test_the_pinned_crds_are_podgroup_and_elasticquota_of_that_version() -> None:
    docs = splugins.crd_documents()

    assert sorted(doc["metadata"]["name"] for doc in docs) == sorted(splugins.CRD_NAMES)
    assert all(doc["spec"]["group"] == "scheduling.x-k8s.io" for doc in docs)
    for path in splugins.crd_paths():
        assert "sigs.k8s.io/scheduler-plugins@v0.35.4-devel" in path.read_text().splitlines()[0]


def test_the_config_gets_the_kubeconfig_and_its_own_lease(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"

    doc = yaml.safe_load(splugins.scheduler_config(None, kubeconfig_path=kubeconfig))

    assert doc["clientConnection"]["kubeconfig"] == str(kubeconfig)
    assert doc["leaderElection"] == {
        "leaderElect": True,
        "resourceNamespace": "kube-system",
        "resourceName": "scheduler-plugins-scheduler",
    }
    assert doc["profiles"][0]["schedulerName"] == "scheduler-plugins-scheduler"


def test_a_given_leader_election_is_kept(tmp_path: Path) -> None:
    text = "profiles: [{schedulerName: sp}]\nleaderElection: {leaderElect: false}\n"

    doc = yaml.safe_load(splugins.scheduler_config(text, kubeconfig_path=tmp_path / "k"))

    assert doc["leaderElection"] == {"leaderElect": False}


@pytest.mark.parametrize(
    ("config", "needle"),
    [
        ("profiles: [{schedulerName: default-scheduler}]", "own schedulerName"),
        ("profiles: [{}]", "own schedulerName"),
        ("kind: [unclosed", "is not YAML"),
        ("- a list", "must be a KubeSchedulerConfiguration"),
    ],
)
def test_bad_configs_are_refused_with_one_line(tmp_path: Path, config: str, needle: str) -> None:
    with pytest.raises(LocalClusterError) as caught:
        splugins.scheduler_config(config, kubeconfig_path=tmp_path / "k")

    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)


def test_override_folders_provide_both_binaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in gobuild.scheduler_plugins_module().packages:
        path = tmp_path / name
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
    monkeypatch.setenv("KUBESCHED_K8S_BIN", str(tmp_path))

    found = binaries.cached_scheduler_plugins()

    assert found is not None
    assert found.scheduler == tmp_path / "scheduler-plugins-scheduler"
    assert found.controller == tmp_path / "scheduler-plugins-controller"
    assert os.access(found.scheduler, os.X_OK)


def test_controller_launch_binds_loopback_ports(tmp_path: Path) -> None:
    argv, _ = splugins.controller_launch(tmp_path / "controller")()

    assert argv[0] == str(tmp_path / "controller")
    assert [a.split("=")[1].split(":")[0] for a in argv[1:]] == ["127.0.0.1", "127.0.0.1"]


def test_dev_cluster_up_starts_scheduler_plugins_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    started: list[object] = []
    monkeypatch.setattr(devcluster, "LocalCluster", _Cluster)
    monkeypatch.setattr(devcluster, "_start_scheduler_plugins", started.append)
    monkeypatch.setattr(devstate, "save", lambda _cluster: None)

    assert devcluster.main(["up"]) == 0
    assert started == []
    assert devcluster.main(["up", "--scheduler-plugins"]) == 0
    assert len(started) == 1


def test_dev_cluster_build_lists_scheduler_plugins_binaries(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    names = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"]
    found = Binaries(**{n.replace("-", "_"): tmp_path / n for n in [*names, "kwok"]})
    plugins = binaries.SchedulerPlugins(
        scheduler=tmp_path / "s", controller=tmp_path / "c", version="v0.35.4-devel"
    )
    monkeypatch.setattr(devcluster, "ensure_binaries", lambda: found)
    monkeypatch.setattr(devcluster, "ensure_scheduler_plugins", lambda: plugins)
    monkeypatch.setattr(Binaries, "versions", lambda self: dict.fromkeys(self.as_dict(), "v1"))

    assert devcluster.main(["build", "--scheduler-plugins"]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert lines[-2:] == [
        f"scheduler-plugins-scheduler   {tmp_path}/s  (v0.35.4-devel)",
        f"scheduler-plugins-controller  {tmp_path}/c  (v0.35.4-devel)",
    ]


class _Cluster:
    """A LocalCluster stand-in: starts nothing."""

    kubeconfig_path = Path("/x/kubeconfig")
    server = "https://127.0.0.1:1"
    logs_dir = Path("/x/logs")

    def __init__(self, **options: object) -> None:
        self.options = options

    def start(self) -> None:
        """Nothing to start."""

    def start_default_scheduler(self) -> None:
        """Nothing to start."""

    def stop(self) -> None:
        """Nothing to stop."""
