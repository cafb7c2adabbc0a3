"""The local cluster plays a DRA driver (`gpu.example.com`) for its kwok nodes.

A real driver has two halves: a controller that publishes the devices of each node as
ResourceSlices, and a kubelet plugin that prepares a claim's devices before the kubelet
starts the pod (NodePrepareResources) and may report them in `status.devices`. Here:

    async with DraDriver(client) as driver:            # any kubesched.kube WatchApi
        await driver.publish_classes()                 # DeviceClass gpu.example.com
        await driver.publish("node-a", NodeGpus(gpus=4, numa=2, partitionable=1))
        await driver.run()                             # prepare claims until cancelled

    with LocalDraDriver(cluster.kubeconfig_path) as driver:   # the same, synchronous,
        driver.publish_classes()                               # claims prepared in a
        driver.publish("node-a", NodeGpus(gpus=2))             # background thread

Preparing writes each allocated device of this driver into the claim's `status.devices`
with the condition `Ready` (and its binding conditions True: kube-scheduler waits for them
in PreBind before binding a pod to a fabric-attached device; `binding="fail"` sets the
failure condition instead, `binding="wait"` neither). kwok needs nothing of this to run
the pod: it marks a bound pod Running whatever its claims (there is no kubelet to call
NodePrepareResources), so a bound pod with allocated claims is Running with or without
the driver's loop; the loop makes the claims look as a real driver leaves them.

Slices belong to their Node (ownerReference, as the kubelet plugin sets it), so the
garbage collector of kube-controller-manager removes them with the node.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from kubesched.kube.api import MERGE_PATCH, WatchApi
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import ConnectionConfigError, load_connection
from kubesched.kube.errors import ApiError, Conflict, NotFound
from kubesched.localcluster import dra_objects as objects
from kubesched.localcluster.dra_objects import DRIVER, NodeGpus
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.kwok import NODE_LABEL
from kubesched.testing import make_node

log = logging.getLogger(__name__)
T = TypeVar("T")

RESOURCE = "/apis/resource.k8s.io/v1"
SLICES = f"{RESOURCE}/resourceslices"
CLAIMS = f"{RESOURCE}/resourceclaims"
WATCH_IDLE_SECONDS = 60.0
"""A claim watch silent for this long is reopened (it asks for bookmarks every minute)."""
RETRY_SECONDS = 1.0


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class DraDriver:
    """The example driver on one API client (`kubesched.kube.client.KubeClient`)."""

    def __init__(self, api: WatchApi, *, driver: str = DRIVER, binding: str = "attach") -> None:
        """`binding`: what preparing does with binding conditions: "attach" (set True),
        "fail" (set the failure conditions True) or "wait" (leave them unset)."""
        if binding not in ("attach", "fail", "wait"):
            raise ValueError(f"binding={binding!r}: choose attach, fail or wait")
        self.api = api
        self.driver = driver
        self.binding = binding

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None

    # -- the controller half: classes and slices --------------------------------------
    async def publish_classes(self, *, extended_resource_name: str | None = None) -> None:
        """Create (or replace) the DeviceClass named after the driver, selecting all its
        devices; `extended_resource_name` makes them back that extended resource."""
        await self.apply(
            objects.device_class(
                self.driver, driver=self.driver, extended_resource_name=extended_resource_name
            )
        )

    async def apply(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Create a cluster-scoped `resource.k8s.io/v1` object, or replace the one of that
        name (DeviceClass, DeviceTaintRule, ResourceSlice)."""
        path = f"{RESOURCE}/{_plural(obj['kind'])}"
        try:
            return await self.api.post(path, obj)
        except Conflict:
            name = obj["metadata"]["name"]
            current = await self.api.get(f"{path}/{name}")
            body = {**obj, "metadata": {**obj["metadata"], **_version(current)}}
            return await self.api.put(f"{path}/{name}", body)

    async def publish(self, node: str, gpus: NodeGpus | None = None) -> list[dict[str, Any]]:
        """Publish `node`'s pool (named after it): its slices replace those published
        before, under the next pool generation; returns the slices written."""
        owner = await self._owner(node)
        old = await self.node_slices(node)
        generation = 1 + max((s["spec"]["pool"]["generation"] for s in old), default=0)
        wanted = objects.node_slices(
            node, gpus or NodeGpus(), driver=self.driver, generation=generation
        )
        written = []
        for item in wanted:
            item["metadata"]["ownerReferences"] = [owner]
            written.append(await self.apply(item))
        names = {s["metadata"]["name"] for s in wanted}
        for stale in old:
            if stale["metadata"]["name"] not in names:
                await self._delete(f"{SLICES}/{stale['metadata']['name']}")
        return written

    async def unpublish(self, node: str) -> None:
        """Delete `node`'s slices (its devices are gone)."""
        for item in await self.node_slices(node):
            await self._delete(f"{SLICES}/{item['metadata']['name']}")

    async def withdraw(self) -> None:
        """Delete every slice of this driver and its DeviceClass (the driver is gone)."""
        for item in await self._slices(f"spec.driver={self.driver}"):
            await self._delete(f"{SLICES}/{item['metadata']['name']}")
        await self._delete(f"{RESOURCE}/deviceclasses/{self.driver}")

    async def node_slices(self, node: str) -> list[dict[str, Any]]:
        """This driver's slices of `node`."""
        return await self._slices(f"spec.nodeName={node},spec.driver={self.driver}")

    async def _slices(self, selector: str) -> list[dict[str, Any]]:
        found = await self.api.get(SLICES, params={"fieldSelector": selector})
        return list(found.get("items") or [])

    async def _owner(self, node: str) -> dict[str, Any]:
        try:
            found = await self.api.get(f"/api/v1/nodes/{node}")
        except NotFound:
            raise LocalClusterError(f"node {node} does not exist: create it first") from None
        meta = found["metadata"]
        return {"apiVersion": "v1", "kind": "Node", "name": meta["name"], "uid": meta["uid"]}

    async def _delete(self, path: str) -> None:
        with contextlib.suppress(NotFound):
            await self.api.delete(path)

    # -- the kubelet-plugin half: prepared claims -------------------------------------
    async def prepare(self, claim: dict[str, Any]) -> bool:
        """Write `status.devices` for the claim's allocated devices of this driver (see
        the module docstring); False when there was nothing to write or the claim is gone."""
        devices = objects.device_statuses(
            claim, driver=self.driver, binding=self.binding, now=_now()
        )
        if devices is None:
            return False
        meta = claim["metadata"]
        path = f"{RESOURCE}/namespaces/{meta['namespace']}/resourceclaims/{meta['name']}/status"
        body = {"metadata": _version(claim), "status": {"devices": devices}}
        try:
            await self.api.patch(path, body, content_type=MERGE_PATCH)
        except NotFound:
            return False
        return True

    async def run(self, *, ready: asyncio.Event | None = None) -> None:
        """Prepare every claim allocated to this driver's devices, now and as they come,
        until cancelled; `ready` is set once the claims that exist were handled."""
        while True:
            try:
                await self._list_and_watch(ready)
            except asyncio.CancelledError:
                raise
            except (ApiError, OSError) as error:
                log.debug("the example DRA driver's claim watch ended: %s", error)
            await asyncio.sleep(RETRY_SECONDS)

    async def _list_and_watch(self, ready: asyncio.Event | None) -> None:
        listed = await self.api.get(CLAIMS)
        for claim in listed.get("items") or []:
            await self._prepare_quietly(claim)
        if ready is not None:
            ready.set()
        version = listed["metadata"]["resourceVersion"]
        params = {"resourceVersion": version, "allowWatchBookmarks": "true"}
        async for event in self.api.watch(
            CLAIMS, params=params, inactivity_timeout=WATCH_IDLE_SECONDS
        ):
            if event.get("type") in ("ADDED", "MODIFIED"):
                await self._prepare_quietly(event["object"])
            elif event.get("type") == "ERROR":
                return  # 410 Gone and friends: list again

    async def _prepare_quietly(self, claim: dict[str, Any]) -> None:
        try:
            await self.prepare(claim)
        except Conflict:
            pass  # a newer version is on its way through the watch
        except ApiError as error:
            log.warning("the example DRA driver could not prepare a claim: %s", error)


