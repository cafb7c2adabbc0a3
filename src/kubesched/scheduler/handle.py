"""The framework Handle of one profile: what plugins may reach beyond their arguments."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kubesched.cache import Snapshot
from kubesched.framework import EventObject, ObjectWriteError, SharedDRAManager, WaitingPods
from kubesched.framework.listers import ClusterListers
from kubesched.framework.logkv import kv
from kubesched.framework.resources import ResourceSpec
from kubesched.framework.volumes import StaticVolumeListers, VolumeListers
from kubesched.kube.api import MERGE_PATCH, STRATEGIC_MERGE_PATCH, KubeApi
from kubesched.kube.errors import ApiError, Conflict, NotFound
from kubesched.model import ApiObject, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.queue import Nominator
from kubesched.runtime.dra_manager import DraManager
from kubesched.runtime.handle_base import HandleBase
from kubesched.scheduler.binder import post_binding
from kubesched.scheduler.event_recorder import ObjectRef, Recorder
from kubesched.scheduler.preemption import Preemptions
from kubesched.scheduler.volumes import bind_volume, select_node_for_claim

log = logging.getLogger(__name__)

STATUS_PATCH_TIMEOUT_SECONDS = 10.0


class SchedulerHandle(HandleBase):
    """Implements `kubesched.framework.Handle` over the shared snapshot, listers and API
    client, and its preemption members (nominated pods, evicting victims) over
    `Preemptions`."""

    def __init__(
        self,
        *,
        profile: str,
        snapshot: Snapshot,
        api: KubeApi,
        recorder: Recorder,
        waiting_pods: WaitingPods,
        preemptions: Preemptions | None = None,
        listers: ClusterListers | None = None,
        activate: Callable[[Iterable[Pod]], None] | None = None,
        leading: Callable[[], bool] = lambda: True,
        volumes: VolumeListers | None = None,
        dra_manager: SharedDRAManager | None = None,
    ) -> None:
        """`dra_manager`: the one the scheduler shares between its profiles (the
        composition root builds it); None: one of its own over `listers`."""
        self._profile = profile
        self._snapshot = snapshot
        self._api = api
        self._recorder = recorder
        self._waiting_pods = waiting_pods
        self._preemptions = preemptions or Preemptions(
            api=api, recorder=recorder, waiting_pods=waiting_pods, nominator=Nominator()
        )
        self.listers = listers or ClusterListers()
        self._activate = activate
        self._leading = leading
        self._tasks: set[asyncio.Task[None]] = set()
        self.volumes = volumes if volumes is not None else StaticVolumeListers()
        self.dra_manager = dra_manager if dra_manager is not None else DraManager(self.listers)

    async def bind(self, pod: Pod, node_name: str) -> None:
        await post_binding(self._api, pod, node_name)

    def record_event(
        self, pod: Pod, *, event_type: str, reason: str, action: str, note: str
    ) -> None:
        self._recorder.record(
            controller=self._profile,
            regarding=ObjectRef.of_pod(pod),
            type=event_type,
            reason=reason,
            action=action,
            note=note,
        )

    def record_object_event(
        self, regarding: EventObject, *, event_type: str, reason: str, action: str, note: str
    ) -> bool:
        if not self._leading():
            return False
        ref = regarding
        self._recorder.record(
            controller=self._profile,
            regarding=ObjectRef(ref.kind, ref.namespace, ref.name, ref.uid, ref.api_version),
            type=event_type,
            reason=reason,
            action=action,
            note=note,
        )
        return True

    # ---- volumes --------------------------------------------------------------------------

    async def bind_volume(
        self, volume: PersistentVolume, claim: PersistentVolumeClaim
    ) -> PersistentVolume:
        return await bind_volume(self._api, volume, claim)

    async def select_node_for_claim(
        self, claim: PersistentVolumeClaim, node_name: str
    ) -> PersistentVolumeClaim:
        return await select_node_for_claim(self._api, claim, node_name)

    # ---- preemption ---------------------------------------------------------------------

    def has_nominated_pods(self) -> bool:
        return self._preemptions.has_nominated_pods()

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        return self._preemptions.nominated_pods_for_node(node_name)

    def nominated_node_names(self) -> Sequence[str]:
        return self._preemptions.nominated_node_names()

    def preempt(
        self, preemptor: Pod, *, node_name: str, victims: Sequence[Pod], pdb_violations: int = 0
    ) -> None:
        self._preemptions.start(
            profile=self._profile,
            preemptor=preemptor,
            node_name=node_name,
            victims=victims,
            pdb_violations=pdb_violations,
        )

    def is_preempting(self, uid: str) -> bool:
        return self._preemptions.is_preempting(uid)

    # ---- cluster-aware plugins ----------------------------------------------------------

    def activate(self, pods: Iterable[Pod]) -> None:
        if self._activate is not None:
            self._activate(pods)

    def patch_status(
        self, resource: ResourceSpec, obj: ApiObject, status: Mapping[str, Any]
    ) -> None:
        if not self._leading():
            return
        path = resource.object_path(namespace=obj.namespace, name=obj.name) + "/status"
        task = asyncio.get_running_loop().create_task(self._patch(path, {"status": status}))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def get_object(self, resource: ResourceSpec, namespace: str, name: str) -> ApiObject:
        path = resource.object_path(namespace=namespace, name=name)
        try:
            return ApiObject.from_json(await self._api.get(path))
        except ApiError as exc:
            raise _write_error(exc) from None

    async def patch_object(
        self,
        resource: ResourceSpec,
        obj: ApiObject,
        patch: Mapping[str, Any],
        *,
        status: bool = False,
        strategic: bool = False,
    ) -> ApiObject:
        if not self._leading():
            raise ObjectWriteError(f"not the leader: {obj.key} was not written")
        path = resource.object_path(namespace=obj.namespace, name=obj.name)
        path += "/status" if status else ""
        content_type = STRATEGIC_MERGE_PATCH if strategic else MERGE_PATCH
        try:
            written = await self._api.patch(
                path, dict(patch), content_type=content_type, timeout=STATUS_PATCH_TIMEOUT_SECONDS
            )
        except ApiError as exc:
            raise _write_error(exc) from None
        return ApiObject.from_json(written)

    async def create_object(
        self, resource: ResourceSpec, namespace: str, body: Mapping[str, Any]
    ) -> ApiObject:
        if not self._leading():
            raise ObjectWriteError("not the leader: nothing was created")
        path = resource.path
        if resource.namespaced and namespace:
            path = resource.object_path(namespace=namespace, name="").rstrip("/")
        try:
            written = await self._api.post(path, dict(body), timeout=STATUS_PATCH_TIMEOUT_SECONDS)
        except ApiError as exc:
            raise _write_error(exc) from None
        return ApiObject.from_json(written)

    async def delete_object(self, resource: ResourceSpec, obj: ApiObject) -> None:
        if not self._leading():
            raise ObjectWriteError(f"not the leader: {obj.key} was not deleted")
        path = resource.object_path(namespace=obj.namespace, name=obj.name)
        try:
            await self._api.delete(path, timeout=STATUS_PATCH_TIMEOUT_SECONDS)
        except NotFound:
            return
        except ApiError as exc:
            raise _write_error(exc) from None

    async def _patch(self, path: str, body: dict[str, Any]) -> None:
        try:
            await self._api.patch(
                path, body, content_type=MERGE_PATCH, timeout=STATUS_PATCH_TIMEOUT_SECONDS
            )
        except ApiError as exc:
            log.warning("could not patch status", extra=kv(path=path, err=exc))


def _write_error(exc: ApiError) -> ObjectWriteError:
    return ObjectWriteError(
        str(exc), conflict=isinstance(exc, Conflict), not_found=isinstance(exc, NotFound)
    )
