"""docs/replay.md's ClusterRole for `kubesched record` grants exactly what it reads: list
and watch on every kind it records and on events, `get` on /version, nothing else."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from kubesched.replay.kinds import KINDS
from kubesched.replay.recorder import EVENTS

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "replay.md"


def _role() -> dict[str, Any]:
    blocks = re.findall(r"```yaml\n(# record-rbac.yaml\n.*?)```", GUIDE.read_text(), re.DOTALL)
    [block] = blocks
    role: dict[str, Any] = yaml.safe_load(block)
    return role


def _group_and_resource(path: str) -> tuple[str, str]:
    parts = path.strip("/").split("/")
    return ("", parts[2]) if parts[0] == "api" else (parts[1], parts[3])


def test_the_role_grants_list_and_watch_on_every_recorded_kind() -> None:
    role = _role()
    assert role["kind"] == "ClusterRole"
    granted = {
        (group, resource)
        for rule in role["rules"]
        if "resources" in rule
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    wanted = {_group_and_resource(kind.path) for kind in (*KINDS, EVENTS)}
    assert granted == wanted


def test_the_role_only_reads() -> None:
    rules = _role()["rules"]
    assert all(rule["verbs"] == ["list", "watch"] for rule in rules if "resources" in rule)
    assert [rule for rule in rules if "nonResourceURLs" in rule] == [
        {"nonResourceURLs": ["/version"], "verbs": ["get"]}
    ]
