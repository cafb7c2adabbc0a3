"""GET one PodGroup of either API as a plain object, telling "no such group" apart from "the
API server does not serve this API" (both are 404s)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from kubesched.apis.config import Profile
from kubesched.errors import KubeschedError
from kubesched.explain.group_report import GroupReport
from kubesched.kube.errors import ApiError, Forbidden, NotFound

if TYPE_CHECKING:
    from kubesched.explain.live import Reader

TIMEOUT_SECONDS = 30.0


class GroupUnreadable(KubeschedError):
    """The group could not be read; `str()` is one line naming the fix."""


@dataclass(frozen=True, slots=True)
class GroupApi:
    """One PodGroup API as explain reads it."""

    api_version: str
    plugin: str
    """The gang plugin that enforces this API's groups."""
    count_field: str
    """The field of the group's minimum: `minMember`, `minCount`."""
    enable: str
    """How to get the API served, for the error when it is not."""


async def start_report(
    api: Reader,
    which: GroupApi,
    namespace: str,
    name: str,
    *,
    profile: Profile,
    enabled: Collection[str],
) -> tuple[GroupReport, dict[str, Any] | None]:
    """The report's part common to both APIs (who enforces the group, or why nobody does;
    the read's problem; whether it exists) and the group object, None when there is none."""
    report = GroupReport(which.api_version, namespace, name, which.count_field)
    if which.plugin in enabled:
        report = replace(report, enforced_by=which.plugin)
    else:
        note = (
            f"profile {profile.scheduler_name} does not enable {which.plugin}: kubesched "
            f"places these members one by one and does not enforce {which.count_field}"
        )
        report = replace(report, notes=(note,))
    try:
        obj = await get_group(api, which.api_version, namespace, name, enable=which.enable)
    except GroupUnreadable as exc:
        return replace(report, problem=str(exc)), None
    return (report if obj is not None else replace(report, found=False)), obj


async def get_group(
    api: Reader, api_version: str, namespace: str, name: str, *, enable: str
) -> dict[str, Any] | None:
    """The PodGroup object; None when it does not exist. `enable` says how to get the API
    served, for the error when it is not."""
    path = f"/apis/{api_version}/namespaces/{namespace}/podgroups/{name}"
    try:
        return await api.get(path, timeout=TIMEOUT_SECONDS)
    except NotFound:
        if await _served(api, api_version):
            return None
        raise GroupUnreadable(
            f"the API server does not serve {api_version} PodGroups, so PodGroup "
            f"{namespace}/{name} cannot be read: {enable}"
        ) from None
    except Forbidden:
        raise GroupUnreadable(
            f"cannot read PodGroup {namespace}/{name} (forbidden): grant get on "
            f"podgroups.{api_version.partition('/')[0]} to the kubeconfig's user"
        ) from None
    except ApiError as exc:
        raise GroupUnreadable(f"cannot read PodGroup {namespace}/{name}: {exc}") from exc


async def _served(api: Reader, api_version: str) -> bool:
    try:
        found = await api.get(f"/apis/{api_version}", timeout=TIMEOUT_SECONDS)
    except NotFound:
        return False
    resources = found.get("resources") or ()
    return any(isinstance(r, dict) and r.get("name") == "podgroups" for r in resources)


def as_int(value: object) -> int:
    """An integer field of the object (0 when absent or not a number)."""
    try:
        return int(str(value))
    except ValueError:
        return 0


def conditions(status: Mapping[str, Any]) -> tuple[str, ...]:
    """Each of `status.conditions` as `Type=Status (Reason): message`."""
    found = []
    for condition in status.get("conditions") or ():
        if not isinstance(condition, Mapping):
            continue
        text = f"{condition.get('type', '?')}={condition.get('status', '?')}"
        if condition.get("reason"):
            text += f" ({condition['reason']})"
        if condition.get("message"):
            text += f": {condition['message']}"
        found.append(text)
    return tuple(found)
