"""Upstream's allocator test table, case by case.

Ported from `structured/internal/allocatortesting/allocator_testing.go` of
k8s.io/dynamic-resource-allocation v0.37.2 (its `TestAllocator` cases) into calls of the
builders in `dra_upstream_builders`, which mirror upstream's helpers by name; the objects
upstream builds in Go closures are built by the `_closure_N` functions (`set_`/`add_` change
the object's JSON as the closure changes the Go object). `SKIPPED` would list any case that
could not be ported, with the reason.
"""

# ruff: noqa: E501, F405, F403, N806, N816, RET504, UP034
from typing import Any

from tests.unit.dra.dra_upstream_builders import *

nonExistentAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "NonExistentAttribute")
boolAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "boolAttribute")
stringAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "stringAttribute")
versionAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "driverVersion")
intAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "numa")
numaNodeAttribute = resourceapi.FullyQualifiedName("resource.kubernetes.io/numaNode")
taintKey = "taint-key"
taintValue = "taint-value"
taintValue2 = "taint-value-2"
taintNone = S(
    "DeviceTaint", Key=taintKey, Value=taintValue, Effect=resourceapi.DeviceTaintEffectNone
)
taintNoSchedule = S(
    "DeviceTaint", Key=taintKey, Value=taintValue, Effect=resourceapi.DeviceTaintEffectNoSchedule
)
taintNoExecute = S(
    "DeviceTaint", Key=taintKey, Value=taintValue2, Effect=resourceapi.DeviceTaintEffectNoExecute
)
tolerationNoSchedule = S(
    "DeviceToleration",
    Operator=resourceapi.DeviceTolerationOpExists,
    Key=taintKey,
    Effect=resourceapi.DeviceTaintEffectNoSchedule,
)
tolerationNoExecute = S(
    "DeviceToleration",
    Operator=resourceapi.DeviceTolerationOpEqual,
    Key=taintKey,
    Value=taintValue2,
    Effect=resourceapi.DeviceTaintEffectNoExecute,
)
tolerationNoScheduleKey1 = S(
    "DeviceToleration",
    Operator=resourceapi.DeviceTolerationOpExists,
    Key="key1",
    Effect=resourceapi.DeviceTaintEffectNoSchedule,
)


def _closure_0() -> Any:
    slice_ = sliceWithDevices(
        "slice-1-obsolete", node1, resourcePool(pool1, 2), driverA, device(device2, None, None)
    )
    add_(slice_, ["Spec", "Pool", "Generation"], 1)
    return slice_


def _closure_1() -> Any:
    sliceA_ = sliceWithOneDevice(slice1, node1, pool1, driverA).obj()
    set_(sliceA_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    sliceB_ = deepcopy_(sliceA_)
    add_(sliceB_, ["Name"], "-2")
    return [sliceA_, sliceB_]


def _closure_2() -> Any:
    slice_ = sliceWithOneDevice(slice1, node1, pool1, driverA)
    add_(slice_, ["Spec", "Pool", "ResourceSliceCount"], 1)
    return slice_


def _closure_3() -> Any:
    c_ = claimWithRequest(claim0, req0, classA)
    set_(c_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    set_(
        c_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    return [c_]


def _closure_4() -> Any:
    c_ = claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
    set_(c_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    set_(c_, ["Spec", "Devices", "Requests", 1, "Exactly", "AdminAccess"], ptr.To(True))
    set_(
        c_,
        ["Spec", "Devices", "Requests", 1, "Exactly", "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    return [c_]


def _closure_5() -> Any:
    c_ = claimWithRequest(claim0, req0, classA)
    set_(c_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    set_(
        c_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "AllocationMode"],
        resourceapi.DeviceAllocationModeExactCount,
    )
    set_(c_, ["Spec", "Devices", "Requests", 0, "Exactly", "Count"], 2)
    return [c_]


def _closure_6() -> Any:
    c1_ = claimWithRequest(claim0, req0, classA)
    set_(c1_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    c2_ = claimWithRequest(claim1, req0, classA)
    set_(c2_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    return [c1_, c2_]


def _closure_7() -> Any:
    admin_ = claimWithRequest(claim1, req0, classA)
    set_(admin_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    return [claimWithRequest(claim0, req0, classA), admin_]


def _closure_8() -> Any:
    claim_ = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1)
        )
    )
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "FirstAvailable", 0, "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    set_(claim_, ["Spec", "Devices", "Requests", 0, "FirstAvailable", 0, "Count"], 0)
    return claim_


def _closure_9() -> Any:
    claim_ = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1)
        )
    )
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "FirstAvailable", 0, "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    set_(claim_, ["Spec", "Devices", "Requests", 0, "FirstAvailable", 0, "Count"], 0)
    return claim_


def _closure_10() -> Any:
    claim_ = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1)
        )
    )
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "FirstAvailable", 0, "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    set_(claim_, ["Spec", "Devices", "Requests", 0, "FirstAvailable", 0, "Count"], 0)
    return claim_


def _closure_11() -> Any:
    c_ = claimWithRequest(claim0, req0, classA)
    set_(c_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    return [c_]


def _closure_12() -> Any:
    c_ = claimWithRequest(claim0, req0, classA)
    set_(c_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    return [c_]


def _closure_13() -> Any:
    claim_ = claimWithRequests(
        claim0, [S("DeviceConstraint", MatchAttribute=intAttribute)], request(req0, classA, 0)
    )
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    return claim_


def _closure_14() -> Any:
    claim_ = claimWithRequests(
        claim0, [S("DeviceConstraint", MatchAttribute=intAttribute)], request(req0, classA, 0)
    )
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    return claim_


def _closure_15() -> Any:
    c_ = claimWithRequests(
        claim0, None, request(req0, classA, 1), request(req1, classA, 1), request(req2, classA, 1)
    )
    set_(
        c_,
        ["Spec", "Devices", "Config"],
        [
            S(
                "DeviceClaimConfiguration",
                Requests=[req0, req1],
                DeviceConfiguration=deviceConfiguration(driverA, "deviceAttribute"),
            )
        ],
    )
    return [c_]


def _closure_16() -> Any:
    claim_ = claimWithRequest(claim0, req0, classA)
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "Selectors"],
        [
            S(
                "DeviceSelector",
            )
        ],
    )
    return claim_


def _closure_17() -> Any:
    claim_ = claimWithRequest(claim0, req0, classA)
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "AllocationMode"],
        resourceapi.DeviceAllocationMode("future-mode"),
    )
    return claim_


def _closure_18() -> Any:
    claim_ = claimWithRequest(claim0, req0, classA)
    set_(
        claim_,
        ["Spec", "Devices", "Constraints"],
        [
            S(
                "DeviceConstraint",
            )
        ],
    )
    return claim_


def _closure_19() -> Any:
    claim_ = claimWithRequest(claim0, req0, classA)
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "Selectors"],
        [S("DeviceSelector", CEL=S("CELDeviceSelector", Expression="noSuchVar"))],
    )
    return claim_


def _closure_20() -> Any:
    c_ = class_(classA, driverA)
    set_(c_, ["Spec", "Selectors", 0, "CEL", "Expression"], "noSuchVar")
    return c_


def _closure_21() -> Any:
    claim_ = claimWithRequest(claim0, req0, classA)
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "Selectors"],
        [S("DeviceSelector", CEL=S("CELDeviceSelector", Expression="noSuchVar"))],
    )
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "Exactly", "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    return claim_


def _closure_22() -> Any:
    claim_ = claim(claim0).withRequests(
        requestWithPrioritizedList(
            req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classA, 1)
        )
    )
    set_(
        claim_,
        ["Spec", "Devices", "Requests", 0, "FirstAvailable", 0, "AllocationMode"],
        resourceapi.DeviceAllocationModeAll,
    )
    set_(claim_, ["Spec", "Devices", "Requests", 0, "FirstAvailable", 0, "Count"], 0)
    return claim_


def _closure_23() -> Any:
    claim_ = claim(claim0).withRequests(
        requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1))
    )
    return claim_


