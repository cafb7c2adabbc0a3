"""The oracle: a second real kube-scheduler v1.37.2 serving the `parity-*` profiles at
`--v=10`, and what its log says about each pod.

At V(10) `prioritizeNodes` (schedule_one.go) logs `"Plugin scored node for pod" pod=
plugin= node= score=` for every Score plugin and node (the weighted, normalized score) and
`"Calculated node's final score for pod"`; `"Attempting to schedule pod"` starts each
attempt and `"Successfully bound pod to node" ... evaluatedNodes= feasibleNodes=` ends a
successful one. A pod with a single feasible node is not scored (upstream takes it as is).

Both schedulers run with their default feature gates, OpportunisticBatching (beta, on)
included: a pod with the same signature as the previous one may be placed on that cycle's
next best node without a full Filter/Score pass (no score lines then). Every profile here
has PodTopologySpread with default constraints, which signs no pod, so neither batches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kubesched.localcluster import LocalCluster, Process, ensure_binaries
from kubesched.localcluster.flags import scheduler_args
from kubesched.localcluster.probe import Endpoint, free_ports, get
from tests.e2e.harness.diff.profiles import ORACLE_PREFIX, write_config
from tests.e2e.harness.waiting import wait_for

NAME = "kube-scheduler-parity"
_ATTEMPT = re.compile(r'"Attempting to schedule pod" pod="([^"]+)"')
_SCORE = re.compile(
    r'"Plugin scored node for pod" pod="([^"]+)" plugin="([^"]+)" node="([^"]+)" score=(-?\d+)'
)
_FAILED = re.compile(
    r'"Unable to schedule pod; no fit; waiting" pod="([^"]+)" err="((?:[^"\\]|\\.)*)"'
)
_ERROR = re.compile(r'"Error selecting node for pod" err="((?:[^"\\]|\\.)*)" pod="([^"]+)"')
_TARGET = "the target node for the preemption is determined"
_VICTIM = re.compile(r'"Preemptor Pod preempted victim Pod" preemptor="([^"]+)" victim="([^"]+)"')
_PREEMPTED = re.compile(r'"Async Preemption finished completely" preemptor="([^"]+)"')
_BOUND = re.compile(
    r'"Successfully bound pod to node" pod="([^"]+)" node="([^"]+)" '
    r"evaluatedNodes=(\d+) feasibleNodes=(\d+)"
)


@dataclass
class OracleAttempt:
    """What the log says about the last scheduling attempt of one pod."""

    scores: dict[tuple[str, str], int] = field(default_factory=dict)
    """(plugin, node) -> weighted score."""
    bound_to: str = ""
    failed: str = ""
    """The FailedScheduling message of an attempt that found no node."""
    error: str = ""
    """The error an attempt ended with (`"Error selecting node for pod"`: a plugin's error,
    e.g. an allocation that can never succeed; the pod is retried after its backoff)."""
    evaluated: int = 0
    feasible: int = 0

    @property
    def scored_nodes(self) -> set[str]:
        return {node for _, node in self.scores}


class Oracle:
    """The running oracle kube-scheduler and an offset into its log."""

    def __init__(self, process: Process, log_path: Path) -> None:
        self.process = process
        self.log_path = log_path

    def offset(self) -> int:
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def read(self, offset: int) -> str:
        with self.log_path.open("rb") as handle:
            handle.seek(offset)
            return handle.read().decode(errors="replace")

    def attempts(self, pod_key: str, offset: int) -> list[OracleAttempt]:
        """Every attempt to schedule `pod_key` logged after `offset`, in order."""
        found: list[OracleAttempt] = []
        for line in self.read(offset).splitlines():
            if (m := _ATTEMPT.search(line)) and m.group(1) == pod_key:
                found.append(OracleAttempt())
            elif not found:
                continue
            elif (m := _SCORE.search(line)) and m.group(1) == pod_key:
                found[-1].scores[(m.group(2), m.group(3))] = int(m.group(4))
            elif (m := _FAILED.search(line)) and m.group(1) == pod_key:
                found[-1].failed = _unquote(m.group(2))
            elif (m := _ERROR.search(line)) and m.group(2) == pod_key:
                found[-1].error = _unquote(m.group(1))
            elif (m := _BOUND.search(line)) and m.group(1) == pod_key:
                found[-1].bound_to = m.group(2)
                found[-1].evaluated, found[-1].feasible = int(m.group(3)), int(m.group(4))
        return found

    def attempt(self, pod_key: str, offset: int) -> OracleAttempt:
        """The last attempt to schedule `pod_key` logged after `offset`."""
        found = self.attempts(pod_key, offset)
        return found[-1] if found else OracleAttempt()

    def preemption(self, pod_key: str, offset: int, timeout: float = 15) -> OraclePreemption:
        """The pod's preemption, once finished (no target node logged: none)."""
        found = preemption_of(self.read(offset), pod_key)
        if not found.node:
            return found
        return wait_for(
            lambda: preemption_of(self.read(offset), pod_key),
            until=lambda p: p.finished,
            timeout=timeout,
            message=f"kube-scheduler finishes preempting for {pod_key}",
        )

    def wait_decided(self, pod_key: str, offset: int, timeout: float = 20) -> list[OracleAttempt]:
        """The attempts, once the last one is logged as bound, failed or ended in an error."""
        return wait_for(
            lambda: self.attempts(pod_key, offset),
            until=lambda found: (
                bool(found) and bool(found[-1].bound_to or found[-1].failed or found[-1].error)
            ),
            timeout=timeout,
            message=f"kube-scheduler logs a decision for {pod_key}",
        )

    def wait_bound_logged(self, pod_key: str, offset: int, timeout: float = 10) -> OracleAttempt:
        """The attempt, once the log shows the pod bound (the bind is logged after the API
        call returns, so the log may trail the API by a moment)."""
        return wait_for(
            lambda: self.attempt(pod_key, offset),
            until=lambda a: bool(a.bound_to),
            timeout=timeout,
            message=f"kube-scheduler logs the binding of {pod_key}",
        )


