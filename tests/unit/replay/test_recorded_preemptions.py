"""The end-to-end harness compares the replay's evictions with the trace's in the same terms:
the pods evicted, each once, however many `Preempted` events kube-scheduler sent one victim
(`tests.e2e.harness.recording.preempted` / `evicted`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.config import load_config
from kubesched.replay import read_trace, replay_trace, trace
from kubesched.testing.builders import make_node, make_pod
from tests.e2e.harness.recording import evicted, preempted
from tests.unit.replay.traces import at, listed, write

UID = "e7c62d6c-ab28-4f53-aacb-bd6f21855752"


def _event(t: float, reason: str, pod: str, message: str) -> dict[str, Any]:
    return {"t": t, "op": trace.EVENT, "reason": reason, "pod": pod, "message": message}


def _preempted(t: float, pod: str) -> dict[str, Any]:
    return _event(t, "Preempted", pod, f"Preempted by pod {UID} on node a")


def test_a_victim_preempted_twice_is_one_evicted_pod() -> None:
    # As kube-scheduler v1.37.2 recorded it (CI): a second preemption picked the last
    # victim again while its deletion was under way.
    records = [
        _event(2.32, "FailedScheduling", "w/big", "preemption: ... preempting 3 victims"),
        _preempted(2.365, "w/v1"),
        _preempted(2.477, "w/v2"),
        _preempted(2.689, "w/v3"),
        _event(2.689, "FailedScheduling", "w/big", "preemption: ... preempting 1 victims"),
        _preempted(2.712, "w/v3"),
        _event(2.79, "Scheduled", "w/big", "Successfully assigned w/big to a"),
        {"t": 2.79, "op": trace.BOUND, "pod": "w/big", "uid": UID, "node": "a"},
    ]
    assert preempted(records) == {"w/v1", "w/v2", "w/v3"}


def test_the_replay_evicts_what_the_trace_preempted_in_the_same_terms(tmp_path: Path) -> None:
    low = make_pod().name("low").namespace("w").priority(0).req(cpu="3").obj()
    high = make_pod().name("high").namespace("w").priority(1000).req(cpu="3").obj()
    records = [
        listed("nodes", make_node().name("a").capacity(cpu="4").obj()),
        {"t": 0.0, "op": trace.SYNCED},
        at(1.0, trace.ADDED, "pods", low),
        at(5.0, trace.ADDED, "pods", high),
        _preempted(5.1, "w/low"),
        _preempted(5.3, "w/low"),
    ]
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=30.0))
    [report] = replay_trace(recorded, [("default", load_config([]).config)], seed=1)
    replayed = report.as_json()
    assert evicted(replayed) == preempted(recorded.records()) == {"w/low"}
    assert replayed["evictions"] == 1
    assert evicted({"decisions": []}) == preempted([]) == set()