def _closure_24() -> Any:
    c_ = claimWithRequest(claim0, req0, classA)
    set_(c_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    return [c_]


def _closure_25() -> Any:
    c_ = claimWithRequest(claim0, req0, classA)
    set_(c_, ["Spec", "Devices", "Requests", 0, "Exactly", "AdminAccess"], ptr.To(True))
    return [c_]


def _closure_26() -> Any:
    s_ = sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_27() -> Any:
    s_ = sliceWithDevices(slice2, node2, pool1, driverA, device(device2, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 2)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_28() -> Any:
    s_ = sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_29() -> Any:
    s_ = sliceWithDevices(slice1, node1, pool1, driverA, device(device2, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_30() -> Any:
    s_ = sliceWithDevices(slice2, node2, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 2)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_31() -> Any:
    s_ = sliceWithDevices(slice2, node2, pool1, driverA, device(device2, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 2)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_32() -> Any:
    s_ = sliceWithDevices(slice1, node2, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_33() -> Any:
    s_ = sliceWithDevices(slice1, node2, pool1, driverA, device(device2, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_34() -> Any:
    s_ = sliceWithDevices(slice2, node1, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 2)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_35() -> Any:
    s_ = sliceWithDevices(slice2, node1, pool1, driverA, device(device2, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 2)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_36() -> Any:
    s_ = sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_37() -> Any:
    s_ = sliceWithDevices(slice1, node1, pool1, driverA, device(device2, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_38() -> Any:
    s_ = sliceWithDevices(slice2, node2, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 2)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_39() -> Any:
    s_ = sliceWithDevices(slice1, node2, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_40() -> Any:
    s_ = sliceWithDevices(slice1, node2, pool1, driverA, device(device2, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 1)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


def _closure_41() -> Any:
    s_ = sliceWithDevices(slice2, node1, pool1, driverA, device(device1, None, None))
    set_(s_, ["Spec", "Pool", "Generation"], 2)
    set_(s_, ["Spec", "Pool", "ResourceSliceCount"], 2)
    return s_


CASES = {
    "empty": S(
        "AllocatorTestCase",
    ),
    "compatibility-groups-compatible": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1), deviceRequest(req1, classA, 1)
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-incompatible": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1), deviceRequest(req1, classA, 1)
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "vgpu")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "compatibility-groups-taint-rollback": S(
        "AllocatorTestCase",
        features=S(
            "Features", PartitionableDevices=True, CompatibilityGroups=True, DeviceTaints=True
        ),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None)
                .withTaints(taintNoSchedule)
                .withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "vgpu")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-incompatible-with-allocated-peer": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "compatibility-groups-compatible-with-allocated-peer": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-disabled-skips-grouped-pool": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=False),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 2),
                driverA,
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {capacity0: two})
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool2, 2),
                driverA,
                counterSet(counterSet2, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool2, device2, False),
            )
        ],
    ),
    "compatibility-groups-disabled-skips-ungrouped-device-in-grouped-pool": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=False),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: one})
                ),
            ),
            sliceWithCounterSets(
                slice3,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "compatibility-groups-multiple-counter-sets": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1), deviceRequest(req1, classA, 1)
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: two}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet2, {capacity0: two}, "vgpu")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
                counterSet(counterSet2, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-multiple-counter-sets-spanning-device": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1), deviceRequest(req1, classA, 1)
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu"),
                    deviceCounterConsumptionWithGroups(counterSet2, {capacity0: one}, "vgpu"),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
                counterSet(counterSet2, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "compatibility-groups-with-prioritized-list": S(
        "AllocatorTestCase",
        features=S(
            "Features", PartitionableDevices=True, CompatibilityGroups=True, PrioritizedList=True
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1, subRequest(subReq0, classA, 2), subRequest(subReq1, classA, 1)
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "compatibility-groups-with-consumable-capacity": S(
        "AllocatorTestCase",
        features=S(
            "Features", PartitionableDevices=True, CompatibilityGroups=True, ConsumableCapacity=True
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(new(one)),
                deviceRequest(req1, classA, 1).withCapacityRequest(new(one)),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                )
                .withAllowMultipleAllocations(),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu")
                )
                .withAllowMultipleAllocations(),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                )
                .withAllowMultipleAllocations(),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            )
        ],
    ),
    "compatibility-groups-multiple-claims": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA), claimWithRequest(claim1, req0, classA)
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            ),
        ],
    ),
    "compatibility-groups-multiple-claims-incompatible": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, CompatibilityGroups=True),
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA), claimWithRequest(claim1, req0, classA)
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "mig")
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumptionWithGroups(counterSet1, {capacity0: one}, "vgpu")
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "simple": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "optional-node-operations": S(
        "AllocatorTestCase",
        features=S("Features", OptionalNodeOperations=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA).withSkipNodeOperations(
                resourceapi.SkipNodeOperationAll
            )
        ),
        node=nodeWithDRAOptionalNodeOperations(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResultWithSkipNodeOperations(
                    req0, driverA, pool1, device1, resourceapi.SkipNodeOperationAll
                ),
            )
        ],
    ),
    "optional-node-operations-missing-feature": S(
        "AllocatorTestCase",
        features=S("Features", OptionalNodeOperations=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA).withSkipNodeOperations(
                resourceapi.SkipNodeOperationAll
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "other-node": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverB),
            sliceWithOneDevice(slice2, node2, pool2, driverA),
        ),
        node=node(node2, region2),
        expectResults=[
            allocationResult(
                localNodeSelector(node2),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "small-and-large": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    ),
                ),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {"memory": resource.MustParse("1Gi")}, None),
                device(device2, {"memory": resource.MustParse("2Gi")}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "small-and-large-backtrack-requests": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    ),
                ),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device2, {"memory": resource.MustParse("2Gi")}, None),
                device(device1, {"memory": resource.MustParse("1Gi")}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "small-and-large-backtrack-claims": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device2, {"memory": resource.MustParse("2Gi")}, None),
                device(device1, {"memory": resource.MustParse("1Gi")}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            ),
        ],
    ),
    "devices-split-across-different-slices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        Count=2,
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "obsolete-slice": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                "slice-1-obsolete",
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
            ),
            _closure_0(),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "duplicate-slice": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=_closure_1(),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("invalid resource pools were encountered")
        ),
    ),
    "no-slices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=None,
        node=node(node1, region1),
        expectResults=None,
    ),
    "not-enough-suitable-devices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req1, classA)
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "no-classes": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=None,
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring("could not retrieve device class class-a")
        ),
    ),
    "unknown-class": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, "unknown-class")),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring("could not retrieve device class unknown-class")
        ),
    ),
    "empty-class": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, "")),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: missing device class name (unsupported request type?)"
            )
        ),
    ),
    "no-claims-to-allocate": S(
        "AllocatorTestCase",
        claimsToAllocate=None,
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-single": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "all-devices-with-consumed-counters": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "all-devices-many": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool2, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "all-devices-of-the-incomplete-pool": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        Count=1,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_closure_2()),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated"
            )
        ),
    ),
    "all-devices-plus-another": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
        ],
    ),
    "all-devices-plus-another-reversed": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
        ],
    ),
    "all-devices-many-plus-another": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
        ],
    ),
    "all-devices-many-plus-another-reversed": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            ),
        ],
    ),
    "all-devices-no-solution": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
    ),
    "all-devices-no-solution-reversed": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
    ),
    "all-devices-slice-without-devices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithNoDevices(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-no-slices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=None,
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-some-allocated": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-some-allocated-admin-access": S(
        "AllocatorTestCase",
        features=S("Features", AdminAccess=True),
        claimsToAllocate=_closure_3(),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
                deviceAllocationResult(req0, driverA, pool1, device2, True),
            )
        ],
    ),
    "all-devices-some-allocating-admin-access": S(
        "AllocatorTestCase",
        features=S("Features", AdminAccess=True),
        claimsToAllocate=_closure_4(),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "count-devices-some-allocated-admin-access": S(
        "AllocatorTestCase",
        features=S("Features", AdminAccess=True),
        claimsToAllocate=_closure_5(),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
                deviceAllocationResult(req0, driverA, pool1, device2, True),
            )
        ],
    ),
    "separate-claims-share-device-admin-access": S(
        "AllocatorTestCase",
        features=S("Features", AdminAccess=True),
        claimsToAllocate=_closure_6(),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            ),
        ],
    ),
    "admin-access-claims-device-allocating-for-non-admin-access": S(
        "AllocatorTestCase",
        features=S("Features", AdminAccess=True),
        claimsToAllocate=_closure_7(),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            ),
        ],
    ),
    "all-devices-slice-without-devices-prioritized-list": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(_closure_8()),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithNoDevices(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False),
            )
        ],
    ),
    "all-devices-no-slices-prioritized-list": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(_closure_9()),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice2, node1, pool2, driverB)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False),
            )
        ],
    ),
    "all-devices-some-allocated-prioritized-list": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(_closure_10()),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False),
            )
        ],
    ),
    "network-attached-device": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                nodeLabelSelector(regionKey, region1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "unsuccessful-allocation-network-attached-device": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)
        ),
        node=node(node2, region2),
        expectResults=None,
    ),
    "many-network-attached-devices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 4))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
            sliceWithOneDevice(slice1, nodeSelectionAll, pool2, driverA),
            sliceWithOneDevice(
                slice1, nodeLabelSelector(planetKey, planetValueEarth), pool3, driverA
            ),
            sliceWithOneDevice(slice1, localNodeSelector(node1), pool4, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    "NodeSelector",
                    NodeSelectorTerms=[
                        S(
                            "NodeSelectorTerm",
                            MatchExpressions=[
                                S(
                                    "NodeSelectorRequirement",
                                    Key=regionKey,
                                    Operator=v1.NodeSelectorOpIn,
                                    Values=[region1],
                                ),
                                S(
                                    "NodeSelectorRequirement",
                                    Key=planetKey,
                                    Operator=v1.NodeSelectorOpIn,
                                    Values=[planetValueEarth],
                                ),
                            ],
                            MatchFields=[
                                S(
                                    "NodeSelectorRequirement",
                                    Key=fieldNameKey,
                                    Operator=v1.NodeSelectorOpIn,
                                    Values=[node1],
                                )
                            ],
                        )
                    ],
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
                deviceAllocationResult(req0, driverA, pool3, device1, False),
                deviceAllocationResult(req0, driverA, pool4, device1, False),
            )
        ],
    ),
    "local-and-network-attached-devices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool2, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "several-different-drivers": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req0, classB)
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverB, pool1, device1, False),
            ),
        ],
    ),
    "already-allocated-devices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
            MakeDeviceID(driverA, pool1, device2),
        ],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "admin-access-disabled": S(
        "AllocatorTestCase",
        features=S("Features", AdminAccess=False),
        claimsToAllocate=_closure_11(),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: admin access is requested, but the feature is disabled"
            )
        ),
    ),
    "admin-access-enabled": S(
        "AllocatorTestCase",
        features=S("Features", AdminAccess=True),
        claimsToAllocate=_closure_12(),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
            MakeDeviceID(driverA, pool1, device2),
        ],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            )
        ],
    ),
    "with-constraint": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S("DeviceConstraint", MatchAttribute=intAttribute),
                    S("DeviceConstraint", MatchAttribute=versionAttribute),
                    S("DeviceConstraint", MatchAttribute=stringAttribute),
                    S("DeviceConstraint", MatchAttribute=boolAttribute),
                ],
                request(req0, classA, 1),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0")),
                        "numa": S("DeviceAttribute", IntValue=ptr.To(int64(1))),
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue")
                        ),
                        "boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(True)),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0")),
                        "numa": S("DeviceAttribute", IntValue=ptr.To(int64(1))),
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue")
                        ),
                        "boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(True)),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "with-constraint-non-existent-attribute": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequest(
                claim0, req0, classA, S("DeviceConstraint", MatchAttribute=nonExistentAttribute)
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-int-attribute": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=intAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S("DeviceAttribute", IntValue=ptr.To(int64(1)))}),
                device(device2, None, {"numa": S("DeviceAttribute", IntValue=ptr.To(int64(2)))}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-int-attribute-all-devices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(_closure_13()),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S("DeviceAttribute", IntValue=ptr.To(int64(1)))}),
                device(device2, None, {"numa": S("DeviceAttribute", IntValue=ptr.To(int64(2)))}),
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied"
            )
        ),
    ),
    "partitionable-all-mode-constraint-must-error-with-reserved-counter": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(_closure_14()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, {"numa": S("DeviceAttribute", IntValue=new(int64(1)))}),
                device(
                    device2, None, {"numa": S("DeviceAttribute", IntValue=new(int64(2)))}
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied"
            )
        ),
    ),
    "with-constraint-not-matching-string-attribute": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue")
                        )
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue2")
                        )
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-bool-attribute": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=boolAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, None, {"boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(True))}
                ),
                device(
                    device2, None, {"boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(False))}
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-version-attribute": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=versionAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0"))},
                ),
                device(
                    device2,
                    None,
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("2.0.0"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-for-request": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", Requests=[req0], MatchAttribute=versionAttribute)],
                request(req0, classA, 1),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0"))},
                ),
                device(
                    device2,
                    None,
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("2.0.0"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "with-constraint-for-request-retry": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S("DeviceConstraint", Requests=[req0], MatchAttribute=versionAttribute),
                    S("DeviceConstraint", MatchAttribute=stringAttribute),
                ],
                request(req0, classA, 1),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0")),
                        "stringAttribute": S("DeviceAttribute", StringValue=ptr.To("a")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("2.0.0")),
                        "stringAttribute": S("DeviceAttribute", StringValue=ptr.To("b")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("3.0.0")),
                        "stringAttribute": S("DeviceAttribute", StringValue=ptr.To("b")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "with-class-device-config": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(classWithConfig(classA, driverA, "classAttribute")),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(deviceAllocationResult(req0, driverA, pool1, device1, False)),
                [
                    S(
                        "DeviceAllocationConfiguration",
                        Source=resourceapi.AllocationConfigSourceClass,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverA, "classAttribute"),
                    )
                ],
            )
        ],
    ),
    "with-class-device-config-with-multiple-request-and-configs": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [],
                request(req0, classA, 1),
                request(req1, classA, 1),
                request(req2, classB, 1),
            )
        ),
        classes=objects(
            classWithConfig(classA, driverA, "classAttribute-A"),
            classWithConfig(classB, driverB, "classAttribute-B"),
        ),
        slices=unwrap(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2),
            sliceWithOneDevice(slice2, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                    deviceAllocationResult(req2, driverB, pool1, device1, False),
                ),
                [
                    S(
                        "DeviceAllocationConfiguration",
                        Source=resourceapi.AllocationConfigSourceClass,
                        Requests=[req0, req1],
                        DeviceConfiguration=deviceConfiguration(driverA, "classAttribute-A"),
                    ),
                    S(
                        "DeviceAllocationConfiguration",
                        Source=resourceapi.AllocationConfigSourceClass,
                        Requests=[req2],
                        DeviceConfiguration=deviceConfiguration(driverB, "classAttribute-B"),
                    ),
                ],
            )
        ],
    ),
    "with-claim-config-for-two-requests": S(
        "AllocatorTestCase",
        claimsToAllocate=_closure_15(),
        classes=objects(class_(classA, driverA)),
        slices=unwrap(sliceWithMultipleDevices(slice1, node1, pool1, driverA, 3)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                    deviceAllocationResult(req2, driverA, pool1, device2, False),
                ),
                [
                    S(
                        "DeviceAllocationConfiguration",
                        Source=resourceapi.AllocationConfigSourceClaim,
                        Requests=[req0, req1],
                        DeviceConfiguration=deviceConfiguration(driverA, "deviceAttribute"),
                    )
                ],
            )
        ],
    ),
    "claim-with-device-config": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithDeviceConfig(claim0, req0, classA, driverA, "deviceAttribute")
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfig(
                localNodeSelector(node1),
                driverA,
                resourceapi.AllocationConfigSourceClaim,
                "deviceAttribute",
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "unknown-selector": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(_closure_16()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("CEL expression empty (unsupported selector type?)")
        ),
    ),
    "unknown-allocation-mode": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(_closure_17()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("unsupported count mode future-mode")
        ),
    ),
    "unknown-constraint": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(_closure_18()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("empty constraint (unsupported constraint type?)")
        ),
    ),
    "invalid-CEL-one-device": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(_closure_19()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("undeclared reference")),
    ),
    "invalid-CEL-one-device-class": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(_closure_20()),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("undeclared reference")),
    ),
    "invalid-CEL-all-devices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(_closure_21()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("undeclared reference")),
    ),
    "too-many-devices-single-request": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 500))),
        classes=objects(class_(classA, driverA)),
        expectError=gomega.MatchError(gomega.ContainSubstring("exceeds the claim limit")),
    ),
    "many-devices-okay": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0, None, request(req0, classA, resourceapi.AllocationResultsMaxSize)
            )
        ),
        classes=objects(class_(classA, driverA)),
    ),
    "too-many-devices-total": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, resourceapi.AllocationResultsMaxSize),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(
                slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize + 1
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("exceeds the claim limit")),
    ),
    "exact-count-total-overflows-claim-limit": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, int64(math.MaxInt // 2 + 1)),
                deviceRequest(req1, classA, int64(math.MaxInt // 2 + 1)),
            )
        ),
        classes=objects(class_(classA, driverA)),
        expectError=gomega.MatchError(gomega.ContainSubstring("exceeds the claim limit")),
    ),
    "exact-count-total-would-wrap-to-zero": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, int64(math.MaxInt // 2 + 1)),
                deviceRequest(req1, classA, int64(math.MaxInt // 2 + 1)),
                deviceRequest(req2, classA, int64(math.MaxInt // 2 + 1)),
                deviceRequest(req3, classA, int64(math.MaxInt // 2 + 1)),
            )
        ),
        classes=objects(class_(classA, driverA)),
        expectError=gomega.MatchError(gomega.ContainSubstring("exceeds the claim limit")),
    ),
    "exact-count-sum-exceeds-claim-limit": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 20), deviceRequest(req1, classA, 20)
            )
        ),
        classes=objects(class_(classA, driverA)),
        expectError=gomega.MatchError(
            gomega.And(
                gomega.ContainSubstring("request " + req1),
                gomega.ContainSubstring("exceeds the claim limit"),
            )
        ),
    ),
    "exact-count-sum-exactly-fills-claim-limit": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, resourceapi.AllocationResultsMaxSize // 2),
                deviceRequest(req1, classA, resourceapi.AllocationResultsMaxSize // 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(
                slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                *slices.Concat(
                    multipleDeviceAllocationResults(
                        req0, driverA, pool1, resourceapi.AllocationResultsMaxSize // 2, 0
                    ),
                    multipleDeviceAllocationResults(
                        req1,
                        driverA,
                        pool1,
                        resourceapi.AllocationResultsMaxSize // 2,
                        resourceapi.AllocationResultsMaxSize // 2,
                    ),
                ),
            )
        ],
    ),
    "all-devices-invalid-CEL": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 500))),
        classes=objects(class_(classA, driverA)),
        expectError=gomega.MatchError(gomega.ContainSubstring("exceeds the claim limit")),
    ),
    "prioritized-list-first-unavailable": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 1), subRequest(subReq1, classA, 1)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-non-available": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 2), subRequest(subReq1, classA, 2)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "prioritized-list-device-config": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 2)
                )
            )
            .withConfigs(
                objects(
                    deviceClaimConfig([req0SubReq0], deviceConfiguration(driverA, "foo")),
                    deviceClaimConfig([req0SubReq1], deviceConfiguration(driverB, "bar")),
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverB, device(device1, None, {}), device(device2, None, {})
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device1, False),
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device2, False),
                ),
                [
                    S(
                        "DeviceAllocationConfiguration",
                        Source=resourceapi.AllocationConfigSourceClaim,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverB, "bar"),
                    )
                ],
            )
        ],
    ),
    "prioritized-list-class-config": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 2), subRequest(subReq1, classB, 2)
                )
            )
        ),
        classes=objects(
            classWithConfig(classA, driverA, "foo"), classWithConfig(classB, driverB, "bar")
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverB,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithDevices(slice2, node1, pool2, driverA, device(device3, None, None)),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device1, False),
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device2, False),
                ),
                [
                    S(
                        "DeviceAllocationConfiguration",
                        Source=resourceapi.AllocationConfigSourceClass,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverB, "bar"),
                    )
                ],
            )
        ],
    ),
    "claim-config-scoped-to-subrequests-of-one-request": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1)
                ),
                deviceRequest(req1, classA, 1),
            )
            .withConfigs(
                objects(
                    deviceClaimConfig(
                        [req0SubReq0, req0SubReq1], deviceConfiguration(driverA, "scoped")
                    )
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrap(sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                ),
                [
                    S(
                        "DeviceAllocationConfiguration",
                        Source=resourceapi.AllocationConfigSourceClaim,
                        Requests=[req0SubReq0, req0SubReq1],
                        DeviceConfiguration=deviceConfiguration(driverA, "scoped"),
                    )
                ],
            )
        ],
    ),
    "claim-config-covering-all-requests-is-cleared": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1)
                ),
                deviceRequest(req1, classA, 1),
            )
            .withConfigs(
                objects(deviceClaimConfig([req0SubReq0, req1], deviceConfiguration(driverA, "all")))
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrap(sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                ),
                [
                    S(
                        "DeviceAllocationConfiguration",
                        Source=resourceapi.AllocationConfigSourceClaim,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverA, "all"),
                    )
                ],
            )
        ],
    ),
    "prioritized-list-subrequests-with-expressions": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    )
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        2,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {"memory": resource.MustParse("2Gi")}, None),
                device(device2, {"memory": resource.MustParse("2Gi")}, None),
                device(device3, {"memory": resource.MustParse("1Gi")}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-constraints-ref-parent-request": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("DeviceConstraint", Requests=[req0, req1], MatchAttribute=versionAttribute)
            )
            .withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    )
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {"memory": resource.MustParse("8Gi")},
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0"))},
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device2,
                    {"memory": resource.MustParse("2Gi")},
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("2.0.0"))},
                ),
                device(
                    device3,
                    {"memory": resource.MustParse("1Gi")},
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0"))},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool2, device3, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-constraints-ref-sub-request": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("DeviceConstraint", Requests=[req0, req1SubReq0], MatchAttribute=versionAttribute)
            )
            .withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    )
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {"memory": resource.MustParse("8Gi")},
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0"))},
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device2,
                    {"memory": resource.MustParse("2Gi")},
                    {"driverVersion": S("DeviceAttribute", VersionValue=ptr.To("2.0.0"))},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool2, device2, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-allocation-mode-all": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(_closure_22()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-multiple-requests": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, 0).withAllocationMode(
                        resourceapi.DeviceAllocationModeAll
                    ),
                    subRequest(subReq1, classA, 1),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "prioritized-list-disabled": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=False),
        claimsToAllocate=objects(_closure_23()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled"
            )
        ),
    ),
    "prioritized-list-multi-request": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req1, classA, 1).withSelectors(
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    )
                ),
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {"memory": resource.MustParse("8Gi")}, {}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(device2, {"memory": resource.MustParse("4Gi")}, {}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device2, False),
            )
        ],
    ),
    "prioritized-list-with-backtracking": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                ),
                deviceRequest(req1, classA, 1).withSelectors(
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0',
                                driverA,
                            ),
                        ),
                    )
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {"memory": resource.MustParse("8Gi")}, {}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(device2, {"memory": resource.MustParse("4Gi")}, {}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-too-many-in-first-subrequest": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 500), subRequest(subReq1, classA, 1)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-minimum-sum-exceeds-claim-limit": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 20),
                requestWithPrioritizedList(
                    req1, subRequest(subReq0, classA, 20), subRequest(subReq1, classA, 24)
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        expectError=gomega.MatchError(
            gomega.And(
                gomega.ContainSubstring("request " + req1),
                gomega.ContainSubstring("exceeds the claim limit"),
            )
        ),
    ),
    "prioritized-list-overflowing-first-subrequest-is-pruned": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, int64(math.MaxInt)),
                    subRequest(subReq1, classA, 1),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
        expectNumAllocateOneInvocations=8,
    ),
    "partitionable-devices-single-device": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-counter-quantities-are-not-modified": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"c": resource.MustParse("9000000000000000000")}
                    )
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("10000000000000000000")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "partitionable-devices-counter-cache-scoped-by-pool-ID": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req1, classB, 1)),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("1")}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool1, 2),
                driverB,
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("2")})
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool1, 2),
                driverB,
                counterSet(counterSet1, {"c": resource.MustParse("2")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverB, pool1, device2, False),
            ),
        ],
    ),
    "partitionable-devices-counter-cache-not-crossed-between-driver-schemas": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req1, classB, 1)),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("1")}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool1, 2),
                driverB,
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"d": resource.MustParse("2")})
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool1, 2),
                driverB,
                counterSet(counterSet2, {"d": resource.MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "partitionable-devices-taint-releases-counter": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None)
                .withTaints(taintNoSchedule)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "partitionable-devices-constraint-releases-counter": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1, None, {"stringAttribute": S("DeviceAttribute", StringValue=new("red"))}
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("blue"))},
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("blue"))},
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("2")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-consumable-capacity-backtrack-releases-counter": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.attributes["%s"].kind == "shared"', driverA
                            ),
                        ),
                    ),
                ),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.attributes["%s"].kind == "counteronly"', driverA
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, {"kind": S("DeviceAttribute", StringValue=new("shared"))})
                .withAllowMultipleAllocations()
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
                device(device2, None, {"kind": S("DeviceAttribute", StringValue=new("shared"))}),
                device(
                    device3, None, {"kind": S("DeviceAttribute", StringValue=new("counteronly"))}
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "consumable-capacity-rejection-rolls-back-constraints": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1)
                .withCapacityRequest(new(two))
                .withSelectors(
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.attributes["%s"].stringAttribute == "cap"', driverA
                            ),
                        ),
                    )
                )
            ),
            claim(claim1)
            .withConstraints(S("DeviceConstraint", MatchAttribute=stringAttribute))
            .withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].stringAttribute == "cap"', driverA
                                ),
                            ),
                        ),
                    )
                    .withAllocationMode(resourceapi.DeviceAllocationModeAll)
                    .withCapacityRequest(new(two)),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].stringAttribute == "fb"', driverA
                                ),
                            ),
                        ),
                    ),
                )
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {capacity0: two},
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("cap"))},
                ).withAllowMultipleAllocations(),
                device(
                    device2, None, {"stringAttribute": S("DeviceAttribute", StringValue=new("fb"))}
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False),
            ),
        ],
    ),
    "partitionable-empty-capacity-multiple-share-backtrack-keeps-counter-ownership": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.attributes["%s"].kind == "shared"', driverA
                            ),
                        ),
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                [S("DeviceConstraint", MatchAttribute=stringAttribute, Requests=[req1, req2])],
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.attributes["%s"].kind == "shared" || device.attributes["%s"].kind == "fallback"',
                                driverA,
                                driverA,
                            ),
                        ),
                    ),
                ),
                request(
                    req2,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.attributes["%s"].kind == "gate"', driverA
                            ),
                        ),
                    ),
                ),
                request(
                    req3,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf(
                                'device.attributes["%s"].kind == "shared"', driverA
                            ),
                        ),
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {
                        "kind": S("DeviceAttribute", StringValue=new("shared")),
                        "stringAttribute": S("DeviceAttribute", StringValue=new("red")),
                    },
                )
                .withAllowMultipleAllocations()
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
                device(
                    device2,
                    None,
                    {
                        "kind": S("DeviceAttribute", StringValue=new("fallback")),
                        "stringAttribute": S("DeviceAttribute", StringValue=new("blue")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "kind": S("DeviceAttribute", StringValue=new("gate")),
                        "stringAttribute": S("DeviceAttribute", StringValue=new("blue")),
                    },
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
                deviceAllocationResult(req2, driverA, pool1, device3, False),
                deviceRequestAllocationResult(req3, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
        ],
    ),
    "partitionable-devices-prioritized-list": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True, PartitionableDevices=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-devices": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-capacity-pools": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True, PartitionableDevices=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")}),
                    deviceCounterConsumption(counterSet2, {"cpus": resource.MustParse("4")}),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")}),
                    deviceCounterConsumption(counterSet2, {"cpus": resource.MustParse("6")}),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")}),
                    deviceCounterConsumption(counterSet2, {"cpus": resource.MustParse("4")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
                counterSet(counterSet2, {"cpus": resource.MustParse("8")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-counters": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"memory": resource.MustParse("4Gi"), "cpus": resource.MustParse("6")},
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {"cpus": resource.MustParse("4"), "memory": resource.MustParse("2Gi")},
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"memory": resource.MustParse("6Gi"), "cpus": resource.MustParse("4")},
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {"cpus": resource.MustParse("6"), "memory": resource.MustParse("6Gi")},
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"memory": resource.MustParse("4Gi"), "cpus": resource.MustParse("4")},
                    ),
                    deviceCounterConsumption(
                        counterSet2,
                        {"cpus": resource.MustParse("4"), "memory": resource.MustParse("4Gi")},
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {"cpus": resource.MustParse("8"), "memory": resource.MustParse("18Gi")},
                ),
                counterSet(
                    counterSet2,
                    {"cpus": resource.MustParse("12"), "memory": resource.MustParse("18Gi")},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-pools": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"cpus": resource.MustParse("6"), "memory": resource.MustParse("4Gi")},
                    )
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"cpus": resource.MustParse("4"), "memory": resource.MustParse("6Gi")},
                    )
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"cpus": resource.MustParse("4"), "memory": resource.MustParse("4Gi")},
                    )
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {"cpus": resource.MustParse("8"), "memory": resource.MustParse("18Gi")},
                ),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"cpus": resource.MustParse("6"), "memory": resource.MustParse("4Gi")},
                    )
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"cpus": resource.MustParse("1"), "memory": resource.MustParse("7Gi")},
                    )
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1,
                        {"cpus": resource.MustParse("1"), "memory": resource.MustParse("7Gi")},
                    )
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool2, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {"cpus": resource.MustParse("8"), "memory": resource.MustParse("18Gi")},
                ),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device2),
            MakeDeviceID(driverA, pool1, device3),
            MakeDeviceID(driverA, pool2, device1),
        ],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool2, device2, False),
                deviceAllocationResult(req1, driverA, pool2, device3, False),
            )
        ],
    ),
    "partitionable-devices-unused-counters-in-counter-set": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("5Gi")})
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {"memory": resource.MustParse("8Gi"), "unused": resource.MustParse("1Gi")},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-no-capacity-available": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("16Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool1,
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device2)],
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-overallocated-capacity-pool": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("20Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool1,
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device2)],
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-disabled-device-consumes-counters": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=False),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool1,
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-disabled-other-device-do-not-consume-counters": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=False),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, None, None),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "partitionable-devices-disabled-per-device-node-selection": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=False),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                pool1,
                driverA,
                device(device2, None, None).withNodeSelection(node1),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-per-device-node-selection-nodename": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(node1),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                )
                .withNodeSelection(node2),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-per-device-node-selection-node-selector": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, PrioritizedList=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(nodeLabelSelector(regionKey, region1)),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    "NodeSelector",
                    NodeSelectorTerms=[
                        S(
                            "NodeSelectorTerm",
                            MatchExpressions=[
                                S(
                                    "NodeSelectorRequirement",
                                    Key=regionKey,
                                    Operator=v1.NodeSelectorOpIn,
                                    Values=[region1],
                                )
                            ],
                        )
                    ],
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-per-device-node-selection-node-selector-multiple-devices": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 3), request(req1, classB, 3))
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(nodeLabelSelector(regionKey, region1)),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(node1),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(nodeSelectionAll),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 2),
                driverB,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("4Gi")})
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool2, 2),
                driverB,
                counterSet(counterSet2, {"memory": resource.MustParse("12Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    "NodeSelector",
                    NodeSelectorTerms=[
                        S(
                            "NodeSelectorTerm",
                            MatchFields=[
                                S(
                                    "NodeSelectorRequirement",
                                    Key=fieldNameKey,
                                    Operator=v1.NodeSelectorOpIn,
                                    Values=[node1],
                                )
                            ],
                        )
                    ],
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1, driverB, pool2, device1, False),
                deviceAllocationResult(req1, driverB, pool2, device2, False),
                deviceAllocationResult(req1, driverB, pool2, device3, False),
            )
        ],
    ),
    "tainted-two-devices": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-one-device-two-taints": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-two-devices-tolerated": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True),
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA).withTolerations(tolerationNoExecute)
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False, tolerationNoExecute),
            )
        ],
    ),
    "tainted-two-devices-prioritized-list-tolerated": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1),
                    subRequest(subReq1, classA, 1, tolerationNoExecute),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(
                    req0SubReq1, driverA, pool1, device2, False, tolerationNoExecute
                ),
            )
        ],
    ),
    "tainted-no-effect": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withTaints(taintNone)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "tainted-one-device-two-taints-both-tolerated": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True),
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA).withTolerations(
                tolerationNoSchedule, tolerationNoExecute
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(
                    req0, driverA, pool1, device1, False, tolerationNoSchedule, tolerationNoExecute
                ),
            )
        ],
    ),
    "tainted-disabled": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=False),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "tainted-prioritized-list": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 1), subRequest(subReq1, classA, 1)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-prioritized-list-disabled": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=False, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 1), subRequest(subReq1, classA, 1)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "tainted-admin-access": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True, AdminAccess=True),
        claimsToAllocate=_closure_24(),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
            MakeDeviceID(driverA, pool1, device2),
        ],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-admin-access-disabled": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=False, AdminAccess=True),
        claimsToAllocate=_closure_25(),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device1),
            MakeDeviceID(driverA, pool1, device2),
        ],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
            )
        ],
    ),
    "tainted-all-devices-single": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-all-devices-single-disabled": S(
        "AllocatorTestCase",
        features=S("Features", DeviceTaints=False),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 0).withAllocationMode(
                        resourceapi.DeviceAllocationModeAll
                    ),
                    subRequest(subReq1, classA, 1),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            )
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device2)],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].generation == "v6"', driverA
                                ),
                            ),
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].generation == "v5"', driverA
                                ),
                            ),
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, None, {"generation": S("DeviceAttribute", StringValue=ptr.To("v5"))}
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-multiple-pools": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].generation == "v6"', driverA
                                ),
                            ),
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].generation == "v5"', driverA
                                ),
                            ),
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, None, {"generation": S("DeviceAttribute", StringValue=ptr.To("v5"))}
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device1, None, {"generation": S("DeviceAttribute", StringValue=ptr.To("v5"))}
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].generation == "v6"', driverA
                                ),
                            ),
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].generation == "v5"', driverA
                                ),
                            ),
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, None, {"generation": S("DeviceAttribute", StringValue=ptr.To("v5"))}
                ),
            ),
            sliceWithDevices(
                slice2,
                node2,
                pool2,
                driverA,
                device(
                    device1, None, {"generation": S("DeviceAttribute", StringValue=ptr.To("v5"))}
                ),
                device(
                    device2, None, {"generation": S("DeviceAttribute", StringValue=ptr.To("v6"))}
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].generation == "v6"', driverA
                                ),
                            ),
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].generation == "v5"', driverA
                                ),
                            ),
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                )
            )
        ),
        classes=objects(
            S(
                "DeviceClass",
                ObjectMeta=S("ObjectMeta", Name=classA),
                Spec=S(
                    "DeviceClassSpec",
                    Selectors=[
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.driver == "%s" && device.attributes["%s"].selected',
                                    driverA,
                                    driverA,
                                ),
                            ),
                        )
                    ],
                ),
            )
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "generation": S("DeviceAttribute", StringValue=ptr.To("v6")),
                        "selected": S("DeviceAttribute", BoolValue=ptr.To(False)),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "generation": S("DeviceAttribute", StringValue=ptr.To("v5")),
                        "selected": S("DeviceAttribute", BoolValue=ptr.To(False)),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "generation": S("DeviceAttribute", StringValue=ptr.To("v5")),
                        "selected": S("DeviceAttribute", BoolValue=ptr.To(True)),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device3, False),
            )
        ],
    ),
    "max-number-devices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0, None, request(req0, classA, resourceapi.AllocationResultsMaxSize)
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(
                slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                *multipleDeviceAllocationResults(
                    req0, driverA, pool1, resourceapi.AllocationResultsMaxSize, 0
                ),
            )
        ],
    ),
    "partitionable-devices-with-attribute-selector": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 2),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf('device.attributes["%s"].special', driverA),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1, None, {"special": S("DeviceAttribute", BoolValue=ptr.To(True))}
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"cpu1": resource.MustParse("1")}),
                    deviceCounterConsumption(counterSet2, {"mem": resource.MustParse("10Gi")}),
                ),
                device(
                    device2, None, {"special": S("DeviceAttribute", BoolValue=ptr.To(False))}
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"cpu2": resource.MustParse("1")}),
                    deviceCounterConsumption(counterSet2, {"mem": resource.MustParse("10Gi")}),
                ),
                device(
                    device3, None, {"special": S("DeviceAttribute", BoolValue=ptr.To(False))}
                ).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"cpu3": resource.MustParse("1")}),
                    deviceCounterConsumption(counterSet2, {"mem": resource.MustParse("10Gi")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "cpu1": resource.MustParse("1"),
                        "cpu2": resource.MustParse("1"),
                        "cpu3": resource.MustParse("1"),
                    },
                ),
                counterSet(counterSet2, {"mem": resource.MustParse("30Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-max-allocation-limit-request": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, resourceapi.AllocationResultsMaxSize),
                    subRequest(subReq1, classA, resourceapi.AllocationResultsMaxSize // 2),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, resourceapi.AllocationResultsMaxSize),
                    subRequest(subReq1, classA, resourceapi.AllocationResultsMaxSize // 2),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(
                slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize * 2
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                *slices.Concat(
                    multipleDeviceAllocationResults(
                        req0SubReq1, driverA, pool1, resourceapi.AllocationResultsMaxSize // 2, 0
                    ),
                    multipleDeviceAllocationResults(
                        req1SubReq1,
                        driverA,
                        pool1,
                        resourceapi.AllocationResultsMaxSize // 2,
                        resourceapi.AllocationResultsMaxSize // 2,
                    ),
                ),
            )
        ],
        expectNumAllocateOneInvocations=75,
    ),
    "prioritized-list-max-allocation-allocation-mode-all": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 0).withAllocationMode(
                        resourceapi.DeviceAllocationModeAll
                    ),
                    subRequest(subReq1, classA, 2),
                ),
                deviceRequest(req1, classB, 2),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(
                slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize - 1
            ),
            sliceWithMultipleDevices(slice2, node1, pool2, driverB, 2),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, "device-0", False),
                deviceAllocationResult(req0SubReq1, driverA, pool1, "device-1", False),
                deviceAllocationResult(req1, driverB, pool2, "device-0", False),
                deviceAllocationResult(req1, driverB, pool2, "device-1", False),
            )
        ],
        expectNumAllocateOneInvocations=42,
    ),
    "device-binding-conditions": S(
        "AllocatorTestCase",
        features=S("Features", DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "AllocationResult",
                Devices=S(
                    "DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        )
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "binding-conditions-multiple-devices": S(
        "AllocatorTestCase",
        features=S("Features", DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, None, None).withBindingConditions(
                    ["IsPrepare2"], ["BindingFailed2"]
                ),
                device(device3, None, None).withBindingConditions(
                    ["IsPrepare3"], ["BindingFailed3"]
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "AllocationResult",
                Devices=S(
                    "DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, ["IsPrepare2"], ["BindingFailed2"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req1, driverA, pool1, device3, ["IsPrepare3"], ["BindingFailed3"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "binding-conditions-with-and-without": S(
        "AllocatorTestCase",
        features=S("Features", DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "AllocationResult",
                Devices=S(
                    "DeviceAllocationResult",
                    Results=[
                        deviceAllocationResult(req0, driverA, pool1, device1, False),
                        deviceRequestAllocationResultWithBindingConditions(
                            req1, driverA, pool1, device2, ["IsPrepare"], ["BindingFailed"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "binding-conditions-without-feature-gate": S(
        "AllocatorTestCase",
        features=S("Features", DeviceBindingAndStatus=False),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "node-restriction": S(
        "AllocatorTestCase",
        features=S("Features", DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeLabelSelector(planetKey, planetValueEarth),
                pool1,
                driverA,
                device(device1, None, None).withBindsToNode(True),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "AllocationResult",
                Devices=S(
                    "DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        )
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-multiple": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare2"], ["BindingFailed2"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "AllocationResult",
                Devices=S(
                    "DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, ["IsPrepare2"], ["BindingFailed2"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-some-devices-no-conditions": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 3))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("2Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("2Gi")})
                ),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsReady"], ["BindingTimeout"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "AllocationResult",
                Devices=S(
                    "DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device3, ["IsReady"], ["BindingTimeout"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-multi-slices": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice4,
                node1,
                resourcePool(pool1, 4),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            ),
            sliceWithCounterSets(
                slice3,
                node1,
                resourcePool(pool1, 4),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 4),
                driverA,
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 4),
                driverA,
                counterSet(counterSet2, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "AllocationResult",
                Devices=S(
                    "DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-and-taints": S(
        "AllocatorTestCase",
        features=S(
            "Features", PartitionableDevices=True, DeviceBindingAndStatus=True, DeviceTaints=True
        ),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"])
                .withTaints(
                    S(
                        "DeviceTaint",
                        Key="key1",
                        Value="value1",
                        Effect=resourceapi.DeviceTaintEffectNoSchedule,
                    )
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool1,
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-with-binding-conditions-and-taints-tolerated": S(
        "AllocatorTestCase",
        features=S(
            "Features", PartitionableDevices=True, DeviceBindingAndStatus=True, DeviceTaints=True
        ),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2)).withTolerations(
                tolerationNoScheduleKey1
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"])
                .withTaints(
                    S(
                        "DeviceTaint",
                        Key="key1",
                        Value="value1",
                        Effect=resourceapi.DeviceTaintEffectNoSchedule,
                    )
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                "AllocationResult",
                Devices=S(
                    "DeviceAllocationResult",
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0,
                            driverA,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                            tolerationNoScheduleKey1,
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None, tolerationNoScheduleKey1
                        ),
                    ],
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "consumable-capacity-disabled-feature": S(
        "AllocatorTestCase",
        features=S("Features", DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrap(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"
            )
        ),
    ),
    "consumable-capacity-disabled-feature-with-prioritized-list": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1).withCapacityRequest(ptr.To(one)),
                    subRequest(subReq1, classA, 1).withCapacityRequest(ptr.To(one)),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrap(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"
            )
        ),
    ),
    "consumable-capacity-multi-allocatable-device-with-missing-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity1: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity1: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            ),
            claim(claim1).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-zero-request-policy": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(zero, {capacity0: one}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: zero}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: zero}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-violates-zero-request-policy": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(zero, {capacity0: one}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            ),
            claim(claim1).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-step": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    resource.NewQuantity(3, resource.BinarySI)
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: four}
                ),
            )
        ],
    ),
    "consumable-capacity-range-policy-request-above-int64-rejected": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    new(resource.MustParse("18446744073709551616"))
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("cannot be represented")),
    ),
    "consumable-capacity-range-policy-rounded-value-overflow-rejected": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    new(resource.MustParse("9223372036854775807"))
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("cannot be represented")),
    ),
    "consumable-capacity-range-policy-overflow-aborts-not-skip": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    new(resource.MustParse("18446744073709551616"))
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
                device(
                    device2, {capacity0: resource.MustParse("36893488147419103232")}, None
                ).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("cannot be represented")),
    ),
    "consumable-capacity-range-policy-allocation-mode-all-overflow-aborts": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(
                    new(resource.MustParse("18446744073709551616"))
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("cannot be represented")),
    ),
    "consumable-capacity-negative-request-aborts": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(new(resource.MustParse("-5")))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, {capacity0: resource.MustParse("10")}, None
                ).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("negative")),
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    resource.NewQuantity(2, resource.BinarySI)
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(one, {capacity0: four}, [two]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    resource.NewQuantity(2, resource.BinarySI)
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(one, {capacity0: three}, [three]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: three}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            ),
            claim(claim1).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(
                    resource.NewQuantity(6, resource.BinarySI)
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange(
                    {capacity0: resource.NewQuantity(10, resource.BinarySI)}
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two))
            )
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(two)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two))
            )
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(two)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
                device(device2, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-with-multi-allocatable-device-backtrack": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S("DeviceConstraint", MatchAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two)),
                deviceRequest(req1, classA, 1).withCapacityRequest(ptr.To(two)),
            ),
            claim(claim1).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two))
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue1")
                        )
                    },
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue2")
                        )
                    },
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-subrequest": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1).withCapacityRequest(ptr.To(four)),
                    subRequest(subReq1, classA, 1).withCapacityRequest(ptr.To(two)),
                    subRequest(subReq1, classA, 1),
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(
                    req0SubReq1, driverA, pool1, device1
                ).withConsumedCapacity(fixedShareID, {capacity0: two}),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two))
            )
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(two)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(two))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, None, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(two))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)),
                allDeviceRequest(req1, classA).withCapacityRequest(ptr.To(one)),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(one)}},
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)),
                allDeviceRequest(req1, classA).withCapacityRequest(ptr.To(one)),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(one)}},
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-dedicated-device-with-consumable-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, pool1, driverA, device(device1, {capacity0: one}, None))
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            ),
            claim(claim1).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            ),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-requests-are-not-modified": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two)),
                deviceRequest(req1, classA, 1).withCapacityRequest(
                    ptr.To(resource.MustParse("1000000000000000000000"))
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {
                        capacity0: S(
                            "DeviceCapacity",
                            Value=resource.MustParse("1000000000000000000002"),
                            RequestPolicy=S(
                                "CapacityRequestPolicy",
                                Default=ptr.To(resource.MustParse("1000000000000000000000")),
                                ValidRange=S("CapacityRequestPolicyRange", Min=two),
                            ),
                        )
                    },
                    None,
                ).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: resource.MustParse("1000000000000000000000")}
                ),
            )
        ],
    ),
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))
            )
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(one)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-with-partitionable-device": S(
        "AllocatorTestCase",
        features=S(
            "Features", PrioritizedList=True, PartitionableDevices=True, ConsumableCapacity=True
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withAllowMultipleAllocations(),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                )
                .withAllowMultipleAllocations(),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withAllowMultipleAllocations(),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {"memory": resource.MustParse("4Gi")}
                ),
                deviceRequestAllocationResult(
                    req1SubReq1, driverA, pool1, device3
                ).withConsumedCapacity(fixedShareID, {"memory": resource.MustParse("4Gi")}),
            )
        ],
    ),
    "allow-multiple-allocations-with-shared-device-counter-cross-cycle": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1)
                .withCapacityRequest(ptr.To(one))
                .withSelectors(
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf('device.attributes["%s"].mode == "b"', driverA),
                        ),
                    )
                )
            )
        ),
        allocatedSharedDeviceIDs=sets.New(
            internal.MakeSharedDeviceID(MakeDeviceID(driverA, pool1, device1), fixedShareID)
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(one)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1, fromCounters, {"mode": S("DeviceAttribute", StringValue=ptr.To("a"))}
                )
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: one})
                )
                .withAllowMultipleAllocations(),
                device(
                    device2, fromCounters, {"mode": S("DeviceAttribute", StringValue=ptr.To("b"))}
                )
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: one})
                )
                .withAllowMultipleAllocations(),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: one}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "partitionable-consumable-capacity-shared-device-counter-not-recharged": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, ConsumableCapacity=True),
        allocatedSharedDeviceIDs=sets.New(
            internal.MakeSharedDeviceID(MakeDeviceID(driverA, pool1, device1), fixedShareID)
        ),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"c": resource.MustParse("1")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"c": resource.MustParse("1")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            )
        ],
    ),
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools": S(
        "AllocatorTestCase",
        features=S(
            "Features", PrioritizedList=True, PartitionableDevices=True, ConsumableCapacity=True
        ),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)),
                deviceRequest(req2, classA, 1).withCapacityRequest(ptr.To(two)),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"]["%s"].compareTo(quantity("4")) >= 0',
                                    driverA,
                                    capacity0,
                                ),
                            ),
                        ),
                    ).withCapacityRequest(ptr.To(one)),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"]["%s"].compareTo(quantity("2")) >= 0',
                                    driverA,
                                    capacity0,
                                ),
                            ),
                        ),
                    ).withCapacityRequest(ptr.To(one)),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: two}),
                    deviceCounterConsumption(counterSet2, {capacity1: four}),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange(({capacity1: four})),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: four}),
                    deviceCounterConsumption(counterSet2, {capacity1: four}),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange(({capacity1: four})),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: two}),
                    deviceCounterConsumption(counterSet2, {capacity1: four}),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange(({capacity1: four})),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
                counterSet(counterSet2, {capacity1: resource.MustParse("8")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one, capacity1: two}
                ),
                deviceRequestAllocationResult(req2, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, {capacity0: two, capacity1: two}
                ),
                deviceRequestAllocationResult(
                    req1SubReq1, driverA, pool1, device1
                ).withConsumedCapacity(fixedShareID, {capacity0: one, capacity1: two}),
            )
        ],
    ),
    "with-distinct-constraints": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("DeviceConstraint", DistinctAttribute=boolAttribute, Requests=[req0, req1]),
                S(
                    "DeviceConstraint",
                    DistinctAttribute=versionAttribute,
                    Requests=[req0, req1, req2],
                ),
                S(
                    "DeviceConstraint",
                    DistinctAttribute=intAttribute,
                    Requests=[req0, req1, req2, req3],
                ),
            )
            .withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
                deviceRequest(req2, classA, 1),
                deviceRequest(req3, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0")),
                        "numa": S("DeviceAttribute", IntValue=ptr.To(int64(0))),
                        "boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(True)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.1")),
                        "numa": S("DeviceAttribute", IntValue=ptr.To(int64(1))),
                        "boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(False)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device3,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.2")),
                        "numa": S("DeviceAttribute", IntValue=ptr.To(int64(2))),
                        "boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(True)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device4,
                    None,
                    {
                        "driverVersion": S("DeviceAttribute", VersionValue=ptr.To("1.0.0")),
                        "numa": S("DeviceAttribute", IntValue=ptr.To(int64(3))),
                        "boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(True)),
                    },
                ).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req2, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req3, driverA, pool1, device4).withConsumedCapacity(
                    fixedShareID, None
                ),
            )
        ],
    ),
    "distinct-constraint-single-request-count-3-not-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value2"))},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "distinct-constraint-single-request-count-3-all-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value2"))},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value3"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "distinct-constraint-two-requests-with-count-not-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("DeviceConstraint", DistinctAttribute=stringAttribute, Requests=[req0, req1])
            )
            .withRequests(deviceRequest(req0, classA, 2), deviceRequest(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value2"))},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-distinct-constraints-attribute-not-set": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("DeviceConstraint", DistinctAttribute=boolAttribute, Requests=[req0])
            )
            .withRequests(deviceRequest(req0, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "with-distinct-constraints-unknown-type-attribute": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("DeviceConstraint", DistinctAttribute=boolAttribute, Requests=[req0])
            )
            .withRequests(deviceRequest(req0, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "boolAttribute": S(
                            "DeviceAttribute",
                        )
                    },
                ).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
        expectError=gomega.MatchError(gomega.ContainSubstring("unsupported attribute value")),
    ),
    "with-distinct-constraints-with-subrequests": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S("DeviceConstraint", DistinctAttribute=boolAttribute, Requests=[req0, req1])
            )
            .withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].boolAttribute', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].boolAttribute', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
                requestWithPrioritizedList(
                    req2,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].boolAttribute', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, None, {"boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(True))}
                ).withAllowMultipleAllocations(),
                device(
                    device2, None, {"boolAttribute": S("DeviceAttribute", BoolValue=ptr.To(False))}
                ).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(
                    req0SubReq0, driverA, pool1, device1
                ).withConsumedCapacity(fixedShareID, None),
                deviceRequestAllocationResult(
                    req1SubReq1, driverA, pool1, device2
                ).withConsumedCapacity(fixedShareID, None),
                deviceRequestAllocationResult(
                    req2SubReq0, driverA, pool1, device1
                ).withConsumedCapacity(fixedShareID, None),
            )
        ],
    ),
    "distinct-constraint-single-request-multiple-devices-attribute-not-set": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=intAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
                device(device3, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "distinct-constraint-single-request-not-enough-distinct-values": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=intAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S("DeviceAttribute", IntValue=new(int64(1)))}),
                device(device2, None, {"numa": S("DeviceAttribute", IntValue=new(int64(2)))}),
                device(device3, None, {"numa": S("DeviceAttribute", IntValue=new(int64(2)))}),
                device(device4, None, {"numa": S("DeviceAttribute", IntValue=new(int64(2)))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "distinct-constraint-single-request-multiple-devices-attribute-set": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=intAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S("DeviceAttribute", IntValue=new(int64(1)))}),
                device(device2, None, {"numa": S("DeviceAttribute", IntValue=new(int64(2)))}),
                device(device3, None, {"numa": S("DeviceAttribute", IntValue=new(int64(1)))}),
                device(device4, None, {"numa": S("DeviceAttribute", IntValue=new(int64(3)))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device4, False),
            )
        ],
    ),
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S("DeviceConstraint", DistinctAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)),
                deviceRequest(req1, classA, 1).withCapacityRequest(ptr.To(one)),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue")
                        )
                    },
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S("DeviceConstraint", DistinctAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two)),
                deviceRequest(req1, classA, 1).withCapacityRequest(ptr.To(two)),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue1")
                        )
                    },
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValue=ptr.To("stringAttributeValue2")
                        )
                    },
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-fractional-range-gate-disabled": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(pointTwo))
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withFractionalCapacityRequestPolicyRange({capacity0: one}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: resource.NewQuantity(1, resource.DecimalSI)}
                ),
            )
        ],
    ),
    "consumable-capacity-fractional-range-gate-enabled-round-up": S(
        "AllocatorTestCase",
        features=S("Features", ConsumableCapacity=True, FractionalCapacityRange=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(pointTwoFive)
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withFractionalCapacityRequestPolicyRange({capacity0: one}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: pointThree}
                ),
            )
        ],
    ),
    "list-attributes-match-constaint-scalar-string-values": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-list-of-string-values-with-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value1", "value2", "value3"]
                        )
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value2", "value3", "value4"]
                        )
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-list-of-string-values-with-partially-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value2", "value3"])},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value3", "value1"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constraint-backtrack-needs-intersection-restore": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1"])},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value2"])},
                ),
                device(
                    device4,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value2"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req0, driverA, pool1, device4, False),
            )
        ],
    ),
    "list-attributes-match-constaint-list-of-string-values-without-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 1),
                request(req0, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value3", "value4"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value2", "value3"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value2", "value3"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-list-of-int-values-with-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=intAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S("DeviceAttribute", IntValues=[0, 1, 2])}),
                device(device2, None, {"numa": S("DeviceAttribute", IntValues=[1, 2, 3])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "numanode-matchattribute-overlapping-lists-are-co-placed": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=numaNodeAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"resource.kubernetes.io/numaNode": S("DeviceAttribute", IntValues=[4])},
                ),
                device(
                    device2,
                    None,
                    {
                        "resource.kubernetes.io/numaNode": S(
                            "DeviceAttribute", IntValues=[4, 5, 6, 7]
                        )
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "numanode-matchattribute-disjoint-lists-are-not-allocated": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=numaNodeAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"resource.kubernetes.io/numaNode": S("DeviceAttribute", IntValues=[0])},
                ),
                device(
                    device2,
                    None,
                    {
                        "resource.kubernetes.io/numaNode": S(
                            "DeviceAttribute", IntValues=[4, 5, 6, 7]
                        )
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-list-of-bool-values-with-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=boolAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, None, {"boolAttribute": S("DeviceAttribute", BoolValues=[True, False])}
                ),
                device(device2, None, {"boolAttribute": S("DeviceAttribute", BoolValues=[True])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-list-of-version-values-with-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=versionAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(
                            "DeviceAttribute", VersionValues=["1.0.0", "1.1.0", "2.0.0"]
                        )
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(
                            "DeviceAttribute", VersionValues=["1.1.0", "2.0.0", "2.1.0"]
                        )
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-match-constaint-with-empty-or-unknown-type": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute",
                        )
                    },
                ),
                device(device2, None, {"stringAttribute": S("DeviceAttribute", StringValues=[])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(gomega.ContainSubstring("unsupported attribute value")),
    ),
    "list-attributes-disabled-match-constraint-with-lists": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=False),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", MatchAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value1", "value2", "value3"]
                        )
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value2", "value3", "value4"]
                        )
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-scalar-string-values-all-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value2"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-scalar-string-values-not-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-single-request-count-3-not-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value2"))},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-single-request-count-3-all-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 3),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value2"))},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value3"))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-string-values-all-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value2", "value3"])},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value3", "value4"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-string-values-with-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value1", "value2", "value3"]
                        )
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value2", "value4", "value5"]
                        )
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value2", "value3"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValue=new("value1"))},
                ),
                device(
                    device2,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-list-of-int-values-all-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=intAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S("DeviceAttribute", IntValues=[0, 1])}),
                device(device2, None, {"numa": S("DeviceAttribute", IntValues=[1, 2])}),
                device(device3, None, {"numa": S("DeviceAttribute", IntValues=[2, 3])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-bool-values-all-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=boolAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"boolAttribute": S("DeviceAttribute", BoolValues=[True])}),
                device(
                    device2, None, {"boolAttribute": S("DeviceAttribute", BoolValues=[True, False])}
                ),
                device(device3, None, {"boolAttribute": S("DeviceAttribute", BoolValues=[False])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-version-values-all-distinct": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=versionAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"driverVersion": S("DeviceAttribute", VersionValues=["1.0.0", "1.1.0"])},
                ),
                device(
                    device2,
                    None,
                    {"driverVersion": S("DeviceAttribute", VersionValues=["1.1.0", "2.0.0"])},
                ),
                device(
                    device3,
                    None,
                    {"driverVersion": S("DeviceAttribute", VersionValues=["2.0.0", "2.1.0"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constaint-with-empty-or-unknown-type": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=versionAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"driverVersion": S("DeviceAttribute", VersionValues=[])}),
                device(device2, None, {"driverVersion": S("DeviceAttribute", VersionValues=None)}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(gomega.ContainSubstring("unsupported attribute value")),
    ),
    "list-attributes-disabled-distinct-constraint-with-lists": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=False, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S("DeviceConstraint", DistinctAttribute=stringAttribute)],
                request(req0, classA, 2),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value1", "value2", "value3"]
                        )
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value2", "value3", "value4"]
                        )
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-backtrack-needs-remove": S(
        "AllocatorTestCase",
        features=S("Features", ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S(
                    "DeviceConstraint",
                    Requests=[req0, req1, req2],
                    DistinctAttribute=stringAttribute,
                )
            )
            .withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
                deviceRequest(req2, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value1", "value2", "value3"]
                        )
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "stringAttribute": S(
                            "DeviceAttribute", StringValues=["value3", "value4", "value5"]
                        )
                    },
                ),
                device(
                    device3,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value1", "value2"])},
                ),
                device(
                    device4,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value3", "value4"])},
                ),
                device(
                    device0,
                    None,
                    {"stringAttribute": S("DeviceAttribute", StringValues=["value5", "value6"])},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1, driverA, pool1, device4, False),
                deviceAllocationResult(req2, driverA, pool1, device0, False),
            )
        ],
    ),
    "allocation-mode-all-with-multi-host-resource-pool": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    "DeviceRequest",
                    Name=req0,
                    Exactly=S(
                        "ExactDeviceRequest",
                        AllocationMode=resourceapi.DeviceAllocationModeAll,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)
            ),
            sliceWithDevices(
                slice2, node2, resourcePool(pool1, 2), driverA, device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "multi-host-resource-pool-with-stale-slice-for-current-node": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_closure_26(), _closure_27()),
        node=node(node1, region1),
    ),
    "multi-host-resource-pool-complete-update-from-node-1-to-node-2": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_closure_28(), _closure_29(), _closure_30(), _closure_31()),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "multi-host-resource-pool-complete-update-from-node-2-to-node-1": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_closure_32(), _closure_33(), _closure_34(), _closure_35()),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "multi-host-resource-pool-incomplete-update-from-node-1-to-node-2": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_closure_36(), _closure_37(), _closure_38()),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "multi-host-resource-pool-incomplete-update-from-node-2-to-node-1": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_closure_39(), _closure_40(), _closure_41()),
        node=node(node1, region1),
    ),
    "partitionable-devices-same-counter-set-name-in-different-resource-slices": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, resourcePool(pool1, 4), driverA, device(device1, None, None)
            ),
            sliceWithCounterSets(
                slice2, node1, resourcePool(pool1, 4), driverA, counterSet(counterSet1, None)
            ),
            sliceWithDevices(
                slice3, node1, resourcePool(pool1, 4), driverA, device(device2, None, None)
            ),
            sliceWithCounterSets(
                slice4, node1, resourcePool(pool1, 4), driverA, counterSet(counterSet1, None)
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("invalid resource pools were encountered")
        ),
    ),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-set": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, None)
                ),
            ),
            sliceWithCounterSets(
                slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, None)
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("invalid resource pools were encountered")
        ),
    ),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("8Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"other-memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("invalid resource pools were encountered")
        ),
    ),
    "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("8Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                pool2,
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("invalid resource pools were encountered")
        ),
    ),
    "partitionable-devices-devices-on-different-nodes-consume-same-counter-set": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                    driverA,
                                ),
                            ),
                        ),
                    ),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("2Gi")})
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device3)],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "partitionable-devices-devices-consume-counter-set-in-different-nodes": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("2Gi")})
                ),
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        node=node(node2, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node2),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-validation-error-on-non-targeting-slice": S(
        "AllocatorTestCase",
        features=S("Features", PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("6Gi")})
                ),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("invalid resource pools were encountered")
        ),
    ),
    "different-resourceslices-in-pool-can-target-different-nodes": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node2, resourcePool(pool1, 2), driverA, device(device1, None, None)
            ),
            sliceWithDevices(
                slice2, node1, resourcePool(pool1, 2), driverA, device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "invalid-pool-is-ok-if-devices-can-be-allocated-from-other": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)
            ),
            sliceWithDevices(
                slice2, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)
            ),
            sliceWithDevices(
                slice3, node1, resourcePool(pool2, 1), driverA, device(device2, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool2, device2, False),
            )
        ],
    ),
    "invalid-pool-is-error-if-no-other-device-can-be-allocated": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)
            ),
            sliceWithDevices(
                slice2, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)
            ),
            sliceWithDevices(
                slice3, node1, resourcePool(pool2, 1), driverA, device(device2, None, None)
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool2, device2)],
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("invalid resource pools were encountered")
        ),
    ),
    "no-allocation-from-incomplete-pools": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)
            )
        ),
        node=node(node1, region1),
    ),
    "check-combinations-within-single-request-single-pool-single-slice": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 5))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
                device(device3, None, None),
                device(device4, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 65},
    ),
    "check-combinations-within-single-request-single-pool-multiple-slices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 5))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device3, None, None),
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 65},
    ),
    "check-combinations-within-single-request-multiple-pools-multiple-slices": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 5))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)
            ),
            sliceWithDevices(
                slice2, node1, resourcePool(pool1, 2), driverA, device(device2, None, None)
            ),
            sliceWithDevices(
                slice3,
                node1,
                pool2,
                driverA,
                device(device3, None, None),
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 65},
    ),
    "check-combinations-within-single-request-many-pools": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 5))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None)),
            sliceWithDevices(slice2, node1, pool2, driverA, device(device2, None, None)),
            sliceWithDevices(slice3, node1, pool3, driverA, device(device3, None, None)),
            sliceWithDevices(slice4, node1, pool4, driverA, device(device4, None, None)),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 65},
    ),
    "check-combinations-with-backtracking": S(
        "AllocatorTestCase",
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req1, classA, 2),
                request(
                    req2,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf('device.attributes["%s"].type == "X"', driverA),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"type": S("DeviceAttribute", StringValue=ptr.To("X"))}),
                device(device2, None, {"type": S("DeviceAttribute", StringValue=ptr.To("Y"))}),
                device(device3, None, {"type": S("DeviceAttribute", StringValue=ptr.To("Y"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
                deviceAllocationResult(req2, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=12,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 14},
    ),
    "check-combinations-with-backtracking-across-slices-and-pools": S(
        "AllocatorTestCase",
        features=S("Features", DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req1, classA, 2),
                request(
                    req2,
                    classA,
                    1,
                    S(
                        "DeviceSelector",
                        CEL=S(
                            "CELDeviceSelector",
                            Expression=fmt.Sprintf('device.attributes["%s"].type == "X"', driverA),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, {"type": S("DeviceAttribute", StringValue=ptr.To("X"))}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device2, None, {"type": S("DeviceAttribute", StringValue=ptr.To("Y"))}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                pool2,
                driverA,
                device(
                    device3, None, {"type": S("DeviceAttribute", StringValue=ptr.To("Y"))}
                ).withBindingConditions(["IsPrepare"], []),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
                deviceRequestAllocationResultWithBindingConditions(
                    req1, driverA, pool2, device3, ["IsPrepare"], []
                ),
                deviceAllocationResult(req2, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=12,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 14},
    ),
    "check-combinations-with-prioritized-list": S(
        "AllocatorTestCase",
        features=S("Features", PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        3,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].type == "Y"', driverA
                                ),
                            ),
                        ),
                    ),
                    subRequest(subReq1, classA, 2),
                ),
                requestWithPrioritizedList(
                    req2,
                    subRequest(subReq0, classA, 2),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            "DeviceSelector",
                            CEL=S(
                                "CELDeviceSelector",
                                Expression=fmt.Sprintf(
                                    'device.attributes["%s"].type == "X"', driverA
                                ),
                            ),
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"type": S("DeviceAttribute", StringValue=ptr.To("X"))}),
                device(device2, None, {"type": S("DeviceAttribute", StringValue=ptr.To("Y"))}),
                device(device3, None, {"type": S("DeviceAttribute", StringValue=ptr.To("Y"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
                deviceAllocationResult(req2SubReq1, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=26,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 32},
    ),
    "derived-attributes": S(
        "AllocatorTestCase",
        features=S("Features", DerivedAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        "DeviceConstraint",
                        Requests=[req0, req1],
                        MatchAttribute=ptr.To(
                            resourceapi.FullyQualifiedName("derived/sharedNumaNode")
                        ),
                    )
                ],
                requestWithDerivedAttributes(
                    req0,
                    classA,
                    1,
                    [
                        S(
                            "DeviceDerivedAttribute",
                            Name="derived/sharedNumaNode",
                            Expression=fmt.Sprintf('device.attributes["%s"]["numa"]', driverA),
                        )
                    ],
                ),
                requestWithDerivedAttributes(
                    req1,
                    classB,
                    1,
                    [
                        S(
                            "DeviceDerivedAttribute",
                            Name="derived/sharedNumaNode",
                            Expression=fmt.Sprintf('device.attributes["%s"]["numaNode"]', driverB),
                        )
                    ],
                ),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device2, None, {"numa": S("DeviceAttribute", StringValue=new("numa-0"))}),
                device(device1, None, {"numa": S("DeviceAttribute", StringValue=new("numa-1"))}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverB,
                device(
                    device3, None, {"numaNode": S("DeviceAttribute", StringValue=new("numa-1"))}
                ),
                device(
                    device4, None, {"numaNode": S("DeviceAttribute", StringValue=new("numa-2"))}
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverB, pool2, device3, False),
            )
        ],
    ),
    "derived-attributes-with-prioritized-list": S(
        "AllocatorTestCase",
        features=S("Features", DerivedAttributes=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        "DeviceConstraint",
                        Requests=[req0, req1],
                        MatchAttribute=ptr.To(resourceapi.FullyQualifiedName("derived/match")),
                    )
                ],
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        [
                            S(
                                "DeviceDerivedAttribute",
                                Name=resourceapi.FullyQualifiedName("derived/match"),
                                Expression=fmt.Sprintf('device.attributes["%s"]["foo"]', driverA),
                            )
                        ],
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        [
                            S(
                                "DeviceDerivedAttribute",
                                Name=resourceapi.FullyQualifiedName("derived/match"),
                                Expression=fmt.Sprintf('device.attributes["%s"]["bar"]', driverA),
                            )
                        ],
                    ),
                ).obj(),
                requestWithDerivedAttributes(
                    req1,
                    classB,
                    1,
                    [
                        S(
                            "DeviceDerivedAttribute",
                            Name=resourceapi.FullyQualifiedName("derived/match"),
                            Expression=fmt.Sprintf('device.attributes["%s"]["baz"]', driverB),
                        )
                    ],
                ),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "foo": S("DeviceAttribute", StringValue=new("A")),
                        "bar": S("DeviceAttribute", StringValue=new("B")),
                    },
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverB,
                device(device2, None, {"baz": S("DeviceAttribute", StringValue=new("B"))}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverB, pool2, device2, False),
            )
        ],
    ),
    "derived-attributes-override": S(
        "AllocatorTestCase",
        features=S("Features", DerivedAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        "DeviceConstraint",
                        Requests=[req0, req1],
                        MatchAttribute=ptr.To(
                            resourceapi.FullyQualifiedName("dra.example.com/myAttr")
                        ),
                    )
                ],
                requestWithDerivedAttributes(
                    req0,
                    classA,
                    1,
                    [
                        S(
                            "DeviceDerivedAttribute",
                            Name=resourceapi.FullyQualifiedName("dra.example.com/myAttr"),
                            Expression='"value-2"',
                        )
                    ],
                ),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, "dra.example.com")),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                "dra.example.com",
                device(device1, None, {"myAttr": S("DeviceAttribute", StringValue=new("value-1"))}),
                device(device2, None, {"myAttr": S("DeviceAttribute", StringValue=new("value-2"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, "dra.example.com", pool1, device1, False),
                deviceAllocationResult(req1, "dra.example.com", pool1, device2, False),
            )
        ],
    ),
    "derived-attributes-cel-missing-attribute": S(
        "AllocatorTestCase",
        features=S("Features", DerivedAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        "DeviceConstraint",
                        Requests=[req0],
                        MatchAttribute=ptr.To(resourceapi.FullyQualifiedName("derived/missing")),
                    )
                ],
                requestWithDerivedAttributes(
                    req0,
                    classA,
                    1,
                    [
                        S(
                            "DeviceDerivedAttribute",
                            Name=resourceapi.FullyQualifiedName("derived/missing"),
                            Expression=fmt.Sprintf(
                                'device.attributes["%s"]["missingAttr"]', driverA
                            ),
                        )
                    ],
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, None, {"existingAttr": S("DeviceAttribute", StringValue=new("yes"))}
                ),
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("no such key: missingAttr")),
    ),
    "derived-attributes-type-mismatch": S(
        "AllocatorTestCase",
        features=S("Features", DerivedAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(
                        "DeviceConstraint",
                        Requests=[req0],
                        MatchAttribute=ptr.To(resourceapi.FullyQualifiedName("derived/myAttr")),
                    )
                ],
                requestWithDerivedAttributes(
                    req0,
                    classA,
                    2,
                    [
                        S(
                            "DeviceDerivedAttribute",
                            Name=resourceapi.FullyQualifiedName("derived/myAttr"),
                            Expression=fmt.Sprintf('device.attributes["%s"]["static"]', driverA),
                        )
                    ],
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"static": S("DeviceAttribute", StringValue=new("value"))}),
                device(device2, None, {"static": S("DeviceAttribute", IntValue=new(int64(1)))}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
}

SKIPPED: dict[str, str] = {}
