"""Time-driven gang behaviour in a replay, on the virtual clock: Coscheduling's Permit
timeout and its `podGroupBackoffSeconds` expire in virtual seconds (a replay of minutes
takes a fraction of a second); native PodGroups (`GenericWorkload`) go through the
scheduler's pod-group cycle, all members placed at once or none."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from kubesched.cli import main
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
    args: {permitWaitingTimeSeconds: 5, podGroupBackoffSeconds: 0, podGroupRejectPercentage: 50}
"""


def _pod_group() -> dict[str, Any]:
    meta = {
        "name": "job",
        "namespace": "w",
        "uid": "uid-job",
        "resourceVersion": "1",
        "creationTimestamp": "2026-01-01T00:00:00Z",
    }
    return {"metadata": meta, "spec": {"minMember": 3}}


def _replay(tmp_path: Path, records: list[dict[str, Any]], args: list[str], end: float) -> Any:
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=end))
    config = load_config(args).config
    [report] = replay_trace(recorded, [("c", config)], seed=1)
    return report.as_json()


def _gang(tmp_path: Path, *, permit_timeout: int) -> dict[str, Any]:
    """Two 1-CPU nodes, three 1-CPU members of minMember 3: two fit and wait at Permit; the
    gap (1 of 3) is under the reject percentage (50), so only their timeout sends them back.
    A third node comes at 100 s."""
    records = [listed("nodes", make_node().name(f"n{i}").capacity(cpu="1").obj()) for i in (0, 1)]
    records.append(listed("scheduling.x-k8s.io/podgroups", _pod_group()))
    records.append({"t": 0.0, "op": trace.SYNCED})
    for i in range(3):
        member = make_pod().name(f"m{i}").namespace("w").req(cpu="1").label(GROUP, "job")
        records.append(at(1.0, trace.ADDED, "pods", member.obj()))
    third = make_node().name("n2").capacity(cpu="1").obj()
    records.append(at(100.0, trace.ADDED, "nodes", third))
    config_file = tmp_path / "gang.yaml"
    config_file.write_text(
        GANG_PROFILE.replace(
            "permitWaitingTimeSeconds: 5", f"permitWaitingTimeSeconds: {permit_timeout}"
        )
    )
    report = _replay(tmp_path, records, [f"--config={config_file}"], end=400.0)
    assert report["scheduled"] == 3, report["decisions"]
    assert {d["bound_at"] for d in report["decisions"]} == {100.0}
    return {d["pod"]: d["attempts"] for d in report["decisions"]}


def test_a_permit_timeout_fires_in_virtual_time(tmp_path: Path) -> None:
    started = time.monotonic()
    attempts = _gang(tmp_path, permit_timeout=5)
    assert time.monotonic() - started < 20, "the timeouts did not wait in real time"
    # Each 5 s timeout sent the waiting members back to be tried again.
    assert all(count >= 5 for count in attempts.values()), attempts


def test_without_a_timeout_in_the_trace_the_members_wait_at_permit(tmp_path: Path) -> None:
    attempts = _gang(tmp_path, permit_timeout=600)
    assert sorted(attempts.values())[:2] == [1, 1], attempts


GROUP = "scheduling.x-k8s.io/pod-group"
NO_VICTIMS = "No preemption victims found for incoming preemptor"


def _native_group(min_count: int) -> dict[str, Any]:
    meta = {"name": "pg", "namespace": "w", "uid": "uid-pg", "resourceVersion": "1"}
    spec = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    return {"metadata": meta, "spec": spec}


def _native_records(members: int, *, node_at: float | None = None) -> list[dict[str, Any]]:
    records = [listed("nodes", make_node().name(f"n{i}").capacity(cpu="2").obj()) for i in (0, 1)]
    records.append(listed("scheduling.k8s.io/podgroups", _native_group(4)))
    records.append({"t": 0.0, "op": trace.SYNCED})
    for i in range(members):
        member = make_pod().name(f"w{i}").namespace("w").pod_group("pg").req(cpu="1")
        records.append(at(1.0 + 0.1 * i, trace.ADDED, "pods", member.obj()))
    if node_at is not None:
        node = make_node().name("n2").capacity(cpu="2").obj()
        records.append(at(node_at, trace.ADDED, "nodes", node))
    return records


def test_a_native_pod_group_is_placed_by_the_pod_group_cycle(tmp_path: Path) -> None:
    """Four members of minCount 4 on two 2-CPU nodes: all placed in one cycle, at the last
    one's arrival (the earlier ones wait for the quorum at PreEnqueue)."""
    args = ["--feature-gates=GenericWorkload=true"]
    report = _replay(tmp_path, _native_records(4), args, end=30.0)
    decisions = {d["pod"]: d for d in report["decisions"]}
    assert report["scheduled"] == 4, decisions
    assert {d["bound_at"] for d in decisions.values()} == {1.3}
    assert sorted(d["node"] for d in decisions.values()) == ["n0", "n0", "n1", "n1"]


def test_a_native_pod_group_that_does_not_fit_places_no_member(tmp_path: Path) -> None:
    """Four 2-CPU members of minCount 4 on two 2-CPU nodes: two would fit, under the
    quorum, so none binds (tried one at a time, two would have)."""
    records = _native_records(0)
    for i in range(4):
        member = make_pod().name(f"w{i}").namespace("w").pod_group("pg").req(cpu="2")
        records.append(at(1.0, trace.ADDED, "pods", member.obj()))
    report = _replay(tmp_path, records, ["--feature-gates=GenericWorkload=true"], end=60.0)
    failures = {d["pod"]: d["last_failure"] for d in report["decisions"]}
    assert report["scheduled"] == 0, failures
    # One member was tried and found no room; the others are refused for the group's sake,
    # with kube-scheduler's texts.
    group = "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining"
    refused = f"pod group is unschedulable, {group}, pod group preemption: {NO_VICTIMS}"
    expected = ["0/2 nodes are available: 2 Insufficient cpu.", group, refused, refused]
    assert sorted(failures.values()) == sorted(expected), failures


def test_the_command_takes_the_feature_gates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "t.jsonl.gz", _native_records(4), end=30.0)
    out = tmp_path / "report.json"
    gates = "--feature-gates=GenericWorkload=true"
    assert main(["replay", str(path), gates, "--json", str(out)]) == 0
    [config] = orjson.loads(out.read_bytes())["configs"]
    assert config["scheduled"] == 4
    assert main(["replay", str(path), "--feature-gates=GenericWorkload=maybe"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kubesched replay: ")
    assert "GenericWorkload=maybe" in err
    assert err.count("\n") == 1
