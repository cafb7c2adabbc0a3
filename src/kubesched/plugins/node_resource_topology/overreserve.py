"""The over-reserve cache (scheduler-plugins' `cache.OverReserve`, `cacheResyncPeriodSeconds`
above 0): the NRT objects as last trusted, minus what this scheduler reserved on each node
since, taken from every zone at once (the kubelet picks the zone, the scheduler cannot know
which), so a node is never thought emptier than it is.

A node's data is trusted again (flushed: reservations dropped, the latest NRT object taken)
by a resync, run at most once per period, for the nodes that need one: a node the Filter
refused since it was last reserved on ("maybe over-reserved"), a node where a pod this
scheduler did not place runs ("foreign pods": the node is left out meanwhile, `invalid node
topology data`), and a node whose topology-manager configuration changed (`resyncScope: All`).
An over-reserved or foreign node is flushed only when its NRT object's pod-set fingerprint
matches the pods running there (all of them, or those with exclusive resources: the
`resyncMethod`, or the object's own method under `Autodetect`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.model import ApiObject, Pod
from kubesched.model.pod_containers import GUARANTEED
from kubesched.model.quantity import milli_value
from kubesched.plugins.node_resource_topology import fingerprint
from kubesched.plugins.node_resource_topology.fit import effective_request, is_native
from kubesched.plugins.node_resource_topology.topology import topology_manager

Body = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class CacheSettings:
    """The `cache` args that matter here, with scheduler-plugins' defaults."""

    resync_period_seconds: float
    foreign_pods_detect: str = "All"
    """`None`, `All` or `OnlyExclusiveResources`."""
    resync_method: str = "Autodetect"
    """`Autodetect`, `All` or `OnlyExclusiveResources`."""
    resync_scope: str = "All"
    """`All` (also resync nodes whose topology-manager configuration changed) or
    `OnlyResources`."""
    informer_mode: str = "Dedicated"
    """`Dedicated`: every bound pod not Pending counts at resync; `Shared`: Running pods."""


def has_exclusive_resources(pod: Pod) -> bool:
    """`AreExclusiveForPod`: a device (non-native resource), or a Guaranteed pod's memory,
    hugepages or whole cpus."""
    requests = pod.requests
    if any(not is_native(name) for name in requests.scalar):
        return True
    if pod.qos_class != GUARANTEED:
        return False
    whole_cpus = requests.milli_cpu > 0 and requests.milli_cpu % 1000 == 0
    hugepages = any(n.startswith("hugepages-") and v > 0 for n, v in requests.scalar.items())
    return whole_cpus or requests.memory > 0 or hugepages


