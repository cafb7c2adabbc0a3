"""The `devices` comparison: the devices each scheduler allocated to a pod's claims.

On the same node both must allocate the same devices in the same order (upstream's allocator
is deterministic: pools sorted by ID, slices by name, devices in slice order). On different
nodes (kube-scheduler chose another of the equally scored nodes), each allocation must be
valid on its node, judged here without either scheduler's code: every device exists in a
slice of that node, matches its class's and request's selectors (their meaning from
`dra.SELECTORS`), has its taints tolerated, is not held by another claim (unless it allows
multiple allocations, then within its capacity), stays within its counter set, and the
requests' `matchAttribute` constraints hold; ExactCount gets its count.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.diff.claims import Allocation, Result, allocation, claim_entries, results
from tests.e2e.harness.diff.compare import Tally
from tests.e2e.harness.diff.dra import SELECTORS, attribute, gibibytes
from tests.e2e.harness.waiting import wait_for

DeviceId = tuple[str, str, str]
"""(driver, pool, device)."""


def taken(api: ApiClient, exclude: Iterable[tuple[str, str]]) -> list[Result]:
    """Every device allocated to a claim other than the (namespace, name) in `exclude`."""
    skip = set(exclude)
    found: list[Result] = []
    for claim in api.list("ResourceClaim"):
        meta = claim["metadata"]
        if (meta["namespace"], meta["name"]) not in skip:
            found.extend(results(claim) or ())
    return found


def problems(
    api: ApiClient, pod: dict[str, Any], node: str, ours: Allocation, others: list[Result]
) -> list[str]:
    """What is wrong with allocating `ours` to `pod` on `node` (empty: valid)."""
    world = _NodeDevices(api, node)
    found: list[str] = []
    namespace = pod["metadata"]["namespace"]
    for entry, name in claim_entries(api, pod).items():
        spec = api.get("ResourceClaim", name, namespace=namespace)["spec"]["devices"]
        found += [f"{entry}: {p}" for p in _claim_problems(world, spec, ours.get(entry, []))]
    mine = [r for entry in ours.values() for r in entry]
    found += world.sharing_problems(others, mine)
    return found


class _NodeDevices:
    """The devices, counter sets and classes a node's allocation is judged against."""

    def __init__(self, api: ApiClient, node: str) -> None:
        self.devices: dict[DeviceId, Mapping[str, Any]] = {}
        self.counters: dict[tuple[str, str, str, str], float] = {}
        for item in api.list("ResourceSlice"):
            spec = item["spec"]
            if spec.get("nodeName") != node:
                continue
            driver, pool = spec["driver"], spec["pool"]["name"]
            for device in spec.get("devices") or ():
                self.devices[(driver, pool, device["name"])] = device
            for counter_set in spec.get("sharedCounters") or ():
                for counter, value in counter_set["counters"].items():
                    key = (driver, pool, counter_set["name"], counter)
                    self.counters[key] = gibibytes(value["value"])
        self.classes = {
            c["metadata"]["name"]: [
                x["cel"]["expression"] for x in c["spec"].get("selectors") or ()
            ]
            for c in api.list("DeviceClass")
        }

    def device(self, result: Result) -> Mapping[str, Any] | None:
        return self.devices.get(result[1:4])

    def sharing_problems(self, others: list[Result], mine: list[Result]) -> list[str]:
        """Devices used twice, shared capacity or counter sets overdrawn."""
        every = [*others, *mine]
        uses = Counter(r[1:4] for r in every)
        consumed = self._consumed(every)
        found: list[str] = []
        for r in mine:
            device = self.device(r)
            if device is None:
                continue
            if not device.get("allowMultipleAllocations"):
                if uses[r[1:4]] > 1:
                    found.append(f"device {r[3]} of {r[1]} is allocated {uses[r[1:4]]} times")
                continue
            for capacity, value in (device.get("capacity") or {}).items():
                used = consumed[(*r[1:4], capacity)]
                if used > gibibytes(value["value"]):
                    found.append(f"device {r[3]}: {used}Gi of {capacity} consumed")
        found += [
            f"counter set {key[2]}: {used}Gi of {key[3]} consumed"
            for key, used in consumed.items()
            if key in self.counters and used > self.counters[key]
        ]
        return sorted(set(found))

    def _consumed(self, every: list[Result]) -> defaultdict[tuple[str, ...], float]:
        """(driver, pool, counter set, counter) and (driver, pool, device, capacity) -> the
        GiB the allocated devices consume of it."""
        consumed: defaultdict[tuple[str, ...], float] = defaultdict(float)
        for r in every:
            device = self.device(r)
            for item in (device or {}).get("consumesCounters") or ():
                for counter, value in item["counters"].items():
                    consumed[(r[1], r[2], item["counterSet"], counter)] += gibibytes(value["value"])
            for capacity, value in r[4]:
                consumed[(*r[1:4], capacity)] += gibibytes(value)
        return consumed


