"""A leader that loses its Lease stops binding and exits 1 (fencing), end to end.

Three ways to lose the Lease: another holder overwrites it; the leader is frozen (SIGSTOP)
past the renew deadline while a standby takes over; the leader is cut off from the API
server by a TCP proxy that stops forwarding. In every case no pod is bound twice or by a
replica that no longer leads, and no node is overcommitted (checked after every test).
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import socket
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kubesched.localcluster import LocalCluster
from tests.e2e.harness import (
    ApiClient,
    assert_stays,
    condition,
    is_pending_unbound,
    node_name,
    wait_for,
)
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.kubesched import KubeschedProcess
from tests.e2e.test_leader_election import (
    CRASH_FAILOVER_BOUND,
    LEASE_DURATION,
    RENEW_DEADLINE,
    RETRY_PERIOD,
    LeaseWatch,
    PodStream,
    add_node,
    create_pods,
    first_index,
    identity_of,
    lease_spec,
    micro_time,
    pods_by_name,
    replica_args,
    scheduled_by,
    scheduled_events,
    wait_all_bound,
    wait_holder,
    wait_one_scheduled_event_each,
)

LOST = '"lost leader lease; stopping so a restart rebuilds state"'
STOPPED_LEADING = '"stopped leading: no more writes; in-flight bindings are dropped before exiting"'
EXIT_SECONDS = 30.0
_KLOG_TIME = re.compile(r"^[IWEF]\d{4} (\d{2}:\d{2}:\d{2}\.\d{6})")


def one_line(proc: KubeschedProcess, text: str) -> str:
    """The one line of the process's log that contains `text`."""
    lines = [line for line in proc.log().splitlines() if text in line]
    assert len(lines) == 1, proc.tail()
    return lines[0]


def lost_line(proc: Any) -> str:
    """The error line of a leader that lost its Lease (logged once it has wound down)."""
    return one_line(proc, LOST)


def log_time(line: str, *, near: datetime) -> datetime:
    """The wall time of a klog line of a process run with TZ=UTC; klog lines carry no date,
    so it is the one closest to `near`."""
    found = _KLOG_TIME.match(line)
    assert found, line
    clock = datetime.strptime(found.group(1), "%H:%M:%S.%f").replace(tzinfo=UTC).timetz()
    moment = datetime.combine(near.date(), clock, tzinfo=UTC)
    if moment < near - timedelta(hours=12):
        moment += timedelta(days=1)
    return moment


def lines_after(log: str, marker: str) -> list[str]:
    lines = log.splitlines()
    index = next(i for i, line in enumerate(lines) if marker in line)
    return lines[index + 1 :]


# -- another holder overwrites the Lease -------------------------------------------------------
def test_leader_that_loses_its_lease_stops_and_exits_1(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    scheduler = "lost-scheduler"
    add_node(api, "lost-node")
    proc = kubesched(*replica_args(scheduler, namespace), "--v=4")
    wait_holder(api, namespace, scheduler, [identity_of(proc)])
    before = create_pods(api, namespace, scheduler, ["before-0", "before-1"])
    wait_all_bound(api, namespace, before)

    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    api.patch(
        "Lease",
        scheduler,
        {
            "spec": {
                "holderIdentity": "intruder",
                "leaseDurationSeconds": 3600,
                "acquireTime": now,
                "renewTime": now,
            }
        },
        namespace=namespace,
    )
    started = time.monotonic()
    assert proc.wait(timeout=EXIT_SECONDS) == 1
    took = time.monotonic() - started
    print(f"lost lease: the leader exited {took:.2f}s after the Lease was taken")
    assert took < RETRY_PERIOD + RENEW_DEADLINE + 2

    assert 'reason="lease taken"' in one_line(proc, STOPPED_LEADING)
    line = lost_line(proc)
    assert 'reason="lease taken"' in line
    assert 'holder="intruder"' in line
    assert f"the lease {namespace}/{scheduler} is now held by intruder" in line
    log = proc.log()
    assert log.count('"Successfully bound pod to node"') == len(before)  # -v=4 shows bindings
    after_loss = lines_after(log, STOPPED_LEADING)
    assert not [ln for ln in after_loss if "Successfully bound pod" in ln], after_loss
    # It did not release or overwrite the new holder's Lease on its way out.
    spec = lease_spec(api, namespace, scheduler)
    assert spec["holderIdentity"] == "intruder"
    assert spec["leaseDurationSeconds"] == 3600
    assert "released the lease" not in proc.log()

    later = create_pods(api, namespace, scheduler, ["after-0"])
    assert_stays(
        lambda: api.get("Pod", later[0], namespace=namespace),
        holds=is_pending_unbound,
        duration=2,
        message="nobody binds pods after the leader is gone",
    )


def assert_nothing_written_by_the_fenced_replica(api: ApiClient, namespace: str) -> None:
    failed = [(e.regarding_name, e.note) for e in api.events(namespace, reason="FailedScheduling")]
    assert not failed, f"FailedScheduling events from a replica that no longer leads: {failed}"
    contradicted = {
        name: condition(pod, "PodScheduled")
        for name, pod in pods_by_name(api, namespace).items()
        if node_name(pod) and (condition(pod, "PodScheduled") or {}).get("status") != "True"
    }
    assert not contradicted, f"bound pods marked not scheduled: {contradicted}"


# -- the leader is frozen past its renew deadline ----------------------------------------------
def write_config(
    path: Path, *, kubeconfig: Path, profiles: list[str], namespace: str, lease: str
) -> Path:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig)},
        "leaderElection": {
            "leaderElect": True,
            "resourceNamespace": namespace,
            "resourceName": lease,
            "leaseDuration": f"{LEASE_DURATION:g}s",
            "renewDeadline": f"{RENEW_DEADLINE:g}s",
            "retryPeriod": f"{RETRY_PERIOD:g}s",
        },
        "profiles": [{"schedulerName": name} for name in profiles],
    }
    path.write_text(json.dumps(config))
    return path


