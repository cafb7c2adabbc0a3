"""docs/replay.md's "Shadow a live scheduler": its ClusterRole only reads and covers what the
default profile's informers list (pods, nodes, the storage objects, what the plugins declare),
and each of its commands is run by tests/e2e/test_shadow_mode.py, so the section cannot rot."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from kubesched.config import load_config
from kubesched.framework.resources import cluster_resources
from kubesched.model.storage_kinds import STORAGE_OBJECTS
from kubesched.server.components import build_registry

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "replay.md"
E2E = ROOT / "tests" / "e2e" / "test_shadow_mode.py"
READS = {"get", "list", "watch"}


def _section() -> list[tuple[str, str]]:
    text = GUIDE.read_text().split("## Shadow a live scheduler", 1)[1]
    return re.findall(r"```(\w+)\n(.*?)```", text, flags=re.DOTALL)


def _role() -> dict[str, Any]:
    [body] = [body for language, body in _section() if language == "yaml"]
    assert body.startswith("# shadow-rbac.yaml\n")
    role: dict[str, Any] = yaml.safe_load(body)
    return role


def test_the_role_only_reads() -> None:
    role = _role()
    assert role["kind"] == "ClusterRole"
    assert all(set(rule["verbs"]) <= READS for rule in role["rules"])


def test_the_role_covers_the_default_profiles_informers(tmp_path: Path) -> None:
    granted = {
        (group, resource)
        for rule in _role()["rules"]
        if {"list", "watch"} <= set(rule["verbs"])
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    config = load_config([], environ={}, namespace_file=tmp_path / "none").config
    declared = {(s.group, s.resource) for s in cluster_resources(config, build_registry(config))}
    storage = {("storage.k8s.io", kind) for kind in STORAGE_OBJECTS}
    core = {("", kind) for kind in ("pods", "nodes", "persistentvolumeclaims", "persistentvolumes")}
    assert declared | storage | core <= granted


def test_every_command_is_run_by_the_e2e_test() -> None:
    [block] = [body for language, body in _section() if language == "shell"]
    commands = [shlex.split(line)[:3] for line in block.splitlines() if line.strip()]
    assert commands == [
        ["kubesched", "run", "--shadow-scheduler-name=default-scheduler"],
        ["kubesched", "run", "--shadow-scheduler-name=default-scheduler"],
        ["kubesched", "shadow", "report"],
    ]
    e2e = E2E.read_text()
    assert "COMMANDS[0]" in e2e
    assert "COMMANDS[1]" in e2e
    assert '["kubesched", "shadow", "report"]' in e2e