@dataclass
class OverReserve:
    """The cache itself; `now` is the clock resyncs are timed by."""

    settings: CacheSettings
    current: Callable[[str], ApiObject | None]
    """The NRT object as the informer last saw it, by node name."""
    pods: Callable[[], Iterable[Pod]]
    now: Callable[[], float] = time.monotonic
    generation: int = 0
    trusted: dict[str, Body] = field(default_factory=dict)
    assumed: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    """Node -> pod `namespace/name` -> its effective request (milli-values)."""
    refused: Counter[str] = field(default_factory=Counter)
    """Nodes the Filter refused since their last Reserve (maybe over-reserved)."""
    foreign: Counter[str] = field(default_factory=Counter)
    config_changed: Counter[str] = field(default_factory=Counter)
    own_pods: set[str] = field(default_factory=set)
    """UIDs of the pods this cache reserved (they are not foreign)."""
    foreign_before_nrt: set[str] = field(default_factory=set)
    """Nodes with foreign pods seen before their NRT object: marked when it comes."""
    _next_resync: float = 0.0

    # ---- what the plugin reads ----------------------------------------------------------

    def topology(self, node_name: str) -> tuple[Body | None, bool]:
        """The node's NRT body with the reservations taken from every zone, and whether it
        may be used (False while the node has foreign pods)."""
        self.resync_if_due()
        if node_name in self.foreign:
            return None, False
        body = self.trusted.get(node_name)
        if body is None:
            return None, True
        reserved = self.assumed.get(node_name)
        return (_minus(body, reserved.values()) if reserved else body), True

    def maybe_over_reserved(self, node_name: str) -> None:
        self.refused[node_name] += 1

    def reserve(self, node_name: str, pod: Pod) -> None:
        if pod.container_resources is not None:
            request = effective_request(pod.container_resources)
            self.assumed.setdefault(node_name, {})[pod.key] = request
        self.own_pods.add(pod.uid)
        self.refused.pop(node_name, None)

    def unreserve(self, node_name: str, pod: Pod) -> None:
        self.assumed.get(node_name, {}).pop(pod.key, None)

    def post_bind(self, node_name: str, pod: Pod) -> None:
        """Nothing: the reservation stays until the node is flushed."""

    # ---- informer events ----------------------------------------------------------------

    def topology_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        """An NRT object first seen is trusted as it is (scheduler-plugins lists them once,
        at start); an update that changes the topology-manager configuration marks the node
        for a resync under `resyncScope: All`."""
        if new is None:
            return
        if new.name not in self.trusted:
            self.trusted[new.name] = new.body
            if new.name in self.foreign_before_nrt:
                self.foreign_before_nrt.discard(new.name)
                self.foreign[new.name] += 1
            return
        if old is None or self.settings.resync_scope != "All":
            return
        if topology_manager(self.trusted[new.name]) != topology_manager(new.body):
            self.config_changed[new.name] += 1

    def pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        """Foreign-pod detection: a bound pod this scheduler did not place marks its node."""
        pod = new if new is not None else old
        if pod is None or not pod.node_name:
            return
        if pod.uid in self.own_pods:
            if new is None:
                self.own_pods.discard(pod.uid)
            return
        detect = self.settings.foreign_pods_detect
        if detect == "None":
            return
        if detect == "OnlyExclusiveResources" and not has_exclusive_resources(pod):
            return
        if pod.node_name in self.trusted:
            self.foreign[pod.node_name] += 1
        else:
            self.foreign_before_nrt.add(pod.node_name)

    # ---- resync -------------------------------------------------------------------------

    def resync_if_due(self) -> None:
        if self.now() < self._next_resync:
            return
        self._next_resync = self.now() + self.settings.resync_period_seconds
        self.resync()

    def resync(self) -> None:
        """Flush the desynced nodes whose data can be trusted again."""
        dirty = set(self.foreign) | set(self.refused)
        changed = set(self.config_changed)
        if not dirty and not changed:
            return
        running = self._running_pods() if dirty else {}
        fresh = []
        for node_name in sorted(dirty):
            obj = self.current(node_name)
            if obj is not None and self._fingerprint_matches(obj, running.get(node_name, [])):
                fresh.append(obj)
        fresh.extend(o for n in sorted(changed) if (o := self.current(n)) is not None)
        self.flush(fresh)

    def flush(self, objects: Iterable[ApiObject]) -> None:
        """Trust these NRT objects as they are; the generation grows if any was flushed."""
        flushed = False
        for obj in objects:
            self.trusted[obj.name] = obj.body
            for marks in (
                self.assumed,
                self.refused,
                self.foreign,
                self.config_changed,
            ):
                marks.pop(obj.name, None)
            flushed = True
        if flushed:
            self.generation += 1

    def _running_pods(self) -> dict[str, list[Pod]]:
        by_node: dict[str, list[Pod]] = {}
        for pod in self.pods():
            if self._counts_at_resync(pod):
                by_node.setdefault(pod.node_name, []).append(pod)
        return by_node

    def _counts_at_resync(self, pod: Pod) -> bool:
        if self.settings.informer_mode == "Shared":
            return pod.phase == "Running"
        return pod.phase != "Pending" and bool(pod.node_name)

    def _fingerprint_matches(self, obj: ApiObject, pods: list[Pod]) -> bool:
        expected, only_exclusive = self._expected_fingerprint(obj)
        if not expected:
            return False
        counted = (p for p in pods if not only_exclusive or has_exclusive_resources(p))
        return fingerprint.matches(((p.namespace, p.name) for p in counted), expected)

    def _expected_fingerprint(self, obj: ApiObject) -> tuple[str, bool]:
        """The signature the object carries and whether it counts only pods with exclusive
        resources (`podFingerprintForNodeTopology`)."""
        attributes = {
            a.get("name"): str(a.get("value") or "") for a in obj.body.get("attributes") or ()
        }
        if fingerprint.ATTRIBUTE in attributes:
            method = self.settings.resync_method
            own = attributes.get(fingerprint.ATTRIBUTE_METHOD)
            exclusive = method == "OnlyExclusiveResources" or (
                method == "Autodetect" and own == fingerprint.METHOD_WITH_EXCLUSIVE_RESOURCES
            )
            return attributes[fingerprint.ATTRIBUTE], exclusive
        return obj.annotations.get(fingerprint.ANNOTATION, ""), False


def _minus(body: Body, reservations: Iterable[Mapping[str, int]]) -> dict[str, Any]:
    """A copy of `body` whose zones' available amounts lose every reservation, each zone
    the whole of it (at most down to 0)."""
    zones = []
    for zone in body.get("zones") or ():
        resources = [dict(info) for info in zone.get("resources") or ()]
        zones.append({**zone, "resources": resources})
    out = {**body, "zones": zones}
    for request in reservations:
        for zone in zones:
            for info in zone["resources"]:
                if info.get("name") in request:
                    info["available"] = _less(info.get("available", 0), request[info["name"]])
    return out


def _less(available: Any, requested: int) -> str:
    """`available` minus `requested` milli-units, as a quantity in milli-units."""
    left = milli_value(available) - requested
    return f"{max(left, 0)}m"
