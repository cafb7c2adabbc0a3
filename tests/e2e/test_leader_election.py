"""Leader election end to end: replicas of one kubesched share a Lease beside the real
kube-scheduler, fail over on a crash, hand over on SIGTERM, and default their Lease.

Every test runs the real control plane (etcd, kube-apiserver, kube-scheduler holding
kube-system/kube-scheduler) and kubesched as real processes, with short election timings
(lease 4 s, renew deadline 3 s, retry 1 s) so that each test takes seconds. The helpers at
the top are shared with `test_leader_collision.py` and `test_leader_fencing.py`.
"""

from __future__ import annotations

import contextlib
import json
import re
import ssl
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

import yaml

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, node_name, wait_for
from tests.e2e.harness.fixtures import StartKubesched

LEASE_DURATION = 4.0
RENEW_DEADLINE = 3.0
RETRY_PERIOD = 1.0
JITTER_FACTOR = 1.2
TIMINGS = (
    f"--leader-elect-lease-duration={LEASE_DURATION:g}s",
    f"--leader-elect-renew-deadline={RENEW_DEADLINE:g}s",
    f"--leader-elect-retry-period={RETRY_PERIOD:g}s",
)
SLACK = 1.0
"""Seconds of request latency and process scheduling allowed on top of a bound (2 cores)."""
CRASH_FAILOVER_BOUND = LEASE_DURATION + (1 + JITTER_FACTOR) * RETRY_PERIOD + SLACK
HANDOVER_BOUND = (1 + JITTER_FACTOR) * RETRY_PERIOD + SLACK
DEFAULT_LEASE = ("kube-system", "kube-scheduler")

_IDENTITY = re.compile(r'"starting leader election" lease="([^"]+)" identity="([^"]+)"')


# -- helpers shared by the leader election tests -------------------------------------------
def replica_args(scheduler: str, namespace: str, lease: str = "") -> tuple[str, ...]:
    """Flags of one replica: its scheduler name, its Lease `namespace/lease`, short timings."""
    return (
        f"--scheduler-name={scheduler}",
        "--leader-elect=true",
        f"--leader-elect-resource-namespace={namespace}",
        f"--leader-elect-resource-name={lease or scheduler}",
        *TIMINGS,
    )


def identity_of(proc: Any, timeout: float = 30.0) -> str:
    """The holder identity a kubesched process campaigns with (from its first election line)."""
    found = _IDENTITY.search(proc.wait_log('"starting leader election"', timeout=timeout))
    assert found, proc.tail()
    return found.group(2)


def lease_spec(api: ApiClient, namespace: str, name: str) -> dict[str, Any]:
    """The Lease's spec ({} while it does not exist)."""
    lease = api.get_or_none("Lease", name, namespace=namespace)
    return dict((lease or {}).get("spec") or {})


def holder(api: ApiClient, namespace: str, name: str) -> str:
    """The Lease's holderIdentity ("" when released or absent)."""
    return str(lease_spec(api, namespace, name).get("holderIdentity") or "")


def wait_holder(
    api: ApiClient, namespace: str, name: str, among: Iterable[str], timeout: float = 30.0
) -> str:
    """Wait until one of `among` holds the Lease; return it."""
    candidates = set(among)
    return wait_for(
        lambda: holder(api, namespace, name),
        until=lambda h: h in candidates,
        timeout=timeout,
        interval=0.05,
        message=f"one of {sorted(candidates)} holds the Lease {namespace}/{name}",
    )


def micro_time(text: str) -> datetime:
    """A Lease MicroTime ("2024-01-01T00:00:00.123456Z") as an aware datetime."""
    return datetime.fromisoformat(text).astimezone(UTC)


def admin_token(proc: Any) -> str:
    """The bearer token of the kubeconfig a kubesched process was started with."""
    path = next(a.split("=", 1)[1] for a in proc.argv if a.startswith("--kubeconfig="))
    config = yaml.safe_load(Path(path).read_text())
    return str(config["users"][0]["user"]["token"])


