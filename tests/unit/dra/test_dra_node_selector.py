"""Node selectors of slices and allocations, compiled once (`structured.pools`)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.dra.structured import (
    AllocationError,
    compile_node_selector,
    node_matches,
)
from kubesched.testing import make_node

NODES = {
    name: make_node().name(name).label("zone", zone).model()
    for name, zone in (("n1", "a"), ("n2", "b"), ("n3", "a"))
}


def _name_term(name: str, operator: str = "In") -> dict[str, Any]:
    return {"matchFields": [{"key": "metadata.name", "operator": operator, "values": [name]}]}


@pytest.mark.parametrize(
    ("terms", "wanted"),
    [
        ([_name_term("n1")], {"n1"}),  # what the allocator writes for node-local devices
        ([_name_term("n1"), _name_term("n3")], {"n1", "n3"}),
        ([_name_term("n1", "NotIn")], {"n2", "n3"}),
        (
            [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}],
            {"n1", "n3"},
        ),
        (
            [
                {
                    **_name_term("n1"),
                    "matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}],
                }
            ],
            set(),
        ),
        ([{}, _name_term("n2")], {"n2"}),  # an empty term matches nothing
        ([], set()),
    ],
)
def test_a_compiled_selector_matches_as_the_uncompiled_one(
    terms: list[dict[str, Any]], wanted: set[str]
) -> None:
    selector = {"nodeSelectorTerms": terms}
    matches = compile_node_selector(selector)
    assert {name for name, node in NODES.items() if matches(node)} == wanted
    assert {
        name for name, node in NODES.items() if node_matches(node, "", False, selector)
    } == wanted


def test_an_invalid_term_is_refused_when_compiled() -> None:
    with pytest.raises(AllocationError, match=r"^failed to parse node selector: "):
        compile_node_selector(
            {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "Gt", "values": ["1"]}]}
                ]
            }
        )
