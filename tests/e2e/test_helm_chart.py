"""The Helm chart `charts/kubesched` with helm built from the Go module proxy: it lints,
`helm template` renders the objects `kubesched manifests` prints for the same settings, and
`helm install` onto the real control plane gives kubesched's ServiceAccount exactly the
access it needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chart_compare import CHART, comparable, helm_template, manifests, run

from kubesched.localcluster import LocalCluster, ensure_helm

NAMESPACE = "kubesched-system"
TOLERATIONS = [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]
NO_PREEMPTION = {"multiPoint": {"disabled": [{"name": "DefaultPreemption"}]}}


@pytest.fixture(scope="module")
def helm() -> Path:
    return ensure_helm()


def test_chart_lints(helm: Path) -> None:
    out = run([str(helm), "lint", "--strict", str(CHART)])
    assert "1 chart(s) linted, 0 chart(s) failed" in out


# (kubesched manifests flags, the same settings as helm values)
SAME_SETTINGS = [
    pytest.param([], [], id="defaults"),
    pytest.param(
        [
            "--scheduler-name=my-scheduler",
            "--leader-elect-resource-name=my-lease",
            "--leader-elect-resource-namespace=custom-scheduler-ns",
            "--leader-elect-lease-duration=30s",
            "--replicas=3",
            "-v=4",
            "--image=registry.example.com/kubesched:0.2.0",
            "--image-pull-secret=regcred",
            "--priority-class-name=system-cluster-critical",
            "--node-selector=kubernetes.io/os=linux",
            f"--tolerations={json.dumps(TOLERATIONS)}",
            "--no-service",
            "--no-pod-disruption-budget",
        ],
        [
            "--set=schedulerName=my-scheduler,leaderElection.resourceName=my-lease",
            "--set=leaderElection.resourceNamespace=custom-scheduler-ns",
            "--set=leaderElection.leaseDuration=30s,replicas=3,verbosity=4",
            "--set=image.repository=registry.example.com/kubesched,image.tag=0.2.0",
            "--set=imagePullSecrets[0]=regcred,priorityClassName=system-cluster-critical",
            "--set=nodeSelector.kubernetes\\.io/os=linux",
            f"--set-json=tolerations={json.dumps(TOLERATIONS)}",
            "--set=service.enabled=false,podDisruptionBudget.enabled=false",
        ],
        id="guide-lease-placement",
    ),
    pytest.param(
        ["--service-monitor", "--leader-elect=false", "--replicas=1"],
        ["--set=serviceMonitor.enabled=true,leaderElection.leaderElect=false,replicas=1"],
        id="service-monitor-no-election",
    ),
]


@pytest.mark.parametrize(("flags", "sets"), SAME_SETTINGS)
def test_helm_template_renders_what_manifests_prints(
    helm: Path, tmp_path: Path, flags: list[str], sets: list[str]
) -> None:
    expected = comparable(manifests(*flags), namespace=NAMESPACE, tmp_path=tmp_path)
    rendered = comparable(
        helm_template(helm, NAMESPACE, *sets), namespace=NAMESPACE, tmp_path=tmp_path
    )

    assert sorted(rendered) == sorted(expected)
    for key, obj in expected.items():
        assert rendered[key] == obj, key


def test_preemption_rules_follow_the_profiles_as_in_manifests(helm: Path, tmp_path: Path) -> None:
    config = tmp_path / "no-preemption.yaml"
    config.write_text(
        json.dumps(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "kubesched", "plugins": NO_PREEMPTION}],
            }
        )
    )
    expected = comparable(manifests(f"--config={config}"), namespace=NAMESPACE, tmp_path=tmp_path)
    rendered = comparable(
        helm_template(helm, NAMESPACE, f"--set-json=plugins={json.dumps(NO_PREEMPTION)}"),
        namespace=NAMESPACE,
        tmp_path=tmp_path,
    )

    role = ("ClusterRole", f"kubesched:{NAMESPACE}:kubesched")
    assert rendered[role]["rules"] == expected[role]["rules"]
    assert not any("delete" in rule["verbs"] for rule in rendered[role]["rules"])
    assert (
        rendered[("ConfigMap", "kubesched-config")] == expected[("ConfigMap", "kubesched-config")]
    )


def test_helm_install_grants_what_kubesched_needs(
    helm: Path, local_cluster: LocalCluster, namespace: str
) -> None:
    kubeconfig = f"--kubeconfig={local_cluster.kubeconfig_path}"
    release = ["kubesched", f"--namespace={namespace}", kubeconfig]
    out = run([str(helm), "install", *release, str(CHART), "--set=schedulerName=helm-sched"])
    try:
        assert "STATUS: deployed" in out
        kinds = "deployment,configmap,serviceaccount,role,rolebinding,service,pdb"
        listed = local_cluster.kubectl("get", kinds, "-n", namespace, "-o", "name").stdout.split()
        for expected in (
            "deployment.apps/helm-sched",
            "serviceaccount/helm-sched",
            "role.rbac.authorization.k8s.io/helm-sched-leader-election",
            "service/helm-sched",
            "poddisruptionbudget.policy/helm-sched",
        ):
            assert expected in listed
        account = f"system:serviceaccount:{namespace}:helm-sched"
        assert _can(local_cluster, account, "create", "pods", "--subresource=binding").endswith(
            "yes"
        )
        assert _can(local_cluster, account, "watch", "nodes").endswith("yes")
        assert _can(local_cluster, account, "create", "leases", "-n", namespace).endswith("yes")
        assert _can(
            local_cluster, account, "update", "leases/helm-sched", "-n", namespace
        ).endswith("yes")
        kube_scheduler_lease = ("update", "leases/kube-scheduler", "-n", "kube-system")
        assert _can(local_cluster, account, *kube_scheduler_lease).endswith("no")
        assert _can(local_cluster, account, "create", "pods").endswith("no")
        assert _can(local_cluster, account, "get", "secrets", "-n", namespace).endswith("no")
    finally:
        run([str(helm), "uninstall", *release, "--wait"])


def _can(cluster: LocalCluster, account: str, *request: str) -> str:
    result = cluster.kubectl("auth", "can-i", *request, f"--as={account}", check=False)
    return f"{' '.join(request)}: {result.stdout.strip()}"
