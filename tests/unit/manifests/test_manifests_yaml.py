"""The YAML stream: stable order, parses back to the objects, the config loads back."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.config import load_config
from kubesched.manifests import ManifestOptions, build_manifests, to_yaml
from kubesched.manifests.chart import markers
from kubesched.manifests.render import NO_WRAP
from tests.unit.manifests.manifests_helpers import Build, config_for, of_kind, one

APPLY_ORDER = [
    "Namespace",
    "ServiceAccount",
    "ClusterRole",
    "ClusterRoleBinding",
    "ClusterRoleBinding",
    "Role",
    "RoleBinding",
    "ConfigMap",
    "Deployment",
    "PodDisruptionBudget",
    "Service",
]


def test_kinds_in_apply_order(build: Build) -> None:
    assert [obj["kind"] for obj in build()] == APPLY_ORDER


def test_yaml_parses_back_to_the_objects(build: Build) -> None:
    objects = build("--scheduler-name=my-scheduler")
    text = to_yaml(objects)
    assert text.startswith("---\napiVersion: v1\nkind: Namespace\n")
    assert list(yaml.safe_load_all(text)) == objects


def test_output_is_stable(tmp_path: Path) -> None:
    config = config_for(["--scheduler-name=s"], tmp_path=tmp_path)
    first = to_yaml(build_manifests(config, ManifestOptions()))
    assert first == to_yaml(build_manifests(config, ManifestOptions()))


def test_config_is_a_literal_block(build: Build) -> None:
    text = to_yaml(build())
    assert "  config.yaml: |\n    apiVersion: kubescheduler.config.k8s.io/v1\n" in text


def test_config_map_loads_back_to_the_same_scheduler_and_lease(
    build: Build, tmp_path: Path
) -> None:
    objects = build(
        "--leader-elect=true",
        "--leader-election-resource-name=my-custom-scheduler",
        "--leader-election-resource-namespace=custom-scheduler-ns",
        "--scheduler-name=my-custom-scheduler",
        "--leader-elect-lease-duration=20s",
    )
    path = tmp_path / "config.yaml"
    path.write_text(one(objects, "ConfigMap")["data"]["config.yaml"], encoding="utf-8")
    # In the pod POD_NAMESPACE is kubesched's namespace: the explicit Lease must still win.
    config = load_config(
        [f"--config={path}"],
        environ={"POD_NAMESPACE": "kubesched-system"},
        namespace_file=tmp_path / "none",
    ).config
    assert config.scheduler_names == ("my-custom-scheduler",)
    assert config.lease == "custom-scheduler-ns/my-custom-scheduler"
    assert config.leader_election.leader_elect is True
    assert config.leader_election.lease_duration == 20.0
    assert config.client_connection.kubeconfig == ""


def test_the_lease_namespace_is_created_when_it_is_not_kubesched_s(build: Build) -> None:
    objects = build("--lock-object-namespace=custom-scheduler-ns", "--lock-object-name=x")
    names = [obj["metadata"]["name"] for obj in of_kind(objects, "Namespace")]
    assert names == ["kubesched-system", "custom-scheduler-ns"]


def test_built_in_namespaces_are_never_emitted(build: Build) -> None:
    objects = build("--leader-elect-resource-namespace=kube-system", namespace="kube-system")
    assert not of_kind(objects, "Namespace")
    assert one(objects, "Role")["metadata"]["namespace"] == "kube-system"


def test_a_config_file_with_several_profiles(tmp_path: Path) -> None:
    path = tmp_path / "profiles.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "profiles:\n"
        "- schedulerName: fast\n"
        "- schedulerName: packed\n",
        encoding="utf-8",
    )
    config = config_for([f"--config={path}"], tmp_path=tmp_path)
    objects = build_manifests(config, ManifestOptions())
    assert one(objects, "Deployment")["metadata"]["name"] == "fast"
    assert one(objects, "Role")["rules"][1]["resourceNames"] == ["fast"]
    reloaded = tmp_path / "reloaded.yaml"
    reloaded.write_text(one(objects, "ConfigMap")["data"]["config.yaml"], encoding="utf-8")
    assert config_for([f"--config={reloaded}"], tmp_path=tmp_path).scheduler_names == (
        "fast",
        "packed",
    )


_LABEL = st.from_regex(r"[a-z]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)


@settings(max_examples=50, deadline=None)
@given(scheduler=_LABEL, namespace=_LABEL, lease_namespace=_LABEL)
def test_any_valid_names_round_trip(scheduler: str, namespace: str, lease_namespace: str) -> None:
    argv = [f"--scheduler-name={scheduler}", f"--leader-elect-resource-namespace={lease_namespace}"]
    config = load_config(argv, environ={"POD_NAMESPACE": namespace}).config
    objects = build_manifests(config, ManifestOptions(namespace=namespace))
    assert list(yaml.safe_load_all(to_yaml(objects))) == objects
    role = one(objects, "Role")
    assert role["metadata"]["namespace"] == lease_namespace
    assert role["rules"][1]["resourceNames"] == [scheduler]


def test_a_long_chart_condition_stays_one_template_line() -> None:
    """Three plugins reading DeviceClasses made the ClusterRole's condition longer than the
    YAML width: folded, it was no marker any more and helm refused the template."""
    cond = " ".join(f'(has "Plugin{i:02d}WithALongName" $enabled)' for i in range(5))
    obj = {"rules": [markers.when(f"or {cond}"), {"apiGroups": [""]}, markers.END]}
    template = markers.to_template(to_yaml([obj], width=NO_WRAP).removeprefix("---\n"))
    assert f"{{{{- if or {cond} }}}}" in template.splitlines()