def _plural(kind: str) -> str:
    return {
        "DeviceClass": "deviceclasses",
        "DeviceTaintRule": "devicetaintrules",
        "ResourceSlice": "resourceslices",
    }[kind]


def _version(obj: dict[str, Any]) -> dict[str, Any]:
    version = (obj.get("metadata") or {}).get("resourceVersion")
    return {"resourceVersion": version} if version else {}


EXAMPLE_NODES = ("gpu-node-0", "gpu-node-1")
"""The kwok nodes of `kubesched dev-cluster up --dra`."""
EXAMPLE_GPUS = NodeGpus(gpus=4, numa=2, partitionable=1, shared=1, fabric=1)
"""What each of them offers."""
READY_LINE = "the example DRA driver prepares claims"
"""What `run_driver` prints once it handled the claims that exist."""


def example_node(name: str) -> dict[str, Any]:
    """A kwok node for the example driver (32 CPUs, 256Gi, 110 pods)."""
    node = make_node().name(name).label(*NODE_LABEL).label("kubernetes.io/hostname", name)
    return node.capacity(cpu="32", memory="256Gi", pods="110").obj()


async def run_driver(
    kubeconfig: str, *, binding: str = "attach", on_ready: Callable[[str], None]
) -> None:
    """Prepare claims with the example driver until cancelled (`dev-cluster dra-driver`);
    `on_ready` gets a line starting with `READY_LINE` once the claims that exist were
    handled."""
    try:
        connection = await load_connection(kubeconfig=kubeconfig)
    except ConnectionConfigError as error:
        raise LocalClusterError(str(error)) from None
    client = KubeClient(connection, timeout=30.0)
    try:
        driver = DraDriver(client, binding=binding)
        ready = asyncio.Event()
        task = asyncio.create_task(driver.run(ready=ready))
        await ready.wait()
        on_ready(f"{READY_LINE} (driver {driver.driver}, binding conditions: {binding})")
        await task
    finally:
        await client.close()


