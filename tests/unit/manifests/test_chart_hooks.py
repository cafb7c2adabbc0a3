"""The chart's hooks and its namespace, ConfigMap and metadata as `helm template` renders them:
the config check runs what the scheduler's pods would run (image, arguments, volumes,
environment, placement) plus `--write-config-to`, on the config the release installs; the
hooks' pods are not selected by the scheduler's PodDisruptionBudget; one `helm test` pod per
profile; the Lease's namespace only with `namespace.create`, never deleted by helm; the config
in an immutable ConfigMap named after its hash. (tests/e2e/test_helm_chart_hooks.py runs
them with helm on the local cluster.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.unit.manifests.chart_render import CHART, NAMESPACE, helm_refusal, helm_template

HOOK = "helm.sh/hook"
PLUGINS = [
    '--set-json=extraVolumes=[{"name": "plugins", "configMap": {"name": "team-plugins"}}]',
    '--set-json=extraVolumeMounts=[{"name": "plugins", "mountPath": "/plugins"}]',
    '--set-json=extraEnv=[{"name": "PYTHONPATH", "value": "/plugins"}]',
    "--set=pluginModules[0]=team_policy,verbosity=3",
    "--set=nodeSelector.pool=system,imagePullSecrets[0]=regcred",
]


def _one(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (found,) = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


def test_the_check_runs_the_scheduler_container_with_write_config_to(helm: Path) -> None:
    objects = helm_template(helm, "--set=schedulerName=my-scheduler", *PLUGINS)
    deployment = _one(objects, "Deployment", "my-scheduler")["spec"]["template"]["spec"]
    job = _one(objects, "Job", "my-scheduler-config-check")
    pod = job["spec"]["template"]["spec"]
    (scheduler,), (check,) = deployment["containers"], pod["containers"]

    assert job["metadata"]["annotations"][HOOK] == "pre-install,pre-upgrade"
    assert job["spec"]["backoffLimit"] == 0
    assert check["args"] == [*scheduler["args"], "--write-config-to=-"]
    assert "--plugin-module=team_policy" in check["args"]
    for key in ("image", "env", "volumeMounts", "securityContext", "resources"):
        assert check[key] == scheduler[key], key
    assert check["terminationMessagePolicy"] == "FallbackToLogsOnError"
    assert "readinessProbe" not in check
    for key in ("nodeSelector", "imagePullSecrets", "securityContext"):
        assert pod[key] == deployment[key], key
    assert pod["restartPolicy"] == "Never"
    assert pod["automountServiceAccountToken"] is False
    assert "serviceAccountName" not in pod
    config_volume = {"name": "config", "configMap": {"name": "my-scheduler-config-check"}}
    assert pod["volumes"] == [config_volume, *deployment["volumes"][1:]]


def test_the_check_reads_the_config_the_release_installs(helm: Path) -> None:
    objects = helm_template(helm, "--set=schedulerName=my-scheduler,config.parallelism=8")
    checked = _one(objects, "ConfigMap", "my-scheduler-config-check")
    (installed,) = [
        o
        for o in objects
        if o["kind"] == "ConfigMap" and HOOK not in o["metadata"].get("annotations", {})
    ]

    assert checked["data"] == installed["data"]
    assert checked["metadata"]["annotations"] == {
        HOOK: "pre-install,pre-upgrade",
        "helm.sh/hook-weight": "-5",
        "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded,hook-failed",
    }


def test_the_hooks_pods_are_not_the_schedulers(helm: Path) -> None:
    objects = helm_template(helm)
    selector = _one(objects, "PodDisruptionBudget", "kubesched")["spec"]["selector"]["matchLabels"]
    hook_pods = [
        _one(objects, "Job", "kubesched-config-check")["spec"]["template"],
        _one(objects, "Pod", "kubesched-test-0"),
    ]

    for pod in hook_pods:
        labels = pod["metadata"]["labels"]
        assert not selector.items() <= labels.items(), labels
        assert labels["app.kubernetes.io/instance"] == "kubesched"


def test_one_test_pod_per_profile_with_its_scheduler_name(helm: Path) -> None:
    profiles = [{"schedulerName": "gpu"}, {"schedulerName": "batch"}]
    objects = helm_template(helm, f"--set-json=profiles={json.dumps(profiles)}")
    pods = [o for o in objects if o["metadata"].get("annotations", {}).get(HOOK) == "test"]

    assert [(p["metadata"]["name"], p["spec"]["schedulerName"]) for p in pods] == [
        ("gpu-test-0", "gpu"),
        ("gpu-test-1", "batch"),
    ]
    assert pods[0]["spec"]["containers"][0]["args"] == ["--version"]
    assert pods[0]["spec"]["restartPolicy"] == "Never"


def test_no_check_when_turned_off(helm: Path) -> None:
    objects = helm_template(helm, "--set=configCheck.enabled=false")

    assert not [o for o in objects if o["kind"] == "Job"]
    assert not [o for o in objects if o["metadata"]["name"].endswith("-config-check")]


def test_the_lease_namespace_only_when_asked_and_kept(helm: Path) -> None:
    other = "--set=leaderElection.resourceNamespace=custom-scheduler-ns"
    assert not [o for o in helm_template(helm, other) if o["kind"] == "Namespace"]

    (namespace,) = [
        o
        for o in helm_template(helm, other, "--set=namespace.create=true")
        if o["kind"] == "Namespace"
    ]
    assert namespace["metadata"]["name"] == "custom-scheduler-ns"
    assert namespace["metadata"]["annotations"] == {"helm.sh/resource-policy": "keep"}
    # The release's own namespace is Helm's (--create-namespace), never the chart's.
    own = f"--set=leaderElection.resourceNamespace={NAMESPACE},namespace.create=true"
    assert not [o for o in helm_template(helm, own) if o["kind"] == "Namespace"]


def test_one_immutable_config_map_per_config(helm: Path) -> None:
    def mounted(*sets: str) -> tuple[str, dict[str, Any]]:
        objects = helm_template(helm, *sets)
        pod = _one(objects, "Deployment", "kubesched")["spec"]["template"]
        (name,) = [v["configMap"]["name"] for v in pod["spec"]["volumes"] if v["name"] == "config"]
        config_map = _one(objects, "ConfigMap", name)
        assert config_map["immutable"] is True
        assert (
            name == f"kubesched-config-{pod['metadata']['annotations']['kubesched.io/config-hash']}"
        )
        return name, yaml.safe_load(config_map["data"]["config.yaml"])

    first, config = mounted()
    again, _ = mounted("--set=replicas=3")  # not in the config: the same ConfigMap
    other, changed = mounted("--set=config.parallelism=8")

    assert again == first
    assert other != first
    assert (config.get("parallelism"), changed["parallelism"]) == (None, 8)


def test_chart_metadata() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())

    assert chart["kubeVersion"] == ">=1.34.0-0"
    assert chart["home"].startswith("https://")
    assert chart["sources"] == [chart["home"]]
    assert chart["icon"].endswith("/charts/kubesched/icon.svg")
    assert (CHART / "icon.svg").read_text().startswith("<svg")


def test_helm_refuses_clusters_older_than_1_34(helm: Path) -> None:
    error = helm_refusal(helm, "--kube-version=1.33.5")

    assert "chart requires kubeVersion: >=1.34.0-0" in error
    assert helm_template(helm, "--kube-version=1.34.2-eks-113cf36")  # vendor suffixes pass
