"""The Helm chart `charts/kubesched` with helm built from the Go module proxy: it lints,
`helm template` renders the objects `kubesched manifests` prints for the same settings, its
values.schema.json refuses bad values and accepts the defaults, the operator knobs reach the
objects, `helm install` onto the real control plane gives kubesched's ServiceAccount exactly
the access it needs, and the ServiceMonitor's token Secret holds a token that may scrape a
real kubesched's /metrics."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster, ensure_helm
from kubesched.manifests.options import APP_VERSION
from tests.e2e.chart_compare import (
    CHART,
    comparable,
    helm_refusal,
    helm_template,
    instances,
    manifests,
    run,
)
from tests.e2e.harness import ApiClient, wait_for

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
            "--set=leaderElection.resourceNamespace=custom-scheduler-ns,namespace.create=true",
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
    assert not any(
        "delete" in rule["verbs"] for rule in rendered[role]["rules"] if "pods" in rule["resources"]
    )
    assert (
        rendered[("ConfigMap", "kubesched-config")] == expected[("ConfigMap", "kubesched-config")]
    )


def test_helm_install_grants_what_kubesched_needs(
    helm: Path, local_cluster: LocalCluster, namespace: str
) -> None:
    kubeconfig = f"--kubeconfig={local_cluster.kubeconfig_path}"
    release = ["kubesched", f"--namespace={namespace}", kubeconfig]
    # No kubelet runs the config check's Job here: test_helm_chart_hooks runs the hooks.
    install = [str(helm), "install", *release, str(CHART), "--no-hooks"]
    out = run([*install, "--set=schedulerName=helm-sched"])
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


SCHEMA_ERROR = "values don't meet the specifications of the schema"
# (--set, what helm says about it)
REFUSED = [
    pytest.param("replicas=two", "at '/replicas': got string, want integer", id="replicas-two"),
    pytest.param(
        "loggingFormat=yaml", "at '/loggingFormat': value must be one of 'text', 'json'", id="yaml"
    ),
    pytest.param(
        "leaderElection.leaseDuration=-5s",
        "at '/leaderElection/leaseDuration': '-5s' does not match pattern",
        id="negative-lease",
    ),
    pytest.param(
        "leaderElection.retryPeriod=2", "at '/leaderElection/retryPeriod': got number", id="no-unit"
    ),
    pytest.param(
        "image.tagg=x", "at '/image': additional properties 'tagg' not allowed", id="tagg"
    ),
    pytest.param(
        "securityContext.runAsUsr=1",
        "at '/securityContext': additional properties 'runAsUsr' not allowed",
        id="security-typo",
    ),
    pytest.param(
        "config.paralellism=3",
        "at '/config': additional properties 'paralellism' not allowed",
        id="config-typo",
    ),
    pytest.param("replicas=0", "at '/replicas': minimum: got 0, want 1", id="no-replicas"),
    pytest.param(
        "serviceMonitor.interval=30s5", "at '/serviceMonitor/interval'", id="bad-interval"
    ),
]


@pytest.mark.parametrize(("value", "message"), REFUSED)
def test_the_schema_refuses_bad_values(helm: Path, value: str, message: str) -> None:
    error = helm_refusal(helm, f"--set={value}")

    assert SCHEMA_ERROR in error
    assert message in error


def test_the_schema_accepts_the_defaults_and_good_values(helm: Path, tmp_path: Path) -> None:
    values = f"--values={CHART / 'values.yaml'}"
    run([str(helm), "lint", "--strict", str(CHART), values])
    good = [
        "--set=leaderElection.leaseDuration=1m30s,leaderElection.renewDeadline=0.5m",
        "--set=replicas=3,verbosity=4,loggingFormat=json,config.parallelism=8",
        "--set=serviceMonitor.enabled=true,serviceMonitor.scrapeTimeout=10s",
        "--set=rbac.preemption=false,image.digest=sha256:" + "0" * 64,
    ]
    assert helm_template(helm, NAMESPACE, values)
    assert helm_template(helm, NAMESPACE, *good)


def test_the_release_is_the_instance_label(helm: Path) -> None:
    objects = helm_template(helm, NAMESPACE, "--set=serviceMonitor.enabled=true", release="team-a")

    assert instances(objects) == {"team-a"}
    for obj in objects:
        labels = obj["metadata"]["labels"]
        hook = obj["metadata"].get("annotations", {}).get("helm.sh/hook")
        # The hooks' pods must not be selected by the scheduler's PDB and Service.
        name = "kubesched" if hook is None else f"kubesched-{labels['app.kubernetes.io/component']}"
        assert labels["app.kubernetes.io/name"] == name
        assert labels["app.kubernetes.io/managed-by"] == "Helm"
        assert labels["app.kubernetes.io/version"] == APP_VERSION  # the chart's appVersion
        assert labels["helm.sh/chart"] == f"kubesched-{APP_VERSION}"


def _kind(objects: list[dict[str, Any]], kind: str, name: str = "kubesched") -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


KNOBS = [
    "--set=podAnnotations.team=ml,podLabels.team=ml,podLabels.app\\.kubernetes\\.io/name=x",
    "--set=serviceAccount.annotations.iam\\.example\\.com/role=reader",
    "--set=securityContext.runAsUser=10001,podSecurityContext.fsGroup=10001",
    "--set=image.repository=registry.example.com/kubesched,image.digest=sha256:" + "a" * 64,
    '--set-json=extraEnv=[{"name": "PYTHONPATH", "value": "/plugins"}]',
    '--set-json=extraVolumes=[{"name": "plugins", "configMap": {"name": "team-plugins"}}]',
    '--set-json=extraVolumeMounts=[{"name": "plugins", "mountPath": "/plugins"}]',
]


def test_the_operator_knobs_reach_the_objects(helm: Path) -> None:
    objects = helm_template(helm, NAMESPACE, *KNOBS)
    template = _kind(objects, "Deployment")["spec"]["template"]
    pod, container = template["spec"], template["spec"]["containers"][0]

    assert template["metadata"]["annotations"]["team"] == "ml"
    assert len(template["metadata"]["annotations"]["kubesched.io/config-hash"]) == 16
    assert template["metadata"]["labels"]["team"] == "ml"
    assert template["metadata"]["labels"]["app.kubernetes.io/name"] == "kubesched"  # kept
    assert _kind(objects, "ServiceAccount")["metadata"]["annotations"] == {
        "iam.example.com/role": "reader"
    }
    assert container["image"] == "registry.example.com/kubesched@sha256:" + "a" * 64
    assert container["env"][-1] == {"name": "PYTHONPATH", "value": "/plugins"}
    assert container["env"][0]["name"] == "POD_NAMESPACE"
    assert {"name": "plugins", "mountPath": "/plugins"} in container["volumeMounts"]
    assert {"name": "plugins", "configMap": {"name": "team-plugins"}} in pod["volumes"]
    assert len(pod["volumes"]) == 3
    # A key set replaces the default's; the other secure defaults stay.
    assert container["securityContext"]["runAsUser"] == 10001
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert pod["securityContext"]["fsGroup"] == 10001
    assert pod["securityContext"]["runAsNonRoot"] is True


def test_the_service_monitor_labels_timings_and_own_secret(helm: Path) -> None:
    sets = [
        "--set=serviceMonitor.enabled=true,serviceMonitor.labels.release=kube-prometheus-stack",
        "--set=serviceMonitor.interval=15s,serviceMonitor.scrapeTimeout=10s",
        "--set=serviceMonitor.authorization.credentials.name=my-token",
    ]
    objects = helm_template(helm, NAMESPACE, *sets)
    monitor = _kind(objects, "ServiceMonitor")
    endpoint = monitor["spec"]["endpoints"][0]

    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert (endpoint["interval"], endpoint["scrapeTimeout"]) == ("15s", "10s")
    assert endpoint["authorization"] == {
        "type": "Bearer",
        "credentials": {"name": "my-token", "key": "token"},
    }
    assert "bearerTokenFile" not in endpoint
    assert not [o for o in objects if "metrics-reader" in o["metadata"]["name"]]


def test_the_service_monitor_token_scrapes_kubesched(
    helm: Path,
    workload_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
    kubesched: Any,
) -> None:
    """The reader objects the chart renders, applied to the real control plane: the token
    controller (kube-controller-manager) fills the Secret, and its token may GET /metrics
    from a running kubesched (delegated authn/authz) but nothing else."""
    objects = helm_template(helm, namespace, "--set=serviceMonitor.enabled=true")
    reader = [o for o in objects if "metrics-reader" in o["metadata"]["name"]]
    assert sorted(o["kind"] for o in reader) == [
        "ClusterRole",
        "ClusterRoleBinding",
        "Secret",
        "ServiceAccount",
    ]
    secret = _kind(objects, "Secret", "kubesched-metrics-reader-token")
    try:
        for obj in reader:
            api.create(obj)
        filled = wait_for(
            lambda: api.get("Secret", secret["metadata"]["name"], namespace=namespace),
            until=lambda found: found.get("data", {}).get("token"),
            timeout=30,
        )
        token = base64.b64decode(filled["data"]["token"]).decode()
        proc = kubesched("--scheduler-name=helm-metrics", "--leader-elect=false")
        status, body = proc.get("/metrics", token=token)
        assert status == 200, body
        assert "# TYPE scheduler_pending_pods gauge" in body
        assert proc.get("/configz", token=token)[0] == 403
    finally:
        for obj in reader:
            if obj["kind"].startswith("Cluster"):
                api.delete(obj["kind"], obj["metadata"]["name"])
