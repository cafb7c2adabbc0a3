"""How `LocalCluster` launches etcd, kube-apiserver and kube-scheduler: per attempt, ports,
argv and a readiness check (a `kubesched.localcluster.launch.Launch`).

`Addresses` remembers where each component listens, so that kube-apiserver can be
restarted on the same port against the same etcd and its clients reconnect unchanged.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kubesched.localcluster import flags
from kubesched.localcluster.binaries import Binaries
from kubesched.localcluster.launch import Launch, log_has
from kubesched.localcluster.pki import Pki, write_pki
from kubesched.localcluster.probe import Endpoint, free_ports, get


@dataclass
class Addresses:
    """Where the control plane listens; filled in as its components start."""

    etcd_url: str = ""
    apiserver_port: int = 0
    scheduler_port: int | None = None

    @property
    def server(self) -> str:
        """kube-apiserver's base URL."""
        return f"https://127.0.0.1:{self.apiserver_port}"


def etcd_launch(binaries: Binaries, *, data_dir: Path, addresses: Addresses) -> Launch:
    """A fresh single-member etcd on two new ports; its data dir is wiped first (a retry
    must not reuse a half-made member)."""

    def launch() -> tuple[list[str], Callable[[], bool]]:
        client, peer = free_ports(2)
        url = addresses.etcd_url = f"http://127.0.0.1:{client}"
        shutil.rmtree(data_dir, ignore_errors=True)
        argv = [
            str(binaries.etcd),
            *flags.etcd_args(data_dir=data_dir, client_port=client, peer_port=peer),
        ]
        return argv, lambda: '"health":"true"' in get(Endpoint(url), "/health")[1]

    return launch


@dataclass(frozen=True)
class ApiserverFiles:
    """What kube-apiserver reads (certificates, keys, the static token file) and the
    admin token its readiness is probed with."""

    pki: Pki
    token_file: Path
    admin_token: str


def write_apiserver_files(pki_dir: Path, *, tokens: flags.Tokens) -> ApiserverFiles:
    """Write a new PKI and the token file (every client identity) into `pki_dir`."""
    pki = write_pki(pki_dir)
    token_file = pki_dir / "tokens.csv"
    token_file.write_text(flags.token_file(tokens))
    token_file.chmod(0o600)
    return ApiserverFiles(pki=pki, token_file=token_file, admin_token=tokens.admin)


def apiserver_launch(
    binaries: Binaries,
    *,
    files: ApiserverFiles,
    addresses: Addresses,
    extra: Sequence[str],
    restart: bool = False,
) -> Launch:
    """kube-apiserver against `addresses.etcd_url`, on a new free port for each attempt,
    or, on a `restart`, on the port it had before."""

    def launch() -> tuple[list[str], Callable[[], bool]]:
        if not restart:
            addresses.apiserver_port = free_ports(1)[0]
        args = flags.apiserver_args(
            pki=files.pki,
            token_file=files.token_file,
            port=addresses.apiserver_port,
            etcd_url=addresses.etcd_url,
            extra=extra,
        )
        endpoint = Endpoint(addresses.server, ca_file=files.pki.ca_cert, token=files.admin_token)
        return [str(binaries.kube_apiserver), *args], lambda: get(endpoint, "/readyz")[0] == 200

    return launch


@dataclass(frozen=True)
class SchedulerFiles:
    """kube-scheduler's config file, kubeconfig, serving-certificate folder and log."""

    config: Path
    kubeconfig: Path
    cert_dir: Path
    log: Path


def scheduler_launch(
    binaries: Binaries,
    *,
    files: SchedulerFiles,
    addresses: Addresses,
    extra: Sequence[str],
    command: Sequence[str] = (),
) -> Launch:
    """kube-scheduler (or `command` in its place, given the same flags) on a new free port;
    ready once /healthz answers and its log (from now on) says it acquired its Lease."""
    offset = files.log.stat().st_size if files.log.exists() else 0

    def launch() -> tuple[list[str], Callable[[], bool]]:
        addresses.scheduler_port = port = free_ports(1)[0]
        argv = list(command) or [str(binaries.kube_scheduler)]
        argv += flags.scheduler_args(
            config_file=files.config,
            kubeconfig_path=files.kubeconfig,
            port=port,
            cert_dir=files.cert_dir,
            extra=extra,
        )
        endpoint = Endpoint(f"https://127.0.0.1:{port}", verify=False)
        return argv, lambda: get(endpoint, "/healthz")[0] == 200 and log_has(files.log, offset)

    return launch
