"""The DRA CEL environment against upstream's cases (`k8s.io/dynamic-resource-allocation/cel`
v0.37.2: `compile_test.go` TestCEL and TestInterrupt, `errors_test.go`, `cache_test.go`).

kube-scheduler compiles *stored* expressions, so each case runs as a stored expression;
the cases upstream runs only as new expressions (a feature gate off hiding a field or a
function) do not apply to the scheduler and are listed in `NEW_EXPRESSIONS_ONLY`. Cost
estimates are not asserted: the scheduler disables estimation and enforces the runtime limit
only (the `expensive` case)."""

# The table keeps upstream's cases one per entry, with their long expected texts.
# ruff: noqa: E501
from __future__ import annotations

import time
from typing import Any

import pytest

from kubesched.dra.cel import (
    CelCache,
    DeviceSelectorError,
    compile_selector,
    device_variable,
    enhance_runtime_error,
)
from kubesched.model.dra import Device, DeviceAttribute, DeviceCapacity
from kubesched.model.quantity import Quantity

D = "dra.example.com"


def _attrs(**values: tuple[str, Any]) -> dict[str, DeviceAttribute]:
    return {name: DeviceAttribute(kind, value) for name, (kind, value) in values.items()}


def _device(
    attributes: dict[str, DeviceAttribute] | None = None,
    capacity: dict[str, str] | None = None,
    multi: bool | None = None,
) -> Device:
    return Device(
        "d",
        attributes=attributes or {},
        capacity={k: DeviceCapacity(Quantity.parse(v)) for k, v in (capacity or {}).items()},
        allow_multiple_allocations=multi,
    )


_EXPENSIVE = (
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))"
)
_LONG = [f"value-{i}" for i in range(64)]
_MANY_ATTRS = {
    f"{D}/{'x' * (32 - len(f'-{i}'))}-{i}": DeviceAttribute("string", "abc") for i in range(32)
}