async def open_driver(kubeconfig: Path, **options: Any) -> tuple[DraDriver, KubeClient]:
    """A driver on a new client for `kubeconfig` (close the client when done)."""
    connection = await load_connection(kubeconfig=str(kubeconfig))
    client = KubeClient(connection, timeout=30.0)
    return DraDriver(client, **options), client


class LocalDraDriver:
    """`DraDriver` for synchronous code (tests, `dev-cluster up --dra`): its own event loop
    in a background thread, which also runs the claim-preparing loop."""

    def __init__(self, kubeconfig: Path, *, driver: str = DRIVER, binding: str = "attach") -> None:
        self._kubeconfig = kubeconfig
        self._options = {"driver": driver, "binding": binding}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="dra-driver", daemon=True
        )
        self._driver: DraDriver | None = None
        self._client: KubeClient | None = None
        self._running: asyncio.Task[None] | None = None

    def __enter__(self) -> Self:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self, *, prepare: bool = True) -> None:
        """Connect; with `prepare`, start preparing claims (return once those that exist
        were handled)."""
        self._thread.start()
        self._driver, self._client = self._call(open_driver(self._kubeconfig, **self._options))
        if prepare:
            self._running = self._call(self._start_loop(self._driver))

    async def _start_loop(self, driver: DraDriver) -> asyncio.Task[None]:
        ready = asyncio.Event()
        task = asyncio.create_task(driver.run(ready=ready))
        await asyncio.wait_for(ready.wait(), timeout=30.0)
        return task

    def stop(self) -> None:
        """Stop preparing, close the client and the loop."""
        if not self._thread.is_alive():
            return
        self._call(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10.0)

    async def _shutdown(self) -> None:
        if self._running is not None:
            self._running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._running
        if self._client is not None:
            await self._client.close()

    @property
    def driver(self) -> DraDriver:
        """The async driver (for `await`-ing code on this object's loop)."""
        if self._driver is None:
            raise LocalClusterError("the DRA driver is not started: call start() first")
        return self._driver

    def publish_classes(self, *, extended_resource_name: str | None = None) -> None:
        """See `DraDriver.publish_classes`."""
        self._call(self.driver.publish_classes(extended_resource_name=extended_resource_name))

    def publish(self, node: str, gpus: NodeGpus | None = None) -> list[dict[str, Any]]:
        """See `DraDriver.publish`."""
        return self._call(self.driver.publish(node, gpus))

    def unpublish(self, node: str) -> None:
        """See `DraDriver.unpublish`."""
        self._call(self.driver.unpublish(node))

    def withdraw(self) -> None:
        """See `DraDriver.withdraw`."""
        self._call(self.driver.withdraw())

    def apply(self, obj: dict[str, Any]) -> dict[str, Any]:
        """See `DraDriver.apply`."""
        return self._call(self.driver.apply(obj))

    def _call(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` on the driver's loop; API and connection errors become one-line
        `LocalClusterError`s."""
        try:
            return asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout=60.0)
        except (ApiError, ConnectionConfigError) as error:
            raise LocalClusterError(f"the example DRA driver: {error}") from None
