"""The writer process (the scheduler's API writes sent by a child process) against the real
API server: a writer killed with SIGKILL while pods are being bound is replaced within
seconds, every pod ends bound exactly once, the health checks say so while it is gone; and
without `KUBESCHED_WRITER_PROCESS=on` (its default) no child runs."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

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
    """SIGTERM while bindings are in flight: they end, kubesched exits 0 and its writer
    process is gone with it (no orphan left writing)."""
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
    bound = [p for p in api.list("Pod", namespace=namespace) if is_bound(p)]
    assert len(bound) >= 5
