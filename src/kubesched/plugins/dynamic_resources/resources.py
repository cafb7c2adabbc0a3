"""The DRA objects DynamicResources reads (and, for claims, writes), as declared resources:
one shared informer each, their RBAC in `kubesched manifests`, the chart and `doctor`; the
scheduler's shared DRA manager (`Handle.shared_dra_manager()`) parses them.

Their events carry upstream's resource names (`resource.k8s.io/ResourceClaim`, ...), so the
plugin's registrations match kube-scheduler's. DeviceTaintRules are read for the taints they
add to devices (DRADeviceTaintRules, GA in v1.37); kube-scheduler registers no event for
them, nor does kubesched. The specs themselves are the framework's
(`kubesched.framework.dra`), which the manager reads.
"""

from __future__ import annotations

from typing import Final

from kubesched.framework.dra import (
    DEVICE_CLASSES,
    DEVICE_TAINT_RULES,
    GROUP,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    VERSION,
)

CLAIMS: Final = RESOURCE_CLAIMS
SLICES: Final = RESOURCE_SLICES
TAINT_RULES: Final = DEVICE_TAINT_RULES
ALL: Final = (CLAIMS, DEVICE_CLASSES, SLICES, TAINT_RULES)
__all__ = ["ALL", "CLAIMS", "DEVICE_CLASSES", "GROUP", "SLICES", "TAINT_RULES", "VERSION"]
