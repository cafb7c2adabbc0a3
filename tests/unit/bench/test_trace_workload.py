"""`kubesched bench --trace FILE` (docs/replay.md, "Benchmark a trace"): the trace's nodes,
its bound pods created bound, its waiting pods created for the contender at their recorded
times; bad traces and clashing flags refused in one line."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from kubesched.bench.load import create_all
from kubesched.bench.trace_workload import RECORDED_POD, TRACE_NS, trace_workload
from kubesched.cli import main
from kubesched.replay import read_trace, trace
from kubesched.testing.builders import make_node, make_pod
from tests.unit.replay.traces import at, listed, write


def _records() -> list[dict[str, Any]]:
    bound = make_pod().name("old").namespace("a").node("n1").req(cpu="1").obj()
    first = make_pod().name("p").namespace("a").req(cpu="1").label("app", "x").obj()
    first["spec"].update(priority=10, priorityClassName="high", nominatedNodeName="n2")
    second = make_pod().name("q").namespace("b").scheduler("other").obj()
    return [
        listed("nodes", make_node().name("n1").label("zone", "z1").obj()),
        listed("scheduling.k8s.io/priorityclasses", {"metadata": {"name": "high"}, "value": 10}),
        listed("pods", bound),
        {"t": 0.0, "op": trace.SYNCED},
        at(2.0, trace.ADDED, "pods", first),
        at(2.5, trace.MODIFIED, "pods", first),
        at(3.0, trace.ADDED, "nodes", make_node().name("n2").obj()),
        at(4.5, trace.ADDED, "pods", second),
        at(5.0, trace.DELETED, "pods", first),
    ]


def test_the_workload_holds_the_nodes_and_the_pods_in_recorded_order() -> None:
    workload = trace_workload(_records(), name="t")
    assert [workload.node(i)["metadata"]["name"] for i in range(workload.nodes)] == ["n1", "n2"]
    assert workload.node(0)["metadata"]["labels"]["zone"] == "z1"
    assert workload.priority_classes == (("high", 10),)
    assert workload.arrivals == (0.0, 2.5)
    [initial] = workload.initial
    [(_, old)] = list(initial.pods("bench"))
    assert (old["spec"]["nodeName"], old["metadata"]["annotations"][RECORDED_POD]) == (
        "n1",
        "a/old",
    )
    pods = [body for _, body in workload.measured.pods("bench")]
    assert [p["metadata"]["annotations"][RECORDED_POD] for p in pods] == ["a/p", "b/q"]
    assert [p["metadata"]["name"] for p in pods] == ["p-0", "p-1"]
    assert {p["metadata"]["namespace"] for p in pods} == {TRACE_NS}
    assert {p["spec"]["schedulerName"] for p in pods} == {"bench"}
    assert pods[0]["metadata"]["labels"] == {"app": "x"}
    assert pods[0]["spec"]["priorityClassName"] == "high"
    for dropped in ("priority", "nominatedNodeName", "nodeName"):
        assert dropped not in pods[0]["spec"]
    assert "uid" not in pods[0]["metadata"]


def test_create_all_creates_at_the_given_times() -> None:
    created: list[tuple[str, float]] = []

    class Client:
        async def post(self, path: str, body: dict[str, Any], *, timeout: float) -> None:
            created.append((body["n"], time.monotonic()))

    async def run() -> float:
        started = time.monotonic()
        items = [("/x", {"n": name}) for name in ("a", "b", "c")]
        await create_all(Client(), items, concurrency=8, at=(0.0, 0.2, 0.1))  # type: ignore[arg-type]
        return started

    started = asyncio.run(run())
    offsets = {name: moment - started for name, moment in created}
    assert offsets["a"] < 0.1
    assert 0.1 <= offsets["c"] < 0.2 <= offsets["b"] < 0.35


def test_a_trace_without_a_pod_to_schedule_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "t.jsonl.gz", [listed("nodes", make_node().name("n").obj())], end=1.0)
    assert main(["bench", "--trace", str(path), "--contenders", "kubesched"]) == 2
    assert capsys.readouterr().out == (
        f"kubesched bench: {path}: the trace holds no pod waiting for a scheduler;"
        " record while pods are created\n"
    )
    assert read_trace(path).count == 1


def test_a_missing_trace_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "none.jsonl.gz"
    assert main(["bench", "--trace", str(path)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"kubesched bench: {path}: no such trace file")
    assert len(out.splitlines()) == 1


def test_sizes_with_a_trace_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "t.jsonl.gz", _records(), end=6.0)
    assert main(["bench", "--trace", str(path), "--nodes", "5", "--pods", "3"]) == 2
    assert capsys.readouterr().out == (
        "kubesched bench: --trace takes its nodes and pods from the trace; drop --nodes, --pods\n"
    )


def test_a_trace_with_the_suite_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "t.jsonl.gz", _records(), end=6.0)
    assert main(["bench", "--suite", "--trace", str(path)]) == 2
    assert capsys.readouterr().out == (
        "kubesched bench: --suite runs the catalogue, --trace one trace; give one of them\n"
    )
