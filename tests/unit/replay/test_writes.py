"""The API server's part of a write in a replay (`replay.writes`): merge patches (and the
strategic `$patch: delete` kubesched's plugins send), the resourceVersion and uid
preconditions, the `/status` subresource, creates and deletes; an object the replay wrote
ignores its later recorded versions but not its recorded deletion."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.config import load_config
from kubesched.framework import ObjectWriteError
from kubesched.framework.dra import RESOURCE_CLAIMS
from kubesched.replay import trace
from kubesched.replay.cluster import ReplayedCluster
from kubesched.replay.engine import build_engine
from kubesched.replay.writes import merge_patch

CLAIMS = "resource.k8s.io/resourceclaims"


def test_a_merge_patch_replaces_lists_and_removes_nulls() -> None:
    target = {"a": {"b": 1, "c": 2}, "l": [1, 2]}
    assert merge_patch(target, {"a": {"b": None, "d": 3}, "l": [3]}) == {
        "a": {"c": 2, "d": 3},
        "l": [3],
    }
    assert target == {"a": {"b": 1, "c": 2}, "l": [1, 2]}, "the target is not changed"


def test_a_strategic_patch_deletes_the_list_items_it_names() -> None:
    target = {"reservedFor": [{"uid": "a", "name": "p"}, {"uid": "b", "name": "q"}]}
    patch = {"reservedFor": [{"$patch": "delete", "uid": "a"}]}
    assert merge_patch(target, patch, strategic=True) == {
        "reservedFor": [{"uid": "b", "name": "q"}]
    }


def _claim(rv: str = "7") -> dict[str, Any]:
    return {
        "metadata": {"name": "c", "namespace": "w", "uid": "uid-c", "resourceVersion": rv},
        "spec": {"devices": {"requests": []}},
    }


def _cluster() -> ReplayedCluster:
    cluster = ReplayedCluster(build_engine(load_config([]).config))
    cluster.apply({"t": 0.0, "op": trace.LIST, "kind": CLAIMS, "object": _claim()})
    return cluster


def test_a_stale_resource_version_or_uid_conflicts() -> None:
    writes = _cluster().writes
    for meta in ({"resourceVersion": "6"}, {"uid": "other"}):
        with pytest.raises(ObjectWriteError) as raised:
            writes.patch(CLAIMS, "w/c", {"metadata": meta, "status": {}}, status=True)
        assert raised.value.conflict
    written = writes.patch(
        CLAIMS, "w/c", {"metadata": {"resourceVersion": "7"}, "status": {"x": 1}}, status=True
    )
    assert written["status"] == {"x": 1}
    assert int(written["metadata"]["resourceVersion"]) > 7


def test_the_status_subresource_changes_only_the_status() -> None:
    writes = _cluster().writes
    written = writes.patch(CLAIMS, "w/c", {"spec": {"x": 1}, "status": {"y": 2}}, status=True)
    assert (written["spec"], written["status"]) == ({"devices": {"requests": []}}, {"y": 2})
    written = writes.patch(CLAIMS, "w/c", {"spec": {"x": 1}, "status": {"y": 3}})
    assert (written["spec"]["x"], written["status"]) == (1, {"y": 2})


def test_a_missing_object_is_not_found_and_a_created_one_exists_once() -> None:
    writes = _cluster().writes
    with pytest.raises(ObjectWriteError) as raised:
        writes.patch(CLAIMS, "w/none", {"status": {}}, status=True)
    assert raised.value.not_found
    made = writes.create(CLAIMS, "w", {"metadata": {"name": "d"}, "spec": {}})
    assert made["metadata"]["namespace"] == "w"
    with pytest.raises(ObjectWriteError, match="already exists"):
        writes.create(CLAIMS, "w", {"metadata": {"name": "d"}})
    writes.delete(CLAIMS, "w/d")
    assert writes.known(CLAIMS, "w/d") is None


def test_the_replays_version_wins_over_later_records_but_not_over_a_deletion() -> None:
    cluster = _cluster()
    cluster.writes.patch(CLAIMS, "w/c", {"status": {"mine": True}}, status=True)
    recorded = _claim("9") | {"status": {"theirs": True}}
    cluster.apply({"t": 1.0, "op": trace.MODIFIED, "kind": CLAIMS, "object": recorded})
    assert cluster.writes.get(CLAIMS, "w/c")["status"] == {"mine": True}
    cluster.apply({"t": 2.0, "op": trace.DELETED, "kind": CLAIMS, "object": _claim("10")})
    assert cluster.writes.known(CLAIMS, "w/c") is None
    assert cluster._engine.listers.store(RESOURCE_CLAIMS).get("c", "w") is None
