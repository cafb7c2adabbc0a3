"""Quota trees and fair share: the plugin's shares against the reference model on random
trees with fixed seeds, worked examples, and bad trees read in a safe way."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from math import ceil, floor
from typing import Any

import pytest

from kubesched.model import ApiObject, Resource
from kubesched.plugins.capacity_scheduling.runtime import Demand, runtimes
from kubesched.plugins.capacity_scheduling.share import Claim, divide
from kubesched.plugins.capacity_scheduling.tree import (
    IS_PARENT_LABEL,
    PARENT_LABEL,
    ROOT,
    SHARED_WEIGHT_ANNOTATION,
    Forest,
    TreeQuota,
    build_forest,
)
from kubesched.testing import make_pod

from .fair_reference import RefQuota, reference_divide, reference_requests

GPU = "nvidia.com/gpu"


def eq(
    name: str,
    *,
    min_: int,
    max_: int,
    parent: str = "",
    is_parent: bool = False,
    weight: int | None = None,
) -> ApiObject:
    """An ElasticQuota of GPUs named after its namespace, with Koordinator's tree labels."""
    labels = {PARENT_LABEL: parent} if parent else {}
    if is_parent:
        labels[IS_PARENT_LABEL] = "true"
    annotations = {} if weight is None else {SHARED_WEIGHT_ANNOTATION: json.dumps({GPU: weight})}
    meta: dict[str, Any] = {"namespace": name, "name": name, "labels": labels}
    meta["annotations"] = annotations
    spec = {"min": {GPU: str(min_)}, "max": {GPU: str(max_)}}
    return ApiObject.from_json({"metadata": meta, "spec": spec})


def forest_of(*objects: ApiObject) -> Forest:
    return build_forest(TreeQuota.of(obj) for obj in objects)


def gpus(amount: int) -> Resource:
    return Resource(scalar={GPU: amount})


def gpu_shares(forest: Forest, demand: dict[str, int], total: int) -> dict[str, int]:
    asked = {namespace: gpus(amount) for namespace, amount in demand.items()}
    shares = runtimes(forest, asked, gpus(total))
    return {namespace: share.get(GPU) for namespace, share in shares.items()}


def assert_rounds(got: dict[str, int], exact: dict[str, Fraction]) -> None:
    """Each share is its exact value rounded down or up, and no unit is lost or made."""
    for name, value in exact.items():
        assert floor(value) <= got[name] <= ceil(value), (name, got[name], value)
    assert sum(got.values()) == floor(sum(exact.values(), Fraction(0)))


# ---- one level ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(300))
def test_divide_matches_the_reference_model(seed: int) -> None:
    rng = random.Random(seed)
    claims = [
        Claim(f"q{i}", rng.randint(0, 40), rng.randint(0, 15), rng.choice([0, 1, 2, 3, 7]))
        for i in range(rng.randint(1, 6))
    ]
    total = rng.randint(0, 80)
    exact = reference_divide(total, [(c.name, c.request, c.guarantee, c.weight) for c in claims])
    assert_rounds(divide(total, claims), exact)


def test_idle_capacity_is_lent_by_weight_not_first_come() -> None:
    # 8 GPUs, two teams guaranteed 2 each, both asking for 8: 4 left, shared 1:3.
    claims = [Claim("a", 8, 2, 1), Claim("b", 8, 2, 3)]
    assert divide(8, claims) == {"a": 3, "b": 5}


def test_a_satisfied_borrower_leaves_the_rest_to_the_others() -> None:
    claims = [Claim("a", 3, 2, 1), Claim("b", 8, 2, 1)]
    assert divide(8, claims) == {"a": 3, "b": 5}


def test_guarantees_beyond_the_amount_are_scaled_down() -> None:
    claims = [Claim("a", 6, 6, 1), Claim("b", 6, 2, 1)]
    assert divide(4, claims) == {"a": 3, "b": 1}


# ---- whole trees ----------------------------------------------------------------------------


def random_tree(rng: random.Random) -> dict[str, RefQuota]:
    """Up to 4 parents and 6 leaves; every link points at an earlier parent or the cluster."""
    quotas: dict[str, RefQuota] = {}
    parents: list[str] = []
    for i in range(rng.randint(0, 4)):
        name = f"p{i}"
        up = rng.choice(["", *parents])
        low = rng.randint(0, 10)
        quotas[name] = RefQuota(name, up, True, low, low + rng.randint(0, 20), rng.randint(0, 4), 0)
        parents.append(name)
    for i in range(rng.randint(1, 6)):
        name = f"l{i}"
        low = rng.randint(0, 8)
        high = low + rng.randint(0, 12)
        weight = rng.randint(0, 4)
        demand = rng.randint(0, 20)
        quotas[name] = RefQuota(name, rng.choice(["", *parents]), False, low, high, weight, demand)
    return quotas


def as_objects(quotas: dict[str, RefQuota]) -> list[ApiObject]:
    return [
        eq(q.name, min_=q.min, max_=q.max, parent=q.parent, is_parent=q.is_parent, weight=q.weight)
        for q in quotas.values()
    ]


