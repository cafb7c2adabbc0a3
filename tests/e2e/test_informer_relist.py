"""The informers' watch resume and 410 Gone relist, against a real kube-apiserver and etcd.

This module runs its own control plane with `--watch-cache=false` (watches are served by
etcd itself, so they see compaction) and `--etcd-compaction-interval=0` (the test, not the
API server, decides when etcd compacts). A pod `Reflector` runs in-process; the test cuts
its watch off by cancelling it (its store and resourceVersion stay), changes pods through
the API meanwhile, and runs it again:

- without compaction, it resumes the watch from its resourceVersion: no relist;
- after etcd compacted past that version, the API answers 410 Gone, the reflector relists
  and reports exactly what it missed (deletes, the update, the adds) as a diff, and its
  store equals the API server's state, key by key and resourceVersion by resourceVersion.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.request
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from kubesched.informers import Reflector, ReflectorSettings
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.localcluster import LocalCluster, LocalClusterError
from kubesched.model import Pod
from kubesched.server.informers import NON_TERMINAL_PODS
from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient

SETTINGS = ReflectorSettings(
    page_size=2,  # a few pages per list
    inactivity_timeout=30.0,
    min_watch_timeout=60.0,
    initial_backoff=0.2,
    max_backoff=1.0,
    request_timeout=10.0,
)
UNSCHEDULED = "nobody"  # no scheduler runs in this module's cluster anyway


@pytest.fixture(scope="module")
def local_cluster(request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    """This module's own control plane, whose watches etcd serves (see the docstring)."""
    cluster = LocalCluster(apiserver_args=["--watch-cache=false", "--etcd-compaction-interval=0"])
    failed_before = request.session.testsfailed
    try:
        cluster.start()
    except LocalClusterError as error:
        pytest.fail(f"{error}\n{error.details}", pytrace=False)
    try:
        yield cluster
    finally:
        if request.session.testsfailed > failed_before:
            cluster.keep_logs = True
            print(f"control-plane logs kept in {cluster.logs_dir}\n{cluster.log_tails(lines=30)}")
        cluster.stop()


@pytest.fixture(scope="module")
def api(local_cluster: LocalCluster) -> ApiClient:
    """Admin client of this module's control plane (also used by the after-test clean-up)."""
    return ApiClient(
        server=local_cluster.server, token=local_cluster.admin_token, ca_file=local_cluster.ca_file
    )


class Recorder:
    """Records every handler call as (kind, key, resourceVersion[s])."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def on_add(self, obj: Pod) -> None:
        self.calls.append(("add", obj.key, obj.resource_version))

    def on_update(self, old: Pod, new: Pod) -> None:
        self.calls.append(("update", new.key, old.resource_version, new.resource_version))

    def on_delete(self, obj: Pod) -> None:
        self.calls.append(("delete", obj.key, obj.resource_version))


class PodInformer:
    """A pod Reflector as kubesched's app builds it, which the test can stop and restart."""

    def __init__(self, client: KubeClient) -> None:
        self.handler = Recorder()
        self.reflector: Reflector[Pod] = Reflector(
            client,
            path="/api/v1/pods",
            decode=Pod.from_json,
            key=lambda p: p.key,
            version=lambda p: p.resource_version,
            field_selector=NON_TERMINAL_PODS,
            handler=self.handler,
            settings=SETTINGS,
        )
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self.reflector.run(), name="pod reflector")

    async def stop(self) -> None:
        """Cut the watch off: the store and the resourceVersion are kept."""
        assert self._task is not None
        assert not self._task.done(), "the reflector must never end by itself"
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        self._task = None

    def versions(self) -> dict[str, str]:
        return {key: pod.resource_version for key, pod in self.reflector.store.items()}


@pytest.fixture
async def informer(local_cluster: LocalCluster) -> AsyncIterator[PodInformer]:
    client = KubeClient(await load_connection(kubeconfig=str(local_cluster.kubeconfig_path)))
    informer = PodInformer(client)
    try:
        yield informer
    finally:
        if informer._task is not None:
            await informer.stop()
        await client.close()


def api_state(api: ApiClient) -> tuple[dict[str, str], str]:
    """The API server's pods (key -> resourceVersion) as the reflector lists them, and the
    list's resourceVersion (etcd's current revision)."""
    answer = api.request("GET", "/api/v1/pods", query={"fieldSelector": NON_TERMINAL_PODS})
    pods = {
        f"{item['metadata']['namespace']}/{item['metadata']['name']}": item["metadata"][
            "resourceVersion"
        ]
        for item in answer["items"]
    }
    return pods, answer["metadata"]["resourceVersion"]


