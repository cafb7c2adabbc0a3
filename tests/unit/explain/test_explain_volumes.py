"""explain reads the storage objects for a pod with volumes and shows the volume plugins'
verdicts (here VolumeBinding's node affinity of a bound local PV)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.config import load_config
from kubesched.explain import GetOnly, PodSource, explain_live
from kubesched.server.components import build_registry
from kubesched.testing import make_node, make_pod

HOST = "kubernetes.io/hostname"


class StorageApi:
    """Nodes, no pods, one bound claim and its local PV pinned to node `b`."""

    def __init__(self) -> None:
        term = {"matchExpressions": [{"key": HOST, "operator": "In", "values": ["b"]}]}
        self.lists: dict[str, list[dict[str, Any]]] = {
            "/api/v1/nodes": [
                make_node().name(n).label(HOST, n).capacity(cpu="4").obj() for n in ("a", "b")
            ],
            "/api/v1/pods": [],
            "/api/v1/persistentvolumeclaims": [
                {
                    "metadata": {
                        "name": "data",
                        "namespace": "demo",
                        "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
                    },
                    "spec": {"volumeName": "pv-b", "storageClassName": ""},
                    "status": {"phase": "Bound"},
                }
            ],
            "/api/v1/persistentvolumes": [
                {
                    "metadata": {"name": "pv-b"},
                    "spec": {
                        "capacity": {"storage": "1Gi"},
                        "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
                        "claimRef": {"namespace": "demo", "name": "data"},
                    },
                    "status": {"phase": "Bound"},
                }
            ],
        }
        self.paths: list[str] = []

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        self.paths.append(path)
        return {"items": self.lists.get(path, []), "metadata": {}}


async def test_a_bound_local_volume_rejects_the_other_nodes(tmp_path: Path) -> None:
    cfg = load_config(
        ["--scheduler-name=my-scheduler"], environ={}, namespace_file=tmp_path / "none"
    ).config
    pod = make_pod().name("p").namespace("demo").scheduler("my-scheduler").claim("data").obj()
    api = StorageApi()
    ex = await explain_live(
        GetOnly(api), config=cfg, registry=build_registry(cfg), source=PodSource(obj=pod)
    )
    verdicts = {v.node: v for v in ex.verdicts}
    assert verdicts["b"].feasible
    rejection = verdicts["a"].rejection
    assert rejection is not None
    assert rejection.plugin == "VolumeBinding"
    assert "didn't match PersistentVolume's node affinity" in str(rejection)
    assert "/apis/storage.k8s.io/v1/csinodes" in api.paths
