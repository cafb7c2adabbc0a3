"""A leader that loses its Lease while it is busy exits 1 with a clean log: no "Session is
closed" and no tracebacks from the requests still in flight (bindings, status patches,
events) when it winds down."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, wait_for

SCHEDULER = "shutdown-clean-scheduler"


def test_lost_lease_while_busy_exits_1_without_tracebacks(
    kubesched: Callable[..., Any], api: ApiClient, namespace: str
) -> None:
    api.create(make_node().name("small").capacity(cpu="1", pods="110").obj())
    proc = kubesched(
        f"--scheduler-name={SCHEDULER}",
        f"--leader-elect-resource-namespace={namespace}",
        "--leader-elect-lease-duration=4s",
        "--leader-elect-renew-deadline=3s",
        "--leader-elect-retry-period=1s",
    )
    wait_for(lambda: api.get("Lease", SCHEDULER, namespace=namespace), message="Lease taken")

    def create_pods() -> None:  # most do not fit: events and status patches keep flowing
        for i in range(150):
            pod = make_pod().name(f"p{i}").namespace(namespace).scheduler(SCHEDULER)
            api.create(pod.req(cpu="300m").obj())

    creator = threading.Thread(target=create_pods)
    creator.start()
    wait_for(lambda: len(api.list("Pod", namespace=namespace)), until=lambda n: n >= 60, timeout=30)
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    api.patch(
        "Lease",
        SCHEDULER,
        {"spec": {"holderIdentity": "intruder", "leaseDurationSeconds": 3600, "renewTime": now}},
        namespace=namespace,
    )
    code = proc.wait(timeout=30)
    creator.join()
    log = proc.log()
    assert code == 1, proc.tail()
    assert "Session is closed" not in log
    assert "Traceback" not in log
    assert "Task exception was never retrieved" not in log