def compact_etcd(cluster: LocalCluster, revision: str) -> None:
    """Compact etcd's history up to `revision` (etcd v3 JSON gateway), waiting until done."""
    body = json.dumps({"revision": revision, "physical": True}).encode()
    request = urllib.request.Request(
        f"{cluster.etcd_url}/v3/kv/compaction",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert reply.status == 200, reply.read()


async def first_watch_event(client: KubeClient, resource_version: str) -> dict[str, Any]:
    events = client.watch(
        "/api/v1/pods", params={"resourceVersion": resource_version}, inactivity_timeout=10
    )
    async for event in events:
        return event
    raise AssertionError("the watch ended without an event")


async def eventually(check: Any, *, what: str, timeout: float = 20.0) -> None:
    """Await until `check()` is true (the reflector runs on this event loop meanwhile)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.1)


def create_pods(api: ApiClient, namespace: str, *names: str) -> None:
    for name in names:
        api.create(make_pod().name(name).namespace(namespace).scheduler(UNSCHEDULED).obj())


async def synced_informer(informer: PodInformer, api: ApiClient) -> None:
    informer.start()
    await asyncio.wait_for(informer.reflector.synced.wait(), 20)
    await eventually(
        lambda: informer.versions() == api_state(api)[0], what="the store to match the API"
    )


async def test_watch_resumes_from_resource_version_without_relist(
    informer: PodInformer, api: ApiClient, namespace: str
) -> None:
    create_pods(api, namespace, "a", "b", "c")
    await synced_informer(informer, api)
    await informer.stop()
    informer.handler.calls.clear()

    api.delete("Pod", "a", namespace=namespace, grace_period=0)
    api.patch("Pod", "b", {"metadata": {"labels": {"changed": "yes"}}}, namespace=namespace)
    create_pods(api, namespace, "d")
    expected, _ = api_state(api)
    informer.start()
    await eventually(lambda: informer.versions() == expected, what="the missed events")

    # Every change arrived as a watch event, in order, from the old resourceVersion on
    # (the API may first mark the deleted pod with a deletionTimestamp: an update).
    seen = [call[:2] for call in informer.handler.calls]
    a, b, d = (f"{namespace}/{name}" for name in "abd")
    assert seen[-3:] == [("delete", a), ("update", b), ("add", d)], seen
    assert set(seen[:-3]) <= {("update", a)}, seen
    assert informer.reflector.relists == 1


async def test_gone_relists_and_reports_what_was_missed(
    informer: PodInformer,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    caplog: pytest.LogCaptureFixture,
) -> None:
    create_pods(api, namespace, "keep-1", "keep-2", "gone-1", "gone-2", "gone-3", "changed")
    await synced_informer(informer, api)
    before = informer.versions()
    await informer.stop()
    stale_version = informer.reflector.resource_version
    informer.handler.calls.clear()

    # While the watch is cut off: deletes, an update and adds.
    for name in ("gone-1", "gone-2", "gone-3"):
        api.delete("Pod", name, namespace=namespace, grace_period=0)
    api.patch("Pod", "changed", {"metadata": {"labels": {"v": "2"}}}, namespace=namespace)
    create_pods(api, namespace, "new-1", "new-2", "new-3")
    expected, current_version = api_state(api)
    compact_etcd(local_cluster, current_version)
    # The precondition this test is about: the API now refuses the old version with 410.
    client = KubeClient(await load_connection(kubeconfig=str(local_cluster.kubeconfig_path)))
    try:
        refused = await first_watch_event(client, stale_version)
    finally:
        await client.close()
    assert refused["type"] == "ERROR", refused
    assert refused["object"]["code"] == 410, refused

    caplog.set_level(logging.INFO, logger="kubesched.informers")
    informer.start()
    await eventually(lambda: informer.reflector.relists == 2, what="a relist after 410 Gone")
    await eventually(lambda: informer.versions() == expected, what="the store to match the API")

    def key(name: str) -> str:
        return f"{namespace}/{name}"

    assert sorted(informer.handler.calls) == sorted(
        [
            *(("delete", key(name), before[key(name)]) for name in ("gone-1", "gone-2", "gone-3")),
            ("update", key("changed"), before[key("changed")], expected[key("changed")]),
            *(("add", key(name), expected[key(name)]) for name in ("new-1", "new-2", "new-3")),
        ]
    ), "exactly the missed changes, nothing for the unchanged pods"
    assert "watch expired, relisting" in caplog.text
    # Relisted from scratch: the store equals the API server's state, versions included.
    assert informer.versions() == api_state(api)[0] == expected
    assert int(informer.reflector.resource_version) >= int(current_version)

    # The watch goes on from the relist's resourceVersion.
    informer.handler.calls.clear()
    create_pods(api, namespace, "after")
    await eventually(lambda: key("after") in informer.reflector.store, what="the next watch event")
    assert [call[:2] for call in informer.handler.calls] == [("add", key("after"))]
    assert informer.versions() == api_state(api)[0]
    assert informer.reflector.relists == 2
