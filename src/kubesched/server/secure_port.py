"""The secure port as kube-scheduler serves it: what each health endpoint checks, and the
HTTPS server built from the serving flags."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config import configz
from kubesched.config.flags import feature_gates
from kubesched.framework import WaitingPods
from kubesched.kube.client import KubeClient
from kubesched.kube.writer_process import WriterProcess
from kubesched.leaderelection import LeaderElector
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.auth import DelegatedAuth, split_paths
from kubesched.server.flagvalues import command_line, flag_values
from kubesched.server.healthchecks import HealthChecks, from_bool, passing
from kubesched.server.informers import Informers
from kubesched.server.resource_metrics import resource_metrics
from kubesched.server.serving import HealthServer, ServingOptions
from kubesched.server.waiting_endpoint import waiting_pods_document
from kubesched.server.zpages import Flagz, Statusz

COMPONENT = "kubesched"
EMULATION_VERSION = "1.37"
"""The kube-scheduler release whose behaviour kubesched reproduces (statusz)."""
COMPONENT_FLAGZ, COMPONENT_STATUSZ = "ComponentFlagz", "ComponentStatusz"


WRITER_DOWN_TOLERANCE_SECONDS = 15.0
"""How long the writer process may be gone (dead, being restarted) before /healthz and
/livez fail: longer than its longest restart backoff."""


def health_checks(
    informers: Informers, elector: LeaderElector | None, writer: WriterProcess | None = None
) -> HealthChecks:
    """kube-scheduler's check names (`leaderElection`, `ping`, `sched-handler-sync`), plus
    `informers`: none stalled or stopped, and `writer-process` (with one): not gone for
    longer than WRITER_DOWN_TOLERANCE_SECONDS."""

    def leader_election() -> str | None:
        return None if elector is None else elector.check()

    def writer_up() -> str | None:
        down = 0.0 if writer is None else writer.down_for()
        return None if down <= WRITER_DOWN_TOLERANCE_SECONDS else f"writer gone {down:.0f}s"

    alive = ("informers", from_bool(informers.alive, "an informer stalled or stopped"))
    election = ("leaderElection", leader_election)
    synced = ("sched-handler-sync", from_bool(informers.ready, "informers not synced"))
    writing = () if writer is None else (("writer-process", writer_up),)
    return HealthChecks(
        healthz=(election, alive, *writing),
        livez=(("ping", passing), election, alive, *writing),
        readyz=(election, synced),
    )


def secure_port(
    config: KubeSchedulerConfiguration,
    metrics: SchedulerMetrics,
    auth_client: KubeClient,
    elector: LeaderElector | None,
    informers: Informers,
    *,
    waiting: WaitingPods,
    leading: Callable[[], bool],
    client: KubeClient | None = None,
    writer: WriterProcess | None = None,
) -> HealthServer:
    """The HTTPS server of health, metrics, configz, flagz, statusz, the resource metrics
    (listed through `client`, on the leader) and the pods held at Permit (`waiting`, on the
    leader), from the command line's serving flags."""
    options = ServingOptions(
        bind_address=config.bind_address,
        secure_port=config.secure_port,
        cert_dir=Path(config.cert_dir) if config.cert_dir else None,
        tls_cert_file=config.tls_cert_file,
        tls_private_key_file=config.tls_private_key_file,
        tls_min_version=config.tls_min_version,
        tls_cipher_suites=config.tls_cipher_suites,
        permit_address_sharing=config.permit_address_sharing,
        permit_port_sharing=config.permit_port_sharing,
        client_ca_file=config.client_ca_file,
    )

    return HealthServer(
        options=options,
        metrics=metrics,
        checks=health_checks(informers, elector, writer),
        configz=lambda: configz(config),
        waiting_pods=lambda: waiting_pods_document(waiting, leading=leading),
        resources=_resources(client, leading) if client is not None else None,
        flagz=_flagz(config),
        statusz=_statusz(config),
        # /metrics, /configz, /debug/waitingpods: the API server authenticates and
        # authorizes callers.
        auth=DelegatedAuth(
            auth_client,
            always_allow_paths=split_paths(config.authorization_always_allow_paths),
            ttl=config.authentication_cache_ttl,
        ),
    )


def _resources(client: KubeClient, leading: Callable[[], bool]) -> Callable[[], Awaitable[str]]:
    """/metrics/resources: empty on a replica that does not lead, as kube-scheduler's."""

    async def render() -> str:
        return await resource_metrics(client) if leading() else ""

    return render


def _enabled(config: KubeSchedulerConfiguration, gate: str) -> bool:
    """ComponentFlagz and ComponentStatusz: beta, on by default in v1.37."""
    return feature_gates(config.feature_gates).get(gate, True)


def _flagz(config: KubeSchedulerConfiguration) -> Flagz | None:
    if not _enabled(config, COMPONENT_FLAGZ):
        return None
    return Flagz(COMPONENT, flag_values(command_line()))


def _statusz(config: KubeSchedulerConfiguration) -> Statusz | None:
    """The paths statusz lists are those kube-scheduler lists (its /debug and /metrics/*
    subpaths are not listed; neither is kubesched's /debug/waitingpods)."""
    if not _enabled(config, COMPONENT_STATUSZ):
        return None
    paths = ["/configz", "/healthz", "/livez", "/metrics", "/readyz"]
    if _enabled(config, COMPONENT_FLAGZ):
        paths.append("/flagz")
    return Statusz(COMPONENT, _version(), EMULATION_VERSION, sorted(paths))


def _version() -> str:
    try:
        return package_version("kubesched")
    except PackageNotFoundError:
        return "unknown"
