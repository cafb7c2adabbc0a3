"""explain_live of a native gang member with TopologyAwareWorkloadScheduling: the group
section carries the placements (one per rack) and the summary is the group's decision;
without the gate there is none; a PodGroup that cannot be read the second time is one error
line, not the end of explain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.explain import PodSource, table, to_dict
from kubesched.kube.errors import ApiError, NotFound
from kubesched.testing import make_node, make_pod
from tests.unit.explain.test_explain_live import FakeApi, config, run

RACK = "topology.kubernetes.io/rack"
API = "/apis/scheduling.k8s.io/v1beta1"
GROUP_PATH = f"{API}/namespaces/ml/podgroups/train"
GATES = "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
GROUP = {
    "metadata": {"name": "train", "namespace": "ml"},
    "spec": {
        "schedulingPolicy": {"gang": {"minCount": 3}},
        "schedulingConstraints": {"topology": [{"key": RACK}]},
    },
}


class NativeApi(FakeApi):
    def __init__(self, *args: Any, fail_after: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.group_reads = 0
        self.fail_after = fail_after

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        if path == GROUP_PATH:
            self.group_reads += 1
            if self.fail_after and self.group_reads > self.fail_after:
                raise ApiError(503, "ServiceUnavailable", "the server is unavailable")
            return GROUP
        try:
            return await super().get(path, params=params, timeout=timeout)
        except NotFound:
            if path.startswith(API):
                return {"items": [], "metadata": {}}  # the PodGroup informer's list
            raise


def native_api(*, fail_after: int = 0) -> NativeApi:
    nodes = [
        make_node().name("a1").capacity(cpu="2", memory="8Gi").label(RACK, "a").obj(),
        make_node().name("b1").capacity(cpu="2", memory="8Gi").label(RACK, "b").obj(),
        make_node().name("b2").capacity(cpu="2", memory="8Gi").label(RACK, "b").obj(),
    ]
    pods = [
        make_pod().name(f"t-{i}").namespace("ml").scheduler("my-scheduler").pod_group("train")
        for i in range(3)
    ]
    return NativeApi(nodes, [p.req(cpu="1").obj() for p in pods], pdbs=[], fail_after=fail_after)


async def test_a_native_gang_member_gets_its_placements(tmp_path: Path) -> None:
    ex = await run(native_api(), config(tmp_path, GATES), PodSource("ml", "t-0"))
    assert ex.group is not None
    placements = ex.group.placements
    assert placements is not None
    assert [(p.domain, p.feasible) for p in placements.placements] == [("a", False), ("b", True)]
    assert placements.chosen == "b"
    lines = table(ex).splitlines()
    assert (
        lines[-1]
        == f"kubesched would place the group in b (t-0 on {placements.pod_node} in its trial)"
    )
    infeasible = "infeasible: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"
    assert f"    a (nodes a1): {infeasible}" in lines
    assert to_dict(ex)["group"]["placements"]["chosen"] == "b"


async def test_without_the_gate_there_are_no_placements(tmp_path: Path) -> None:
    gate = "--feature-gates=GenericWorkload=true"
    ex = await run(native_api(), config(tmp_path, gate), PodSource("ml", "t-0"))
    assert ex.group is not None
    assert ex.group.placements is None
    assert to_dict(ex)["group"]["placements"] is None


async def test_a_group_that_cannot_be_read_again_is_one_error_line(tmp_path: Path) -> None:
    api = native_api(fail_after=1)
    ex = await run(api, config(tmp_path, GATES), PodSource("ml", "t-0"))
    assert ex.group is not None
    assert ex.group.placements is not None
    assert ex.group.placements.outcome == (
        "error: explain could not try the placements: GroupUnreadable: cannot read PodGroup "
        "ml/train: 503 ServiceUnavailable: the server is unavailable"
    )
    assert table(ex).splitlines()[-1].startswith("tie between")  # the member's own decision
