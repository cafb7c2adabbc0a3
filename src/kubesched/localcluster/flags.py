"""Pure builders of the command lines and files of etcd, kube-apiserver and kube-scheduler.

kube-apiserver works without a controller-manager or kubelet (as in kube-scheduler's own
scheduler_perf): the ServiceAccount and TaintNodesByCondition admission plugins are off,
the `kubernetes` endpoints are not reconciled, and Nodes are plain API objects. The same
flags serve when kube-controller-manager and kwok run too: no pod needs a mounted
service-account token (kwok runs no containers), and the node lifecycle controller taints
nodes by their conditions itself.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kubesched.localcluster.pki import Pki

SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local"
SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24"
ADMIN_USER = "kubesched-admin"
SCHEDULER_USER = "system:kube-scheduler"
CONTROLLER_MANAGER_USER = "system:kube-controller-manager"
KWOK_USER = "kwok-controller"


def etcd_args(*, data_dir: Path, client_port: int, peer_port: int) -> list[str]:
    """etcd listening on loopback only, without fsync (data is thrown away)."""
    client = f"http://127.0.0.1:{client_port}"
    peer = f"http://127.0.0.1:{peer_port}"
    return [
        "--name=kubesched",
        f"--data-dir={data_dir}",
        f"--listen-client-urls={client}",
        f"--advertise-client-urls={client}",
        f"--listen-peer-urls={peer}",
        f"--initial-advertise-peer-urls={peer}",
        f"--initial-cluster=kubesched={peer}",
        "--unsafe-no-fsync",
        "--log-level=warn",
    ]


def apiserver_args(
    *, pki: Pki, token_file: Path, port: int, etcd_url: str, extra: Sequence[str] = ()
) -> list[str]:
    """kube-apiserver flags; `extra` (`--name=value`) adds flags or overrides defaults."""
    flags = {
        "--bind-address": "127.0.0.1",
        "--secure-port": str(port),
        "--etcd-servers": etcd_url,
        "--authorization-mode": "Node,RBAC",
        "--token-auth-file": str(token_file),
        "--client-ca-file": str(pki.ca_cert),
        "--tls-cert-file": str(pki.serving_cert),
        "--tls-private-key-file": str(pki.serving_key),
        "--service-account-issuer": SERVICE_ACCOUNT_ISSUER,
        "--service-account-key-file": str(pki.sa_public_key),
        "--service-account-signing-key-file": str(pki.sa_private_key),
        "--disable-admission-plugins": "ServiceAccount,TaintNodesByCondition",
        "--endpoint-reconciler-type": "none",
        "--service-cluster-ip-range": SERVICE_CLUSTER_IP_RANGE,
        "--allow-privileged": "true",
        "--cert-dir": str(pki.ca_cert.parent),
    }
    return merge_flags(flags, extra)


GENERIC_WORKLOAD_GATE = "--feature-gates=GenericWorkload=true"
GENERIC_WORKLOAD_APISERVER_ARGS = (
    GENERIC_WORKLOAD_GATE,
    "--runtime-config=scheduling.k8s.io/v1beta1=true",
    # PodGroupProtection puts a finalizer on every PodGroup that only kube-controller-manager
    # removes: without it, namespaces holding PodGroups would never finish deleting.
    "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,PodGroupProtection",
)
"""kube-apiserver serving `scheduling.k8s.io/v1beta1` PodGroups (kube-scheduler v1.37's
native gang scheduling, the `GenericWorkload` feature gate, beta and off by default)."""


def merge_flags(defaults: dict[str, str], extra: Sequence[str]) -> list[str]:
    """`defaults` as `--name=value`, with each `--name[=value]` of `extra` replacing its
    default or appended in order."""
    merged: dict[str, str | None] = dict(defaults)
    for arg in extra:
        if not arg.startswith("--"):
            raise ValueError(f"extra flag {arg!r} must look like --name=value")
        name, sep, value = arg.partition("=")
        merged[name] = value if sep else None
    return [name if value is None else f"{name}={value}" for name, value in merged.items()]


@dataclass(frozen=True)
class Tokens:
    """The bearer token of each client identity of the local control plane."""

    admin: str
    scheduler: str
    controller_manager: str
    kwok: str

    @classmethod
    def new(cls) -> Tokens:
        """Fresh random tokens."""
        return cls(*(secrets.token_urlsafe(32) for _ in range(4)))


def token_file(tokens: Tokens) -> str:
    """Static token file: an admin in `system:masters`; kube-scheduler's and
    kube-controller-manager's own users, to which the bootstrap RBAC policy grants what they
    need; kwok in `system:masters`, since it plays the kubelet of every node it manages."""
    return (
        f'{tokens.admin},{ADMIN_USER},{ADMIN_USER},"system:masters"\n'
        f"{tokens.scheduler},{SCHEDULER_USER},{SCHEDULER_USER}\n"
        f"{tokens.controller_manager},{CONTROLLER_MANAGER_USER},{CONTROLLER_MANAGER_USER}\n"
        f'{tokens.kwok},{KWOK_USER},{KWOK_USER},"system:masters"\n'
    )


@dataclass(frozen=True)
class KubeconfigSpec:
    """What a token kubeconfig holds."""

    server: str
    ca_file: Path
    token: str
    user: str
    context: str = "kubesched-local"


def kubeconfig(spec: KubeconfigSpec) -> str:
    """A kubeconfig (CA embedded) usable by kubectl and by the Python clients."""
    ca_data = base64.b64encode(spec.ca_file.read_bytes()).decode()
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": spec.context,
                "cluster": {"server": spec.server, "certificate-authority-data": ca_data},
            }
        ],
        "users": [{"name": spec.user, "user": {"token": spec.token}}],
        "contexts": [
            {"name": spec.context, "context": {"cluster": spec.context, "user": spec.user}}
        ],
        "current-context": spec.context,
        "preferences": {},
    }
    return yaml.safe_dump(config, sort_keys=False)


def scheduler_config(
    *,
    kubeconfig_path: Path,
    scheduler_name: str = "default-scheduler",
    lease_name: str = "kube-scheduler",
) -> str:
    """KubeSchedulerConfiguration of the default scheduler: leader election on, with the
    default Lease `kube-system/kube-scheduler`, one profile `default-scheduler` (another
    kube-scheduler beside it: another profile name and Lease)."""
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig_path), "qps": 200, "burst": 400},
        "leaderElection": {
            "leaderElect": True,
            "resourceNamespace": "kube-system",
            "resourceName": lease_name,
        },
        "profiles": [{"schedulerName": scheduler_name}],
    }
    return yaml.safe_dump(config, sort_keys=False)


def scheduler_args(
    *,
    config_file: Path,
    kubeconfig_path: Path,
    port: int,
    cert_dir: Path,
    extra: Sequence[str] = (),
) -> list[str]:
    """kube-scheduler serving /healthz etc. on loopback, delegating auth to the apiserver;
    `extra` adds flags or overrides these defaults (e.g. `--v=4`)."""
    flags = {
        "--config": str(config_file),
        "--authentication-kubeconfig": str(kubeconfig_path),
        "--authorization-kubeconfig": str(kubeconfig_path),
        # No request-header CA to read: callers authenticate by token (TokenReview).
        "--authentication-skip-lookup": "true",
        "--bind-address": "127.0.0.1",
        "--secure-port": str(port),
        "--cert-dir": str(cert_dir),
        "--v": "2",
    }
    return merge_flags(flags, extra)