def test_frozen_leader_is_fenced_when_it_wakes_up(
    kubesched: StartKubesched,
    api: ApiClient,
    namespace: str,
    tmp_path: Path,
    local_cluster: LocalCluster,
) -> None:
    """The leader serves x and y, the standby only x. While the leader is frozen, the
    standby takes over and binds the x pods; the y pods that arrived meanwhile are seen by
    the old leader when it wakes up, and it must not bind them: it no longer leads."""
    lease = "frozen-lease"
    add_node(api, "frozen-node")
    config = write_config(
        tmp_path / "leader.yaml",
        kubeconfig=local_cluster.kubeconfig_path,
        profiles=["x-sched", "y-sched"],
        namespace=namespace,
        lease=lease,
    )
    a = kubesched(f"--config={config}", name="leader")
    a_id = wait_holder(api, namespace, lease, [identity_of(a)])
    b = kubesched(*replica_args("x-sched", namespace, lease), name="standby")
    b_id = identity_of(b)
    b.wait_log('"waiting for leader lease"')
    warm = [
        *create_pods(api, namespace, "x-sched", ["x-warm"]),
        *create_pods(api, namespace, "y-sched", ["y-warm"]),
    ]
    wait_all_bound(api, namespace, warm)
    assert scheduled_by(a, "x-sched") == 1
    assert scheduled_by(a, "y-sched") == 1

    a.signal(signal.SIGSTOP)
    try:
        frozen_at = datetime.now(UTC)
        x_late = create_pods(api, namespace, "x-sched", [f"x-late-{i}" for i in range(3)])
        y_late = create_pods(api, namespace, "y-sched", [f"y-late-{i}" for i in range(3)])
        wait_holder(api, namespace, lease, [b_id], timeout=CRASH_FAILOVER_BOUND + 2)
        took = micro_time(lease_spec(api, namespace, lease)["acquireTime"]) - frozen_at
        print(f"frozen leader: the standby acquired the Lease {took.total_seconds():.2f}s later")
        wait_all_bound(api, namespace, x_late)
    finally:
        a.signal(signal.SIGCONT)
    assert a.wait(timeout=EXIT_SECONDS) == 1

    line = lost_line(a)
    assert re.search(r'reason="(lease taken|renew deadline exceeded)"', line), line
    pods = pods_by_name(api, namespace)
    assert not [n for n in y_late if node_name(pods[n])], "the fenced leader bound y pods"
    assert scheduled_events(api, namespace).keys().isdisjoint(y_late)
    wait_one_scheduled_event_each(api, namespace, [*warm, *x_late])
    assert scheduled_by(b, "x-sched") == len(x_late)
    # A replica that no longer leads writes nothing about pods: no FailedScheduling events,
    # and above all no PodScheduled=False over the new leader's bindings.
    assert_nothing_written_by_the_fenced_replica(api, namespace)
    assert lease_spec(api, namespace, lease)["holderIdentity"] == b_id
    assert a_id != b_id