def metrics_text(proc: Any) -> str:
    """GET /metrics on the secure port as the cluster admin (the endpoint authenticates and
    authorizes callers through the API server, as kube-scheduler's does)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(f"https://127.0.0.1:{proc.port}/metrics")
    request.add_header("Authorization", f"Bearer {admin_token(proc)}")
    with urllib.request.urlopen(request, timeout=5, context=context) as response:
        return str(response.read().decode())


def metric(proc: Any, name: str, labels: dict[str, str]) -> float | None:
    """One sample of a process's /metrics (None when absent)."""
    text = metrics_text(proc)
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        sample, _, value = line.rpartition(" ")
        found = dict(re.findall(r'(\w+)="([^"]*)"', sample))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(value)
    return None


def scheduled_by(proc: Any, profile: str) -> int:
    """How many pods this process bound (scheduler_schedule_attempts_total scheduled)."""
    value = metric(
        proc, "scheduler_schedule_attempts_total", {"result": "scheduled", "profile": profile}
    )
    return int(value or 0)


def leading_metric(proc: Any, lease: str) -> float | None:
    """leader_election_master_status{name=lease}."""
    return metric(proc, "leader_election_master_status", {"name": lease})


def add_node(api: ApiClient, name: str) -> None:
    api.create(make_node().name(name).obj())


def create_pods(api: ApiClient, namespace: str, scheduler: str, names: Iterable[str]) -> list[str]:
    """Create one small pod per name for `scheduler`; return the names."""
    created = []
    for name in names:
        pod = make_pod().name(name).namespace(namespace).scheduler(scheduler).req(cpu="100m")
        api.create(pod.obj())
        created.append(name)
    return created


def pods_by_name(api: ApiClient, namespace: str) -> dict[str, dict[str, Any]]:
    return {p["metadata"]["name"]: p for p in api.list("Pod", namespace=namespace)}


def wait_all_bound(
    api: ApiClient, namespace: str, names: Iterable[str], timeout: float = 30.0
) -> dict[str, dict[str, Any]]:
    """Wait until every pod in `names` is bound; return all pods of the namespace by name."""
    wanted = set(names)

    def all_bound(pods: dict[str, dict[str, Any]]) -> bool:
        return all(name in pods and is_bound(pods[name]) for name in wanted)

    return wait_for(
        lambda: pods_by_name(api, namespace),
        until=all_bound,
        timeout=timeout,
        message=f"all {len(wanted)} pods are bound",
    )


def scheduled_events(api: ApiClient, namespace: str) -> Counter[str]:
    """Scheduled events per pod name."""
    return Counter(e.regarding_name for e in api.events(namespace, reason="Scheduled"))


def wait_one_scheduled_event_each(
    api: ApiClient, namespace: str, names: Iterable[str], timeout: float = 15.0
) -> Counter[str]:
    """Wait until every pod has its Scheduled event; fail if any pod has more than one."""
    wanted = set(names)
    counts = wait_for(
        lambda: scheduled_events(api, namespace),
        until=lambda c: all(c[n] >= 1 for n in wanted),
        timeout=timeout,
        message="every pod has its Scheduled event",
    )
    doubled = {name: n for name, n in counts.items() if n != 1}
    assert not doubled, f"pods with more than one Scheduled event: {doubled}"
    return counts


@dataclass
class NodeNameTracker:
    """Polls the pods of a namespace in a thread and remembers every spec.nodeName seen per
    pod, so a test can assert that no pod was ever moved (re-bound) to another node."""

    api: ApiClient
    namespace: str
    interval: float = 0.1
    seen: dict[str, set[str]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._poll()

    def _poll(self) -> None:
        for name, pod in pods_by_name(self.api, self.namespace).items():
            if node_name(pod):
                self.seen.setdefault(name, set()).add(node_name(pod))

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):  # a transient API error must not end it
                self._poll()
            self._stop.wait(self.interval)

    def moved(self) -> dict[str, set[str]]:
        return {name: nodes for name, nodes in self.seen.items() if len(nodes) > 1}


