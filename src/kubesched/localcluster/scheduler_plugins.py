"""scheduler-plugins (sigs.k8s.io/scheduler-plugins) in a `LocalCluster`: the second oracle of
the Coscheduling and CapacityScheduling side-by-side tests, and `dev-cluster up
--scheduler-plugins`.

Its scheduler is kube-scheduler (Kubernetes v1.35.4 libraries) with scheduler-plugins' plugins
registered; it runs with its own profile name (never `default-scheduler`), its own Lease and the
admin identity (it reads PodGroups and ElasticQuotas, which kube-scheduler's RBAC does not
grant). Its controller writes PodGroup and ElasticQuota status. Their CRDs (PodGroup,
ElasticQuota: `scheduling.x-k8s.io/v1alpha1`) are pinned data files of the same module version,
kept beside the wrapper module in `gobuild/scheduler-plugins/crds/`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.gobuild import GOBUILD_DIR
from kubesched.localcluster.launch import Launch
from kubesched.localcluster.probe import Endpoint, free_ports, get

CRD_DIR = GOBUILD_DIR / "scheduler-plugins" / "crds"
CRD_NAMES = ("podgroups.scheduling.x-k8s.io", "elasticquotas.scheduling.x-k8s.io")
SCHEDULER = "scheduler-plugins-scheduler"
"""The process name, and the default profile's schedulerName and Lease name."""
CONTROLLER = "scheduler-plugins-controller"
DEFAULT_PLUGINS = ("Coscheduling", "CapacityScheduling")
"""What `dev-cluster up --scheduler-plugins` enables: as scheduler-plugins' own Helm chart
(as-a-second-scheduler) does, without the two that need the NodeResourceTopology CRD."""


def crd_paths() -> list[Path]:
    """The pinned CRD files (PodGroup, ElasticQuota), for `kubectl apply -f`."""
    return sorted(CRD_DIR.glob("*.yaml"))


def crd_documents() -> list[dict[str, Any]]:
    """The pinned CRDs as objects, for an API client's POST."""
    return [doc for path in crd_paths() for doc in yaml.safe_load_all(path.read_text()) if doc]


def default_config() -> dict[str, Any]:
    """One profile `scheduler-plugins-scheduler` with `DEFAULT_PLUGINS` (Coscheduling sorts the
    queue, so PrioritySort is off)."""
    enabled = [{"name": name} for name in DEFAULT_PLUGINS]
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": SCHEDULER,
                "plugins": {
                    "multiPoint": {"enabled": enabled},
                    "queueSort": {"disabled": [{"name": "PrioritySort"}]},
                },
            }
        ],
    }


def scheduler_config(config: Mapping[str, Any] | str | None, *, kubeconfig_path: Path) -> str:
    """`config` (a KubeSchedulerConfiguration as a mapping or YAML text; None: `default_config`)
    completed for the local cluster: `clientConnection.kubeconfig` set, and unless given, leader
    election on with its own Lease `kube-system/<first profile's schedulerName>`."""
    doc = _parsed(config)
    profiles = doc.get("profiles") or []
    names = [str(p.get("schedulerName") or "default-scheduler") for p in profiles]
    if not names or "default-scheduler" in names:
        raise LocalClusterError(
            "scheduler-plugins' scheduler needs profiles with their own schedulerName (not "
            "default-scheduler, which kube-scheduler serves): set profiles[].schedulerName"
        )
    doc.setdefault("clientConnection", {})["kubeconfig"] = str(kubeconfig_path)
    doc.setdefault(
        "leaderElection",
        {"leaderElect": True, "resourceNamespace": "kube-system", "resourceName": names[0]},
    )
    return yaml.safe_dump(doc, sort_keys=False)


def _parsed(config: Mapping[str, Any] | str | None) -> dict[str, Any]:
    if config is None:
        return default_config()
    if isinstance(config, str):
        try:
            loaded = yaml.safe_load(config)
        except yaml.YAMLError as error:
            raise LocalClusterError(f"scheduler-plugins' config {_yaml_problem(error)}") from None
        if not isinstance(loaded, dict):
            message = "scheduler-plugins' config must be a KubeSchedulerConfiguration mapping"
            raise LocalClusterError(message)
        return loaded
    return copy.deepcopy(dict(config))


def _yaml_problem(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    where = f" at line {mark.line + 1}" if mark is not None else ""
    problem = getattr(error, "problem", None) or "cannot be parsed"
    return f"is not YAML{where} ({problem}): fix the YAML"


def controller_launch(controller: Path, *, extra: Sequence[str] = ()) -> Launch:
    """scheduler-plugins' controller with its metrics and health probes on two new loopback
    ports, leader election off (one replica); ready once /readyz answers. It finds the cluster
    through KUBECONFIG (controller-runtime's rule), which the caller sets."""

    def launch() -> tuple[list[str], Callable[[], bool]]:
        metrics, probe = free_ports(2)
        argv = [
            str(controller),
            f"--metricsAddr=127.0.0.1:{metrics}",
            f"--probeAddr=127.0.0.1:{probe}",
            *extra,
        ]
        endpoint = Endpoint(f"http://127.0.0.1:{probe}")
        return argv, lambda: get(endpoint, "/readyz")[0] == 200

    return launch
