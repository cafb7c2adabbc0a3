"""Builders named as upstream's allocator test helpers (`allocatortesting`), producing the
API objects' JSON, so the ported table (`dra_upstream_allocator_cases`) reads like the Go one
and every object goes through `from_json` as it would from the API server."""

# Names, signatures and long lines mirror upstream's Go helpers, so the ported table reads as theirs.
# ruff: noqa: N802, N816, A001, A002, PLR0917, E501
from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from kubesched.dra.structured import DeviceID, Features, SharedDeviceID
from kubesched.dra.structured.types import ALL_FEATURES_OFF
from kubesched.model.quantity import BINARY_SI, DECIMAL_SI, Quantity

# --- Go names ------------------------------------------------------------------------------

region1, region2 = "region-1", "region-2"
node1, node2 = "node-1", "node-2"
classA, classB = "class-a", "class-b"
driverA, driverB = "driver-a", "driver-b"
pool1, pool2, pool3, pool4 = "pool-1", "pool-2", "pool-3", "pool-4"
req0, req1, req2, req3 = "req-0", "req-1", "req-2", "req-3"
subReq0, subReq1 = "subReq-0", "subReq-1"
req0SubReq0, req0SubReq1 = "req-0/subReq-0", "req-0/subReq-1"
req1SubReq0, req1SubReq1 = "req-1/subReq-0", "req-1/subReq-1"
req2SubReq0, req2SubReq1 = "req-2/subReq-0", "req-2/subReq-1"
claim0, claim1 = "claim-0", "claim-1"
slice1, slice2, slice3, slice4 = "slice-1", "slice-2", "slice-3", "slice-4"
device0, device1, device2, device3, device4 = (f"device-{i}" for i in range(5))
counterSet1, counterSet2 = "counter-set-1", "counter-set-2"
capacity0, capacity1 = "capacity-0", "capacity-1"
fieldNameKey, regionKey, planetKey, planetValueEarth = "metadata.name", "region", "planet", "earth"
fromCounters = "fromCounters"
nodeSelectionAll, nodeSelectionPerDevice = "nodeSelectionAll", "nodeSelectionPerDevice"
fixedShareID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"

zero, one, two, three, four = (Quantity(i, BINARY_SI) for i in range(5))
pointOne, pointTwo, pointTwoFive = (
    Quantity.parse("100m"),
    Quantity.parse("200m"),
    Quantity.parse("250m"),
)
pointThree = Quantity.milli(300, DECIMAL_SI)

resourceapi = SimpleNamespace(
    DeviceAllocationModeAll="All",
    DeviceAllocationModeExactCount="ExactCount",
    DeviceTaintEffectNoSchedule="NoSchedule",
    DeviceTaintEffectNoExecute="NoExecute",
    DeviceTaintEffectNone="None",
    DeviceTolerationOpExists="Exists",
    DeviceTolerationOpEqual="Equal",
    AllocationConfigSourceClaim="FromClaim",
    AllocationConfigSourceClass="FromClass",
    AllocationResultsMaxSize=32,
    SkipNodeOperationAll="All",
    FullyQualifiedName=str,
    QualifiedName=str,
    DeviceAllocationMode=str,
)
v1 = SimpleNamespace(NodeSelectorOpIn="In")
math = SimpleNamespace(MaxInt=sys.maxsize)
ptr = SimpleNamespace(To=lambda x: x)


def _make_shared_device_id(device_id: DeviceID, share: str | None) -> SharedDeviceID:
    return SharedDeviceID(*device_id, share or "")


internal = SimpleNamespace(
    Stable="stable",
    Incubating="incubating",
    Experimental="experimental",
    AllocatorChannel=str,
    MakeSharedDeviceID=_make_shared_device_id,
)
sets = SimpleNamespace(New=lambda *items: set(items))
slices = SimpleNamespace(Concat=lambda *lists: [x for lst in lists for x in (lst or [])])


def new(value: Any) -> Any:
    return value


def int64(value: Any) -> Any:
    return value


def MakeDeviceID(driver: str, pool: str, device: str) -> DeviceID:
    return DeviceID(driver, pool, device)


