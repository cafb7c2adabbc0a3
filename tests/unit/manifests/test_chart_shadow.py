"""The chart's shadow mode: `helm template --set shadow.schedulerName=NAME` renders what
`kubesched manifests --shadow-scheduler-name=NAME` prints: a ClusterRole that only reads
(the same rules, for any profile), no Lease Role, one replica, leader election off and the
flag in the container's arguments; `rbac.extraRules` reduced to their reads; several
profiles refused in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.unit.manifests.chart_render import (
    cluster_role_rules,
    helm_refusal,
    helm_template,
    manifests_objects,
)

SHADOW = "--set=shadow.schedulerName=default-scheduler"
FLAG = "--shadow-scheduler-name=default-scheduler"
READ = {"get", "list", "watch"}
GANG: dict[str, Any] = {
    "schedulerName": "kubesched",
    "plugins": {
        "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
        "queueSort": {"disabled": [{"name": "PrioritySort"}]},
    },
}


def _kinds(objects: list[dict[str, Any]]) -> list[str]:
    return sorted(o["kind"] for o in objects)


def _deployment(objects: list[dict[str, Any]]) -> dict[str, Any]:
    [deployment] = [o for o in objects if o["kind"] == "Deployment"]
    return deployment


@pytest.mark.parametrize("profiles", [None, [GANG]], ids=["default profile", "coscheduling"])
def test_the_shadow_role_reads_what_manifests_grants(
    helm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], profiles: Any
) -> None:
    flags, sets = [FLAG], [SHADOW]
    if profiles is not None:
        path = tmp_path / "config.yaml"
        path.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "kubescheduler.config.k8s.io/v1",
                    "kind": "KubeSchedulerConfiguration",
                    "profiles": profiles,
                }
            )
        )
        flags.append(f"--config={path}")
        sets.append(f"--set-json=profiles={json.dumps(profiles)}")
    expected = cluster_role_rules(manifests_objects(capsys, *flags))
    rendered = cluster_role_rules(helm_template(helm, *sets))
    assert rendered == expected
    assert all(set(rule["verbs"]) <= READ for rule in rendered)
    # The scheduling role writes; the shadow's grants the same resources, read only.
    scheduling = cluster_role_rules(helm_template(helm, *sets[1:]))
    assert any(set(rule["verbs"]) - READ for rule in scheduling)


def test_no_lease_role_one_replica_election_off_and_the_flag(helm: Path) -> None:
    lease = ("--set=namespace.create=true", "--set=leaderElection.resourceNamespace=leases")
    objects = helm_template(helm, SHADOW, "--set=replicas=3", *lease)
    kinds = _kinds(objects)
    assert "Role" not in kinds
    assert "RoleBinding" not in kinds
    assert "Namespace" not in kinds
    deployment = _deployment(objects)
    assert deployment["spec"]["replicas"] == 1
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert container["args"][-1] == FLAG
    mounted = deployment["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"]
    [config_map] = [o for o in objects if o["metadata"]["name"] == mounted]
    [config] = [yaml.safe_load(text) for text in config_map["data"].values()]
    assert config["leaderElection"]["leaderElect"] is False
    [job] = [o for o in objects if o["kind"] == "Job"]  # the config check runs it too
    [check] = job["spec"]["template"]["spec"]["containers"]
    assert FLAG in check["args"]


def test_without_the_value_nothing_changes(helm: Path) -> None:
    lease = ("--set=namespace.create=true", "--set=leaderElection.resourceNamespace=leases")
    objects = helm_template(helm, "--set=replicas=3", *lease)
    assert {"Namespace", "Role", "RoleBinding"} <= set(_kinds(objects))
    deployment = _deployment(objects)
    assert deployment["spec"]["replicas"] == 3
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert not any(arg.startswith("--shadow-scheduler-name") for arg in container["args"])


def test_extra_rules_keep_their_reads_only(helm: Path) -> None:
    extra = [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "patch", "watch"]},
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create", "delete"]},
    ]
    rules = cluster_role_rules(
        helm_template(helm, SHADOW, f"--set-json=rbac.extraRules={json.dumps(extra)}")
    )
    assert rules[-1] == {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "watch"]}
    assert not any("secrets" in rule["resources"] for rule in rules)


def test_a_shadow_of_two_profiles_is_refused(helm: Path) -> None:
    second = {**GANG, "schedulerName": "other"}
    err = helm_refusal(helm, SHADOW, f"--set-json=profiles={json.dumps([GANG, second])}")
    assert "shadow.schedulerName with 2 profiles" in err
    assert "keep one profile" in err
