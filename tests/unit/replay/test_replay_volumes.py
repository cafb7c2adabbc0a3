"""Storage objects in a replay: the volume plugins read them from the trace, so a pod whose
claim is bound is placed, and one whose Immediate claim is still unbound waits, as
kube-scheduler's would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.config import load_config
from kubesched.replay import read_trace, replay_trace, trace
from kubesched.testing.builders import make_node, make_pod
from tests.unit.replay.traces import at, listed, write

CLASS = {
    "metadata": {"name": "std", "uid": "sc", "resourceVersion": "1"},
    "provisioner": "example.com/disk",
    "volumeBindingMode": "Immediate",
}


def _claim(name: str, *, volume: str = "") -> dict[str, Any]:
    spec = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
        "storageClassName": "std",
        "volumeName": volume,
    }
    meta: dict[str, Any] = {"name": name, "namespace": "w", "uid": name, "resourceVersion": "1"}
    if volume:
        meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    return {"metadata": meta, "spec": spec, "status": {"phase": "Bound" if volume else "Pending"}}


VOLUME = {
    "metadata": {"name": "pv1", "uid": "pv1", "resourceVersion": "1"},
    "spec": {
        "capacity": {"storage": "1Gi"},
        "accessModes": ["ReadWriteOnce"],
        "storageClassName": "std",
        "claimRef": {"namespace": "w", "name": "bound", "uid": "bound"},
        "hostPath": {"path": "/data"},
    },
    "status": {"phase": "Bound"},
}


def test_a_bound_claim_is_placed_an_unbound_immediate_one_waits(tmp_path: Path) -> None:
    records = [
        listed("nodes", make_node().name("n1").obj()),
        listed("storage.k8s.io/storageclasses", CLASS),
        listed("persistentvolumes", VOLUME),
        listed("persistentvolumeclaims", _claim("bound", volume="pv1")),
        {"t": 0.0, "op": trace.SYNCED},
        at(1.0, trace.ADDED, "pods", make_pod().name("p").namespace("w").claim("bound").obj()),
        at(2.0, trace.ADDED, "persistentvolumeclaims", _claim("later")),
        at(3.0, trace.ADDED, "pods", make_pod().name("q").namespace("w").claim("later").obj()),
    ]
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=20.0))
    [report] = replay_trace(recorded, [("default", load_config([]).config)], seed=1)
    outcomes = {outcome.pod: outcome for outcome in report.outcomes}
    assert outcomes["w/p"].node == "n1"
    assert outcomes["w/q"].node == ""
    assert "pod has unbound immediate PersistentVolumeClaims" in outcomes["w/q"].last_failure