# -- the leader is cut off from the API server -------------------------------------------------
class CuttableProxy:
    """A TCP proxy to the API server that can cut the way *to* the server, as an asymmetric
    network partition does: what the server sends (watch events) still arrives, what the
    client sends (renewals, bindings) is swallowed, new connections are accepted and hang.
    The cut-off kubesched keeps seeing new pods but can neither renew nor bind."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self._upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._cut = threading.Event()
        self._closed = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        self._cut.set()

    def close(self) -> None:
        self._closed.set()
        self._cut.set()
        with self._lock:
            for sock in [self._listener, *self._sockets]:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def _keep(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self._keep(client)
            if self._cut.is_set():
                continue  # hold it open, never answer
            try:
                server = socket.create_connection(self._upstream, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            self._keep(server)
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, to_server: bool) -> None:
        while True:
            try:
                data = source.recv(65536)
                if not data:
                    return
                if to_server and self._cut.is_set():
                    continue  # swallowed by the partition
                sink.sendall(data)
            except OSError:
                return


def test_leader_cut_off_from_the_api_server_is_fenced_before_the_takeover(
    kubesched: StartKubesched, api: ApiClient, namespace: str, local_cluster: LocalCluster
) -> None:
    """The leader's requests stop reaching the API server while it still sees new pods.
    It must stop binding renewDeadline after its last successful renewal, before the
    standby (which waits leaseDuration from when it saw that renewal) takes over; every pod
    ends up bound exactly once, by the standby."""
    scheduler = "cut-scheduler"
    add_node(api, "cut-node")
    upstream = urlsplit(local_cluster.server)
    proxy = CuttableProxy((upstream.hostname or "127.0.0.1", upstream.port or 443))
    try:
        a = kubesched(
            *replica_args(scheduler, namespace),
            f"--master=https://127.0.0.1:{proxy.port}",
            name="behind-proxy",
            extra_env={"TZ": "UTC"},
        )
        a_id = wait_holder(api, namespace, scheduler, [identity_of(a)])
        b = kubesched(*replica_args(scheduler, namespace), name="standby")
        b_id = identity_of(b)
        b.wait_log('"waiting for leader lease"')
        before = create_pods(api, namespace, scheduler, ["before-0", "before-1"])
        wait_all_bound(api, namespace, before)
        wait_one_scheduled_event_each(api, namespace, before)
        assert scheduled_by(a, scheduler) == len(before)

        watch = LeaseWatch(api, namespace, scheduler, seconds=int(CRASH_FAILOVER_BOUND + 3))
        time.sleep(0.3)  # the watch is established
        cut_at = datetime.now(UTC)
        proxy.cut()
        with PodStream(api, namespace, scheduler, prefix="during") as during:
            wait_holder(api, namespace, scheduler, [b_id], timeout=CRASH_FAILOVER_BOUND + 2)
            time.sleep(0.5)
        specs = watch.result()
        wait_all_bound(api, namespace, during.names)
        wait_one_scheduled_event_each(api, namespace, [*before, *during.names])
        assert scheduled_by(b, scheduler) == len(during.names)

        ours = [s for s in specs if s.get("holderIdentity") == a_id]
        last_renewal = max(micro_time(s["renewTime"]) for s in ours)
        takeover = specs[first_index(specs, lambda s: s.get("holderIdentity") == b_id)]
        acquired = micro_time(takeover["acquireTime"])
        fenced_at = last_renewal + timedelta(seconds=RENEW_DEADLINE)
        line = wait_for(
            lambda: one_line(a, STOPPED_LEADING),
            timeout=EXIT_SECONDS,
            message="the cut-off leader says at once that it stopped leading",
        )
        assert 'reason="renew deadline exceeded"' in line
        print(
            f"cut-off leader: last renewal {(last_renewal - cut_at).total_seconds():+.2f}s from "
            f"the cut, fenced {(fenced_at - cut_at).total_seconds():.2f}s after it, gave up "
            f"{(log_time(line, near=cut_at) - cut_at).total_seconds():.2f}s after it; the standby "
            f"acquired the Lease {(acquired - cut_at).total_seconds():.2f}s after it"
        )
        assert fenced_at < acquired
        assert (acquired - cut_at).total_seconds() <= CRASH_FAILOVER_BOUND

        # The leader saw pods after its fence and refused to bind them.
        refused = [
            ln
            for ln in a.log().splitlines()
            if "not binding: leader lease not renewed in time" in ln
        ]
        assert refused, a.tail()
        # (renewTime is written a moment after the renewal's send time the fence counts from)
        early = fenced_at - timedelta(seconds=0.05)
        assert all(log_time(ln, near=cut_at) >= early for ln in refused), refused
        assert a.wait(timeout=EXIT_SECONDS) == 1
        assert 'reason="renew deadline exceeded"' in lost_line(a)
    finally:
        proxy.close()
