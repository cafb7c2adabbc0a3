"""kube-scheduler's validation texts, as apimachinery words them: field error bodies, the
aggregate of several, the label-key and label-value rules (expected texts from kube-scheduler
v1.37.2's own refusals, tests/e2e/test_offline_validation.py)."""

from __future__ import annotations

import pytest

from kubesched.plugins.helper.args import ArgsError
from kubesched.plugins.helper.fielderrors import (
    aggregate,
    go_value,
    label_key_errors,
    label_value_errors,
    not_supported,
    raise_all,
    required,
)

NAME_RULE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
    " alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for"
    " validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)

PREFIX_RULE = (
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
    " characters, '-' or '.', and must start and end with an alphanumeric character"
    " (e.g. 'example.com', regex used for validation is"
    r" '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
THREE_PARTS = (
    f"a valid label key {NAME_RULE} with an optional DNS subdomain prefix and '/'"
    " (e.g. 'example.com/MyName')"
)


@pytest.mark.parametrize(
    ("value", "shown"),
    [(-1, "-1"), (True, "true"), ("a b", '"a b"'), (None, "null"), (["x", "2"], '["x","2"]')],
)
def test_bad_values_print_as_go_prints_them(value: object, shown: str) -> None:
    assert go_value(value) == shown


def test_several_errors_are_one_bracketed_list_without_repeats() -> None:
    assert aggregate(["a: x"]) == "a: x"
    assert aggregate(["a: x", "b: y", "a: x"]) == "[a: x, b: y]"
    with pytest.raises(ArgsError, match=r"^\[a: x, b: y\]$"):
        raise_all(["a: x", "b: y"])
    raise_all([])


def test_field_error_bodies() -> None:
    assert required("p.topologyKey", "can not be empty") == (
        "p.topologyKey: Required value: can not be empty"
    )
    assert not_supported("p.type", "Foo", ["A", "B"]) == (
        'p.type: Unsupported value: "Foo": supported values: "A", "B"'
    )


@pytest.mark.parametrize(
    ("key", "errors"),
    [
        ("topology.kubernetes.io/zone", []),
        ("zone", []),
        ("a b", [f"name part {NAME_RULE}"]),
        ("example.com/", ["name part must be non-empty", f"name part {NAME_RULE}"]),
        ("/zone", ["prefix part must be non-empty"]),
        ("x" * 64, ["name part must be no more than 63 bytes"]),
        (
            "Bad_Prefix/zone",
            [PREFIX_RULE],
        ),
        (
            "a/b/c",
            [THREE_PARTS],
        ),
    ],
)
def test_label_keys_are_checked_as_apimachinery_checks_them(key: str, errors: list[str]) -> None:
    assert label_key_errors(key) == errors


def test_label_values() -> None:
    assert label_value_errors("") == []
    assert label_value_errors("v1.2_3") == []
    (error,) = label_value_errors("bad value!")
    assert error.startswith("a valid label must be an empty string or consist of alphanumeric")
