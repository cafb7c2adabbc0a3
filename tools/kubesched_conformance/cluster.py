"""The local cluster the specs run against: etcd, kube-apiserver, kube-controller-manager and
kwok playing the kubelets of `NODES` nodes (each with stand-ins of the per-node system pods
the e2e framework waits for), and one scheduler serving `default-scheduler`: kubesched (no
kube-scheduler at all) or, to learn what the local cluster can run, the real kube-scheduler.
Both run with the same flags, config, identity and Lease."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kubesched.localcluster import LocalCluster, gates
from kubesched.localcluster.kwok import NODE_LABEL
from kubesched.testing.builders import make_node

KUBESCHED = "kubesched"
KUBE_SCHEDULER = "kube-scheduler"
SCHEDULERS = (KUBESCHED, KUBE_SCHEDULER)
NODES = 3
"""Enough for the specs that need two nodes, and one zone per node for Multi-AZ's."""
ZONE_LABEL = "topology.kubernetes.io/zone"
NODE_IPS = "10.255.0"
"""The nodes' InternalIPs: apart from kwok's pod range and the service range."""
NODE_CAPACITY = {"cpu": "4", "memory": "16Gi", "ephemeral-storage": "100Gi", "pods": "110"}


@dataclass(frozen=True)
class Setup:
    """Which scheduler serves `default-scheduler`, and with which feature gates."""

    scheduler: str
    """`kubesched` or `kube-scheduler`."""
    generic_workload: bool = False
    """The GenericWorkload gate on, in kube-apiserver and in the scheduler (the run of the
    GenericWorkload specs only)."""
    gates: str = ""
    """Feature gates (`A=true,B=true`) on in every component: the run of every spec whose
    gates are on (see `specs.label_filter`)."""

    @property
    def gate_map(self) -> dict[str, bool]:
        """The gates of this setup, GenericWorkload included when `generic_workload`."""
        workload = {gates.GENERIC_WORKLOAD: True} if self.generic_workload else {}
        return {**workload, **gates.parse(self.gates)}

    @property
    def name(self) -> str:
        """`kubesched`, `kubesched-GenericWorkload`, `kube-scheduler`,
        `kubesched-GenericWorkload-TopologyAwareWorkloadScheduling` (the gates on), ..."""
        return "-".join((self.scheduler, *gates.enabled(self.gate_map)))


def node_objects(count: int = NODES) -> list[dict[str, Any]]:
    """`count` kwok nodes, `node-1` in zone `zone-1` with InternalIP `NODE_IPS.1`, and so on
    (the hostPort specs put a node's InternalIP in their pods' `hostIP`)."""
    nodes = []
    for i in range(1, count + 1):
        name = f"node-{i}"
        node = (
            make_node()
            .name(name)
            .label(*NODE_LABEL)
            .label(ZONE_LABEL, f"zone-{i}")
            .capacity_named(NODE_CAPACITY)
            .obj()
        )
        node["status"]["addresses"] = [
            {"type": "InternalIP", "address": f"{NODE_IPS}.{i}"},
            {"type": "Hostname", "address": name},
        ]
        nodes.append(node)
    return nodes


PER_NODE_APPS = ("kube-proxy", "fluentd-elasticsearch", "node-problem-detector")
"""The kube-system pods the e2e framework wants Running on every node (its
`requiredPerNodePods`), as the DaemonSets of a real cluster leave them."""


def per_node_pods(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stand-in pod of each `PER_NODE_APPS` bound to each node in kube-system: the specs'
    set-up (`WaitForTotalHealthy`) waits up to a minute for them, and pods that kwok marks
    Running end that wait (`_start_per_node_pods` gives them the PodScheduled condition the
    specs expect of a bound pod). They request nothing and are system-node-critical, so no
    spec's arithmetic or preemption sees them."""
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{app}-{node['metadata']['name']}",
                "namespace": "kube-system",
                "labels": {"k8s-app": app},
            },
            "spec": {
                "nodeName": node["metadata"]["name"],
                "priorityClassName": "system-node-critical",
                "tolerations": [{"operator": "Exists"}],
                "containers": [{"name": app, "image": "registry.k8s.io/pause:3.10"}],
            },
        }
        for node in nodes
        for app in PER_NODE_APPS
    ]


def _start_per_node_pods(cluster: LocalCluster, pods: list[dict[str, Any]]) -> None:
    """Create the pods, wait until kwok has them Running, then add the PodScheduled
    condition a scheduler would have written (the specs fail on a bound pod without one;
    added after kwok's own status patch, so that it stays)."""
    cluster.kubectl("apply", "-f", "-", stdin=yaml.safe_dump_all(pods))
    names = [f"pod/{pod['metadata']['name']}" for pod in pods]
    running = "--for=jsonpath={.status.phase}=Running"
    cluster.kubectl("wait", "-n", "kube-system", running, "--timeout=60s", *names, timeout=90)
    scheduled = {"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}}
    for name in names:
        cluster.kubectl(
            "patch",
            "-n",
            "kube-system",
            name,
            "--subresource=status",
            "--type=strategic",
            "-p",
            json.dumps(scheduled),
        )


def start_cluster(setup: Setup, *, workdir: Path) -> LocalCluster:
    """Start the cluster of `setup` in `workdir` (its logs in `workdir/logs`); the caller
    stops it. Raises `LocalClusterError` (everything started is stopped) on failure."""
    cluster = LocalCluster(
        workdir=workdir,
        controller_manager=True,
        kwok=True,
        gates=setup.gate_map,
        keep_logs=True,
    )
    cluster.start()
    try:
        nodes = node_objects()
        cluster.kubectl("apply", "-f", "-", stdin=yaml.safe_dump_all(nodes))
        _start_per_node_pods(cluster, per_node_pods(nodes))
        command = [sys.executable, "-m", "kubesched"] if setup.scheduler == KUBESCHED else []
        # LocalCluster(gates=...) gives every scheduler it starts the gates.
        cluster.start_default_scheduler(command=command)
    except BaseException:
        cluster.failed = True
        cluster.stop()
        raise
    return cluster