@dataclass
class PodStream:
    """Creates a pod for `scheduler` every `interval` seconds in a thread while in use."""

    api: ApiClient
    namespace: str
    scheduler: str
    prefix: str = "stream"
    interval: float = 0.2
    names: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            name = f"{self.prefix}-{len(self.names)}"
            self.names += create_pods(self.api, self.namespace, self.scheduler, [name])
            self._stop.wait(self.interval)


class LeaseWatch:
    """Every state the API server records for one Lease during a time window, in order,
    read with a watch (a poll could miss a short-lived state such as a released Lease).
    The first state is the Lease as it was when the watch started."""

    def __init__(self, api: ApiClient, namespace: str, name: str, *, seconds: int) -> None:
        self._api = api
        self._namespace = namespace
        self._name = name
        self._seconds = seconds
        lease = api.get("Lease", name, namespace=namespace)
        self._resource_version = lease["metadata"]["resourceVersion"]
        self.specs: list[dict[str, Any]] = [dict(lease.get("spec") or {})]
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        query = {
            "watch": "1",
            "resourceVersion": self._resource_version,
            "fieldSelector": f"metadata.name={self._name}",
            "timeoutSeconds": str(self._seconds),
            "allowWatchBookmarks": "false",
        }
        try:
            raw = self._api.request(
                "GET", self._api.path("Lease", namespace=self._namespace), query=query
            )
        except BaseException as error:
            self._error = error
            return
        lines = [raw] if isinstance(raw, dict) else str(raw or "").splitlines()
        for line in lines:
            event = line if isinstance(line, dict) else json.loads(line)
            if event.get("type") in ("ADDED", "MODIFIED"):
                self.specs.append(dict(event["object"].get("spec") or {}))

    def result(self) -> list[dict[str, Any]]:
        """Wait for the window to end; the Lease specs written during it, oldest first."""
        self._thread.join(timeout=self._seconds + 30)
        if self._error is not None:
            raise self._error
        return self.specs