@pytest.mark.parametrize("seed", range(200))
def test_runtime_shares_match_the_reference_model_level_by_level(seed: int) -> None:
    rng = random.Random(seed)
    quotas = random_tree(rng)
    total = rng.randint(0, 60)
    got = gpu_shares(
        forest_of(*as_objects(quotas)), {n: q.demand for n, q in quotas.items()}, total
    )
    requests = reference_requests(quotas)
    amounts = {ROOT: total, **got}
    for parent, amount in amounts.items():
        children = [q for q in quotas.values() if q.parent == parent]
        if not children:
            continue
        # A zero weight is no weight: the quota's max, as in Koordinator.
        claims = [(q.name, requests[q.name], q.min, q.weight or q.max) for q in children]
        assert_rounds({q.name: got[q.name] for q in children}, reference_divide(amount, claims))
    for name, share in got.items():
        assert 0 <= share <= requests[name] <= quotas[name].max


def test_a_parent_bounds_its_children_and_lends_by_weight() -> None:
    forest = forest_of(
        eq("research", min_=4, max_=6, is_parent=True),
        eq("vision", min_=2, max_=6, parent="research", weight=1),
        eq("speech", min_=2, max_=6, parent="research", weight=3),
        eq("prod", min_=4, max_=8),
    )
    assert forest.warnings == []
    got = gpu_shares(forest, {"vision": 8, "speech": 8, "prod": 1}, 8)
    # research is capped at its max (6); inside it, guarantees 2 + 2, then 2 shared 1:3
    # (2.5 / 3.5: the tied half unit goes to the first name).
    assert got == {"research": 6, "vision": 2, "speech": 4, "prod": 1}


def test_an_idle_team_lends_everything_and_gets_its_guarantee_back_on_demand() -> None:
    forest = forest_of(eq("a", min_=2, max_=4), eq("b", min_=2, max_=4))
    assert gpu_shares(forest, {"a": 4, "b": 0}, 4) == {"a": 4, "b": 0}
    assert gpu_shares(forest, {"a": 4, "b": 1}, 4) == {"a": 3, "b": 1}
    assert gpu_shares(forest, {"a": 4, "b": 4}, 4) == {"a": 2, "b": 2}


# ---- bad trees ------------------------------------------------------------------------------


def test_a_missing_parent_reads_the_quota_as_top_level() -> None:
    forest = forest_of(eq("a", min_=1, max_=2, parent="nowhere"))
    assert forest.parent_of == {"a": ROOT}
    [(key, problem)] = forest.warnings
    assert key == "a/a"
    assert "parent nowhere does not exist" in problem
    assert "create ElasticQuota nowhere" in problem


def test_a_cycle_is_broken_and_named() -> None:
    forest = forest_of(
        eq("x", min_=1, max_=2, parent="y", is_parent=True),
        eq("y", min_=1, max_=2, parent="x", is_parent=True),
        eq("leaf", min_=1, max_=2, parent="y"),
    )
    assert forest.parent_of["x"] == ROOT
    assert forest.parent_of["y"] == "x"
    assert forest.parent_of["leaf"] == "y"
    [(key, problem)] = forest.warnings
    assert key == "x/x"
    assert "parent chain loops back (x -> y -> x)" in problem
    assert gpu_shares(forest, {"leaf": 2}, 10)["leaf"] == 2


def test_a_parent_without_the_is_parent_label_is_not_followed() -> None:
    forest = forest_of(eq("team", min_=1, max_=2), eq("sub", min_=1, max_=2, parent="team"))
    assert forest.parent_of == {"team": ROOT, "sub": ROOT}
    [(key, problem)] = forest.warnings
    assert key == "sub/sub"
    assert f'label team/team {IS_PARENT_LABEL}="true"' in problem


def test_a_child_min_over_its_parents_is_named_and_scaled_down() -> None:
    forest = forest_of(
        eq("p", min_=2, max_=4, is_parent=True),
        eq("big", min_=6, max_=6, parent="p"),
        eq("small", min_=2, max_=6, parent="p"),
    )
    [(key, problem)] = forest.warnings
    assert key == "big/big"
    assert f"min exceeds its parent's min in {GPU}" in problem
    got = gpu_shares(forest, {"big": 6, "small": 6}, 10)
    assert got == {"p": 4, "big": 3, "small": 1}


def test_an_unreadable_shared_weight_falls_back_to_max() -> None:
    obj = eq("a", min_=0, max_=4)
    broken = ApiObject.from_json(
        {
            "metadata": {
                "namespace": "a",
                "name": "a",
                "annotations": {SHARED_WEIGHT_ANNOTATION: "{gpu: 1"},
            },
            "spec": obj.spec,
        }
    )
    quota = TreeQuota.of(broken)
    assert quota.weight is None
    assert quota.weight_of(GPU) == 4
    [(key, problem)] = build_forest([quota]).warnings
    assert key == "a/a"
    assert "shared-weight annotation is not a JSON ResourceList" in problem


# ---- demand ----------------------------------------------------------------------------------


def test_demand_follows_pods_until_they_end_or_go() -> None:
    demand = Demand()
    first = make_pod().name("p").uid("p").namespace("a").req_named({GPU: "2"}).model()
    second = make_pod().name("q").uid("q").namespace("a").req_named({GPU: "1"}).model()
    demand.pod_changed(None, first)
    demand.pod_changed(None, second)
    assert demand.by_namespace()["a"].get(GPU) == 3
    ended = make_pod().name("p").uid("p").namespace("a").req_named({GPU: "2"})
    demand.pod_changed(first, ended.phase("Succeeded").model())
    assert demand.by_namespace()["a"].get(GPU) == 1
    demand.pod_changed(second, None)
    assert demand.by_namespace()["a"].get(GPU) == 0
    pending = make_pod().name("r").uid("r").namespace("b").req_named({GPU: "1"}).model()
    assert demand.by_namespace(including=pending)["b"].get(GPU) == 1
    assert "b" not in demand.by_namespace()
