"""One big object never breaks the scheduler: a pod with a 600 KB env value and a node whose
JSON is over 512 KiB arrive on the watch (after the caches synced), and kubesched still
schedules them and every pod after them; /readyz and /livez stay green.

Both objects are legal: etcd takes objects up to 1.5 MiB, and any user who can create a pod
in any namespace can make one this big.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, node_name, wait_for

SCHEDULER = "large-objects-scheduler"


def big_node(name: str) -> dict[str, Any]:
    """A node carrying 3000 image entries: well over 512 KiB of JSON."""
    node = make_node().name(name).capacity(cpu="4", memory="8Gi", pods="110").obj()
    node["status"]["images"] = [
        {"names": [f"registry.example.com/team/app-{i:05d}:{'v' * 150}"], "sizeBytes": 1000}
        for i in range(3000)
    ]
    assert len(json.dumps(node)) > 512 * 1024
    return node


def big_pod(namespace: str, name: str) -> dict[str, Any]:
    pod = make_pod().name(name).namespace(namespace).scheduler(SCHEDULER).req(cpu="100m").obj()
    pod["spec"]["containers"][0]["env"] = [{"name": "BLOB", "value": "x" * 600_000}]
    return pod


def test_big_pod_and_big_node_on_the_watch_are_scheduled(
    kubesched: Callable[..., Any], api: ApiClient, namespace: str
) -> None:
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    api.create(big_node("big-node"))
    api.create(big_pod(namespace, "big-pod"))
    bound = wait_for(
        lambda: api.get("Pod", "big-pod", namespace=namespace),
        until=is_bound,
        message="the 600 KB pod is bound",
    )
    assert node_name(bound) == "big-node"
    # The informers are still alive: a normal pod after the big objects is scheduled too.
    api.create(
        make_pod().name("after").namespace(namespace).scheduler(SCHEDULER).req(cpu="1").obj()
    )
    wait_for(
        lambda: api.get("Pod", "after", namespace=namespace),
        until=is_bound,
        message="a pod created after the big objects is bound",
    )
    assert proc.get("/readyz") == (200, "ok")
    assert proc.get("/livez") == (200, "ok")
    assert "list/watch failed" not in proc.log()
