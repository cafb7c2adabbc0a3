"""The demo's closing steps: who placed which pod (from the Scheduled events), both Leases
with their holders, then the kubesched leader killed and the standby taking over."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kubesched.localcluster.demo_base import (
    CUSTOM_POD,
    CUSTOM_SCHEDULER,
    GUIDE_PODS,
    KUBESCHED_NAMESPACE,
    NAMESPACE,
    as_list,
    guide_pod,
    wait_for_node_name,
)
from kubesched.localcluster.errors import LocalClusterError

if TYPE_CHECKING:
    from kubesched.localcluster.demo_base import Demo
    from kubesched.localcluster.process import Process

LEASES = (("kube-system", "kube-scheduler"), (KUBESCHED_NAMESPACE, CUSTOM_SCHEDULER))
AFTER_FAILOVER_POD = f"{CUSTOM_POD}-2"
TAKEOVER_TIMEOUT = 45.0


def show_placements(demo: Demo) -> None:
    """Print pod, node, and which scheduler placed it (the `Scheduled` events)."""
    _print_placements(demo, [name for name, _, _ in GUIDE_PODS])


def show_leases(demo: Demo) -> None:
    """Print both Leases with their holders, and which kubesched replica leads."""
    leader = _wait_for_holder(demo, set(demo.notes["identities"].values()), timeout=30.0)
    demo.notes["leader"] = _replica_of(demo, leader)
    rows = [("LEASE", "HOLDER", "PROCESS", "DURATION", "RENEWED")]
    for namespace, name in LEASES:
        spec = demo.get_json("lease", name, "-n", namespace)["spec"]
        holder = str(spec.get("holderIdentity") or "")
        process = _replica_of(demo, holder) or (
            "kube-scheduler" if name == "kube-scheduler" else "?"
        )
        duration = f"{spec.get('leaseDurationSeconds', '?')}s"
        rows.append((f"{namespace}/{name}", holder, process, duration, str(spec.get("renewTime"))))
    _table(demo, rows)
    standby = [name for name in demo.notes["identities"] if name != demo.notes["leader"]]
    demo.out(
        f"{demo.notes['leader']} leads {KUBESCHED_NAMESPACE}/{CUSTOM_SCHEDULER}; "
        f"{', '.join(standby)} stands by"
    )


def kill_leader(demo: Demo) -> None:
    """Kill the kubesched leader (SIGKILL) and time how long the standby takes to lead."""
    identities: dict[str, str] = demo.notes["identities"]
    leader: str = demo.notes["leader"]
    standby = next(name for name in identities if name != leader)
    process: Process = demo.notes["replicas"][leader]
    if process.pid is None:
        raise LocalClusterError(f"{leader} has no pid")
    demo.out(f"$ kill -KILL {process.pid}   # {leader}, holder of the Lease: no release")
    os.killpg(process.pid, signal.SIGKILL)
    started = time.monotonic()
    holder = _wait_for_holder(demo, {identities[standby]}, timeout=TAKEOVER_TIMEOUT)
    took = time.monotonic() - started
    if process.running() or process.returncode() != -signal.SIGKILL:
        raise LocalClusterError(f"{leader} (pid {process.pid}) did not die of SIGKILL")
    demo.notes["leader"] = standby
    demo.out(
        f"{standby} took over {KUBESCHED_NAMESPACE}/{CUSTOM_SCHEDULER} after {took:.1f} s "
        f"(the dead leader's lease had to expire first); holder now {holder}"
    )


def schedule_after_failover(demo: Demo) -> None:
    """Create one more my-scheduler pod: the new leader places it."""
    container = "pod-with-second-annotation-container"
    pod = guide_pod(AFTER_FAILOVER_POD, container, CUSTOM_SCHEDULER)
    demo.out(demo.kubectl("create", "-f", "-", stdin=as_list([pod])).rstrip())
    wait_for_node_name(demo, AFTER_FAILOVER_POD, timeout=30.0, who=demo.notes["leader"])
    _print_placements(demo, [name for name, _, _ in GUIDE_PODS] + [AFTER_FAILOVER_POD])
    process: Process = demo.notes["replicas"][demo.notes["leader"]]
    demo.out(
        f"{NAMESPACE}/{AFTER_FAILOVER_POD} was placed by {demo.notes['leader']} "
        f"(pid {process.pid}), the only kubesched replica left and the Lease's holder"
    )


def _print_placements(demo: Demo, pods: list[str]) -> None:
    placed = _wait_for_scheduled_events(demo, pods, timeout=30.0)
    rows = [("POD", "SCHEDULER NAME", "NODE", "PLACED BY (Scheduled event)")]
    for name in pods:
        pod = demo.get_json("pod", name, "-n", NAMESPACE)
        wanted = pod["spec"].get("schedulerName", "default-scheduler")
        rows.append((name, wanted, pod["spec"].get("nodeName", ""), placed[name]))
    _table(demo, rows)
    wrong = [row[0] for row in rows[1:] if row[1] != row[3]]
    if wrong:
        raise LocalClusterError(f"not placed by the scheduler they name: {', '.join(wrong)}")


def _wait_for_scheduled_events(demo: Demo, pods: list[str], *, timeout: float) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while True:
        placed: dict[str, str] = {}
        for event in demo.get_json("events", "-n", NAMESPACE).get("items", []):
            if event.get("reason") == "Scheduled":
                name = event["involvedObject"]["name"]
                placed[name] = _reporter(event)
        if all(pod in placed for pod in pods) or time.monotonic() > deadline:
            return {pod: placed.get(pod, "(no Scheduled event yet)") for pod in pods}
        time.sleep(0.5)


def _reporter(event: dict[str, Any]) -> str:
    source = event.get("source") or {}
    return str(event.get("reportingComponent") or source.get("component") or "?")


def _wait_for_holder(demo: Demo, wanted: set[str], *, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    holder = ""
    while time.monotonic() < deadline:
        holder = _holder(demo)
        if holder in wanted:
            return holder
        time.sleep(0.2)
    raise LocalClusterError(
        f"the Lease {KUBESCHED_NAMESPACE}/{CUSTOM_SCHEDULER} is held by {holder or 'nobody'} "
        f"after {timeout:.0f} s, not by {' or '.join(sorted(wanted))}; "
        f"logs: {demo.cluster.logs_dir}",
        details=demo.cluster.log_tails(lines=20),
    )


def _holder(demo: Demo) -> str:
    """kubesched's Lease holder ("" while the Lease does not exist yet)."""
    result = demo.cluster.kubectl(
        "get",
        "lease",
        CUSTOM_SCHEDULER,
        "-n",
        KUBESCHED_NAMESPACE,
        "-o",
        "jsonpath={.spec.holderIdentity}",
        check=False,
    )
    return result.stdout.strip() if result.returncode == 0 else ""


def _replica_of(demo: Demo, holder: str) -> str:
    identities: dict[str, str] = demo.notes["identities"]
    return next((name for name, identity in identities.items() if identity == holder), "")


def _table(demo: Demo, rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        demo.out(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
