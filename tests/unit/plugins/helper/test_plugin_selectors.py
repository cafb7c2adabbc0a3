from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.plugins.helper.labels import selector_matches
from kubesched.plugins.helper.selectors import (
    EVERYTHING,
    NOTHING,
    SelectorError,
    compile_selector,
    with_label_keys,
)


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


@pytest.mark.parametrize(
    ("raw", "labels", "matches"),
    [
        (None, {"a": "1"}, False),
        ({}, {}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "1", "b": "2"}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "2"}, False),
        ({"matchExpressions": [expr("a", "In", "1", "2")]}, {"a": "2"}, True),
        ({"matchExpressions": [expr("a", "In", "1")]}, {}, False),
        ({"matchExpressions": [expr("a", "NotIn", "1")]}, {}, True),
        ({"matchExpressions": [expr("a", "NotIn", "1")]}, {"a": "1"}, False),
        ({"matchExpressions": [expr("a", "Exists")]}, {"a": ""}, True),
        ({"matchExpressions": [expr("a", "DoesNotExist")]}, {"a": ""}, False),
        (
            {"matchLabels": {"a": "1"}, "matchExpressions": [expr("b", "Exists")]},
            {"a": "1"},
            False,
        ),
    ],
)
def test_matches(raw: dict[str, Any] | None, labels: dict[str, str], matches: bool) -> None:
    assert compile_selector(raw).matches(labels) is matches


def test_empty_and_nothing() -> None:
    assert compile_selector({}) is EVERYTHING
    assert EVERYTHING.empty
    assert compile_selector(None) is NOTHING
    assert not NOTHING.empty
    assert not compile_selector({"matchLabels": {"a": "1"}}).empty
    assert NOTHING.with_equals([("a", "1")]) is NOTHING
    assert EVERYTHING.with_equals([("a", "1")]).matches({"a": "1"})


def test_equal_selectors_are_equal_keys() -> None:
    one = compile_selector({"matchLabels": {"a": "1", "b": "2"}})
    two = compile_selector({"matchExpressions": [expr("b", "In", "2"), expr("a", "In", "1")]})
    assert one == two
    assert hash(one) == hash(two)


@pytest.mark.parametrize(
    "raw",
    [
        {"matchExpressions": [expr("a", "Near", "1")]},
        {"matchExpressions": [expr("a", "In")]},
        {"matchExpressions": [expr("a", "Exists", "1")]},
        {"matchLabels": {"a": 1}},
    ],
)
def test_invalid(raw: dict[str, Any]) -> None:
    with pytest.raises(SelectorError):
        compile_selector(raw)


def test_label_keys_are_merged_once() -> None:
    labels = {"rev": "2", "tenant": "t1"}
    raw = {"matchLabels": {"app": "web"}}
    merged = with_label_keys(
        raw, match_keys=["rev", "gone"], mismatch_keys=["tenant"], labels=labels
    )
    assert merged is not None
    assert merged["matchExpressions"] == [expr("rev", "In", "2"), expr("tenant", "NotIn", "t1")]
    # as the API server stored it: left alone, even if the pod's labels changed since
    again = with_label_keys(
        merged, match_keys=["rev"], mismatch_keys=["tenant"], labels={"rev": "3", "tenant": "t9"}
    )
    assert again == merged
    assert with_label_keys(None, match_keys=["rev"], mismatch_keys=[], labels=labels) is None


_KEYS = st.sampled_from(["a", "b", "c"])
_VALUES = st.sampled_from(["1", "2", ""])
_EXPRESSIONS = st.one_of(
    st.builds(
        lambda k, op, vs: expr(k, op, *vs),
        _KEYS,
        st.sampled_from(["In", "NotIn"]),
        st.lists(_VALUES, min_size=1, max_size=2),
    ),
    st.builds(expr, _KEYS, st.sampled_from(["Exists", "DoesNotExist"])),
)


@given(
    match_labels=st.dictionaries(_KEYS, _VALUES, max_size=2),
    expressions=st.lists(_EXPRESSIONS, max_size=3),
    labels=st.dictionaries(_KEYS, _VALUES, max_size=3),
)
def test_same_verdict_as_the_raw_matcher(
    match_labels: dict[str, str], expressions: list[dict[str, Any]], labels: dict[str, str]
) -> None:
    raw = {"matchLabels": match_labels, "matchExpressions": expressions}
    assert compile_selector(raw).matches(labels) is selector_matches(raw, labels)