def first_index(specs: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> int:
    for index, spec in enumerate(specs):
        if test(spec):
            return index
    raise AssertionError(f"no such Lease state among {json.dumps(specs, indent=1)}")


# -- 1. two replicas: one leader, one standby, beside kube-scheduler ------------------------
def test_two_replicas_one_leader_beside_kube_scheduler(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    scheduler = "ha-scheduler"
    add_node(api, "ha-node")
    default_before = lease_spec(api, *DEFAULT_LEASE)
    assert default_before.get("holderIdentity"), "kube-scheduler holds its Lease"

    # Both replicas race for the Lease from the start.
    a = kubesched(*replica_args(scheduler, namespace), ready=False, name="replica-a")
    b = kubesched(*replica_args(scheduler, namespace), ready=False, name="replica-b")
    a.wait_ready()
    b.wait_ready()
    ids = {identity_of(a): a, identity_of(b): b}
    leader_id = wait_holder(api, namespace, scheduler, ids)
    leader = ids[leader_id]
    standby_id, standby = next((i, p) for i, p in ids.items() if p is not leader)

    # kube-scheduler keeps its own Lease; ours has its own holder and our annotation.
    default_after = lease_spec(api, *DEFAULT_LEASE)
    assert default_after["holderIdentity"] == default_before["holderIdentity"]
    assert default_after["holderIdentity"] not in ids
    lease = api.get("Lease", scheduler, namespace=namespace)
    assert lease["metadata"]["annotations"]["kubesched.io/scheduler-names"] == scheduler
    assert lease["spec"]["leaseDurationSeconds"] == int(LEASE_DURATION)

    # The standby says who holds the Lease, when it was renewed and when it expires.
    waiting = standby.wait_log('"waiting for leader lease"')
    line = next(ln for ln in waiting.splitlines() if '"waiting for leader lease"' in ln)
    assert f'lease="{namespace}/{scheduler}"' in line
    assert f'holder="{leader_id}"' in line
    assert re.search(r'renewed="[0-9.]+s ago"', line), line
    expires = r'expires="(in [0-9.]+s|now) \(leaseDuration from when this replica last saw it'
    assert re.search(expires + r' change, [0-9.]+s ago\)"', line), line
    assert f'schedulers="{scheduler}"' in line

    # Only the leader schedules.
    names = create_pods(api, namespace, scheduler, [f"p{i}" for i in range(6)])
    pods = wait_all_bound(api, namespace, names)
    assert {node_name(pods[n]) for n in names} == {"ha-node"}
    wait_one_scheduled_event_each(api, namespace, names)
    assert scheduled_by(leader, scheduler) == len(names)
    assert scheduled_by(standby, scheduler) == 0
    assert leading_metric(leader, scheduler) == 1
    assert leading_metric(standby, scheduler) == 0
    assert holder(api, namespace, scheduler) == leader_id
    assert standby_id != leader_id

    for proc in (a, b):
        assert "attempting to acquire" not in proc.log()
        assert proc.get("/healthz")[0] == 200
    assert "successfully acquired lease" not in standby.log()


# -- 2. fail-over when the leader crashes ------------------------------------------------------
def test_failover_when_the_leader_is_killed(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    scheduler = "crash-scheduler"
    add_node(api, "crash-node-1")
    add_node(api, "crash-node-2")
    a = kubesched(*replica_args(scheduler, namespace), name="leader")
    a_id = wait_holder(api, namespace, scheduler, [identity_of(a)])
    b = kubesched(*replica_args(scheduler, namespace), name="standby")
    b_id = identity_of(b)
    b.wait_log('"waiting for leader lease"')
    transitions_before = lease_spec(api, namespace, scheduler).get("leaseTransitions", 0)

    before = create_pods(api, namespace, scheduler, [f"before-{i}" for i in range(4)])
    wait_all_bound(api, namespace, before)
    wait_one_scheduled_event_each(api, namespace, before)
    assert scheduled_by(a, scheduler) == len(before)

    with NodeNameTracker(api, namespace) as tracker:
        killed_at = datetime.now(UTC)
        a.kill()
        # Pods keep arriving while nobody leads and while the standby takes over.
        after: list[str] = []
        deadline = time.monotonic() + CRASH_FAILOVER_BOUND + 1
        while time.monotonic() < deadline:
            after += create_pods(api, namespace, scheduler, [f"after-{len(after)}"])
            time.sleep(0.25)
        spec = lease_spec(api, namespace, scheduler)
        assert spec["holderIdentity"] == b_id, f"the standby took over: {spec}"
        pods = wait_all_bound(api, namespace, [*before, *after])
        wait_one_scheduled_event_each(api, namespace, [*before, *after])

    took = (micro_time(spec["acquireTime"]) - killed_at).total_seconds()
    print(f"crash fail-over: the standby acquired the Lease {took:.2f}s after SIGKILL")
    assert took <= CRASH_FAILOVER_BOUND, f"fail-over took {took:.2f}s"
    assert spec["leaseTransitions"] == transitions_before + 1
    assert scheduled_by(b, scheduler) == len(after)
    assert not tracker.moved(), f"pods moved between nodes: {tracker.moved()}"
    assert set(pods) == {*before, *after}
    assert leading_metric(b, scheduler) == 1
    assert a_id != b_id
    b.wait_log(f'"successfully acquired lease" lease="{namespace}/{scheduler}"')


# -- 3. clean hand-over on SIGTERM -------------------------------------------------------------
def test_sigterm_releases_the_lease_and_the_standby_takes_over_fast(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    scheduler = "handover-scheduler"
    add_node(api, "handover-node")
    a = kubesched(*replica_args(scheduler, namespace), name="leader")
    a_id = wait_holder(api, namespace, scheduler, [identity_of(a)])
    b = kubesched(*replica_args(scheduler, namespace), name="standby")
    b_id = identity_of(b)
    b.wait_log('"waiting for leader lease"')
    first = create_pods(api, namespace, scheduler, ["first-0", "first-1"])
    wait_all_bound(api, namespace, first)

    watch = LeaseWatch(api, namespace, scheduler, seconds=int(HANDOVER_BOUND + 4))
    time.sleep(0.3)  # the watch is established
    with PodStream(api, namespace, scheduler, prefix="during") as during:
        time.sleep(0.5)
        stopped_at = datetime.now(UTC)
        assert a.stop() == 0
        specs = watch.result()

    released = first_index(specs, lambda s: not s.get("holderIdentity"))
    taken = first_index(specs, lambda s: s.get("holderIdentity") == b_id)
    assert released < taken
    assert all(s.get("holderIdentity") in (a_id, "") for s in specs[:released])
    release, takeover = specs[released], specs[taken]
    assert release["leaseDurationSeconds"] == 1
    assert takeover["leaseDurationSeconds"] == int(LEASE_DURATION)
    handover = micro_time(takeover["acquireTime"]) - micro_time(release["renewTime"])
    since_sigterm = (micro_time(takeover["acquireTime"]) - stopped_at).total_seconds()
    print(
        f"clean hand-over: the standby acquired the Lease {handover.total_seconds():.2f}s after "
        f"the release, {since_sigterm:.2f}s after SIGTERM"
    )
    assert handover.total_seconds() <= HANDOVER_BOUND
    assert since_sigterm < LEASE_DURATION, "much faster than waiting for the Lease to expire"
    assert takeover["leaseTransitions"] == release["leaseTransitions"] + 1

    log = a.log()
    assert '"leader election stopped"' in log
    assert f"released the lease {namespace}/{scheduler}" in log

    # Pods that arrived during the hand-over are bound once, by either replica, and the
    # stopping leader did not report them as failures; the new leader schedules the rest.
    second = create_pods(api, namespace, scheduler, ["second-0", "second-1"])
    every = [*first, *during.names, *second]
    wait_all_bound(api, namespace, every)
    wait_one_scheduled_event_each(api, namespace, every)
    assert scheduled_by(b, scheduler) >= len(second)
    failed = [(e.regarding_name, e.note) for e in api.events(namespace, reason="FailedScheduling")]
    assert not failed, f"a clean hand-over reported failures: {failed}"

    # LeaderElection events on the Lease, as client-go records them.
    expected = {f"{a_id} became leader", f"{a_id} stopped leading", f"{b_id} became leader"}
    events = wait_for(
        lambda: {
            e.note
            for e in api.events(namespace, regarding=scheduler, reason="LeaderElection")
            if e.regarding_kind == "Lease"
        },
        until=lambda notes: expected <= notes,
        timeout=10,
        message=f"LeaderElection events {sorted(expected)}",
    )
    assert events == expected


# -- a foreign write to the Lease: the leader renews by the slow path and keeps leading -------
def test_leader_renews_by_the_slow_path_after_a_foreign_write(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    scheduler = "slowpath-scheduler"
    proc = kubesched(*replica_args(scheduler, namespace))
    proc_id = wait_holder(api, namespace, scheduler, [identity_of(proc)])
    assert metric(proc, "leader_election_slowpath_total", {"name": scheduler}) in (None, 0)
    # A label changes the resourceVersion but not the holder: the leader's next optimistic
    # update conflicts, it reads the Lease, still finds itself the holder and renews.
    api.patch("Lease", scheduler, {"metadata": {"labels": {"touched": "yes"}}}, namespace=namespace)
    wait_for(
        lambda: metric(proc, "leader_election_slowpath_total", {"name": scheduler}) or 0,
        until=lambda n: n >= 1,
        timeout=5 * RETRY_PERIOD,
        message="leader_election_slowpath_total counts the slow-path renewal",
    )
    time.sleep(LEASE_DURATION)
    spec = lease_spec(api, namespace, scheduler)
    assert spec["holderIdentity"] == proc_id
    assert spec["leaseTransitions"] == 0
    assert proc.running()
    assert leading_metric(proc, scheduler) == 1
    assert api.get("Lease", scheduler, namespace=namespace)["metadata"]["labels"]["touched"]


# -- 6. defaults -------------------------------------------------------------------------------
def test_default_lease_is_kube_system_named_after_the_scheduler(
    kubesched: StartKubesched, api: ApiClient
) -> None:
    scheduler = f"foo-{time.monotonic_ns() % 10**8}"
    try:
        # Outside a cluster: no POD_NAMESPACE (and no service account namespace file).
        proc = kubesched(f"--scheduler-name={scheduler}", extra_env={"POD_NAMESPACE": ""})
        proc_id = wait_holder(api, "kube-system", scheduler, [identity_of(proc)])
        lease = api.get("Lease", scheduler, namespace="kube-system")
        assert lease["spec"]["leaseDurationSeconds"] == 15
        assert lease["spec"]["holderIdentity"] == proc_id
        assert lease["spec"]["leaseTransitions"] == 0
        assert lease["metadata"]["annotations"]["kubesched.io/scheduler-names"] == scheduler
        assert lease["metadata"]["labels"]["kubesched.io/lease"] == "scheduler"
        log = proc.log()
        assert f'"starting leader election" lease="kube-system/{scheduler}"' in log
        assert "leaseDuration=15s renewDeadline=10s retryPeriod=2s" in log
        assert proc.stop() == 0
        released = lease_spec(api, "kube-system", scheduler)
        assert released["holderIdentity"] == ""
        assert released["leaseDurationSeconds"] == 1
    finally:
        api.delete("Lease", scheduler, namespace="kube-system")


# -- the guides' command lines ----------------------------------------------------------------
def _labelled_namespace(api: ApiClient, name: str) -> str:
    """Create the exact namespace `name`, labelled so the clean-up removes it."""
    api.create(
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": name, "labels": {"kubesched.e2e/test": "true"}},
        }
    )
    return name


def test_leader_election_guide_container_args(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    """`--leader-elect=true --leader-election-resource-name=my-custom-scheduler
    --leader-election-resource-namespace=custom-scheduler-ns --scheduler-name=my-custom-scheduler`
    exactly as written: its own Lease, beside kube-scheduler."""
    lease_ns = _labelled_namespace(api, "custom-scheduler-ns")
    add_node(api, "doc1-node")
    pending = create_pods(api, namespace, "my-custom-scheduler", ["early"])
    proc = kubesched(
        "--leader-elect=true",
        "--leader-election-resource-name=my-custom-scheduler",
        "--leader-election-resource-namespace=custom-scheduler-ns",
        "--scheduler-name=my-custom-scheduler",
    )
    proc_id = wait_holder(api, lease_ns, "my-custom-scheduler", [identity_of(proc)])
    assert holder(api, *DEFAULT_LEASE) != proc_id
    wait_all_bound(api, namespace, pending)
    events = api.events(namespace, regarding="early", reason="Scheduled")
    assert [e.reporting_controller for e in events] == ["my-custom-scheduler"]
    log = proc.log()
    assert "--leader-elect-resource-name" in log  # the alias notice names the canonical flag
    assert "--leader-elect-resource-namespace" in log
    assert "attempting to acquire" not in log


def test_configure_multiple_schedulers_lock_object_flags(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    """`--leader-elect=true --lock-object-namespace=... --lock-object-name=...` with
    `--scheduler-name=my-scheduler`; pods submitted before it runs stay Pending, then are
    scheduled, and their Scheduled events name my-scheduler."""
    add_node(api, "doc2-node")
    early = create_pods(api, namespace, "my-scheduler", ["annotation-second-scheduler"])
    time.sleep(1)
    assert not node_name(api.get("Pod", early[0], namespace=namespace)), "nobody serves it yet"
    proc = kubesched(
        "--leader-elect=true",
        f"--lock-object-namespace={namespace}",
        "--lock-object-name=my-scheduler",
        "--scheduler-name=my-scheduler",
    )
    wait_holder(api, namespace, "my-scheduler", [identity_of(proc)])
    wait_all_bound(api, namespace, early)
    events = api.events(namespace, regarding=early[0], reason="Scheduled")
    assert [e.reporting_controller for e in events] == ["my-scheduler"]
    log = proc.log()
    assert "--lock-object-namespace" in log
    assert "--leader-elect-resource-namespace" in log