@dataclass
class OraclePreemption:
    """What kube-scheduler's preemption did for one pod (`preemption.go`, `executor.go`)."""

    node: str = ""
    """"the target node for the preemption is determined" (V2)."""
    victims: set[str] = field(default_factory=set)
    """"Preemptor Pod preempted victim Pod" (V2), one per victim."""
    finished: bool = False
    """"Async Preemption finished completely" (V2): every victim is handled."""


def preemption_of(text: str, pod_key: str) -> OraclePreemption:
    """The preemption for `pod_key` that `text` (a slice of the log) records."""
    found = OraclePreemption()
    for line in text.splitlines():
        if _TARGET in line and _value(line, "pod") == pod_key:
            found.node = _value(line, "node")
        elif (m := _VICTIM.search(line)) and m.group(1) == pod_key:
            found.victims.add(m.group(2))
        elif (m := _PREEMPTED.search(line)) and m.group(1) == pod_key:
            found.finished = True
    return found


def _value(line: str, key: str) -> str:
    """The string value of `key` in a klog structured line (keys in any order)."""
    match = re.search(rf' {key}="([^"]*)"', line)
    return match.group(1) if match else ""


def _unquote(text: str) -> str:
    """klog's quoting of a string value: backslash escapes."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def start_oracle(cluster: LocalCluster, workdir: Path) -> Oracle:
    """Start kube-scheduler with every `parity-*` profile (admin identity, no leader
    election, default feature gates); return once it serves /healthz."""
    config = write_config(
        workdir / "parity-kube-scheduler.yaml",
        kubeconfig=cluster.kubeconfig_path,
        prefix=ORACLE_PREFIX,
    )
    binaries = ensure_binaries()
    port = free_ports(1)[0]
    argv = [str(binaries.kube_scheduler)]
    argv += scheduler_args(
        config_file=config,
        kubeconfig_path=cluster.kubeconfig_path,
        port=port,
        cert_dir=workdir / "parity-kube-scheduler-certs",
        extra=("--v=10",),
    )
    process = cluster.spawn(NAME, argv)
    endpoint = Endpoint(f"https://127.0.0.1:{port}", verify=False)
    wait_for(
        lambda: get(endpoint, "/healthz")[0],
        until=lambda status: status == 200,
        timeout=60,
        message="the parity kube-scheduler serves /healthz",
    )
    return Oracle(process, cluster.logs_dir / f"{NAME}.log")
