"""The node features a pod needs (upstream `nodedeclaredfeatures.InferForPodScheduling` with
v1.37's registry): only three features are inferred at scheduling time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

VOLUME_BIND_MOUNT_OPTIONS = "VolumeBindMountOptions"
RESTART_ALL_CONTAINERS = "RestartAllContainersOnContainerExits"
USER_NAMESPACES_HOST_NETWORK = "UserNamespacesHostNetworkSupport"


def required_features(spec: Mapping[str, Any]) -> frozenset[str]:
    """The features a node must declare (`status.declaredFeatures`) to run this pod."""
    containers = [
        *(spec.get("containers") or ()),
        *(spec.get("initContainers") or ()),
    ]
    needs = set()
    every = [*containers, *(spec.get("ephemeralContainers") or ())]
    if any(m.get("bindMountOptions") for c in every for m in c.get("volumeMounts") or ()):
        needs.add(VOLUME_BIND_MOUNT_OPTIONS)
    rules = (r for c in containers for r in c.get("restartPolicyRules") or ())
    if any(r.get("action") == "RestartAllContainers" for r in rules):
        needs.add(RESTART_ALL_CONTAINERS)
    if spec.get("hostNetwork") and spec.get("hostUsers") is False:
        needs.add(USER_NAMESPACES_HOST_NETWORK)
    return frozenset(needs)
