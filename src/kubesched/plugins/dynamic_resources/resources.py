"""The DRA objects DynamicResources reads (and, for claims, writes), as declared resources:
one shared informer each, their RBAC in `kubesched manifests`, the chart and `doctor`.

Their events carry upstream's resource names (`resource.k8s.io/ResourceClaim`, ...), so the
plugin's registrations match kube-scheduler's. DeviceTaintRules are read for the taints they
add to devices (DRADeviceTaintRules, GA in v1.37); kube-scheduler registers no event for
them, nor does kubesched.
"""

from __future__ import annotations

from typing import Final

from kubesched.framework import EventResource, ResourceSpec
from kubesched.plugins.helper.extended_resources import DEVICE_CLASSES

GROUP: Final = "resource.k8s.io"
VERSION: Final = "v1"

CLAIMS: Final = ResourceSpec(
    GROUP, VERSION, "resourceclaims", writes=True, event_name=EventResource.RESOURCE_CLAIM
)
SLICES: Final = ResourceSpec(
    GROUP, VERSION, "resourceslices", namespaced=False, event_name=EventResource.RESOURCE_SLICE
)
TAINT_RULES: Final = ResourceSpec(
    GROUP,
    VERSION,
    "devicetaintrules",
    namespaced=False,
    event_name=f"{GROUP}/DeviceTaintRule",
)
ALL: Final = (CLAIMS, DEVICE_CLASSES, SLICES, TAINT_RULES)
__all__ = ["ALL", "CLAIMS", "DEVICE_CLASSES", "SLICES", "TAINT_RULES"]
