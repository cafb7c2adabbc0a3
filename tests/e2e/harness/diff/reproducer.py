"""Parity cases as YAML files: a `kind: ParityCase` header, then the cluster's objects in
creation order; pods annotated `parity/under-test: "true"` are the incoming ones (created
last, in order). The differential runner writes one for every decision that mismatched (the
state right before it); `tests/parity_cases/` holds the hand-worked ones.

Header fields: `mismatches` (comparison names), `profile` (a key of `profiles.PROFILES`,
default `default`), `seed` / `step` / `details` when written by the runner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

UNDER_TEST = "parity/under-test"
_META_KEEP = ("name", "namespace", "labels", "annotations", "ownerReferences")
_STATE_KINDS = (
    ("Namespace", False),
    ("PriorityClass", False),
    ("Node", False),
    ("DeviceClass", False),
    ("ResourceSlice", False),
    ("Service", True),
    ("ReplicaSet", True),
    ("StatefulSet", True),
    ("ReplicationController", True),
    ("PodDisruptionBudget", True),
    ("ResourceClaim", True),
    ("Pod", True),
)


def load_case(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """(header, objects to create first, pods under test)."""
    docs = [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    header: dict[str, Any] = next((d for d in docs if d.get("kind") == "ParityCase"), {})
    objects: list[dict[str, Any]] = []
    incoming: list[dict[str, Any]] = []
    for doc in docs:
        if doc.get("kind") == "ParityCase":
            continue
        annotations = (doc.get("metadata") or {}).get("annotations") or {}
        (incoming if annotations.get(UNDER_TEST) == "true" else objects).append(doc)
    return header, objects, incoming


def clean(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as a user would write it: no server-set metadata or pod status."""
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k in _META_KEEP and v}
    result = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    result["metadata"] = meta
    if obj.get("kind") == "Node":
        status = obj.get("status") or {}
        result["status"] = {
            k: status[k] for k in ("capacity", "allocatable", "images") if k in status
        }
    if obj.get("kind") == "Namespace":
        result.pop("spec", None)
    if obj.get("kind") == "ResourceClaim" and (obj.get("status") or {}).get("allocation"):
        result["status"] = {"allocation": obj["status"]["allocation"]}
    if obj.get("kind") == "Pod" and (obj.get("status") or {}).get("startTime"):
        status = obj["status"]
        result["status"] = {
            "phase": status.get("phase", "Running"),
            "startTime": status["startTime"],
        }
    return result


def cluster_state(api: Any, namespaces: list[str]) -> list[dict[str, Any]]:
    """Every object of the scenario, cleaned, in an order that recreates it."""
    state: list[dict[str, Any]] = []
    for kind, namespaced in _STATE_KINDS:
        scopes: list[str | None] = list(namespaces) if namespaced else [None]
        for namespace in scopes:
            items = api.list(kind, namespace=namespace) if namespace else api.list(kind)
            if kind == "Namespace":
                items = [i for i in items if i["metadata"]["name"] in namespaces]
            if kind == "PriorityClass":
                items = [i for i in items if i["metadata"]["name"].startswith("parity-")]
            if kind == "Pod":
                items = [i for i in items if (i.get("spec") or {}).get("nodeName")]
            for item in items:
                item.setdefault("kind", kind)
                state.append(clean(item))
    return state


def write_case(
    path: Path, header: dict[str, Any], objects: list[dict[str, Any]], pod: dict[str, Any]
) -> Path:
    """Write a self-contained reproducer: `objects`, then `pod` under test."""
    under_test = clean(pod)
    under_test["metadata"].setdefault("annotations", {})[UNDER_TEST] = "true"
    docs = [{"kind": "ParityCase", **header}, *objects, under_test]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path
