"""The informer process (pods and nodes listed, watched and decoded by a child process)
against the real API server: a child killed with SIGKILL is replaced within seconds, a pod
and a node created while it was gone are seen (the new child lists again), nothing bound
before is lost or bound again, and the health endpoints stay truthful meanwhile; SIGTERM
ends both processes."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.kubesched import KubeschedProcess

SCHEDULER = "informer-process-scheduler"
INFORMER_ON = {"KUBESCHED_INFORMER_PROCESS": "on"}


def _children(proc: KubeschedProcess) -> list[int]:
    path = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    return [int(pid) for pid in path.read_text().split()]


def _child(proc: KubeschedProcess, other_than: int = 0) -> int:
    found = wait_for(
        lambda: [pid for pid in _children(proc) if pid != other_than],
        until=bool,
        timeout=10,
        message="an informer process runs",
    )
    return found[0]


def test_a_killed_informer_process_is_replaced_and_nothing_is_lost(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    api.create(make_node().name("informer-node-0").capacity(cpu="8", pods="110").obj())
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false", extra_env=INFORMER_ON)
    first = _child(proc)
    api.create(make_pod().name("before").namespace(namespace).scheduler(SCHEDULER).obj())
    before = wait_for(
        lambda: api.get("Pod", "before", namespace=namespace), until=is_bound, message="bound"
    )

    os.kill(first, signal.SIGKILL)
    # Made while no child may run: only a new list (or the new child's watch) shows them.
    late = make_node().name("informer-late-node").label("late", "yes").capacity(cpu="8")
    api.create(late.capacity(pods="110").obj())
    pod = make_pod().name("after").namespace(namespace).scheduler(SCHEDULER)
    api.create(pod.node_selector(late="yes").obj())
    codes = []
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        codes.append((proc.get("/livez")[0], proc.get("/readyz")[0]))
        if is_bound(api.get("Pod", "after", namespace=namespace)):
            break
        time.sleep(0.2)
    after = api.get("Pod", "after", namespace=namespace)
    assert is_bound(after), proc.log()[-3000:]
    assert after["spec"]["nodeName"] == "informer-late-node"
    # Restarted within its backoff: live and ready the whole time (the store was kept).
    assert set(codes) == {(200, 200)}, codes
    proc.wait_log("informer process ended; starting another")
    second = _child(proc, other_than=first)
    again = api.get("Pod", "before", namespace=namespace)
    assert again["spec"]["nodeName"] == before["spec"]["nodeName"]
    assert again["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert proc.running()
    assert "Traceback" not in proc.log()
    # SIGTERM: kubesched exits 0 and its informer process ends with it (no orphan).
    assert proc.stop() == 0
    wait_for(lambda: _gone(second), until=bool, timeout=5, message="the child ended")


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state == "Z"
