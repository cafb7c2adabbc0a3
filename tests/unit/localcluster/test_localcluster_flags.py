"""Command lines and files of the local control plane (pure builders)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
import yaml
from kubernetes_asyncio import client, config

from kubesched.localcluster import flags
from kubesched.localcluster.pki import Pki, write_pki


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return write_pki(tmp_path / "pki")


def test_etcd_listens_on_loopback_without_fsync(tmp_path: Path) -> None:
    args = flags.etcd_args(data_dir=tmp_path, client_port=1111, peer_port=2222)

    assert "--listen-client-urls=http://127.0.0.1:1111" in args
    assert "--advertise-client-urls=http://127.0.0.1:1111" in args
    assert "--listen-peer-urls=http://127.0.0.1:2222" in args
    assert "--unsafe-no-fsync" in args
    assert f"--data-dir={tmp_path}" in args


def test_apiserver_flags_work_without_controller_manager(pki: Pki, tmp_path: Path) -> None:
    args = flags.apiserver_args(
        pki=pki, token_file=tmp_path / "t.csv", port=6443, etcd_url="http://e"
    )

    assert "--bind-address=127.0.0.1" in args
    assert "--secure-port=6443" in args
    assert "--authorization-mode=Node,RBAC" in args
    assert "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition" in args
    assert "--endpoint-reconciler-type=none" in args
    assert "--service-account-issuer=https://kubernetes.default.svc.cluster.local" in args
    assert f"--service-account-signing-key-file={pki.sa_private_key}" in args
    assert f"--token-auth-file={tmp_path / 't.csv'}" in args


def test_extra_apiserver_args_override_defaults_and_append(pki: Pki, tmp_path: Path) -> None:
    extra = ["--etcd-compaction-interval=10s", "--endpoint-reconciler-type=lease", "--profiling"]

    args = flags.apiserver_args(pki=pki, token_file=tmp_path, port=1, etcd_url="x", extra=extra)

    assert "--endpoint-reconciler-type=lease" in args
    assert "--endpoint-reconciler-type=none" not in args
    assert args[-2:] == ["--etcd-compaction-interval=10s", "--profiling"]


def test_extra_args_must_be_flags() -> None:
    with pytest.raises(ValueError, match="--name=value"):
        flags.merge_flags({}, ["etcd-compaction-interval=10s"])


def test_token_file_has_admin_in_system_masters_and_component_users() -> None:
    tokens = flags.Tokens(admin="a", scheduler="s", controller_manager="c", kwok="k")
    lines = flags.token_file(tokens).splitlines()

    assert lines == [
        'a,kubesched-admin,kubesched-admin,"system:masters"',
        "s,system:kube-scheduler,system:kube-scheduler",
        "c,system:kube-controller-manager,system:kube-controller-manager",
        'k,kwok-controller,kwok-controller,"system:masters"',
    ]


def test_new_tokens_are_distinct_and_long() -> None:
    tokens = flags.Tokens.new()
    values = [tokens.admin, tokens.scheduler, tokens.controller_manager, tokens.kwok]

    assert len(set(values)) == 4
    assert all(len(value) >= 40 for value in values)


def test_kubeconfig_embeds_ca_and_token(pki: Pki) -> None:
    spec = flags.KubeconfigSpec(
        server="https://127.0.0.1:1", ca_file=pki.ca_cert, token="t", user="u"
    )

    loaded = yaml.safe_load(flags.kubeconfig(spec))

    cluster = loaded["clusters"][0]["cluster"]
    assert cluster["server"] == "https://127.0.0.1:1"
    assert base64.b64decode(cluster["certificate-authority-data"]) == pki.ca_cert.read_bytes()
    assert loaded["users"][0]["user"] == {"token": "t"}
    assert loaded["current-context"] == loaded["contexts"][0]["name"]


async def test_kubeconfig_loads_in_the_python_client(pki: Pki, tmp_path: Path) -> None:
    spec = flags.KubeconfigSpec(
        server="https://127.0.0.1:1", ca_file=pki.ca_cert, token="t", user="u"
    )
    path = tmp_path / "kubeconfig"
    path.write_text(flags.kubeconfig(spec))
    configuration = client.Configuration()

    await config.load_kube_config(config_file=str(path), client_configuration=configuration)

    assert configuration.host == "https://127.0.0.1:1"
    assert configuration.api_key["BearerToken"].endswith("t")


def test_scheduler_config_uses_the_default_lease(tmp_path: Path) -> None:
    loaded = yaml.safe_load(flags.scheduler_config(kubeconfig_path=tmp_path / "k"))

    assert loaded["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert loaded["leaderElection"] == {
        "leaderElect": True,
        "resourceNamespace": "kube-system",
        "resourceName": "kube-scheduler",
    }
    assert loaded["profiles"] == [{"schedulerName": "default-scheduler"}]


def test_scheduler_serves_on_loopback_and_takes_extra_flags(tmp_path: Path) -> None:
    args = flags.scheduler_args(
        config_file=tmp_path / "c",
        kubeconfig_path=tmp_path / "k",
        port=10259,
        cert_dir=tmp_path,
        extra=["--v=4"],
    )

    assert "--bind-address=127.0.0.1" in args
    assert "--secure-port=10259" in args
    assert "--v=4" in args
    assert "--v=2" not in args
