"""The Deployment and its ConfigMap: HA, Pod Security "restricted", probes, arguments."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.manifests import ManifestError
from kubesched.manifests.workload import CERT_DIR, CONFIG_HASH_ANNOTATION
from tests.unit.manifests.manifests_helpers import Build, of_kind, one


def pod_spec(objects: list[dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = one(objects, "Deployment")["spec"]["template"]["spec"]
    return spec


def container(objects: list[dict[str, Any]]) -> dict[str, Any]:
    containers = pod_spec(objects)["containers"]
    assert len(containers) == 1
    found: dict[str, Any] = containers[0]
    return found


def test_two_replicas_spread_over_nodes(build: Build) -> None:
    objects = build("--scheduler-name=my-scheduler")
    deployment = one(objects, "Deployment")
    assert deployment["spec"]["replicas"] == 2
    selector = deployment["spec"]["selector"]["matchLabels"]
    template_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert selector.items() <= template_labels.items()
    preferred = pod_spec(objects)["affinity"]["podAntiAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"
    ]
    assert preferred[0]["podAffinityTerm"] == {
        "labelSelector": {"matchLabels": selector},
        "topologyKey": "kubernetes.io/hostname",
    }


def test_pod_security_restricted_and_read_only_root(build: Build) -> None:
    objects = build()
    pod = pod_spec(objects)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 65532
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    security = container(objects)["securityContext"]
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert security["readOnlyRootFilesystem"] is True
    assert security["runAsNonRoot"] is True
    assert "privileged" not in security
    for host_namespace in ("hostNetwork", "hostPID", "hostIPC"):
        assert not pod.get(host_namespace)
    volume_kinds = {key for volume in pod["volumes"] for key in volume if key != "name"}
    assert volume_kinds <= {"configMap", "emptyDir"}  # restricted allows no hostPath


def test_cert_dir_is_the_only_writable_place(build: Build) -> None:
    objects = build()
    mounts = {m["mountPath"]: m for m in container(objects)["volumeMounts"]}
    writable = [path for path, mount in mounts.items() if not mount.get("readOnly")]
    assert writable == [CERT_DIR]
    assert f"--cert-dir={CERT_DIR}" in container(objects)["args"]
    volumes = {v["name"]: v for v in pod_spec(objects)["volumes"]}
    assert "emptyDir" in volumes[mounts[CERT_DIR]["name"]]


def test_service_account_scheduler_name_and_config(build: Build) -> None:
    objects = build("--scheduler-name=my-scheduler")
    pod = pod_spec(objects)
    assert pod["serviceAccountName"] == one(objects, "ServiceAccount")["metadata"]["name"]
    assert pod["schedulerName"] == "default-scheduler"  # kube-scheduler places kubesched
    assert container(objects)["args"][0] == "--config=/etc/kubesched/config.yaml"
    config_volume = next(v for v in pod["volumes"] if "configMap" in v)
    assert config_volume["configMap"]["name"] == one(objects, "ConfigMap")["metadata"]["name"]
    assert "config.yaml" in one(objects, "ConfigMap")["data"]


def test_pod_namespace_from_the_downward_api(build: Build) -> None:
    env = {e["name"]: e for e in container(build())["env"]}
    assert env["POD_NAMESPACE"]["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.namespace"}}


def test_probes_over_https_on_the_secure_port(build: Build) -> None:
    main = container(build())
    assert main["ports"] == [{"name": "https", "containerPort": 10259, "protocol": "TCP"}]
    assert main["livenessProbe"]["httpGet"] == {
        "path": "/livez",
        "port": "https",
        "scheme": "HTTPS",
    }
    assert main["readinessProbe"]["httpGet"] == {
        "path": "/readyz",
        "port": "https",
        "scheme": "HTTPS",
    }
    assert main["resources"]["requests"].keys() == {"cpu", "memory"}
    assert "memory" in main["resources"]["limits"]


def test_command_line_only_settings_become_container_args(build: Build) -> None:
    main = container(
        build("--secure-port=10300", "-v=3", "--logging-format=json", "--plugin-module=acme.sched")
    )
    assert main["args"][2:] == [
        "--secure-port=10300",
        "--plugin-module=acme.sched",
        "-v=3",
        "--logging-format=json",
    ]
    assert main["ports"][0]["containerPort"] == 10300


def test_defaults_add_no_extra_args(build: Build) -> None:
    assert len(container(build())["args"]) == 2


def test_options_image_replicas_name_namespace(build: Build) -> None:
    objects = build(
        "--scheduler-name=my-scheduler",
        image="registry.example.com/kubesched:1.2",
        replicas=3,
        name="sched",
        namespace="team-a",
    )
    deployment = one(objects, "Deployment")
    assert deployment["metadata"] == {
        **deployment["metadata"],
        "name": "sched",
        "namespace": "team-a",
    }
    assert deployment["spec"]["replicas"] == 3
    assert container(objects)["image"] == "registry.example.com/kubesched:1.2"
    namespaced = [obj for obj in objects if "namespace" in obj["metadata"]]
    assert {obj["metadata"]["namespace"] for obj in namespaced} == {"team-a"}


def test_config_change_changes_the_template_hash(build: Build) -> None:
    def digest(*argv: str) -> str:
        template = one(build(*argv), "Deployment")["spec"]["template"]
        value: str = template["metadata"]["annotations"][CONFIG_HASH_ANNOTATION]
        return value

    assert digest("--scheduler-name=a") == digest("--scheduler-name=a")
    assert digest("--scheduler-name=a") != digest("--scheduler-name=b")


@pytest.mark.parametrize(
    ("argv", "options", "expected"),
    [
        ((), {"replicas": 0}, "--replicas: 0 must be at least 1"),
        (("--leader-elect=false",), {}, "--replicas=2 with leader election off"),
        (
            ("--leader-elect-resource-namespace=leases",),
            {"namespace": "Team_A"},
            "--namespace: 'Team_A' is not a valid namespace name",
        ),
        (("--scheduler-name=my.scheduler",), {}, "--name: 'my.scheduler' is not usable"),
        ((), {"image": "has space"}, "--image: 'has space' is not an image reference"),
        (
            (
                "--leader-elect-resource-namespace=kube-system",
                "--leader-elect-resource-name=kube-scheduler",
            ),
            {},
            "belongs to the default kube-scheduler",
        ),
        (("--scheduler-name=default-scheduler",), {}, "stop kube-scheduler first"),
    ],
)
def test_unusable_options_are_refused(
    build: Build, argv: tuple[str, ...], options: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ManifestError) as caught:
        build(*argv, **options)
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_dotted_scheduler_name_works_with_an_explicit_name(build: Build) -> None:
    objects = build("--scheduler-name=my.scheduler", name="my-scheduler")
    assert one(objects, "Deployment")["metadata"]["name"] == "my-scheduler"


def test_leader_election_off_with_one_replica(build: Build) -> None:
    objects = build("--leader-elect=false", replicas=1)
    assert one(objects, "Deployment")["spec"]["replicas"] == 1
    assert not of_kind(objects, "Role")
