"""Helpers for the scheduling e2e tests: outcomes of a pod, who scheduled it, config files,
and a kubesched process shared by the tests of one module.

    outcome = wait_outcome(api, namespace, "p", nodes=3)
    outcome.bound / outcome.node / outcome.message / outcome.reasons
    scheduled_by(api, namespace, "p")          # {"my-scheduler"} (events.k8s.io/v1 + core/v1)
    write_config(tmp_path / "c.yaml", kubeconfig=..., profiles=[{"schedulerName": "x"}])

kube-scheduler (v1.37) ends a FailedScheduling message with its PostFilter (preemption)
verdict: `0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available:
2 No preemption victims found for incoming pod.`, and so does kubesched (DefaultPreemption).
`Outcome.message` is the part before `preemption:`, `Outcome.post_filter` the rest and
`Outcome.full_message` both, as the event and the condition carry it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.harness.api import ApiClient, Event
from tests.e2e.harness.waiting import condition, node_name, wait_for

PREEMPTION_SEPARATOR = " preemption: "
_HEADER = re.compile(r"^0/(\d+) nodes are available:(.*)$", re.DOTALL)
_ENTRY = re.compile(r"^(\d+) (.+)$")


@dataclass(frozen=True)
class Outcome:
    """Where a pod went: bound to `node`, or unschedulable with `message` (PodScheduled)."""

    pod: dict[str, Any]
    node: str
    message: str
    post_filter: str
    reason: str

    @property
    def bound(self) -> bool:
        return bool(self.node)

    @property
    def full_message(self) -> str:
        """The whole message, preemption verdict included (the FailedScheduling note)."""
        return f"{self.message} {self.post_filter}" if self.post_filter else self.message

    @property
    def reasons(self) -> dict[str, int]:
        """`{"Insufficient cpu": 2, ...}` parsed from the counted part of the message."""
        return parse_reasons(self.message)

    def describe(self) -> str:
        if self.bound:
            return f"bound to {self.node}"
        extra = f" [post-filter: {self.post_filter}]" if self.post_filter else ""
        return f"{self.reason}: {self.message!r}{extra}"


def split_post_filter(message: str) -> tuple[str, str]:
    """(message without the preemption verdict, the preemption verdict or "")."""
    head, sep, tail = message.partition(PREEMPTION_SEPARATOR)
    return head, (sep.strip() + " " + tail if sep else "")


def parse_reasons(message: str) -> dict[str, int]:
    """The counted reasons of `0/N nodes are available: 1 A, 2 B.`, as {reason: count}."""
    match = _HEADER.match(message)
    if not match:
        return {}
    body = match.group(2).strip().removesuffix(".")
    counted: dict[str, int] = {}
    for raw in body.split(", ") if body else []:
        entry = _ENTRY.match(raw.strip())
        if entry:
            counted[entry.group(2)] = counted.get(entry.group(2), 0) + int(entry.group(1))
        else:
            counted[raw.strip()] = counted.get(raw.strip(), 0)
    return counted


def _settled(pod: dict[str, Any], nodes: int | None) -> bool:
    if node_name(pod):
        return True
    scheduled = condition(pod, "PodScheduled")
    if not scheduled or scheduled.get("status") != "False":
        return False
    if nodes is None:
        return True
    return str(scheduled.get("message", "")).startswith(f"0/{nodes} nodes are available:")


def wait_outcome(
    api: ApiClient, namespace: str, name: str, *, nodes: int | None = None, timeout: float = 20
) -> Outcome:
    """Wait until the pod is bound, or has PodScheduled=False (naming `nodes` nodes when given:
    a cycle run before the scheduler saw all the test's nodes does not count)."""
    pod = wait_for(
        lambda: api.get("Pod", name, namespace=namespace),
        until=lambda p: _settled(p, nodes),
        timeout=timeout,
        message=f"pod {namespace}/{name} is bound or reported unschedulable",
    )
    scheduled = condition(pod, "PodScheduled") or {}
    message, post_filter = ("", "")
    if not node_name(pod):
        message, post_filter = split_post_filter(str(scheduled.get("message", "")))
    return Outcome(
        pod=pod,
        node=node_name(pod),
        message=message,
        post_filter=post_filter,
        reason="" if node_name(pod) else str(scheduled.get("reason", "")),
    )


def pod_events(
    api: ApiClient, namespace: str, pod: dict[str, Any], reason: str
) -> tuple[list[Event], list[Event]]:
    """(events.k8s.io/v1, core/v1) events of `reason` about this very pod (matched by UID)."""
    uid = pod["metadata"]["uid"]
    name = pod["metadata"]["name"]

    def mine(events: list[Event]) -> list[Event]:
        return [
            e
            for e in events
            if (e.raw.get("regarding") or e.raw.get("involvedObject") or {}).get("uid") == uid
        ]

    return (
        mine(api.events(namespace, regarding=name, reason=reason)),
        mine(api.core_events(namespace, regarding=name, reason=reason)),
    )


def scheduled_by(api: ApiClient, namespace: str, pod: dict[str, Any]) -> set[str]:
    """The schedulers named by the pod's Scheduled events, read through both event APIs
    (events.k8s.io/v1 `reportingController`, core/v1 `reportingComponent` or
    `source.component`)."""
    new, core = pod_events(api, namespace, pod, "Scheduled")
    return {e.reporting_controller for e in new} | {e.reporting_controller for e in core}


def wait_scheduled_by(
    api: ApiClient, namespace: str, pod: dict[str, Any], *, timeout: float = 15
) -> set[str]:
    """Wait for the pod's Scheduled event (seen through both APIs); return the schedulers."""
    wait_for(
        lambda: pod_events(api, namespace, pod, "Scheduled"),
        until=lambda both: bool(both[0]) and bool(both[1]),
        timeout=timeout,
        message=f"a Scheduled event for {namespace}/{pod['metadata']['name']} in both APIs",
    )
    return scheduled_by(api, namespace, pod)


def write_config(
    path: Path,
    *,
    kubeconfig: Path,
    profiles: list[dict[str, Any]],
    leader_election: dict[str, Any] | None = None,
    **extra: Any,
) -> Path:
    """Write a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1). With `--config`,
    `--kubeconfig` is ignored (as kube-scheduler does), so the file names the kubeconfig."""
    config: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig)},
        "leaderElection": leader_election or {"leaderElect": False},
        "profiles": profiles,
        **extra,
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def with_limits(pod: dict[str, Any]) -> dict[str, Any]:
    """Copy each container's requests of extended resources into its limits (the API
    requires limits == requests for resources that cannot be overcommitted)."""
    for container in pod["spec"].get("containers", []):
        requests = (container.get("resources") or {}).get("requests") or {}
        extended = {k: v for k, v in requests.items() if "/" in k}
        if extended:
            container["resources"].setdefault("limits", {}).update(extended)
    return pod


def traceback_free(log: str) -> bool:
    return "Traceback (most recent call last)" not in log
