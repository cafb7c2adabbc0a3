"""A PodGroup's topology constraint cannot change while the group is placed: kube-apiserver
v1.37.2, with `TopologyAwareWorkloadScheduling` on (as this suite runs it), declares
`spec.schedulingConstraints` immutable, so setting, changing or removing it on an existing
PodGroup is refused (422, "field is immutable") and stores nothing: no new resourceVersion,
so no watch event reaches kube-scheduler or kubesched. A cycle therefore always reads the
constraint the PodGroup was created with (what kubesched does with a PodGroup re-created
under another constraint: tests/unit/scheduler/test_podgroup_constraint_change.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.harness import ApiClient, ApiError

PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"
MERGE = "application/merge-patch+json"
RACK = {"topology": [{"key": "e2e.kubesched.io/rack"}]}


def _podgroup(api: ApiClient, ns: str, name: str, constraints: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": 2}}}
    if constraints is not None:
        spec["schedulingConstraints"] = constraints
    body = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "spec": spec}
    body["metadata"] = {"name": name}
    created: dict[str, Any] = api.request("POST", PG_PATH.format(ns=ns), body=body)
    assert created["spec"].get("schedulingConstraints") == constraints
    return created


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(RACK, {"topology": [{"key": "e2e.kubesched.io/zone"}]}, id="changed"),
        pytest.param(RACK, None, id="removed"),
        pytest.param(None, RACK, id="added"),
    ],
)
def test_the_api_server_refuses_a_new_constraint(
    api: ApiClient, new_namespace: Callable[..., str], before: Any, after: Any
) -> None:
    ns = new_namespace(hint="immutable")
    created = _podgroup(api, ns, "train", before)
    path = PG_PATH.format(ns=ns) + "/train"

    with pytest.raises(ApiError) as refused:
        api.request(
            "PATCH", path, body={"spec": {"schedulingConstraints": after}}, content_type=MERGE
        )

    assert refused.value.status == 422
    assert "spec.schedulingConstraints: Invalid value" in str(refused.value)
    assert "field is immutable" in str(refused.value)
    stored = api.request("GET", path)
    assert stored["spec"].get("schedulingConstraints") == before
    assert stored["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
