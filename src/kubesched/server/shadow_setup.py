"""How `kubesched.server.components.build` turns a process into a shadow
(`--shadow-scheduler-name`, `kubesched.scheduler.shadow`).

* The single profile is renamed to the shadowed scheduler's name, so the informers queue that
  scheduler's pending pods and the queue finds the profile's framework for them (QueueSort,
  PreEnqueue, hints); the metric keeps the profile's own name.
* Leader election is off: a shadow writes nothing, so there is nothing to fence, and it must
  not hold (or create) a Lease; start-up says so in one line.
* Every API client is read-only (`kubesched.kube.read_only`; `kubesched.server.parts`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework.logkv import kv
from kubesched.queue import SchedulingQueue
from kubesched.runtime import Framework
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.shadow import ShadowScheduler

log = logging.getLogger(__name__)

ELECTION_OFF = (
    "shadow mode: leader election is off (kubesched writes nothing to the cluster, so there "
    "is nothing to fence)"
)


@dataclass(frozen=True)
class ShadowSetup:
    """A shadow process's configuration and its profile's own name."""

    config: KubeSchedulerConfiguration
    """The profile renamed to the shadowed scheduler, leader election off."""
    profile: str
    """The profile's name in the configuration given (the metric's `profile` label)."""

    @property
    def shadowed(self) -> str:
        return self.config.shadow_scheduler_name


def shadow_setup(config: KubeSchedulerConfiguration) -> ShadowSetup | None:
    """The shadow's configuration; None when shadow mode is off. Logs the election line."""
    shadowed = config.shadow_scheduler_name
    if not shadowed:
        return None
    profile = config.profiles[0]
    renamed = dataclasses.replace(profile, scheduler_name=shadowed)
    election = dataclasses.replace(config.leader_election, leader_elect=False)
    shadow = dataclasses.replace(config, profiles=(renamed,), leader_election=election)
    log.info(ELECTION_OFF, extra=kv(profile=profile.scheduler_name, shadowing=shadowed))
    return ShadowSetup(config=shadow, profile=profile.scheduler_name)


def new_shadow(
    setup: ShadowSetup,
    *,
    frameworks: Mapping[str, Framework],
    cache: SchedulerCache,
    snapshot: Snapshot,
    queue: SchedulingQueue,
    metrics: SchedulerMetrics,
) -> ShadowScheduler:
    """The shadow loop over the profile's framework and the Handles' snapshot."""
    return ShadowScheduler(
        framework=frameworks[setup.shadowed],
        profile=setup.profile,
        cache=cache,
        snapshot=snapshot,
        queue=queue,
        registry=metrics.registry,
    )