# name: (expression, driver, device, expectation); expectation is True/False, or
# ("compile", text) / ("error", text) with a text the message must contain.
CASES: dict[str, tuple[str, str, Device, Any]] = {
    "true": ("true", "", _device(), True),
    "false": ("false", "", _device(), False),
    "syntax-error": ("?!", "", _device(), ("compile", "Syntax error")),
    "type-error": (
        "1",
        "",
        _device(),
        ("compile", "must evaluate to bool or the unknown type, not int"),
    ),
    "runtime-error-lookup-identifier": (
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        "",
        _device(),
        ("error", "no such key: noSuchAttr"),
    ),
    "runtime-error-lookup-map": (
        'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        "",
        _device(),
        ("error", "no such key: noSuchAttr"),
    ),
    "domain-check-negative": ('"no-such-domain" in device.attributes', "", _device(), False),
    "domain-check-positive": (
        f'"{D}" in device.attributes',
        "",
        _device({f"{D}/something": DeviceAttribute("bool", True)}),
        True,
    ),
    "empty-driver-name": ('device.driver == ""', "", _device(), True),
    "real-driver-name": (f'device.driver == "{D}"', D, _device(), True),
    "driver-name-qualifier": (
        f'device.attributes["{D}"].name',
        D,
        _device(_attrs(name=("bool", True))),
        True,
    ),
    "driver-name-qualifier-map-lookup": (
        f'device.attributes["{D}"]["name"]',
        D,
        _device(_attrs(name=("bool", True))),
        True,
    ),
    "bind": (
        f'cel.bind(dra, device.attributes["{D}"], dra.name)',
        D,
        _device(_attrs(name=("bool", True))),
        True,
    ),
    "qualified-attribute-name": (
        'device.attributes["other.example.com"].name',
        D,
        _device({"other.example.com/name": DeviceAttribute("bool", True)}),
        True,
    ),
    "bool": (f'device.attributes["{D}"].name', D, _device(_attrs(name=("bool", True))), True),
    "int": (f'device.attributes["{D}"].name > 0', D, _device(_attrs(name=("int", 1))), True),
    "string": (
        f'device.attributes["{D}"].name == "fish"',
        D,
        _device(_attrs(name=("string", "fish"))),
        True,
    ),
    "macro-exists-on-int": (
        f'device.attributes["{D}"].name.exists(x, x > 0)',
        D,
        _device(_attrs(name=("int", 1))),
        ("error", "got 'types.Int', expected iterable type"),
    ),
    "macro-exists-on-bool": (
        f'device.attributes["{D}"].name.exists(x, x == true)',
        D,
        _device(_attrs(name=("bool", True))),
        ("error", "got 'types.Bool', expected iterable type"),
    ),
    "macro-exists-on-string": (
        f'device.attributes["{D}"].name.exists(x, x == "fish")',
        D,
        _device(_attrs(name=("string", "fish"))),
        ("error", "got 'types.String', expected iterable type"),
    ),
    "list-result-type-causes-match-error": (
        f'device.attributes["{D}"].names',
        D,
        _device(_attrs(names=("strings", ("fish", "bird")))),
        ("error", "CEL result of type list could not be converted to bool"),
    ),
    "includes-function-can-evaluate": (
        f'device.attributes["{D}"].name.includes("fish")',
        D,
        _device(_attrs(name=("strings", ("fish", "bird")))),
        True,
    ),
    "list-of-bool": (
        f'device.attributes["{D}"].names.size() == 2',
        D,
        _device(_attrs(names=("bools", (True, False)))),
        True,
    ),
    "list-of-int": (
        f'device.attributes["{D}"].names.size() == 2',
        D,
        _device(_attrs(names=("ints", (1, 2)))),
        True,
    ),
    "list-of-string": (
        f'device.attributes["{D}"].names.size() == 2',
        D,
        _device(_attrs(names=("strings", ("fish", "bird")))),
        True,
    ),
    "list-of-semver": (
        f'device.attributes["{D}"].names.size() == 2',
        D,
        _device(_attrs(names=("versions", ("1.0.0", "2.0.0")))),
        True,
    ),
    "macro-on-list-of-int": (
        f'device.attributes["{D}"].names.exists(x, x > 0)',
        D,
        _device(_attrs(names=("ints", (1, 2)))),
        True,
    ),
    "macro-on-list-of-string": (
        f'device.attributes["{D}"].names.all(x, x != "")',
        D,
        _device(_attrs(names=("strings", ("fish", "bird")))),
        True,
    ),
    "macro-on-list-of-semver": (
        f'device.attributes["{D}"].names.all(x, x.isGreaterThan(semver("0.0.1")))',
        D,
        _device(_attrs(names=("versions", ("1.0.0", "2.0.0")))),
        True,
    ),
    "includes-function-compilation-and-eval-success": (
        f'device.attributes["{D}"].attr.includes("fish")',
        D,
        _device(_attrs(attr=("string", "fish"))),
        True,
    ),
    "includes-function-on-bool-scalar-positive": (
        f'device.attributes["{D}"].name.includes(true)',
        D,
        _device(_attrs(name=("bool", True))),
        True,
    ),
    "includes-function-on-bool-scalar-negative": (
        f'device.attributes["{D}"].name.includes(true)',
        D,
        _device(_attrs(name=("bool", False))),
        False,
    ),
    "includes-function-on-bool-list-positive": (
        f'device.attributes["{D}"].name.includes(true)',
        D,
        _device(_attrs(name=("bools", (True, False)))),
        True,
    ),
    "includes-function-on-bool-list-negative": (
        f'device.attributes["{D}"].name.includes(false)',
        D,
        _device(_attrs(name=("bools", (True, True)))),
        False,
    ),
    "includes-function-on-int-scalar-positive": (
        f'device.attributes["{D}"].name.includes(1)',
        D,
        _device(_attrs(name=("int", 1))),
        True,
    ),
    "includes-function-on-int-scalar-negative": (
        f'device.attributes["{D}"].name.includes(1)',
        D,
        _device(_attrs(name=("int", 2))),
        False,
    ),
    "includes-function-on-int-list-positive": (
        f'device.attributes["{D}"].name.includes(1)',
        D,
        _device(_attrs(name=("ints", (1, 2)))),
        True,
    ),
    "includes-function-on-int-list-negative": (
        f'device.attributes["{D}"].name.includes(3)',
        D,
        _device(_attrs(name=("ints", (1, 2)))),
        False,
    ),
    "includes-function-on-string-scalar-positive": (
        f'device.attributes["{D}"].name.includes("fish")',
        D,
        _device(_attrs(name=("string", "fish"))),
        True,
    ),
    "includes-function-on-string-scalar-negative": (
        f'device.attributes["{D}"].name.includes("bird")',
        D,
        _device(_attrs(name=("string", "fish"))),
        False,
    ),
    "includes-function-on-string-list-positive": (
        f'device.attributes["{D}"].name.includes("fish")',
        D,
        _device(_attrs(name=("strings", ("fish", "bird")))),
        True,
    ),
    "includes-function-on-string-list-negative": (
        f'device.attributes["{D}"].name.includes("cat")',
        D,
        _device(_attrs(name=("strings", ("fish", "bird")))),
        False,
    ),
    "includes-function-on-semver-scalar-positive": (
        f'device.attributes["{D}"].name.includes(semver("1.0.0"))',
        D,
        _device(_attrs(name=("version", "1.0.0"))),
        True,
    ),
    "includes-function-on-semver-scalar-negative": (
        f'device.attributes["{D}"].name.includes(semver("2.0.0"))',
        D,
        _device(_attrs(name=("version", "1.0.0"))),
        False,
    ),
    "includes-function-on-semver-list-positive": (
        f'device.attributes["{D}"].name.includes(semver("1.0.0"))',
        D,
        _device(_attrs(name=("versions", ("1.0.0", "2.0.0")))),
        True,
    ),
    "includes-function-on-semver-list-negative": (
        f'device.attributes["{D}"].name.includes(semver("3.0.0"))',
        D,
        _device(_attrs(name=("versions", ("1.0.0", "2.0.0")))),
        False,
    ),
    "includes-function-on-very-long-list-positive": (
        f'device.attributes["{D}"].name.includes("value-64")',
        D,
        _device(_attrs(name=("strings", tuple(_LONG)))),
        False,
    ),
    "in-operator-on-list": (
        f'1 in device.attributes["{D}"].names',
        D,
        _device(_attrs(names=("ints", (1, 2, 3)))),
        True,
    ),
    "version": (
        f'device.attributes["{D}"].name.isGreaterThan(semver("0.0.1"))',
        D,
        _device(_attrs(name=("version", "1.0.0"))),
        True,
    ),
    "version_v": (
        f'device.attributes["{D}"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)',
        D,
        _device(_attrs(name=("version", "1.0.0"))),
        True,
    ),
    "macro-exists-on-version": (
        f'device.attributes["{D}"].name.exists(x, x.isGreaterThan(semver("0.0.1")))',
        D,
        _device(_attrs(name=("version", "1.0.0"))),
        ("error", "got 'cel.Semver', expected iterable type"),
    ),
    "quantity": (
        f'device.capacity["{D}"].name.isGreaterThan(quantity("1Ki"))',
        D,
        _device(capacity={"name": "1Mi"}),
        True,
    ),
    "check-positive": (
        f'"name" in device.capacity["{D}"] && device.capacity["{D}"].name.isGreaterThan(quantity("1Ki"))',
        D,
        _device(capacity={"name": "1Mi"}),
        True,
    ),
    "check-negative": (
        f'!("name" in device.capacity["{D}"]) || device.capacity["{D}"].name.isGreaterThan(quantity("1Ki"))',
        "",
        _device(),
        True,
    ),
    "all": (
        " && ".join(
            [
                f'device.capacity["{D}"].quantity.isGreaterThan(quantity("1Ki"))',
                f'device.attributes["{D}"].bool',
                f'device.attributes["{D}"].int > 0',
                f'device.attributes["{D}"].string == "fish"',
                f'device.attributes["{D}"].version.isGreaterThan(semver("0.0.1"))',
                f'device.capacity["{D}"]["quantity"].isGreaterThan(quantity("1Ki"))',
                f'device.attributes["{D}"]["bool"]',
                f'device.attributes["{D}"]["int"] > 0',
                f'device.attributes["{D}"]["string"] == "fish"',
                f'device.attributes["{D}"]["version"].isGreaterThan(semver("0.0.1"))',
            ]
        ),
        D,
        _device(
            _attrs(
                bool=("bool", True),
                int=("int", 1),
                string=("string", "fish"),
                version=("version", "1.0.0"),
            ),
            {"quantity": "1Mi"},
        ),
        True,
    ),
    "many": (
        f'device.attributes["{D}"].a && device.attributes["{D}"].b && device.attributes["{D}"].c',
        D,
        _device(_attrs(a=("bool", True), b=("bool", True), c=("bool", True))),
        True,
    ),
    "check_attribute_domains": (
        f'device.attributes.exists_one(x, x == "{D}")',
        D,
        _device(_attrs(services=("string", "some_example_value"))),
        True,
    ),
    "check_attribute_ids": (
        f'device.attributes["{D}"].exists_one(x, x == "services")',
        D,
        _device(_attrs(services=("string", "some_example_value"))),
        True,
    ),
    "split_attribute": (
        f'device.attributes["{D}"].services.split("example").size() >= 2',
        D,
        _device(_attrs(services=("string", "some_example_value"))),
        True,
    ),
    "regexp_attribute": (
        f'device.attributes["{D}"].services.matches("[^a]?sym")',
        D,
        _device(_attrs(services=("string", "asymetric"))),
        True,
    ),
    "check_capacity_domains": (
        f'device.capacity.exists_one(x, x == "{D}")',
        D,
        _device(capacity={"memory": "1Mi"}),
        True,
    ),
    "check_capacity_ids": (
        f'device.capacity["{D}"].exists_one(x, x == "memory")',
        D,
        _device(capacity={"memory": "1Mi"}),
        True,
    ),
    "expensive": (
        _EXPENSIVE,
        D,
        _device(dict(_MANY_ATTRS)),
        ("error", "actual cost limit exceeded"),
    ),
    "allow_multiple_allocations": (
        "device.allowMultipleAllocations == true",
        D,
        _device(multi=True),
        True,
    ),
    "allow_multiple_allocations_default": (
        "device.allowMultipleAllocations == false",
        D,
        _device(),
        True,
    ),
    "allow_multiple_allocations_false": (
        "device.allowMultipleAllocations == false",
        D,
        _device(multi=False),
        True,
    ),
    "allow_multiple_allocations_new": (
        "device.allowMultipleAllocations == false",
        D,
        _device(multi=False),
        True,
    ),
    "allow_multiple_allocations_enabled": (
        "device.allowMultipleAllocations == false",
        D,
        _device(multi=False),
        True,
    ),
}

