"""The smaller parts `kubesched.server.components.build` wires: the API clients (with
clientConnection's QPS, burst and content type, and the `rest_client_*` metrics), the
leader elector (with its Lease events) and the scheduler's sink for events about pods."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import Connection
from kubesched.kube.read_only import ReadOnlyKubeClient
from kubesched.kube.writer_client import FenceDeadline, ProcessWritingClient
from kubesched.kube.writer_process import WriterProcess
from kubesched.leaderelection import LeaderElector, new_elector
from kubesched.model import Pod
from kubesched.scheduler.event_recorder import ObjectRef, Recorder
from kubesched.scheduler.metrics import SchedulerMetrics


@dataclass(frozen=True)
class ClientFactory:
    """Makes the process's API clients: clientConnection's QPS, burst and content type, the
    `rest_client_*` metrics."""

    config: KubeSchedulerConfiguration
    metrics: SchedulerMetrics
    writer: WriterProcess | None = None
    """Where `writes_elsewhere` clients send their writes (None: in process)."""

    def new(
        self,
        to: Connection,
        *,
        qps: float | None = None,
        burst: int | None = None,
        write_fence: Callable[[], bool] | None = None,
        fence_deadline: FenceDeadline | None = None,
        reviews: bool = False,
        writes_elsewhere: bool = False,
    ) -> KubeClient:
        """A client of `to`; in shadow mode a read-only one, which refuses every write
        (`reviews`: the delegated-auth client, whose TokenReviews and SubjectAccessReviews
        store nothing, may still ask them). `writes_elsewhere`: its writes go through the
        writer process when there is one, fenced by `fence_deadline` (the same fence as
        `write_fence`, as a time another process can hold a write to)."""
        cc = self.config.client_connection
        options: dict[str, Any] = {
            "qps": cc.qps if qps is None else qps,
            "burst": cc.burst if burst is None else burst,
            "observe": self.metrics.observe_request,
            "observe_retry": self.metrics.observe_retry,
            "content_type": cc.content_type,
            "write_fence": write_fence,
        }
        if self.config.shadow_scheduler_name:
            return ReadOnlyKubeClient(to, allow_reviews=reviews, **options)
        if writes_elsewhere and self.writer is not None:
            return ProcessWritingClient(
                to, writer=self.writer, fence_deadline=fence_deadline, **options
            )
        return KubeClient(to, **options)


def pod_event_sink(recorder: Recorder) -> Callable[..., None]:
    """The scheduler's events about pods, recorded under the profile's name."""

    def record(
        *, controller: str, pod: Pod, event_type: str, reason: str, action: str, note: str
    ) -> None:
        recorder.record(
            controller=controller,
            regarding=ObjectRef.of_pod(pod),
            type=event_type,
            reason=reason,
            action=action,
            note=note,
        )

    return record


def leader_elector(
    config: KubeSchedulerConfiguration,
    client: KubeClient,
    recorder: Recorder,
    metrics: SchedulerMetrics,
) -> LeaderElector | None:
    le = config.leader_election
    if not le.leader_elect:
        return None
    ref = ObjectRef(
        "Lease", le.resource_namespace, le.resource_name, api_version="coordination.k8s.io/v1"
    )

    def lease_event(reason: str, message: str) -> None:
        recorder.record(
            controller=config.profiles[0].scheduler_name,
            regarding=ref,
            type="Normal",
            reason=reason,
            action="LeaderElection",
            note=message,
        )

    return new_elector(
        client,
        settings=le,
        scheduler_names=config.scheduler_names,
        event_sink=lease_event,
        metrics=metrics.election(le.resource_name),
    )
