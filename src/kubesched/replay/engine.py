"""The production engine of one configuration, built for a replay: no API server.

As `kubesched run` builds it (`kubesched.server.components`): one cache and snapshot, one
Framework per profile from the plugin registry (in-tree, entry points, `--plugin-module`),
one shared scheduling queue ordered and gated by them with their queueing hints, and the
scheduler's own event handlers (`kubesched.scheduler.eventhandlers`) routing pods and nodes
to the cache and the queue. What differs is only where time and writes go: every timer reads
the replay's `VirtualClock` (the queue's backoff and flushes, OpportunisticBatching's
window), and the Handle (`ReplayHandle`) writes nothing anywhere: the replay loop applies
a binding or an eviction to the replayed cluster itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.config.flags import (
    OPPORTUNISTIC_BATCHING,
    feature_gates,
)
from kubesched.errors import KubeschedError
from kubesched.framework import EventResource
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import ResourceSpec, cluster_resources
from kubesched.framework.volumes import MappedVolumeListers
from kubesched.model import ApiObject, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.model.storage_kinds import STORAGE_KINDS
from kubesched.plugins import config_registry
from kubesched.queue import Nominator, SchedulingQueue
from kubesched.runtime import Framework, build_framework
from kubesched.runtime.batch import OpportunisticBatch
from kubesched.runtime.builder import check_common_queue_sort
from kubesched.runtime.offline import OfflineHandle
from kubesched.scheduler.eventhandlers import NodeHandler, PodHandler
from kubesched.scheduler.shared_queue import shared_queue

if TYPE_CHECKING:
    from kubesched.replay.controllers import Controllers
    from kubesched.replay.writes import ClusterWrites


class VirtualClock:
    """The replay's time: seconds since the recording started, moved by the replay loop."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class ReplayError(KubeschedError, RuntimeError):
    """A plugin tried a write the replay cannot apply."""


class ReplayHandle(OfflineHandle):
    """The Handle of every profile in a replay: reads the replayed cluster; preemptions are
    recorded (`preemptions`) for the loop to apply; nominations are the queue's, and so are
    activations (a gang's Permit activating its siblings); a plugin's writes (VolumeBinding's,
    DynamicResources', a plugin's own objects) are applied to the replayed cluster with the
    controllers' answers (`replay.writes`, `replay.controllers`)."""

    who: ClassVar[str] = "kubesched replay"
    refusal: ClassVar[type[Exception]] = ReplayError

    def __init__(
        self,
        snapshot: Snapshot,
        listers: ClusterListers,
        volumes: MappedVolumeListers,
        nominator: Nominator,
    ) -> None:
        super().__init__(listers)
        self._snapshot = snapshot
        self.volumes = volumes
        self._nominator = nominator
        self.queue: SchedulingQueue | None = None
        """Set once the queue is built (it needs the frameworks, which need this Handle)."""
        self._writes: ClusterWrites | None = None
        self._controllers: Controllers | None = None

    def attach(self, writes: ClusterWrites, controllers: Controllers) -> None:
        """The replayed cluster the writes go to (it is made after the engine)."""
        self._writes, self._controllers = writes, controllers

    def _cluster(self, what: str) -> tuple[ClusterWrites, Controllers]:
        if self._writes is None or self._controllers is None:
            raise self._refused(f"{what} before its cluster is loaded")
        return self._writes, self._controllers

    async def bind_volume(
        self, volume: PersistentVolume, claim: PersistentVolumeClaim
    ) -> PersistentVolume:
        return self._cluster("binds volumes")[1].bind_volume(volume, claim)

    async def select_node_for_claim(
        self, claim: PersistentVolumeClaim, node_name: str
    ) -> PersistentVolumeClaim:
        return self._cluster("selects nodes for claims")[1].select_node(claim, node_name)

    async def patch_object(
        self,
        resource: ResourceSpec,
        obj: ApiObject,
        patch: Mapping[str, Any],
        *,
        status: bool = False,
        strategic: bool = False,
    ) -> ApiObject:
        writes = self._cluster("writes objects")[0]
        kind, key = _kind(resource), _object_key(resource, obj.namespace, obj.name)
        return ApiObject.from_json(
            writes.patch(kind, key, patch, status=status, strategic=strategic)
        )

    async def create_object(
        self, resource: ResourceSpec, namespace: str, body: Mapping[str, Any]
    ) -> ApiObject:
        writes = self._cluster("creates objects")[0]
        scope = namespace if resource.namespaced else ""
        return ApiObject.from_json(writes.create(_kind(resource), scope, body))

    async def delete_object(self, resource: ResourceSpec, obj: ApiObject) -> None:
        writes = self._cluster("deletes objects")[0]
        writes.delete(_kind(resource), _object_key(resource, obj.namespace, obj.name))

    def activate(self, pods: Iterable[Pod]) -> None:
        if self.queue is not None:
            self.queue.activate(pods)

    def has_nominated_pods(self) -> bool:
        return len(self._nominator) > 0

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        return self._nominator.pods_for_node(node_name)

    def nominated_node_names(self) -> Sequence[str]:
        return self._nominator.node_names()


