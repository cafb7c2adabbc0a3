"""`kubesched manifests`: YAML on stdout, notices on stderr, one-line errors with exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kubesched.cli import main as kubesched
from kubesched.manifests import DEFAULT_IMAGE
from kubesched.manifests.options import unpublished_image_notice

Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = kubesched(["manifests", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_yaml_that_parses(capsys: Capture) -> None:
    code, out, err = run(capsys, "--scheduler-name=my-scheduler", "--namespace=team-a")
    assert code == 0, err
    # --scheduler-name is a first-class flag here: no legacy notice; the default image's once.
    assert err == f"{unpublished_image_notice(DEFAULT_IMAGE)}\n"
    kinds = [doc["kind"] for doc in yaml.safe_load_all(out)]
    assert kinds[0] == "Namespace"
    assert kinds[-3:] == ["Deployment", "PodDisruptionBudget", "Service"]
    deployment = next(doc for doc in yaml.safe_load_all(out) if doc["kind"] == "Deployment")
    assert deployment["metadata"]["namespace"] == "team-a"


def test_the_lease_defaults_to_kubesched_s_namespace(capsys: Capture) -> None:
    code, out, _ = run(capsys, "--scheduler-name=s1", "--namespace=team-a")
    assert code == 0
    config_map = next(doc for doc in yaml.safe_load_all(out) if doc["kind"] == "ConfigMap")
    election = yaml.safe_load(config_map["data"]["config.yaml"])["leaderElection"]
    assert (election["resourceNamespace"], election["resourceName"]) == ("team-a", "s1")


def test_the_guides_flags_work_with_their_notices(capsys: Capture) -> None:
    code, out, err = run(
        capsys,
        "--leader-elect=true",
        "--leader-election-resource-name=my-custom-scheduler",
        "--leader-election-resource-namespace=custom-scheduler-ns",
        "--scheduler-name=my-custom-scheduler",
    )
    assert code == 0
    assert "using it as --leader-elect-resource-name" in err
    role = next(doc for doc in yaml.safe_load_all(out) if doc["kind"] == "Role")
    assert role["metadata"]["namespace"] == "custom-scheduler-ns"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--replicas=two"], "--replicas: invalid int value: 'two'"),
        (["--bogus"], "unknown flag --bogus"),
        (["--namspace=x"], "unknown flag --namspace (did you mean --namespace?)"),
        (["--replica=3"], "unknown flag --replica (did you mean --replicas?)"),
        (["--namespace=Bad_NS"], "--namespace: 'Bad_NS' is not a valid namespace name"),
        (["--scheduler-name=a", "--scheduler-name", "b"], "--scheduler-name is given more than"),
        (["--write-config-to=-"], "--write-config-to: kubesched manifests prints the config"),
        (["--tls-cert-file=/x"], "--tls-cert-file: kubesched manifests serves a self-signed"),
        (["--cert-dir=/x"], "--cert-dir: kubesched manifests sets --cert-dir"),
        (["--leader-elect=false"], "--replicas=2 with leader election off"),
        (["--leader-elect-renew-deadline=20s"], "must be greater than `RenewDeadline`"),
        (["--config=/no/such/file.yaml"], "/no/such/file.yaml"),
    ],
)
def test_errors_are_one_line_and_exit_1(capsys: Capture, argv: list[str], expected: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert out == ""
    errors = [line for line in err.splitlines() if line.startswith("kubesched manifests: ")]
    assert errors, err
    assert any(expected in line for line in errors), err


def test_a_local_kubeconfig_is_left_out(capsys: Capture, tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "clientConnection:\n"
        "  kubeconfig: /etc/kubernetes/scheduler.conf\n"
        "leaderElection:\n"
        "  resourceName: from-file\n"
        "profiles:\n"
        "- schedulerName: from-file\n",
        encoding="utf-8",
    )
    code, out, err = run(capsys, f"--config={path}", "--master=https://10.0.0.1:6443")
    assert code == 0, err
    assert "clientConnection.kubeconfig (/etc/kubernetes/scheduler.conf) is left out" in err
    assert "--master is left out" in err
    config_map = next(doc for doc in yaml.safe_load_all(out) if doc["kind"] == "ConfigMap")
    config = yaml.safe_load(config_map["data"]["config.yaml"])
    assert config["clientConnection"]["kubeconfig"] == ""
    assert config["leaderElection"]["resourceName"] == "from-file"
    assert config["leaderElection"]["resourceNamespace"] == "kubesched-system"


def test_help(capsys: Capture) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "kubectl apply -f -" in out
    assert "--namespace" in out


def test_listed_in_the_commands(capsys: Capture) -> None:
    assert kubesched(["--help"]) == 0
    assert "manifests" in capsys.readouterr().out


def test_deployment_flags_reach_the_pods(capsys: Capture) -> None:
    code, out, err = run(
        capsys,
        "--priority-class-name=system-cluster-critical",
        "--node-selector=node-role.kubernetes.io/control-plane=",
        "--tolerations=[{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]",
        "--resources={requests: {cpu: 200m}}",
        "--image-pull-secret=regcred",
        "--no-pod-disruption-budget",
        "--service-monitor",
    )
    assert code == 0, err
    docs = list(yaml.safe_load_all(out))
    pod = next(doc for doc in docs if doc["kind"] == "Deployment")["spec"]["template"]["spec"]
    assert pod["priorityClassName"] == "system-cluster-critical"
    assert pod["nodeSelector"] == {"node-role.kubernetes.io/control-plane": ""}
    assert pod["tolerations"][0]["effect"] == "NoSchedule"
    assert pod["containers"][0]["resources"] == {"requests": {"cpu": "200m"}}
    assert pod["imagePullSecrets"] == [{"name": "regcred"}]
    kinds = [doc["kind"] for doc in docs]
    assert "PodDisruptionBudget" not in kinds
    assert kinds[-6:] == [
        "Service",
        *("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Secret"),  # the metrics reader
        "ServiceMonitor",
    ]


def test_a_bad_yaml_flag_is_one_line(capsys: Capture) -> None:
    code, _, err = run(capsys, "--tolerations={not: a list}")
    assert code == 1
    assert err.strip().endswith("--tolerations: expected a YAML list, got '{not: a list}'")


def test_the_default_image_is_said_once_to_be_on_no_registry_with_how_to_push_it(
    capsys: Capture,
) -> None:
    code, out, err = run(capsys, "--scheduler-name=my-scheduler")
    images = [
        c["image"]
        for doc in yaml.safe_load_all(out)
        if doc["kind"] == "Deployment"
        for c in doc["spec"]["template"]["spec"]["containers"]
    ]
    assert (code, images) == (0, [DEFAULT_IMAGE])
    said = (
        f"the image {DEFAULT_IMAGE} is on no registry: build and push it from a kubesched "
        "checkout (`make image-push REGISTRY=registry.example.com/kubesched`, "
        "docs/deploying.md) and pass the reference it prints to --image"
    )
    assert err.splitlines() == [said]
    pushed = "registry.example.com/kubesched:0.1.0@sha256:" + "a" * 64
    code, out, err = run(capsys, "--scheduler-name=my-scheduler", f"--image={pushed}")
    assert (code, err) == (0, "")
    assert f"image: {pushed}" in out
    code, _, err = run(capsys, "--crds-only", "--scheduler-name=my-scheduler")
    assert (code, err) == (0, "")  # CustomResourceDefinitions have no image
