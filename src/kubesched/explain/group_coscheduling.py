"""scheduler-plugins' PodGroup (`scheduling.x-k8s.io/v1alpha1`) of a pod labelled
`scheduling.x-k8s.io/pod-group`, read with one GET: minMember, the Permit timeout and status."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kubesched.apis import names
from kubesched.apis.config import Profile
from kubesched.explain.group_read import GroupApi, as_int, conditions, start_report
from kubesched.explain.group_report import GroupReport

if TYPE_CHECKING:
    from kubesched.explain.live import Reader

API_VERSION = "scheduling.x-k8s.io/v1alpha1"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
PLUGIN = names.COSCHEDULING
DEFAULT_PERMIT_WAITING_SECONDS = 60  # Coscheduling's permitWaitingTimeSeconds default
STATUS_FIELDS = ("phase", "scheduled", "running", "succeeded", "failed", "scheduleStartTime")
ENABLE = "install the PodGroup CRD (kubesched manifests --with-crds)"
COSCHEDULING = GroupApi(API_VERSION, PLUGIN, "minMember", ENABLE)


async def read_coscheduling(
    api: Reader, namespace: str, name: str, *, profile: Profile, enabled: Collection[str]
) -> GroupReport:
    """The PodGroup `namespace/name` (the caller adds its members)."""
    report, obj = await start_report(
        api, COSCHEDULING, namespace, name, profile=profile, enabled=enabled
    )
    if obj is None:
        return report
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return replace(
        report,
        min_count=as_int(spec.get("minMember")),
        timeout=_timeout(spec, profile) if report.enforced_by else "",
        status=tuple((key, str(status[key])) for key in STATUS_FIELDS if key in status),
        conditions=conditions(status),
    )


def _timeout(spec: Mapping[str, Any], profile: Profile) -> str:
    seconds = spec.get("scheduleTimeoutSeconds")
    if seconds is not None:
        return f"{as_int(seconds)}s (spec.scheduleTimeoutSeconds)"
    args = profile.plugin_config.get(PLUGIN) or {}
    default = args.get("permitWaitingTimeSeconds", DEFAULT_PERMIT_WAITING_SECONDS)
    return f"{as_int(default)}s ({PLUGIN}'s permitWaitingTimeSeconds; the PodGroup sets none)"