NEW_EXPRESSIONS_ONLY = {
    "macro-compilation-error-new-expressions": "list-typed attributes off hides their macros",
    "includes-function-compilation-error": "includes() exists only with DRAListTypeAttributes",
    "allow_multiple_allocations_disabled": "the field exists only with DRAConsumableCapacity",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_upstream_cel_case(name: str) -> None:
    expression, driver, device, expect = CASES[name]
    selector = compile_selector(expression)
    if isinstance(expect, tuple) and expect[0] == "compile":
        assert selector.error is not None
        assert expect[1] in selector.error
        return
    assert selector.error is None, selector.error
    variables = {"device": device_variable(device, driver)}
    if isinstance(expect, tuple):
        with pytest.raises(DeviceSelectorError, match=None) as caught:
            selector.matches(variables)
        assert expect[1] in str(caught.value)
        return
    assert selector.matches(variables) is expect


def test_all_upstream_cases_are_accounted_for() -> None:
    assert len(CASES) + len(NEW_EXPRESSIONS_ONLY) == 71


def test_interrupt_at_a_deadline() -> None:
    """TestInterrupt: a comprehension over 1000 attributes stops at the deadline."""
    expression = (
        f'device.attributes["{D}"].map(key, device.attributes["{D}"][key] * 20)'
        ".filter(e, e > 50).exists(e, e == 60)"
    )
    selector = compile_selector(expression)
    device = _device({f"{D}/attr{i}": DeviceAttribute("int", i) for i in range(1000)})
    variables = {"device": device_variable(device, D)}
    with pytest.raises(DeviceSelectorError, match="operation interrupted"):
        selector.matches(variables, deadline=time.monotonic() - 1)
    assert selector.matches(variables) is True


@pytest.mark.parametrize(
    ("message", "want"),
    [
        (
            "no such key: sharingStrategy",
            "no such key: sharingStrategy. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields",
        ),
        ("some other error", "some other error"),
        (
            "context: no such key: fieldY",
            "context: no such key: fieldY. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields",
        ),
        (
            "no such key: fieldZ. consider using CEL optional chaining",
            "no such key: fieldZ. consider using CEL optional chaining. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields",
        ),
    ],
)
def test_enhance_runtime_error(message: str, want: str) -> None:
    assert enhance_runtime_error(message) == want
    assert enhance_runtime_error(enhance_runtime_error(message)) == want


def test_cache_keeps_what_compiled_least_recently_used_first_out() -> None:
    """TestCacheSemantic."""
    cache = CelCache(2)
    true = cache.get_or_compile("true")
    assert true.error is None
    assert cache.get_or_compile("true") is true
    failed = cache.get_or_compile("no-such-variable")
    assert failed.error is not None
    assert cache.get_or_compile("no-such-variable") is not failed
    false = cache.get_or_compile("false")
    assert cache.get_or_compile("false") is false
    assert cache.get_or_compile("true") is true
    other = cache.get_or_compile("false && true")
    assert cache.get_or_compile("false && true") is other
    assert cache.get_or_compile("false") is not false


@pytest.mark.parametrize(
    ("expression", "expect"),
    [
        ('device.attributes["dra.example.com"].?model.orValue("none") == "none"', True),
        ('device.attributes["dra.example.com"][?"model"].hasValue()', False),
        ("optional.of(1).value() == 1 && !optional.none().hasValue()", True),
        ("[3, 1, 2].sort() == [1, 2, 3] && [1, 2, 2].distinct().size() == 2", True),
        ('"a,b".split(",").join("-") == "a-b" && "AbC".lowerAscii() == "abc"', True),
        ("sets.contains([1, 2, 3], [2]) && !sets.intersects([1], [2])", True),
        ("[1, 2].all(i, v, v > i) && {'a': 1}.exists(k, v, k == 'a' && v == 1)", True),
        ("1 == 1.0 && 1u < 2 && 2.5 > 2", True),
        (
            'quantity("1.5Gi").isGreaterThan(quantity("1Gi")) && quantity("1").add(1) == quantity("2")',
            True,
        ),
        ('semver("1.2.3-alpha").isLessThan(semver("1.2.3")) && semver("1.2.3").major() == 1', True),
        ("false && (1 / 0 == 1)", False),
        ("(1 / 0 == 1) || true", True),
    ],
)
def test_the_kubernetes_libraries_a_selector_reaches(expression: str, expect: bool) -> None:
    selector = compile_selector(expression)
    assert selector.error is None, selector.error
    assert selector.matches({"device": device_variable(_device(), D)}) is expect


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("1 / 0 == 1", "division by zero"),
        ("9223372036854775807 + 1 > 0", "integer overflow"),
        ('"a" + 1 == "a1"', "no such overload"),
        ("[1][3] == 1", "index out of range: 3"),
    ],
)
def test_runtime_errors_use_cel_go_texts(expression: str, error: str) -> None:
    selector = compile_selector(expression)
    assert selector.error is None, selector.error
    with pytest.raises(DeviceSelectorError, match=None) as caught:
        selector.matches({"device": device_variable(_device(), D)})
    assert error in str(caught.value)


def test_an_unparsable_version_attribute_fails_at_evaluation() -> None:
    selector = compile_selector("true")
    assert selector.error is None
    with pytest.raises(Exception, match="parse semantic version"):
        device_variable(_device(_attrs(v=("version", "1.0"))), D)
