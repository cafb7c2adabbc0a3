"""The writer process (the scheduler's API writes sent by a child process) against the real
API server: a writer killed with SIGKILL while pods are being bound is replaced within
seconds, every pod ends bound exactly once, the health checks say so while it is gone; the
events it records carry the same fields as the scheduler's own; and without
`KUBESCHED_WRITER_PROCESS=on` (its default) no child runs."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.kubesched import KubeschedProcess

SCHEDULER = "writer-process-scheduler"
PODS = 60
WRITER_ON = {"KUBESCHED_WRITER_PROCESS": "on"}


def _children(proc: KubeschedProcess) -> list[int]:
    """The pids of the scheduler's child processes."""
    path = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    return [int(pid) for pid in path.read_text().split()]


def _writer_pid(proc: KubeschedProcess) -> int:
    return wait_for(lambda: _children(proc), until=bool, message="a writer process runs")[0]


def test_a_killed_writer_is_replaced_and_no_pod_is_lost(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    for i in range(3):
        api.create(make_node().name(f"writer-node-{i}").capacity(cpu="32", pods="110").obj())
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false", extra_env=WRITER_ON)
    first = _writer_pid(proc)

    def create_pods() -> None:
        for i in range(PODS):
            pod = make_pod().name(f"p{i}").namespace(namespace).scheduler(SCHEDULER)
            api.create(pod.req(cpu="100m").obj())
            time.sleep(0.02)

    creator = threading.Thread(target=create_pods)
    creator.start()
    wait_for(
        lambda: sum(is_bound(p) for p in api.list("Pod", namespace=namespace)),
        until=lambda n: n >= 10,
        message="ten pods bound before the kill",
    )
    os.kill(first, signal.SIGKILL)
    creator.join()
    proc.wait_log("writer process ended; starting another")
    second = _writer_pid(proc)
    assert second != first
    pods = wait_for(
        lambda: api.list("Pod", namespace=namespace),
        until=lambda pods: len(pods) == PODS and all(is_bound(p) for p in pods),
        timeout=60,
        message="every pod bound after the writer was replaced",
    )
    assert {p["spec"]["nodeName"] for p in pods} <= {f"writer-node-{i}" for i in range(3)}
    assert proc.running()
    assert proc.get("/healthz?verbose")[0] == 200
    assert "[+]writer-process ok" in proc.get("/livez?verbose")[1]
    assert "Traceback" not in proc.log()


def test_without_the_writer_process_no_child_runs(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    api.create(make_node().name("writer-off-node").obj())
    proc = kubesched(f"--scheduler-name={SCHEDULER}-off", "--leader-elect=false")
    api.create(make_pod().name("p").namespace(namespace).scheduler(f"{SCHEDULER}-off").obj())
    wait_for(lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="bound")
    assert _children(proc) == []
    assert "writer-process" not in proc.get("/livez?verbose")[1]


def test_sigterm_ends_the_writes_then_both_processes(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    """SIGTERM while bindings are in flight: they end, their events are written, kubesched
    exits 0 and its writer process is gone with it (no orphan left writing)."""
    api.create(make_node().name("writer-term-node").capacity(cpu="64", pods="200").obj())
    proc = kubesched(
        f"--scheduler-name={SCHEDULER}-term", "--leader-elect=false", extra_env=WRITER_ON
    )
    writer = _writer_pid(proc)
    for i in range(40):
        pod = make_pod().name(f"p{i}").namespace(namespace).scheduler(f"{SCHEDULER}-term")
        api.create(pod.req(cpu="100m").obj())
    wait_for(
        lambda: sum(is_bound(p) for p in api.list("Pod", namespace=namespace)),
        until=lambda n: n >= 5,
        message="bindings under way",
    )
    assert proc.stop() == 0
    assert not Path(f"/proc/{writer}").exists()
    assert "Traceback" not in proc.log()
    bound = {p["metadata"]["name"] for p in api.list("Pod", namespace=namespace) if is_bound(p)}
    assert len(bound) >= 5
    # The events of those bindings were written by the writer process before it exited.
    assert bound <= {e.regarding_name for e in api.events(namespace, reason="Scheduled")}


def _event(api: ApiClient, namespace: str, pod: str, reason: str) -> dict[str, Any]:
    found = wait_for(
        lambda: api.events(namespace, regarding=pod, reason=reason),
        until=bool,
        message=f"a {reason} event about {pod}",
    )
    assert len(found) == 1
    return found[0].raw


def _fields(event: dict[str, Any], scheduler: str, pod: str) -> dict[str, Any]:
    """What kubesched writes in `event`, with the scheduler's and the pod's names made
    alike (and the server's own fields, the generated name and the times left out)."""
    kept = {k: v for k, v in event.items() if k not in {"metadata", "eventTime"}}
    text = orjson.dumps(kept).decode().replace(scheduler, "SCHEDULER").replace(pod, "POD")
    fields: dict[str, Any] = orjson.loads(text)
    fields["regarding"].pop("uid")
    return fields


def test_events_are_written_alike_with_and_without_the_writer_process(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    """A bound pod's Scheduled event and an unschedulable pod's FailedScheduling event carry
    the same fields whether the writer process records them or the scheduler does."""
    api.create(make_node().name("writer-events-node").capacity(cpu="4", pods="110").obj())
    modes = {"-on": WRITER_ON, "-off": {}}
    procs = [
        kubesched(
            f"--scheduler-name={SCHEDULER}{m}", "--leader-elect=false", extra_env=env, ready=False
        )
        for m, env in modes.items()
    ]
    for proc in procs:
        proc.wait_ready()
    for mode in modes:
        for name, cpu in ((f"fits{mode}", "100m"), (f"big{mode}", "64")):
            pod = make_pod().name(name).namespace(namespace).scheduler(f"{SCHEDULER}{mode}")
            api.create(pod.req(cpu=cpu).obj())
    seen = {
        mode: [
            _fields(
                _event(api, namespace, f"{pod}{mode}", reason), f"{SCHEDULER}{mode}", f"{pod}{mode}"
            )
            for pod, reason in (("fits", "Scheduled"), ("big", "FailedScheduling"))
        ]
        for mode in modes
    }
    assert seen["-on"] == seen["-off"]
    scheduled, failed = seen["-on"]
    assert scheduled["note"] == f"Successfully assigned {namespace}/POD to writer-events-node"
    assert "Insufficient cpu" in failed["note"]
    assert scheduled["reportingController"] == "SCHEDULER"
    assert "series" not in failed
    assert all("Traceback" not in proc.log() for proc in procs)
