"""Which pod to explain and with which profile: the `namespace/pod` argument, a pod from a
file (`-f`), the "is it pending" check and the profile that serves its schedulerName.

Every problem is an `ExplainError` whose message is one line that says what to do.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from kubesched.apis.config import Profile
from kubesched.apis.yamlinput import YamlBoundsError, load_all_bounded
from kubesched.config import KubeSchedulerConfiguration
from kubesched.errors import FatalError

HYPOTHETICAL_UID = "kubesched-explain-hypothetical"
DEFAULT_NAMESPACE = "default"
# Workloads whose pod template can be explained, and the kind of the pods' owner.
TEMPLATE_OWNERS = {
    "Deployment": ("apps/v1", "ReplicaSet"),
    "ReplicaSet": ("apps/v1", "ReplicaSet"),
    "StatefulSet": ("apps/v1", "StatefulSet"),
    "Job": ("batch/v1", "Job"),
    "ReplicationController": ("v1", "ReplicationController"),
    "CronJob": ("batch/v1", "Job"),
}


class ExplainError(FatalError):
    """A problem with what to explain; `str()` is one line."""


def parse_target(text: str) -> tuple[str, str]:
    """`namespace/name` -> (namespace, name)."""
    namespace, slash, name = text.partition("/")
    if not slash or not namespace or not name or "/" in name:
        raise ExplainError(f"expected NAMESPACE/POD, got {text!r}")
    return namespace, name


def check_pending(obj: dict[str, Any]) -> None:
    """Raise unless the pod waits for a node (not bound, not finished)."""
    meta, spec, status = (obj.get(key) or {} for key in ("metadata", "spec", "status"))
    key = f"{meta.get('namespace')}/{meta.get('name')}"
    phase = status.get("phase") or "Pending"
    if spec.get("nodeName"):
        raise ExplainError(
            f"pod {key} is not pending: it is bound to node {spec['nodeName']} (phase {phase})"
        )
    if phase in ("Succeeded", "Failed"):
        raise ExplainError(f"pod {key} is not pending: it has finished (phase {phase})")


def select_profile(config: KubeSchedulerConfiguration, pod_key: str, scheduler: str) -> Profile:
    """The profile serving `scheduler`, or an error naming the names this config serves."""
    for profile in config.profiles:
        if profile.scheduler_name == scheduler:
            return profile
    served = ", ".join(config.scheduler_names)
    raise ExplainError(
        f"pod {pod_key} has spec.schedulerName {scheduler!r}, which this configuration does "
        f"not serve (it serves: {served}); pass the --scheduler-name or --config of the "
        "scheduler that should place it"
    )


def load_pod_file(
    path: str, *, target: tuple[str, str] | None, default_scheduler: str
) -> tuple[dict[str, Any], list[str]]:
    """The pod described by a YAML/JSON file (a Pod, or a workload's pod template) as a
    pending pod, and notes on what was filled in. `target` renames it (namespace, name)."""
    doc = _read_single_document(path)
    notes: list[str] = []
    pod = _as_pod(doc, path, notes)
    meta = pod.setdefault("metadata", {})
    spec = pod.setdefault("spec", {})
    if not isinstance(spec.get("containers"), list) or not spec["containers"]:
        raise ExplainError(f"{path}: the pod has no spec.containers")
    if target is not None:
        meta["namespace"], meta["name"] = target
    meta.setdefault("namespace", DEFAULT_NAMESPACE)
    meta.setdefault("name", meta.get("generateName") or "hypothetical-pod")
    meta["uid"] = HYPOTHETICAL_UID
    meta.pop("deletionTimestamp", None)
    if spec.get("nodeName"):
        raise ExplainError(
            f"{path}: the pod already names a node (spec.nodeName={spec['nodeName']}): "
            "nothing to schedule"
        )
    if not spec.get("schedulerName"):
        spec["schedulerName"] = default_scheduler
        notes.append(
            f"the pod in {path} sets no spec.schedulerName (the default kube-scheduler would "
            f"take it); explained for {default_scheduler}"
        )
    _default_requests(spec)
    pod["status"] = {"phase": "Pending"}
    return pod, notes


def _default_requests(spec: dict[str, Any]) -> None:
    """The API server's defaulting of a container's requests (`SetDefaults_Pod`): a resource
    with a limit and no request is requested at its limit (a pod from a file has not been
    through the API server, and would otherwise request nothing)."""
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or ():
            resources = container.get("resources") if isinstance(container, dict) else None
            if not isinstance(resources, dict) or not isinstance(resources.get("limits"), dict):
                continue
            requests = resources.setdefault("requests", {})
            if isinstance(requests, dict):
                for name, amount in resources["limits"].items():
                    requests.setdefault(name, amount)


def _read_single_document(path: str) -> dict[str, Any]:
    try:
        text = _read_text(path)
    except OSError as exc:
        raise ExplainError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        docs = [doc for doc in load_all_bounded(text, source=path) if doc is not None]
    except YamlBoundsError as exc:
        raise ExplainError(f"{path}: refused: {exc}") from exc
    except RecursionError as exc:
        raise ExplainError(f"{path} is not valid YAML or JSON: nested too deeply") from exc
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "parse error"
        raise ExplainError(f"{path} is not valid YAML or JSON: {first}") from exc
    if len(docs) != 1:
        raise ExplainError(f"{path} holds {len(docs)} objects; give exactly one Pod")
    doc = docs[0]
    if not isinstance(doc, dict):
        raise ExplainError(f"{path} does not hold an object (got {type(doc).__name__})")
    # Round-trip through JSON so the pod is plain JSON data, as the API server sends it.
    try:
        result: dict[str, Any] = json.loads(json.dumps(doc, default=str))
    except (TypeError, ValueError) as exc:
        raise ExplainError(f"{path}: {exc}") from exc
    return result


def _read_text(path: str) -> str:
    """The text of `path` (`-` reads standard input, as kubectl's `-f -`)."""
    if path == "-":
        return sys.stdin.read()
    return Path(path).read_text(encoding="utf-8")


def _as_pod(doc: dict[str, Any], path: str, notes: list[str]) -> dict[str, Any]:
    kind = doc.get("kind") or "Pod"
    if kind == "Pod":
        return doc
    if kind not in TEMPLATE_OWNERS:
        kinds = ", ".join(["Pod", *TEMPLATE_OWNERS])
        raise ExplainError(f"{path} holds a {kind}; give a Pod or one of: {kinds}")
    template = _template(doc, kind)
    if not isinstance(template, dict):
        raise ExplainError(f"{path}: the {kind} has no pod template")
    meta = doc.get("metadata") or {}
    api_version, owner = TEMPLATE_OWNERS[kind]
    pod_meta = dict(template.get("metadata") or {})
    pod_meta["name"] = f"{meta.get('name') or 'workload'}-hypothetical"
    if meta.get("namespace"):
        pod_meta["namespace"] = meta["namespace"]
    pod_meta["ownerReferences"] = [
        {"apiVersion": api_version, "kind": owner, "name": meta.get("name", ""), "controller": True}
    ]
    notes.append(f"explaining one pod of the {kind}'s template (owned by a {owner})")
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": template.get("spec")}


def _template(doc: dict[str, Any], kind: str) -> object:
    spec = doc.get("spec") or {}
    if kind == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    return spec.get("template")
