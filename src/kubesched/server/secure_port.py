"""The secure port as kube-scheduler serves it: what each health endpoint checks, and the
HTTPS server built from the serving flags."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config import configz
from kubesched.framework import WaitingPods
from kubesched.kube.client import KubeClient
from kubesched.leaderelection import LeaderElector
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.auth import DelegatedAuth, split_paths
from kubesched.server.healthchecks import HealthChecks, from_bool, passing
from kubesched.server.informers import Informers
from kubesched.server.serving import HealthServer, ServingOptions
from kubesched.server.waiting_endpoint import waiting_pods_document


def health_checks(informers: Informers, elector: LeaderElector | None) -> HealthChecks:
    """kube-scheduler's check names (`leaderElection`, `ping`, `sched-handler-sync`), plus
    `informers`: none stalled or stopped."""

    def leader_election() -> str | None:
        return None if elector is None else elector.check()

    alive = ("informers", from_bool(informers.alive, "an informer stalled or stopped"))
    election = ("leaderElection", leader_election)
    synced = ("sched-handler-sync", from_bool(informers.ready, "informers not synced"))
    return HealthChecks(
        healthz=(election, alive),
        livez=(("ping", passing), election, alive),
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
) -> HealthServer:
    """The HTTPS server of health, metrics, configz and the pods held at Permit (`waiting`,
    on the leader), from the command line's serving flags."""
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
        checks=health_checks(informers, elector),
        configz=lambda: configz(config),
        waiting_pods=lambda: waiting_pods_document(waiting, leading=leading),
        # /metrics, /configz, /debug/waitingpods: the API server authenticates and
        # authorizes callers.
        auth=DelegatedAuth(
            auth_client,
            always_allow_paths=split_paths(config.authorization_always_allow_paths),
            ttl=config.authentication_cache_ttl,
        ),
    )
