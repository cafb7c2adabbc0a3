"""GET one PodGroup of either API as a plain object, telling "no such group" apart from "the
API server does not serve this API" (both are 404s)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kubesched.kube.errors import ApiError, Forbidden, NotFound

if TYPE_CHECKING:
    from kubesched.explain.live import Reader

TIMEOUT_SECONDS = 30.0


class GroupUnreadable(Exception):
    """The group could not be read; `str()` is one line naming the fix."""


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