class _Resource:
    BinarySI = BINARY_SI
    DecimalSI = DECIMAL_SI

    @staticmethod
    def MustParse(text: str) -> Quantity:
        return Quantity.parse(text)

    @staticmethod
    def NewQuantity(value: int, fmt: str) -> Quantity:
        return Quantity(value, fmt)


resource = _Resource()


def _sprintf(template: str, *args: Any) -> str:
    values = iter(args)

    def one(match: re.Match[str]) -> str:
        verb = match.group(1)
        value = next(values)
        if verb == "q":
            return json.dumps(str(value))
        if verb == "v" and isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return re.sub(r"%([sdvq])", one, template)


fmt = SimpleNamespace(Sprintf=_sprintf)


@dataclass(frozen=True)
class ErrorMatcher:
    substrings: tuple[str, ...]

    def matches(self, text: str) -> bool:
        return all(s in text for s in self.substrings)


class _Gomega:
    @staticmethod
    def ContainSubstring(text: str) -> str:
        return text

    @staticmethod
    def MatchError(*parts: Any) -> ErrorMatcher:
        flat: list[str] = []
        for part in parts:
            flat.extend(part.substrings if isinstance(part, ErrorMatcher) else [part])
        return ErrorMatcher(tuple(flat))

    @staticmethod
    def And(*parts: Any) -> ErrorMatcher:
        return _Gomega.MatchError(*parts)


gomega = _Gomega()


# --- Go struct literals -> API JSON --------------------------------------------------------

_JSON_NAMES = {
    "CEL": "cel",
    "StringValue": "string",
    "IntValue": "int",
    "BoolValue": "bool",
    "VersionValue": "version",
    "StringValues": "strings",
    "IntValues": "ints",
    "BoolValues": "bools",
    "VersionValues": "versions",
    "ShareID": "shareID",
    "ObjectMeta": "metadata",
}


_INLINED = frozenset({"DeviceConfiguration"})


@dataclass
class S:
    """A Go struct literal: its type name and fields as written."""

    type: str
    fields: dict[str, Any] = field(default_factory=dict)

    def __init__(self, type: str, **fields: Any) -> None:
        self.type = type
        self.fields = fields


