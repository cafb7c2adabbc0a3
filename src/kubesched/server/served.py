"""Start-up check that the API server serves what the enabled feature gates need.

kube-scheduler with `--feature-gates=GenericWorkload=true` against an API server that does
not serve `scheduling.k8s.io/v1beta1` PodGroups never gets its caches synced (its PodGroup
informer keeps failing to list) and schedules nothing; kubesched stops at once instead, with
one line naming the fix.
"""

from __future__ import annotations

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError, NotFound

GROUP_VERSION = f"{SCHEDULING_PODGROUPS.group}/{SCHEDULING_PODGROUPS.version}"
FIX = (
    f"start kube-apiserver with --feature-gates=GenericWorkload=true and "
    f"--runtime-config={GROUP_VERSION}=true, or drop GenericWorkload=true from kubesched's "
    "--feature-gates"
)


async def unserved_problem(client: KubeClient, config: KubeSchedulerConfiguration) -> str:
    """ "" when everything needed is served, else the one-line problem and its fix."""
    if not config.generic_workload:
        return ""
    try:
        document = await client.get(f"/apis/{GROUP_VERSION}", timeout=10)
    except NotFound:
        document = {}
    except ApiError as exc:
        return (
            f"--feature-gates=GenericWorkload=true: cannot check GET /apis/{GROUP_VERSION} ({exc})"
        )
    names = {item.get("name") for item in document.get("resources") or ()}
    if SCHEDULING_PODGROUPS.resource in names:
        return ""
    return (
        f"--feature-gates=GenericWorkload=true needs the API server to serve "
        f"{SCHEDULING_PODGROUPS.resource}.{SCHEDULING_PODGROUPS.group}/"
        f"{SCHEDULING_PODGROUPS.version}, and it does not: {FIX}"
    )
