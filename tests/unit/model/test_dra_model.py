"""DRA objects decoded from the API server's JSON: the fields the allocator reads, one-line
errors for objects it cannot read (never a traceback), and Go's canonical quantities."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.model.dra import DRAObjectError, ResourceSlice
from kubesched.model.dra_claims import ResourceClaim
from kubesched.model.dra_classes import DeviceClass, DeviceTaintRule
from kubesched.model.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity

SLICE = {
    "metadata": {"name": "gpu-node-1", "resourceVersion": "7"},
    "spec": {
        "driver": "gpu.example.com",
        "pool": {"name": "node-1", "generation": 2, "resourceSliceCount": 1},
        "nodeName": "node-1",
        "devices": [
            {
                "name": "gpu-0",
                "attributes": {
                    "model": {"string": "a100"},
                    "numa": {"int": 0},
                    "v": {"version": "1.2.3"},
                },
                "capacity": {
                    "memory": {
                        "value": "80Gi",
                        "requestPolicy": {
                            "default": "10Gi",
                            "validRange": {"min": "10Gi", "step": "10Gi"},
                        },
                    }
                },
                "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
                "consumesCounters": [{"counterSet": "cs", "counters": {"mem": {"value": "40Gi"}}}],
                "allowMultipleAllocations": True,
                "bindingConditions": ["Ready"],
            }
        ],
        "sharedCounters": [{"name": "cs", "counters": {"mem": {"value": "80Gi"}}}],
    },
}


def test_a_slice_keeps_what_allocation_reads() -> None:
    s = ResourceSlice.from_json(SLICE)
    assert (s.name, s.driver, s.pool.name, s.pool.generation, s.node_name) == (
        "gpu-node-1",
        "gpu.example.com",
        "node-1",
        2,
        "node-1",
    )
    d = s.devices[0]
    assert d.attributes["model"].kind == "string"
    assert d.attributes["numa"].value == 0
    assert str(d.capacity["memory"].value) == "80Gi"
    policy = d.capacity["memory"].request_policy
    assert policy is not None
    assert policy.valid_range_set
    assert str(policy.step) == "10Gi"
    assert d.taints[0].effect == "NoSchedule"
    assert d.consumes_counters[0].counters["mem"] == Quantity.parse("40Gi")
    assert d.allow_multiple_allocations is True
    assert d.binding_conditions == ("Ready",)
    assert s.shared_counters[0].counters["mem"] == Quantity.parse("80Gi")


def test_a_claim_with_prioritized_list_constraints_and_allocation() -> None:
    claim = ResourceClaim.from_json(
        {
            "metadata": {"name": "c", "namespace": "ns", "uid": "u"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "firstAvailable": [
                                {"name": "big", "deviceClassName": "gpu", "count": 2},
                                {
                                    "name": "small",
                                    "deviceClassName": "gpu",
                                    "tolerations": [{"key": "k", "operator": "Exists"}],
                                },
                            ],
                        },
                        {
                            "name": "nic",
                            "exactly": {
                                "deviceClassName": "nic",
                                "allocationMode": "All",
                                "adminAccess": True,
                                "capacity": {"requests": {"bw": "10G"}},
                            },
                        },
                    ],
                    "constraints": [
                        {"requests": ["gpu", "nic"], "matchAttribute": "example.com/numa"}
                    ],
                    "config": [
                        {"requests": ["gpu"], "opaque": {"driver": "d", "parameters": {"a": 1}}}
                    ],
                }
            },
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {
                                "request": "gpu/small",
                                "driver": "d",
                                "pool": "p",
                                "device": "g",
                                "consumedCapacity": {"bw": "1G"},
                                "shareID": "s",
                            }
                        ]
                    }
                },
                "reservedFor": [{"resource": "pods", "name": "p", "uid": "1"}],
            },
        }
    )
    gpu, nic = claim.requests
    assert gpu.exactly is None
    assert [s.name for s in gpu.first_available] == ["big", "small"]
    assert gpu.first_available[1].count == 1
    assert gpu.first_available[1].tolerations[0].operator == "Exists"
    assert nic.exactly is not None
    assert nic.exactly.allocation_mode == "All"
    assert nic.exactly.admin_access is True
    assert nic.exactly.capacity_requests == {"bw": Quantity.parse("10G")}
    assert claim.constraints[0].match_attribute == "example.com/numa"
    assert claim.config[0].config.raw == {"opaque": {"driver": "d", "parameters": {"a": 1}}}
    assert claim.allocation is not None
    assert claim.allocation.results[0].consumed_capacity == {"bw": Quantity.parse("1G")}
    assert claim.allocation.to_json()["devices"]["results"][0]["consumedCapacity"] == {"bw": "1G"}
    assert claim.reserved_for[0].uid == "1"


def test_a_class_and_a_taint_rule() -> None:
    cls = DeviceClass.from_json(
        {
            "metadata": {"name": "gpu"},
            "spec": {
                "selectors": [{"cel": {"expression": "true"}}, {}],
                "extendedResourceName": "example.com/gpu",
                "config": [{"opaque": {"driver": "d", "parameters": {}}}],
            },
        }
    )
    assert [s.expression for s in cls.selectors] == ["true", None]
    assert cls.extended_resource_name == "example.com/gpu"
    rule = DeviceTaintRule.from_json(
        {
            "metadata": {"name": "r"},
            "spec": {
                "deviceSelector": {"driver": "d"},
                "taint": {"key": "k", "effect": "NoExecute"},
            },
        }
    )
    assert (rule.driver, rule.pool, rule.taint.effect, rule.has_selector) == (
        "d",
        None,
        "NoExecute",
        True,
    )


_SLICE = "ResourceSlice gpu-node-1"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda s: s["spec"]["devices"][0]["capacity"]["memory"].update(value="lots"),
            f"{_SLICE}: spec.devices[0].capacity.memory.value: invalid quantity 'lots'",
        ),
        (
            lambda s: s["spec"]["devices"][0]["attributes"]["numa"].update(int="zero"),
            f"{_SLICE}: spec.devices[0].attributes.numa.int: expected an integer, got 'zero'",
        ),
        (
            lambda s: s["spec"].update(devices={"name": "x"}),
            "ResourceSlice gpu-node-1: spec.devices: expected a list, got dict",
        ),
        (
            lambda s: s["spec"]["pool"].update(generation="2"),
            "ResourceSlice gpu-node-1: spec.pool.generation: expected an integer, got '2'",
        ),
    ],
)
def test_a_bad_slice_is_one_line_naming_the_field(mutate: Any, message: str) -> None:
    bad = copy.deepcopy(SLICE)
    mutate(bad)
    with pytest.raises(DRAObjectError) as caught:
        ResourceSlice.from_json(bad)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.text(max_size=4)
    | st.sampled_from(["1Gi", "x", "-1", "2"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "name",
                    "spec",
                    "devices",
                    "attributes",
                    "capacity",
                    "value",
                    "requests",
                    "exactly",
                    "firstAvailable",
                    "pool",
                    "driver",
                    "count",
                    "selectors",
                    "cel",
                    "expression",
                    "int",
                    "string",
                    "taints",
                    "status",
                    "allocation",
                    "results",
                    "consumedCapacity",
                    "metadata",
                    "counters",
                    "sharedCounters",
                    "consumesCounters",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_garbage_never_escapes_as_a_traceback(raw: Any) -> None:
    obj = raw if isinstance(raw, dict) else {"spec": raw}
    decoders = (ResourceSlice, ResourceClaim, DeviceClass, DeviceTaintRule)
    problems = [_problem(kind.from_json, obj) for kind in decoders]
    assert all("\n" not in p for p in problems)


def _problem(decode: Any, obj: Any) -> str:
    try:
        decode(obj)
    except DRAObjectError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize(
    ("value", "fmt", "text"),
    [
        (Decimal(1024), BINARY_SI, "1Ki"),
        (Decimal(1536) * 1024 * 1024, BINARY_SI, "1536Mi"),
        (Decimal(1000), BINARY_SI, "1k"),
        (Decimal("0.5"), BINARY_SI, "500m"),
        (Decimal(1500), DECIMAL_SI, "1500"),
        (Decimal(2000), DECIMAL_SI, "2k"),
        (Decimal("0.3"), DECIMAL_SI, "300m"),
        (Decimal("1e-10"), DECIMAL_SI, "1n"),
        (Decimal(1000), DECIMAL_EXPONENT, "1e3"),
        (Decimal(10) ** 22, DECIMAL_SI, "10000E"),
        (Decimal(0), BINARY_SI, "0"),
    ],
)
def test_quantities_print_as_go_does(value: Decimal, fmt: str, text: str) -> None:
    assert str(Quantity(value, fmt)) == text


@given(
    st.integers(0, 2**70),
    st.sampled_from([BINARY_SI, DECIMAL_SI, DECIMAL_EXPONENT]),
    st.integers(0, 3),
)
def test_a_printed_quantity_parses_back_to_its_value(
    whole: int, fmt: str, milli_digits: int
) -> None:
    value = Decimal(whole) / (10**milli_digits)
    q = Quantity(value, fmt)
    assert Quantity.parse(str(q)).value == q.value


def test_the_exa_suffix_parses() -> None:
    assert Quantity.parse("2E").value == 2 * 10**18
    assert Quantity.parse("2e3").value == 2000
