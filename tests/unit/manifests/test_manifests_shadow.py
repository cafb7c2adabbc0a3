"""`kubesched manifests --shadow-scheduler-name=NAME`: a shadow's objects can write nothing
(read-only ClusterRole, no Lease Role), run one replica with the flag, and grant exactly what
docs/replay.md's ClusterRole for a shadow grants (the page's role is what the e2e test runs
the shadow as)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.cli import main
from kubesched.manifests import ManifestOptions, build_manifests
from kubesched.manifests.shadow import read_only_rules
from kubesched.plugins import config_resources
from tests.unit.manifests.manifests_helpers import config_for, of_kind, one

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "replay.md"
OPTIONS = ManifestOptions(namespace="kubesched-system", image="registry.example.com/k:1")


def shadow_objects(tmp_path: Path, *flags: str) -> list[dict[str, Any]]:
    """The objects of `kubesched manifests --shadow-scheduler-name=default-scheduler FLAGS`
    (with the resources the profile's plugins declare, as the command passes them)."""
    config = config_for(["--shadow-scheduler-name=default-scheduler", *flags], tmp_path=tmp_path)
    options = dataclasses.replace(OPTIONS, plugin_resources=tuple(config_resources(config)))
    return build_manifests(config, options)


def granted(rules: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {
        (group, resource)
        for rule in rules
        if {"list", "watch"} <= set(rule["verbs"])
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }


def test_nothing_can_write(tmp_path: Path) -> None:
    objects = shadow_objects(tmp_path, "--leader-elect=true")
    [own, *_] = of_kind(objects, "ClusterRole")
    assert all(set(rule["verbs"]) <= {"get", "list", "watch"} for rule in own["rules"])
    assert of_kind(objects, "Role") == []
    assert of_kind(objects, "RoleBinding") == []
    roles = {binding["roleRef"]["name"] for binding in of_kind(objects, "ClusterRoleBinding")}
    assert roles == {own["metadata"]["name"], "system:auth-delegator"}


def test_one_replica_with_the_flag(tmp_path: Path) -> None:
    deployment = one(shadow_objects(tmp_path), "Deployment")
    assert deployment["spec"]["replicas"] == 1
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert "--shadow-scheduler-name=default-scheduler" in container["args"]


def test_the_same_grants_as_the_documented_role(tmp_path: Path) -> None:
    [block] = re.findall(r"```yaml\n(# shadow-rbac.yaml\n.*?)```", GUIDE.read_text(), re.DOTALL)
    documented = yaml.safe_load(block)
    own = of_kind(shadow_objects(tmp_path), "ClusterRole")[0]
    assert granted(own["rules"]) == granted(documented["rules"])


def test_read_only_rules_keep_only_read_verbs() -> None:
    rules = [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "delete"]},
        {"apiGroups": [""], "resources": ["pods/binding"], "verbs": ["create"]},
    ]
    assert read_only_rules(rules) == [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]


def test_the_command_prints_a_shadow_and_refuses_a_chart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--shadow-scheduler-name=default-scheduler", "--image=registry.example.com/k:1"]
    assert main(["manifests", *flags]) == 0
    objects = [obj for obj in yaml.safe_load_all(capsys.readouterr().out) if obj]
    assert one(objects, "Deployment")["spec"]["replicas"] == 1
    assert main(["manifests", *flags, f"--helm-chart={tmp_path / 'chart'}"]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert "--shadow-scheduler-name with --helm-chart" in line
    assert not (tmp_path / "chart").exists()