@dataclass(frozen=True)
class Engine:
    """One configuration's engine over an empty replayed cluster."""

    config: KubeSchedulerConfiguration
    clock: VirtualClock
    cache: SchedulerCache
    snapshot: Snapshot
    queue: SchedulingQueue
    frameworks: Mapping[str, Framework]
    handle: ReplayHandle
    listers: ClusterListers
    volumes: MappedVolumeListers
    storage: Mapping[str, dict[str, Any]]
    """The mappings behind `volumes`, by lister name (`claims`, `csi_nodes`, ...)."""
    nodes: NodeHandler
    pods: PodHandler


def build_engine(config: KubeSchedulerConfiguration) -> Engine:
    """Every part, wired; FrameworkError / PluginRegistrationError on bad profiles."""
    clock = VirtualClock()
    cache, snapshot, nominator = SchedulerCache(), Snapshot(), Nominator()
    registry = config_registry(config.plugin_modules)
    listers = ClusterListers(cluster_resources(config, registry))
    storage: dict[str, dict[str, Any]] = {kind.lister: {} for kind in STORAGE_KINDS}
    volumes = MappedVolumeListers(**storage)
    handle = ReplayHandle(snapshot, listers, volumes, nominator)
    gates = feature_gates(config.feature_gates)
    frameworks: dict[str, Framework] = {}
    for profile in config.profiles:
        fw = build_framework(
            profile=profile,
            registry=registry,
            handle=handle,
            default_percentage_of_nodes_to_score=config.percentage_of_nodes_to_score,
        )
        if gates.get(OPPORTUNISTIC_BATCHING, True):
            fw.batch = OpportunisticBatch(
                fw, generic_workload=profile.generic_workload, clock=clock
            )
        _plugin_timers_on(fw, clock)
        frameworks[profile.scheduler_name] = fw
    check_common_queue_sort(list(frameworks.values()))
    queue = handle.queue = _queue(config, frameworks, nominator, clock)
    return Engine(
        config=config,
        clock=clock,
        cache=cache,
        snapshot=snapshot,
        queue=queue,
        frameworks=frameworks,
        handle=handle,
        listers=listers,
        volumes=volumes,
        storage=storage,
        nodes=NodeHandler(cache=cache, queue=queue),
        pods=PodHandler(
            cache=cache,
            queue=queue,
            scheduler_names=set(frameworks),
            unscheduled_pod_events=_registered(frameworks, EventResource.UNSCHEDULED_POD),
        ),
    )


def _queue(
    config: KubeSchedulerConfiguration,
    frameworks: Mapping[str, Framework],
    nominator: Nominator,
    clock: VirtualClock,
) -> SchedulingQueue:
    """The shared queue `kubesched run` makes (`scheduler.shared_queue`), on the virtual
    clock and without metrics."""
    return shared_queue(config, frameworks, nominator, clock=clock)


def _plugin_timers_on(fw: Framework, clock: VirtualClock) -> None:
    """A Permit plugin keeping its own times through a `manager.now` clock (Coscheduling's
    `podGroupBackoffSeconds`) reads the virtual clock instead of the monotonic one."""
    for plugin in fw.plugins.permit:
        manager = getattr(plugin, "manager", None)
        if manager is not None and callable(getattr(manager, "now", None)):
            manager.now = clock


def _kind(resource: ResourceSpec) -> str:
    """How a trace names the resource."""
    if resource.group:
        return f"{resource.group}/{resource.resource}"
    return resource.resource


def _object_key(resource: ResourceSpec, namespace: str, name: str) -> str:
    return f"{namespace}/{name}" if resource.namespaced and namespace else name


def _registered(frameworks: Mapping[str, Framework], resource: EventResource) -> bool:
    return any(
        str(event.resource) == str(resource)
        for fw in frameworks.values()
        for events in fw.events_to_register().values()
        for event in events
    )
