"""The replay loop on small synthetic traces: the engine's decisions at recorded times."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config import load_config
from kubesched.framework import CycleState
from kubesched.model import Node, Pod
from kubesched.replay import ConfigReport, loop, read_trace, replay_trace, trace
from kubesched.replay.engine import build_engine
from kubesched.runtime import FitError, scoring
from kubesched.runtime.schedule import schedule_pod
from kubesched.testing.builders import make_node, make_pod
from tests.unit.replay.traces import at, listed, nodes, pods, write

SYNCED = {"t": 0.0, "op": trace.SYNCED}


def _default() -> KubeSchedulerConfiguration:
    return load_config([]).config


def _replay(
    tmp_path: Path, records: list[dict[str, Any]], *, end: float, seed: int = 1
) -> ConfigReport:
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=end))
    return replay_trace(recorded, [("default", _default())], seed=seed)[0]


def _arrivals(made: list[dict[str, Any]], *, start: float = 1.0) -> list[dict[str, Any]]:
    return [at(start + i * 0.1, trace.ADDED, "pods", obj) for i, obj in enumerate(made)]


def _decisions(report: ConfigReport) -> dict[str, str]:
    return {outcome.pod: outcome.node for outcome in report.outcomes}


def _directly(
    node_objs: list[dict[str, Any]], pod_objs: list[dict[str, Any]], seed: int
) -> dict[str, str]:
    """The same pods through the same engine with no queue and no trace: one cycle each, at
    its arrival time, assumed where it goes."""
    engine = build_engine(_default())
    for obj in node_objs:
        engine.nodes.on_add(Node.from_json(obj))
    fw = engine.frameworks["kubesched"]
    scoring._RNG.seed(seed)
    placed = {}
    for cycle, obj in enumerate(pod_objs, start=1):
        engine.clock.now = 1.0 + (cycle - 1) * 0.1
        pod = Pod.from_json({**obj, "spec": {**obj["spec"], "schedulerName": "kubesched"}})
        engine.cache.update_snapshot(engine.snapshot)
        try:
            host = schedule_pod(
                fw,
                CycleState(),
                pod,
                engine.snapshot.node_infos,
                journal=engine.snapshot,
                cycle=cycle,
            ).suggested_host
        except FitError:
            placed[pod.key] = ""
            continue
        engine.cache.add_pod(Pod.from_json({**obj, "spec": {**obj["spec"], "nodeName": host}}))
        placed[pod.key] = host
    return placed


def test_decisions_equal_the_engine_run_directly(tmp_path: Path) -> None:
    node_objs, pod_objs = nodes(20), pods(100)
    records = [listed("nodes", n) for n in node_objs] + [SYNCED, *_arrivals(pod_objs)]
    report = _replay(tmp_path, records, end=60.0, seed=3)
    assert report.scheduled == 100
    assert _decisions(report) == _directly(node_objs, pod_objs, seed=3)
    assert all(outcome.attempts == 1 for outcome in report.outcomes)
    assert report.pending_seconds() == {"p50": 0.0, "p99": 0.0}


def test_the_same_seed_gives_the_same_decisions(tmp_path: Path) -> None:
    equal = [make_node().name(f"n{i}").obj() for i in range(5)]
    records = [listed("nodes", n) for n in equal] + [SYNCED, *_arrivals(pods(30))]
    first = _decisions(_replay(tmp_path, records, end=10.0, seed=7))
    assert _decisions(_replay(tmp_path, records, end=10.0, seed=7)) == first


def test_a_pod_waits_in_virtual_time_for_a_node_that_fits(tmp_path: Path) -> None:
    big = make_pod().name("big").namespace("w").req(cpu="6").obj()
    records = [
        listed("nodes", make_node().name("small").capacity(cpu="2").obj()),
        SYNCED,
        at(1.0, trace.ADDED, "pods", big),
        at(40.0, trace.ADDED, "nodes", make_node().name("large").capacity(cpu="8").obj()),
    ]
    report = _replay(tmp_path, records, end=100.0)
    [outcome] = report.outcomes
    assert (outcome.node, outcome.bound_at, outcome.attempts) == ("large", 40.0, 2)
    assert report.pending_seconds()["p50"] == 39.0


def test_a_pod_that_never_fits_is_unschedulable_at_the_end(tmp_path: Path) -> None:
    records = [
        listed("nodes", make_node().name("small").capacity(cpu="2").obj()),
        SYNCED,
        at(1.0, trace.ADDED, "pods", make_pod().name("big").namespace("w").req(cpu="6").obj()),
    ]
    report = _replay(tmp_path, records, end=400.0)
    assert (report.scheduled, report.unschedulable) == (0, 1)
    [outcome] = report.outcomes
    assert "Insufficient cpu" in outcome.last_failure
    assert outcome.attempts >= 2  # the unschedulable pool's 5-minute flush retried it


def test_the_recorded_binding_is_ignored_and_compared(tmp_path: Path) -> None:
    pod = make_pod().name("p").namespace("w").req(cpu="1").obj()
    bound = {**pod, "spec": {**pod["spec"], "nodeName": "small"}}
    running = {**bound, "status": {"phase": "Running"}}
    records = [
        listed("nodes", make_node().name("small").capacity(cpu="2").obj()),
        listed("nodes", make_node().name("large").capacity(cpu="16").obj()),
        SYNCED,
        at(1.0, trace.ADDED, "pods", pod),
        at(1.2, trace.MODIFIED, "pods", bound),
        {"t": 1.2, "op": trace.BOUND, "pod": "w/p", "uid": pod["metadata"]["uid"], "node": "small"},
        at(5.0, trace.MODIFIED, "pods", running),
    ]
    report = _replay(tmp_path, records, end=10.0)
    assert _decisions(report) == {"w/p": "large"}  # least allocated: the big node
    assert report.agreement()["different"] == 1
    assert report.utilization["cpu"] == pytest.approx(1 / 18, abs=1e-4)


def test_pods_of_other_schedulers_and_bound_before_keep_their_node(tmp_path: Path) -> None:
    mine = make_pod().name("mine").namespace("w").req(cpu="2").obj()
    theirs = make_pod().name("theirs").namespace("w").scheduler("other").req(cpu="3").obj()
    theirs_bound = {**theirs, "spec": {**theirs["spec"], "nodeName": "a"}}
    before = make_pod().name("before").namespace("w").node("b").req(cpu="3").obj()
    records = [
        listed("nodes", make_node().name("a").capacity(cpu="4").obj()),
        listed("nodes", make_node().name("b").capacity(cpu="4").obj()),
        listed("pods", before),
        SYNCED,
        at(1.0, trace.ADDED, "pods", theirs),
        at(1.1, trace.MODIFIED, "pods", theirs_bound),
        at(2.0, trace.ADDED, "pods", mine),
    ]
    report = _replay(tmp_path, records, end=10.0)
    # a holds 3 of 4 CPUs (theirs), b 3 of 4 (before): 2 CPUs fit nowhere.
    assert _decisions(report) == {"w/mine": ""}


def test_a_recorded_deletion_frees_room(tmp_path: Path) -> None:
    old = make_pod().name("old").namespace("w").node("a").req(cpu="3").obj()
    new = make_pod().name("new").namespace("w").req(cpu="3").obj()
    records = [
        listed("nodes", make_node().name("a").capacity(cpu="4").obj()),
        listed("pods", old),
        SYNCED,
        at(1.0, trace.ADDED, "pods", new),
        at(20.0, trace.DELETED, "pods", old),
    ]
    report = _replay(tmp_path, records, end=30.0)
    [outcome] = report.outcomes
    assert (outcome.node, outcome.bound_at) == ("a", 20.0)


def test_two_configs_replay_the_same_trace_differently(tmp_path: Path) -> None:
    config_file = tmp_path / "most.yaml"
    config_file.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "leaderElection: {leaderElect: false}\n"
        "profiles:\n"
        "- schedulerName: kubesched\n"
        "  pluginConfig:\n"
        "  - name: NodeResourcesFit\n"
        "    args:\n"
        "      scoringStrategy:\n"
        "        type: MostAllocated\n"
        "        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]\n"
    )
    most = load_config([f"--config={config_file}"]).config
    node_objs = [make_node().name(f"n{i}").capacity(cpu="8").obj() for i in range(4)]
    records = [listed("nodes", n) for n in node_objs] + [SYNCED]
    records += _arrivals(
        [make_pod().name(f"p{i}").namespace("w").req(cpu="1").obj() for i in range(6)]
    )
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=10.0))
    spread, packed = replay_trace(recorded, [("default", _default()), ("most", most)], seed=1)
    assert len(set(_decisions(spread).values())) == 4
    assert len(set(_decisions(packed).values())) == 1


def test_a_replay_never_opens_a_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the replay tried to open a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    records = [listed("nodes", n) for n in nodes(3)] + [SYNCED, *_arrivals(pods(5))]
    assert _replay(tmp_path, records, end=5.0).scheduled == 5


def _tied_trace(tmp_path: Path) -> Path:
    pod = make_pod().name("p").namespace("w").req(cpu="1").obj()
    uid = pod["metadata"]["uid"]
    records = [
        listed("nodes", make_node().name("n1").obj()),
        listed("nodes", make_node().name("n2").obj()),
        SYNCED,
        at(1.0, trace.ADDED, "pods", pod),
        {"t": 1.1, "op": trace.BOUND, "pod": "w/p", "uid": uid, "node": "n2"},
    ]
    return write(tmp_path / "tie.jsonl.gz", records, end=5.0)


def test_a_tie_goes_to_the_recorded_node(tmp_path: Path) -> None:
    recorded = read_trace(_tied_trace(tmp_path))
    for seed in range(6):
        [report] = replay_trace(recorded, [("default", _default())], seed=seed)
        assert _decisions(report) == {"w/p": "n2"}
        assert report.agreement()["same"] == 1


def test_random_ties_are_counted_as_ties(tmp_path: Path) -> None:
    recorded = read_trace(_tied_trace(tmp_path))
    seen = set()
    for seed in range(8):
        [report] = replay_trace(recorded, [("d", _default())], seed=seed, follow_ties=False)
        [outcome] = report.outcomes
        assert set(outcome.ties) == {"n1", "n2"}
        seen.add(outcome.node)
        kind = "same" if outcome.node == "n2" else "tie"
        assert report.agreement()[kind] == 1
    assert seen == {"n1", "n2"}


def test_preemption_evicts_in_the_replayed_cluster(tmp_path: Path) -> None:
    low = make_pod().name("low").namespace("w").priority(0).req(cpu="3").obj()
    high = make_pod().name("high").namespace("w").priority(1000).req(cpu="3").obj()
    records = [
        listed("nodes", make_node().name("a").capacity(cpu="4").obj()),
        SYNCED,
        at(1.0, trace.ADDED, "pods", low),
        at(5.0, trace.ADDED, "pods", high),
        at(9.0, trace.MODIFIED, "pods", {**low, "status": {"phase": "Running"}}),
    ]
    report = _replay(tmp_path, records, end=30.0)
    outcomes = {outcome.pod: outcome for outcome in report.outcomes}
    assert (report.result.preemptions, report.result.evictions) == (1, 1)
    assert outcomes["w/low"].evicted_at == 5.0
    assert (outcomes["w/high"].node, outcomes["w/high"].attempts) == ("a", 2)
    # The trace's later word on the victim is ignored: it stays evicted.
    assert report.utilization["cpu"] == 0.75


def test_the_cycle_guard_moves_time_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop, "CYCLES_PER_POD", 0)
    monkeypatch.setattr(loop, "CYCLES_SPARE", 2)
    records = [listed("nodes", n) for n in nodes(3)] + [listed("pods", p) for p in pods(5)]
    report = _replay(tmp_path, [*records, SYNCED], end=10.0)
    assert sorted(o.bound_at for o in report.outcomes if o.bound_at is not None) == [
        0.0,
        0.0,
        1.0,
        1.0,
        2.0,
    ]


def test_a_cycle_that_crashes_costs_its_pod_a_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def crash_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a bug")
        return schedule_pod(*args, **kwargs)

    monkeypatch.setattr(loop, "schedule_pod", crash_once)
    records = [listed("nodes", n) for n in nodes(2)] + [SYNCED, *_arrivals(pods(1))]
    [outcome] = _replay(tmp_path, records, end=10.0).outcomes
    assert outcome.node
    assert outcome.attempts == 2
