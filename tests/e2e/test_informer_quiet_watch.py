"""A watch on a resource nobody changes is healthy, against a real kube-apiserver.

The API server sends bookmarks only for resources that changed since it started, so such a
watch brings nothing at all. A Reflector with a 1.5 s inactivity limit watches PodTemplates
in a fresh namespace for several limits: it renews the watch quietly (V(4)), logs no
warning, stays healthy, and still sees the first PodTemplate created afterwards.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from kubesched.informers import Reflector, ReflectorSettings
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.localcluster import LocalCluster
from tests.e2e.harness import ApiClient

IDLE_LIMIT = 1.5
SETTINGS = ReflectorSettings(
    inactivity_timeout=IDLE_LIMIT,
    min_watch_timeout=60.0,
    initial_backoff=0.2,
    max_backoff=1.0,
    request_timeout=10.0,
)


class Seen:
    def __init__(self) -> None:
        self.names: list[str] = []

    def on_add(self, obj: dict[str, Any]) -> None:
        self.names.append(obj["metadata"]["name"])

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        """Not expected here."""

    def on_delete(self, obj: dict[str, Any]) -> None:
        """Not expected here."""


def pod_template(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": name},
        "template": {"spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause"}]}},
    }


async def test_a_quiet_watch_is_renewed_without_a_warning(
    local_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = KubeClient(await load_connection(kubeconfig=str(local_cluster.kubeconfig_path)))
    seen = Seen()
    reflector: Reflector[dict[str, Any]] = Reflector(
        client,
        path=f"/api/v1/namespaces/{namespace}/podtemplates",
        decode=lambda raw: raw,
        key=lambda obj: str(obj["metadata"]["name"]),
        version=lambda obj: str(obj["metadata"]["resourceVersion"]),
        handler=seen,
        settings=SETTINGS,
    )
    task = asyncio.create_task(reflector.run())
    try:
        with caplog.at_level(1, logger="kubesched"):
            await asyncio.wait_for(reflector.synced.wait(), 20)
            await asyncio.sleep(4 * IDLE_LIMIT)
            health = reflector.health()
            api.request(
                "POST",
                f"/api/v1/namespaces/{namespace}/podtemplates",
                body=pod_template("late"),
            )
            for _ in range(100):
                if seen.names:
                    break
                await asyncio.sleep(0.1)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await client.close()

    renewals = [r for r in caplog.records if r.getMessage() == "renewing an idle watch"]
    print(f"quiet watch: renewed {len(renewals)} times in {4 * IDLE_LIMIT:g}s")
    assert len(renewals) >= 2
    assert all(r.levelno < logging.INFO for r in renewals)
    warnings = [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
    assert not warnings
    assert health.synced
    assert health.error == ""
    assert not health.stalled
    assert seen.names == ["late"], "the renewed watch still delivers events"