def js(value: Any) -> Any:
    """Go values -> the API's JSON."""
    if isinstance(value, S):
        out: dict[str, Any] = {}
        for k, v in value.fields.items():
            if v is None:
                continue
            if k in _INLINED:  # Go's embedded structs are inlined in JSON
                out.update(js(v))
            else:
                out[_JSON_NAMES.get(k, k[:1].lower() + k[1:])] = js(v)
        return out
    if isinstance(value, Quantity):
        return str(value)
    if isinstance(value, _Wrapped):
        return js(value.data)
    if isinstance(value, Mapping):
        return {k: js(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [js(v) for v in value]
    return value


class _Wrapped:
    def __init__(self, data: Any) -> None:
        self.data = data

    def obj(self) -> Any:
        return self.data


def objects(*items: Any) -> list[Any]:
    return list(items)


def unwrap(*items: Any) -> list[Any]:
    return [i.data if isinstance(i, _Wrapped) else i for i in items]


unwrapResourceSlices = unwrap


# --- nodes and classes -------------------------------------------------------------------


def node(name: str, region: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {regionKey: region, planetKey: planetValueEarth}}}


def nodeWithDRAOptionalNodeOperations(name: str, region: str) -> dict[str, Any]:
    out = node(name, region)
    out["status"] = {"declaredFeatures": ["DRAOptionalNodeOperations"]}
    return out


def _selector(expression: str) -> dict[str, Any]:
    return {"cel": {"expression": expression}}


def class_(name: str, driver: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {"selectors": [_selector(f'device.driver == "{driver}"')]},
    }


def classWithAllowMultipleAllocations(name: str, driver: str, multialloc: bool) -> dict[str, Any]:
    expression = f'device.driver == "{driver}" && device.allowMultipleAllocations == {str(multialloc).lower()}'
    return {"metadata": {"name": name}, "spec": {"selectors": [_selector(expression)]}}


def deviceConfiguration(driver: str, attribute: str) -> dict[str, Any]:
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def classWithConfig(name: str, driver: str, attribute: str) -> dict[str, Any]:
    out = class_(name, driver)
    out["spec"]["config"] = [deviceConfiguration(driver, attribute)]
    return out


# --- claims ------------------------------------------------------------------------------


class _Request(_Wrapped):
    def withCapacityRequest(self, quantity: Quantity | None) -> _Request:
        data = json.loads(json.dumps(self.data))
        data["exactly"]["capacity"] = capacityRequests(quantity)
        return _Request(data)

    def withSelectors(self, *selectors: Any) -> _Request:
        data = json.loads(json.dumps(self.data))
        data["exactly"]["selectors"] = js(list(selectors))
        return _Request(data)


class _SubRequest(_Wrapped):
    def withAllocationMode(self, mode: str) -> _SubRequest:
        return _SubRequest({**self.data, "allocationMode": mode})

    def withCapacityRequest(self, quantity: Quantity | None) -> _SubRequest:
        return _SubRequest({**self.data, "capacity": capacityRequests(quantity)})


def request(name: str, class_name: str, count: int, *selectors: Any) -> dict[str, Any]:
    exactly: dict[str, Any] = {
        "count": count,
        "allocationMode": "ExactCount",
        "deviceClassName": class_name,
    }
    if selectors:
        exactly["selectors"] = js(list(selectors))
    return {"name": name, "exactly": exactly}


def requestWithDerivedAttributes(
    name: str, class_name: str, count: int, derived: Any, *selectors: Any
) -> dict[str, Any]:
    out = request(name, class_name, count, *selectors)
    out["exactly"]["derivedAttributes"] = js(derived)
    return out


def deviceRequest(name: str, class_name: str, count: int) -> _Request:
    return _Request(request(name, class_name, count))


def allDeviceRequest(name: str, class_name: str) -> _Request:
    return _Request(
        {"name": name, "exactly": {"allocationMode": "All", "deviceClassName": class_name}}
    )


def subRequest(name: str, class_name: str, count: int, *extra: Any) -> _SubRequest:
    out: dict[str, Any] = {
        "name": name,
        "count": count,
        "allocationMode": "ExactCount",
        "deviceClassName": class_name,
    }
    for item in extra:
        if isinstance(item, S) and item.type == "DeviceSelector":
            out.setdefault("selectors", []).append(js(item))
        elif isinstance(item, S) and item.type == "DeviceToleration":
            out.setdefault("tolerations", []).append(js(item))
        elif isinstance(item, list):
            out.setdefault("derivedAttributes", []).extend(js(item))
        else:
            raise TypeError(f"unsupported subrequest field {item!r}")
    return _SubRequest(out)


def requestWithPrioritizedList(name: str, *subs: _SubRequest) -> _Request:
    return _Request({"name": name, "firstAvailable": [s.data for s in subs]})


class _Claim(_Wrapped):
    def _copy(self) -> dict[str, Any]:
        copied: dict[str, Any] = json.loads(json.dumps(self.data))
        return copied

    def _devices(self, data: dict[str, Any]) -> dict[str, Any]:
        devices: dict[str, Any] = data.setdefault("spec", {}).setdefault("devices", {})
        return devices

    def withTolerations(self, *tolerations: Any) -> _Claim:
        data = self._copy()
        for req in self._devices(data).get("requests") or []:
            req["exactly"].setdefault("tolerations", []).extend(js(list(tolerations)))
        return _Claim(data)

    def withRequests(self, *requests: Any) -> _Claim:
        data = self._copy()
        self._devices(data)["requests"] = [js(r) for r in requests]
        return _Claim(data)

    def withConstraints(self, *constraints: Any) -> _Claim:
        data = self._copy()
        self._devices(data)["constraints"] = js(list(constraints))
        return _Claim(data)

    def withConfigs(self, configs: Any) -> _Claim:
        data = self._copy()
        self._devices(data)["config"] = js(configs)
        return _Claim(data)


def claim(name: str) -> _Claim:
    return _Claim({"metadata": {"name": name}})


def claimWithRequests(name: str, constraints: Any, *requests: Any) -> _Claim:
    devices: dict[str, Any] = {"requests": [js(r) for r in requests]}
    if constraints:
        devices["constraints"] = js(constraints)
    return _Claim({"metadata": {"name": name}, "spec": {"devices": devices}})


def claimWithRequest(name: str, req: str, class_name: str, *constraints: Any) -> _Claim:
    return claimWithRequests(name, list(constraints), request(req, class_name, 1))


def claimWithDeviceConfig(
    name: str, req: str, class_name: str, driver: str, attribute: str
) -> _Claim:
    out = claimWithRequest(name, req, class_name)
    out.data["spec"]["devices"]["config"] = [deviceConfiguration(driver, attribute)]
    return out


def deviceClaimConfig(requests: list[str], config: Any) -> dict[str, Any]:
    return {"requests": requests, **js(config)}


def capacityRequests(quantity: Quantity | None) -> dict[str, Any]:
    return {"requests": {capacity0: str(quantity)} if quantity is not None else {}}


# --- devices and slices --------------------------------------------------------------------


class _Device(_Wrapped):
    def __init__(self, data: dict[str, Any], from_counters: bool = False) -> None:
        super().__init__(data)
        self.from_counters = from_counters

    def _copy(self) -> dict[str, Any]:
        copied: dict[str, Any] = json.loads(json.dumps(self.data))
        return copied

    def withTaints(self, *taints: Any) -> _Device:
        data = self._copy()
        data.setdefault("taints", []).extend(js(list(taints)))
        return _Device(data)

    def withDeviceCounterConsumption(self, *consumption: Any) -> _Device:
        data = self._copy()
        data.setdefault("consumesCounters", []).extend(js(list(consumption)))
        if self.from_counters:
            data["capacity"] = {
                name: {"value": counter["value"]}
                for c in data["consumesCounters"]
                for name, counter in c["counters"].items()
            }
        return _Device(data)

    def withNodeSelection(self, selection: Any) -> _Device:
        data = self._copy()
        if selection == nodeSelectionAll:
            data["allNodes"] = True
        elif isinstance(selection, str):
            data["nodeName"] = selection
        else:
            data["nodeSelector"] = js(selection)
        return _Device(data)

    def withBindingConditions(self, conditions: Any, failures: Any) -> _Device:
        data = self._copy()
        if conditions is not None:
            data["bindingConditions"] = conditions
        if failures is not None:
            data["bindingFailureConditions"] = failures
        return _Device(data)

    def withBindsToNode(self, binds: bool) -> _Device:
        return _Device({**self._copy(), "bindsToNode": binds})

    def withAllowMultipleAllocations(self) -> _Device:
        return _Device({**self._copy(), "allowMultipleAllocations": True})

    def _policy(self, capacity: Mapping[str, Quantity], policy: dict[str, Any]) -> _Device:
        data = self._copy()
        caps = data.setdefault("capacity", {})
        for name, quantity in capacity.items():
            caps[name] = {"value": str(quantity), "requestPolicy": policy}
        return _Device(data)

    def withCapacityRequestPolicyRange(self, capacity: Mapping[str, Quantity]) -> _Device:
        return self._policy(
            capacity, {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}
        )

    def withFractionalCapacityRequestPolicyRange(self, capacity: Mapping[str, Quantity]) -> _Device:
        return self._policy(
            capacity, {"default": "200m", "validRange": {"min": "200m", "step": "100m", "max": "1"}}
        )

    def withCapacityRequestPolicyValidValues(
        self, default: Quantity, capacity: Mapping[str, Quantity], additional: list[Quantity] | None
    ) -> _Device:
        values = [str(default), *(str(v) for v in additional or ())]
        return self._policy(capacity, {"default": str(default), "validValues": values})


def device(name: str, capacity: Any, attributes: Any) -> _Device:
    data: dict[str, Any] = {"name": name}
    if attributes:
        data["attributes"] = js(attributes)
    from_counters = capacity == fromCounters
    if isinstance(capacity, Mapping):
        data["capacity"] = {
            k: js(v) if isinstance(v, S) else {"value": str(v)} for k, v in capacity.items()
        }
    return _Device(data, from_counters)


def deviceCounterConsumption(
    counter_set: str, counters: Mapping[str, Quantity] | None
) -> dict[str, Any]:
    return {
        "counterSet": counter_set,
        "counters": {k: {"value": str(v)} for k, v in (counters or {}).items()},
    }


def deviceCounterConsumptionWithGroups(
    counter_set: str, counters: Mapping[str, Quantity] | None, *groups: str
) -> dict[str, Any]:
    return {**deviceCounterConsumption(counter_set, counters), "compatibilityGroups": list(groups)}


def counterSet(name: str, counters: Mapping[str, Quantity] | None) -> dict[str, Any]:
    return {"name": name, "counters": {k: {"value": str(v)} for k, v in (counters or {}).items()}}


def resourcePool(name: str, count: int) -> dict[str, Any]:
    return {"name": name, "resourceSliceCount": count, "generation": 1}


class _Slice(_Wrapped):
    def withSkipNodeOperations(self, *skip: Any) -> _Slice:
        data = json.loads(json.dumps(self.data))
        data["spec"]["skipNodeOperations"] = list(skip)
        return _Slice(data)


def slice(name: str, selection: Any, pool: Any, driver: str) -> dict[str, Any]:
    pool_json = (
        {"name": pool, "resourceSliceCount": 1, "generation": 1}
        if isinstance(pool, str)
        else js(pool)
    )
    spec: dict[str, Any] = {"driver": driver, "pool": pool_json}
    if isinstance(selection, S):
        spec["nodeSelector"] = js(selection)
    elif selection == nodeSelectionAll:
        spec["allNodes"] = True
    elif selection == nodeSelectionPerDevice:
        spec["perDeviceNodeSelection"] = True
    else:
        spec["nodeName"] = selection
    return {"metadata": {"name": name}, "spec": spec}


def sliceWithDevices(
    name: str, selection: Any, pool: Any, driver: str, *devices: _Device
) -> _Slice:
    out = slice(name, selection, pool, driver)
    if devices:
        out["spec"]["devices"] = [d.data for d in devices]
    return _Slice(out)


def sliceWithNoDevices(name: str, selection: Any, pool: Any, driver: str) -> _Slice:
    return sliceWithDevices(name, selection, pool, driver)


def sliceWithOneDevice(name: str, selection: Any, pool: Any, driver: str) -> _Slice:
    return sliceWithDevices(name, selection, pool, driver, device(device1, None, None))


def sliceWithMultipleDevices(
    name: str, selection: Any, pool: Any, driver: str, count: int
) -> _Slice:
    return sliceWithDevices(
        name, selection, pool, driver, *(device(f"device-{i}", None, None) for i in range(count))
    )


def sliceWithCounterSets(name: str, selection: Any, pool: Any, driver: str, *sets_: Any) -> _Slice:
    out = slice(name, selection, pool, driver)
    out["spec"]["sharedCounters"] = list(sets_)
    return _Slice(out)


# --- expected results --------------------------------------------------------------------


def deviceAllocationResult(
    req: str, driver: str, pool: str, dev: str, admin: bool, *tolerations: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"request": req, "driver": driver, "pool": pool, "device": dev}
    if tolerations:
        out["tolerations"] = js(list(tolerations))
    if admin:
        out["adminAccess"] = True
    return out


def deviceAllocationResultWithSkipNodeOperations(
    req: str, driver: str, pool: str, dev: str, *skip: Any
) -> dict[str, Any]:
    return {
        **deviceAllocationResult(req, driver, pool, dev, False),
        "skipNodeOperations": list(skip),
    }


class _Result(_Wrapped):
    def withConsumedCapacity(
        self, share_id: str | None, consumed: Mapping[str, Quantity] | None
    ) -> dict[str, Any]:
        out = dict(self.data)
        if share_id is not None:
            out["shareID"] = share_id
        if consumed:
            out["consumedCapacity"] = {k: str(v) for k, v in consumed.items()}
        return out


def deviceRequestAllocationResult(req: str, driver: str, pool: str, dev: str) -> _Result:
    return _Result({"request": req, "driver": driver, "pool": pool, "device": dev})


def deviceRequestAllocationResultWithBindingConditions(
    req: str, driver: str, pool: str, dev: str, conditions: Any, failures: Any, *tolerations: Any
) -> dict[str, Any]:
    out = deviceAllocationResult(req, driver, pool, dev, False, *tolerations)
    if conditions:
        out["bindingConditions"] = conditions
    if failures:
        out["bindingFailureConditions"] = failures
    return out


def multipleDeviceAllocationResults(
    req: str, driver: str, pool: str, count: int, start: int
) -> list[dict[str, Any]]:
    return [
        deviceAllocationResult(req, driver, pool, f"device-{i}", False)
        for i in range(start, start + count)
    ]


def nodeLabelSelector(key: str, *values: str) -> S:
    return S(
        "NodeSelector",
        NodeSelectorTerms=[
            S(
                "NodeSelectorTerm",
                MatchExpressions=[
                    S("NodeSelectorRequirement", Key=key, Operator="In", Values=list(values))
                ],
            )
        ],
    )


def localNodeSelector(node_name: str) -> S:
    return S(
        "NodeSelector",
        NodeSelectorTerms=[
            S(
                "NodeSelectorTerm",
                MatchFields=[
                    S(
                        "NodeSelectorRequirement",
                        Key=fieldNameKey,
                        Operator="In",
                        Values=[node_name],
                    )
                ],
            )
        ],
    )


def allocationResult(selector: Any, *results: Any) -> dict[str, Any]:
    return {"results": [js(r) for r in results], "config": [], "nodeSelector": js(selector)}


def allocationResultWithConfig(
    selector: Any, driver: str, source: str, attribute: str, *results: Any
) -> dict[str, Any]:
    return {
        "results": [js(r) for r in results],
        "config": [{"source": source, **deviceConfiguration(driver, attribute)}],
        "nodeSelector": js(selector),
    }


def allocationResultWithConfigs(selector: Any, results: Any, configs: Any) -> dict[str, Any]:
    return {"results": js(results), "config": js(configs), "nodeSelector": js(selector)}


def expected_result(value: Any) -> dict[str, Any]:
    """An expected entry of the table as {results, config, nodeSelector}."""
    if isinstance(value, S) and value.type == "AllocationResult":
        fields = value.fields
        devices = fields.get("Devices")
        dev = devices.fields if isinstance(devices, S) else {}
        return {
            "results": js(dev.get("Results") or []),
            "config": js(dev.get("Config") or []),
            "nodeSelector": js(fields.get("NodeSelector")),
        }
    return dict(value)


def features(spec: Any) -> Features:
    """Go's `Features{...}`: every field not given is false."""
    if spec is None:
        return ALL_FEATURES_OFF
    names = {
        "AdminAccess": "admin_access",
        "PrioritizedList": "prioritized_list",
        "PartitionableDevices": "partitionable_devices",
        "DeviceTaints": "device_taints",
        "DeviceBindingAndStatus": "device_binding_and_status",
        "ConsumableCapacity": "consumable_capacity",
        "FractionalCapacityRange": "fractional_capacity_range",
        "ListTypeAttributes": "list_type_attributes",
        "OptionalNodeOperations": "optional_node_operations",
        "DerivedAttributes": "derived_attributes",
        "CompatibilityGroups": "compatibility_groups",
    }
    values = dict.fromkeys(names.values(), False)
    for key, value in spec.fields.items():
        values[names[key]] = bool(value)
    return Features(**values)


# --- what upstream's closures do to the objects they build ----------------------------------


def _json_path(obj: Any, path: list[Any]) -> tuple[Any, list[Any]]:
    data = obj.data if isinstance(obj, _Wrapped) else obj
    keys: list[Any] = []
    for i, step in enumerate(path):
        if isinstance(step, int):
            keys.append(step)
        elif i == 0 and step == "Name":
            keys += ["metadata", "name"]
        else:
            keys.append(_JSON_NAMES.get(step, step[:1].lower() + step[1:]))
    return data, keys


def set_(obj: Any, path: list[Any], value: Any) -> None:
    """`obj.Field[i].Other = value` on the object's JSON."""
    data, keys = _json_path(obj, path)
    for key in keys[:-1]:
        data = data[key] if isinstance(key, int) else data.setdefault(key, {})
    data[keys[-1]] = js(value)


def add_(obj: Any, path: list[Any], value: Any) -> None:
    """`obj.Field += value` (`++` adds 1)."""
    data, keys = _json_path(obj, path)
    for key in keys[:-1]:
        data = data[key]
    data[keys[-1]] = data.get(keys[-1], 0 if isinstance(value, int) else "") + value


def deepcopy_(obj: Any) -> Any:
    return json.loads(json.dumps(obj.data if isinstance(obj, _Wrapped) else obj))
