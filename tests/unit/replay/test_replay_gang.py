"""A gang in a replay: Coscheduling holds the members at Permit until the PodGroup's
minMember are placed, activating the siblings it rejected earlier, then all bind at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.config import load_config
from kubesched.replay import read_trace, replay_trace, trace
from kubesched.testing.builders import make_node, make_pod
from tests.unit.replay.traces import at, listed, write

GANG_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint: {enabled: [{name: Coscheduling}]}
    queueSort: {disabled: [{name: PrioritySort}]}
  pluginConfig:
  - name: Coscheduling
    args: {permitWaitingTimeSeconds: 60, podGroupBackoffSeconds: 0}
"""
GROUP_LABEL = "scheduling.x-k8s.io/pod-group"


def _pod_group(min_member: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {
            "name": "job",
            "namespace": "w",
            "uid": "uid-job",
            "resourceVersion": "1",
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "spec": {"minMember": min_member},
    }


def _replay(tmp_path: Path, *, members: int, min_member: int) -> dict[str, Any]:
    records = [listed("nodes", make_node().name(f"n{i}").obj()) for i in range(3)]
    records.append(listed("scheduling.x-k8s.io/podgroups", _pod_group(min_member)))
    records.append({"t": 0.0, "op": trace.SYNCED})
    for i in range(members):
        member = make_pod().name(f"w{i}").namespace("w").label(GROUP_LABEL, "job").req(cpu="1")
        records.append(at(1.0 + i, trace.ADDED, "pods", member.obj()))
    config_file = tmp_path / "gang.yaml"
    config_file.write_text(GANG_PROFILE)
    config = load_config([f"--config={config_file}"]).config
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=30.0))
    [report] = replay_trace(recorded, [("gang", config)], seed=1)
    return report.as_json()


def test_the_members_bind_together_once_the_last_arrives(tmp_path: Path) -> None:
    report = _replay(tmp_path, members=3, min_member=3)
    assert report["scheduled"] == 3
    assert {d["bound_at"] for d in report["decisions"]} == {3.0}
    assert report["waiting_at_permit"] == []


def test_an_incomplete_gang_binds_nothing(tmp_path: Path) -> None:
    report = _replay(tmp_path, members=2, min_member=3)
    assert report["scheduled"] == 0
    assert all("sibling" in d["last_failure"] for d in report["decisions"])