def _claim_problems(world: _NodeDevices, spec: Mapping[str, Any], got: list[Result]) -> list[str]:
    found: list[str] = []
    for request in spec.get("requests") or ():
        name = request["name"]
        mine = [r for r in got if r[0] == name or r[0].startswith(name + "/")]
        if "exactly" in request:
            found += _request_problems(world, name, request["exactly"], mine)
            continue
        subs = {f"{name}/{s['name']}": s for s in request["firstAvailable"]}
        chosen = {r[0] for r in mine}
        if len(chosen) != 1 or not chosen <= set(subs):
            found.append(f"request {name}: devices of subrequests {sorted(chosen)}")
        else:
            sub = next(iter(chosen))
            found += _request_problems(world, sub, subs[sub], mine)
    extra = [r[0] for r in got if r[0].split("/")[0] not in {q["name"] for q in spec["requests"]}]
    if extra:
        found.append(f"results for unknown requests {extra}")
    for constraint in spec.get("constraints") or ():
        names = constraint.get("requests") or [q["name"] for q in spec["requests"]]
        key = constraint["matchAttribute"]
        values = set()
        for r in got:
            device = world.device(r)
            if r[0].split("/")[0] in names and device is not None:
                values.add(attribute(r[1], device, key))
        if len(values) > 1 or None in values:
            found.append(f"matchAttribute {key}: values {sorted(map(str, values))}")
    return found


def _request_problems(
    world: _NodeDevices, name: str, body: Mapping[str, Any], got: list[Result]
) -> list[str]:
    found: list[str] = []
    if body.get("allocationMode", "ExactCount") == "ExactCount":
        if len(got) != body.get("count", 1):
            found.append(f"request {name}: {len(got)} devices, wants {body.get('count', 1)}")
    elif not got:
        found.append(f"request {name}: no device in All mode")
    expressions = [
        *world.classes.get(body["deviceClassName"], ["<no such class>"]),
        *(s["cel"]["expression"] for s in body.get("selectors") or ()),
    ]
    for r in got:
        device = world.device(r)
        if device is None:
            found.append(f"request {name}: {r[1]}/{r[2]}/{r[3]} is not on the node")
            continue
        found += [
            f"request {name}: {r[3]} fails {expression}"
            for expression in expressions
            if not SELECTORS.get(expression, _never)(r[1], device)
        ]
        found += [
            f"request {name}: {r[3]} has untolerated taint {taint}"
            for taint in device.get("taints") or ()
            if not any(_tolerates(t, taint) for t in body.get("tolerations") or ())
        ]
        found += [f"request {name}: {p}" for p in _capacity_problems(body, r, device)]
    return found


def _never(_driver: str, _device: Mapping[str, Any]) -> bool:
    return False


def _capacity_problems(
    body: Mapping[str, Any], result: Result, device: Mapping[str, Any]
) -> list[str]:
    found = []
    for capacity, value in ((body.get("capacity") or {}).get("requests") or {}).items():
        has = (device.get("capacity") or {}).get(capacity)
        consumed = dict(result[4]).get(capacity)
        wanted = gibibytes(value)
        if has is None or gibibytes(has["value"]) < wanted:
            found.append(f"{result[3]} lacks {value} of {capacity}")
        elif device.get("allowMultipleAllocations") and (
            consumed is None or gibibytes(consumed) < wanted
        ):
            found.append(f"{result[3]} consumes {consumed} of {capacity}")
    return found


def _tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    if toleration.get("effect") and toleration["effect"] != taint["effect"]:
        return False
    if toleration.get("key") and toleration["key"] != taint["key"]:
        return False
    if toleration.get("operator", "Equal") == "Exists":
        return True
    return bool(toleration.get("value", "") == taint.get("value", ""))


def compare_devices(
    api: ApiClient,
    tally: Tally,
    pod: dict[str, Any],
    node: str,
    twin: tuple[str, Allocation] | None,
) -> None:
    """kube-scheduler bound `pod` (with claims) to `node`; `twin`: the node and devices the
    kubesched process gave the twin of the pod on the same state (None: no twin bound)."""
    meta = pod["metadata"]
    key = f"{meta['namespace']}/{meta['name']}"
    kube = wait_for(
        lambda: allocation(api, pod),
        until=lambda found: found is not None,
        timeout=10,
        message=f"the claims of {key} are allocated",
    )
    assert kube is not None  # what wait_for waited for
    if twin is not None and twin[0] == node:
        detail = f"on {node}: kube-scheduler {kube}, kubesched {twin[1]}"
        tally.check("devices", key, twin[1] == kube, detail)
        return
    own = [(meta["namespace"], name) for name in claim_entries(api, pod).values()]
    others = taken(api, own)
    found = {"kube-scheduler": (node, kube, problems(api, pod, node, kube, others))}
    if twin is not None:
        found["kubesched"] = (twin[0], twin[1], problems(api, pod, twin[0], twin[1], others))
    detail = "; ".join(
        f"{who} on {where} {devices}: {wrong}" for who, (where, devices, wrong) in found.items()
    )
    tally.check("devices", key, not any(wrong for _, _, wrong in found.values()), detail)
