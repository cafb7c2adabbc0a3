"""The stages kwok plays on the nodes and pods it manages: our own, small set.

kwok (sigs.k8s.io/kwok) runs no container; a Stage says which objects it acts on (a
selector over their fields) and what it writes into their status, optionally after a
delay. These stages make a managed node behave like one with a healthy kubelet, and a
bound pod like one whose containers start:

    node-ready        a node that is not Ready becomes Ready (the kubelet reporting in)
    pod-running       a bound Pending pod gets Running, Ready, container statuses, an IP
    job-pod-complete  a Running pod owned by a Job ends Succeeded after JOB_POD_SECONDS
    pod-delete        a pod being deleted goes away (the kubelet confirming the kill)

Node heartbeats are kwok's Node Lease renewals (`--node-lease-duration-seconds`), not a
stage. The templates are Go templates rendered by kwok; `Now`, `NodeIPWith` and
`PodIPWith` are kwok's template functions.
"""

from __future__ import annotations

from typing import Any

import yaml

JOB_POD_SECONDS = 2.0
"""How long a Job's pod runs before kwok marks it Succeeded."""

_NODE_READY = """\
conditions:
- type: Ready
  status: "True"
  reason: KubeletReady
  message: kwok plays the kubelet of this node
  lastHeartbeatTime: {{ Now | Quote }}
  lastTransitionTime: {{ Now | Quote }}
{{ range list "MemoryPressure" "DiskPressure" "PIDPressure" }}
- type: {{ . }}
  status: "False"
  reason: KubeletHasNo{{ . }}
  message: kwok reports no pressure
  lastHeartbeatTime: {{ Now | Quote }}
  lastTransitionTime: {{ Now | Quote }}
{{ end }}
"""

_POD_RUNNING = """\
{{ $now := Now }}
phase: Running
startTime: {{ $now | Quote }}
conditions:
{{ range list "Initialized" "ContainersReady" "Ready" }}
- type: {{ . }}
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: true
  started: true
  restartCount: 0
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ end }}
{{ with .spec.initContainers }}
initContainerStatuses:
{{ range . }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: true
  restartCount: 0
  state:
    terminated:
      exitCode: 0
      reason: Completed
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
{{ end }}
{{ with NodeIPWith .spec.nodeName }}
hostIP: {{ . | Quote }}
hostIPs:
- ip: {{ . | Quote }}
{{ end }}
{{ with PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) \
( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
podIP: {{ . | Quote }}
podIPs:
- ip: {{ . | Quote }}
{{ end }}
"""

_JOB_POD_COMPLETE = """\
{{ $now := Now }}
phase: Succeeded
conditions:
{{ range list "ContainersReady" "Ready" }}
- type: {{ . }}
  status: "False"
  reason: PodCompleted
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: false
  started: false
  restartCount: 0
  state:
    terminated:
      exitCode: 0
      reason: Completed
      finishedAt: {{ $now | Quote }}
{{ end }}
"""

_NOT_DELETED = {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"}


def _stage(name: str, kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "Stage",
        "metadata": {"name": name},
        "spec": {"resourceRef": {"apiGroup": "v1", "kind": kind}, **spec},
    }


def _phase(*phases: str) -> dict[str, Any]:
    return {"key": ".status.phase", "operator": "In", "values": list(phases)}


def stages() -> list[dict[str, Any]]:
    """The Stage objects, in the order kwok should consider them."""
    ready = '.status.conditions.[] | select( .type == "Ready" ) | .status'
    job_owned = {"key": ".metadata.ownerReferences.[].kind", "operator": "In", "values": ["Job"]}
    return [
        _stage(
            "node-ready",
            "Node",
            {
                "selector": {
                    "matchExpressions": [{"key": ready, "operator": "NotIn", "values": ["True"]}]
                },
                "next": {"statusTemplate": _NODE_READY},
            },
        ),
        _stage(
            "pod-running",
            "Pod",
            {
                "selector": {"matchExpressions": [_NOT_DELETED, _phase("Pending")]},
                "next": {"statusTemplate": _POD_RUNNING},
            },
        ),
        _stage(
            "job-pod-complete",
            "Pod",
            {
                "selector": {"matchExpressions": [_NOT_DELETED, _phase("Running"), job_owned]},
                "delay": {"durationMilliseconds": int(JOB_POD_SECONDS * 1000)},
                "next": {"statusTemplate": _JOB_POD_COMPLETE},
            },
        ),
        _stage(
            "pod-delete",
            "Pod",
            {
                "selector": {
                    "matchExpressions": [
                        {"key": ".metadata.deletionTimestamp", "operator": "Exists"}
                    ]
                },
                "next": {"delete": True},
            },
        ),
    ]


def stages_yaml() -> str:
    """The stages as the multi-document YAML file kwok's `--config` reads."""
    return yaml.safe_dump_all(stages(), sort_keys=False)
