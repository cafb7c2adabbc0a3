"""Helpers for the manifests tests: a completed config from flags, objects by kind."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kubesched.config import KubeSchedulerConfiguration, load_config

Objects = list[dict[str, Any]]
Build = Callable[..., Objects]


def config_for(
    argv: Sequence[str], *, namespace: str = "kubesched-system", tmp_path: Path
) -> KubeSchedulerConfiguration:
    """The completed config of `argv` as `kubesched manifests` completes it (the Lease's
    namespace defaults to kubesched's namespace)."""
    return load_config(
        argv, environ={"POD_NAMESPACE": namespace}, namespace_file=tmp_path / "none"
    ).config


def of_kind(objects: Objects, kind: str) -> Objects:
    return [obj for obj in objects if obj["kind"] == kind]


def one(objects: Objects, kind: str) -> dict[str, Any]:
    found = of_kind(objects, kind)
    assert len(found) == 1, [obj["metadata"]["name"] for obj in found]
    return found[0]


def rules_granting(
    rules: list[dict[str, Any]], *, group: str, resource: str, verb: str
) -> list[dict[str, Any]]:
    """The rules that grant `verb` on `group`/`resource` (RBAC's matching, no wildcards)."""
    return [
        rule
        for rule in rules
        if group in rule["apiGroups"] and resource in rule["resources"] and verb in rule["verbs"]
    ]
