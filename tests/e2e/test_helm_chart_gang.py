"""`helm install` of the chart with each gang option, on the real control plane, and a gang
binds with the RBAC the chart rendered: Coscheduling in the values' profile (scheduler-plugins'
PodGroup, whose CRD Helm installs from the chart's crds/), and kube-scheduler v1.37's native
gang scheduling with `--feature-gates=GenericWorkload=true` in `extraArgs` (the API server
serves `scheduling.k8s.io/v1beta1` PodGroups).

The cluster has no kubelet, so the installed Deployment never runs: kubesched runs as a local
process with the configuration of the installed ConfigMap, the arguments of the installed
Deployment and a token of the installed ServiceAccount, which is what its pod would do. Nor
does anything run the config check's Job, so helm installs without hooks here
(test_helm_chart_hooks.py runs them).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from kubesched.localcluster import LocalCluster, ensure_helm
from kubesched.plugins.coscheduling import POD_GROUP_LABEL
from kubesched.testing import make_node, make_pod
from tests.e2e.chart_compare import CHART, as_installed, run
from tests.e2e.harness import ApiClient, is_bound, wait_for

GANG = 3
COSCHEDULING = {
    "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
    "queueSort": {"disabled": [{"name": "PrioritySort"}]},
}
X_K8S = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups"
NATIVE = "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"


def _coscheduling(scheduler: str) -> list[str]:
    profile = {"schedulerName": scheduler, "plugins": COSCHEDULING}
    return [f"--set-json=profiles=[{json.dumps(profile)}]"]


def _native(scheduler: str) -> list[str]:
    return [
        f"--set=schedulerName={scheduler}",
        '--set-json=extraArgs=["--feature-gates=GenericWorkload=true"]',
    ]


def _x_k8s_group(api: ApiClient, ns: str, name: str) -> None:
    body = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name},
        "spec": {"minMember": GANG},
    }
    api.request("POST", X_K8S.format(ns=ns), body=body)


def _native_group(api: ApiClient, ns: str, name: str) -> None:
    body = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name},
        "spec": {"schedulingPolicy": {"gang": {"minCount": GANG}}},
    }
    api.request("POST", NATIVE.format(ns=ns), body=body)


def _x_k8s_member(scheduler: str, group: str, name: str) -> dict[str, Any]:
    pod = make_pod().name(name).scheduler(scheduler).label(POD_GROUP_LABEL, group)
    return pod.req(cpu="1").obj()


def _native_member(scheduler: str, group: str, name: str) -> dict[str, Any]:
    return make_pod().name(name).scheduler(scheduler).pod_group(group).req(cpu="1").obj()


def _x_k8s_status(api: ApiClient, ns: str, group: str) -> Any:
    status = api.request("GET", X_K8S.format(ns=ns) + f"/{group}").get("status") or {}
    return status.get("phase")


def _native_status(api: ApiClient, ns: str, group: str) -> Any:
    status = api.request("GET", NATIVE.format(ns=ns) + f"/{group}").get("status") or {}
    found = [c for c in status.get("conditions") or () if c["type"] == "PodGroupInitiallyScheduled"]
    return found[0]["status"] if found else None


class Gang(NamedTuple):
    """One gang option: the chart's values, how to make its PodGroup and a member, how to read
    the PodGroup's status and what it reads once the gang is bound, the API group the
    ClusterRole must grant."""

    values: Callable[[str], list[str]]
    group: Callable[[ApiClient, str, str], None]
    member: Callable[[str, str, str], dict[str, Any]]
    status: Callable[[ApiClient, str, str], Any]
    settled: str
    api_group: str
    note: str
    """A line of the chart's NOTES after install."""


GANGS = [
    pytest.param(
        Gang(
            _coscheduling,
            _x_k8s_group,
            _x_k8s_member,
            _x_k8s_status,
            "Scheduled",
            "scheduling.x-k8s.io",
            "Coscheduling reads scheduling.x-k8s.io PodGroups: helm install created their CRD",
        ),
        id="coscheduling",
    ),
    pytest.param(
        Gang(
            _native,
            _native_group,
            _native_member,
            _native_status,
            "True",
            "scheduling.k8s.io",
            "schedules the pods whose spec.schedulerName is one of:",
        ),
        id="native-gate",
    ),
]
OTHER = {"scheduling.x-k8s.io": "scheduling.k8s.io", "scheduling.k8s.io": "scheduling.x-k8s.io"}


@pytest.fixture(scope="module")
def helm() -> Path:
    return ensure_helm()


@pytest.mark.parametrize("gang", GANGS)
def test_helm_install_with_a_gang_option_binds_a_gang(
    helm: Path,
    local_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
    kubesched: Any,
    *,
    tmp_path: Path,
    gang: Gang,
) -> None:
    scheduler = f"helm-gang-{secrets.token_hex(3)}"
    release = [f"gang-{scheduler[-6:]}", f"--namespace={namespace}"]
    kubeconfig_flag = f"--kubeconfig={local_cluster.kubeconfig_path}"
    # No kubelet runs the config check's Job here: test_helm_chart_hooks runs the hooks.
    install = [str(helm), "install", *release, kubeconfig_flag, str(CHART), "--no-hooks"]
    out = run([*install, *gang.values(scheduler)])
    try:
        assert "STATUS: deployed" in out
        assert gang.note in out
        role = api.get("ClusterRole", f"kubesched:{namespace}:{scheduler}")
        granted = {(r["apiGroups"][0], r["resources"][0]) for r in role["rules"]}
        assert {(gang.api_group, "podgroups"), (gang.api_group, "podgroups/status")} <= granted
        assert (OTHER[gang.api_group], "podgroups") not in granted  # only the option's
        served = api.request("GET", f"/apis/{gang.api_group}")["versions"]
        assert served, f"{gang.api_group} is served"  # the CRD from crds/, or built in

        args = as_installed(api, local_cluster, namespace, scheduler, tmp_path)
        proc = kubesched(*args, extra_env={"POD_NAMESPACE": namespace})
        wait_for(
            lambda: api.get("Lease", scheduler, namespace=namespace),
            until=lambda lease: lease["spec"].get("holderIdentity"),
            message=f"kubesched holds its Lease {namespace}/{scheduler}",
        )
        for i in range(2):
            api.create(make_node().name(f"{scheduler}-{i}").capacity(cpu="2", pods="10").obj())
        gang.group(api, namespace, "train")
        names = [f"train-{i}" for i in range(GANG)]
        for name in names:
            api.create(gang.member(scheduler, "train", name), namespace=namespace)

        for name in names:
            wait_for(
                lambda name=name: api.get("Pod", name, namespace=namespace),
                until=is_bound,
                timeout=60,
                message=f"gang member {name} bound",
            )
        wait_for(
            lambda: gang.status(api, namespace, "train"),
            until=lambda status: status == gang.settled,
            message=f"the PodGroup's status written ({gang.settled})",
        )
        log = proc.log()
        assert "forbidden" not in log.lower(), proc.tail()
        assert " 403" not in log, proc.tail()
    finally:
        run([str(helm), "uninstall", *release, kubeconfig_flag, "--wait"])
