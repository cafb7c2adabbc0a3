"""`new_elector`: a `LeaderElector` from the completed `leaderElection` configuration."""

from __future__ import annotations

from kubesched.apis.config import LeaderElection
from kubesched.kube.api import KubeApi
from kubesched.leaderelection.announce import EventSink
from kubesched.leaderelection.clock import Clock
from kubesched.leaderelection.elector import BeforeRelease, LeaderElector
from kubesched.leaderelection.lock import LeaseLock, new_identity
from kubesched.leaderelection.outcome import ElectionMetrics
from kubesched.leaderelection.settings import ElectionConfig


def new_elector(
    api: KubeApi,
    *,
    settings: LeaderElection,
    scheduler_names: tuple[str, ...],
    identity: str | None = None,
    before_release: BeforeRelease | None = None,
    event_sink: EventSink | None = None,
    metrics: ElectionMetrics | None = None,
    clock: Clock | None = None,
) -> LeaderElector:
    """Validate the timings and build the lock and the elector.

    `settings` must be completed (resource name and namespace filled in). Raises
    `ElectionConfigError` for timings client-go would refuse. `api` should be a client of
    its own (kube-scheduler uses a separate "leader-election" client) so that renewals never
    queue behind bindings in a shared QPS limiter.
    """
    config = ElectionConfig.from_config(settings)
    lock = LeaseLock(
        api,
        namespace=settings.resource_namespace,
        name=settings.resource_name,
        identity=identity or new_identity(),
        scheduler_names=scheduler_names,
        request_timeout=config.request_timeout,
    )
    return LeaderElector(
        lock,
        config=config,
        clock=clock,
        before_release=before_release,
        event_sink=event_sink,
        metrics=metrics,
    )
