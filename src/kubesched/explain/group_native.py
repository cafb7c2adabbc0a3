"""kube-scheduler's native PodGroup (`scheduling.k8s.io/v1beta1`, GenericWorkload) of a pod
with `spec.schedulingGroup.podGroupName`, parsed by the model the GangScheduling plugin
reads (`model.SchedulingPodGroup`): `spec.schedulingPolicy.gang.minCount` and
`status.conditions`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from kubesched.apis import names
from kubesched.apis.config import Profile
from kubesched.explain.group_read import GroupApi, conditions, start_report
from kubesched.explain.group_report import GroupReport
from kubesched.model.apiobject import ApiObject
from kubesched.model.podgroup import SchedulingPodGroup

if TYPE_CHECKING:
    from kubesched.explain.live import Reader

API_VERSION = "scheduling.k8s.io/v1beta1"
PLUGIN = names.GANG_SCHEDULING
ENABLE = (
    "kube-apiserver needs --runtime-config=scheduling.k8s.io/v1beta1=true and "
    "--feature-gates=GenericWorkload=true"
)
NATIVE = GroupApi(API_VERSION, PLUGIN, "minCount", ENABLE)
TIMEOUT = "no field in the PodGroup (kube-scheduler's GangScheduling waits up to 5m at Permit)"


async def read_native(
    api: Reader, namespace: str, name: str, *, profile: Profile, enabled: Collection[str]
) -> GroupReport:
    """The PodGroup `namespace/name` (the caller adds its members)."""
    report, obj = await start_report(api, NATIVE, namespace, name, profile=profile, enabled=enabled)
    if obj is None:
        return report
    if report.enforced_by:
        report = replace(report, timeout=TIMEOUT)
    group = SchedulingPodGroup.of(ApiObject.from_json(obj))
    return replace(
        report,
        min_count=group.min_count or 0,
        conditions=conditions(group.obj.status),
    )
