"""kubesched's PodGroup CRD (`kubesched manifests --with-crds`) in place on the test cluster.

Modules that run scheduler-plugins' own build install its pinned PodGroup CRD, whose status
has no `scheduled` count (its controller does not keep one); a module that reads kubesched's
status writer needs kubesched's CRD, whichever module ran before it on the same worker.
"""

from __future__ import annotations

from kubesched.manifests.crds import pod_group_crd
from tests.e2e.harness.api import ApiClient, ApiError
from tests.e2e.harness.waiting import wait_for

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def kubesched_pod_group_crd_in_place(api: ApiClient) -> None:
    """Create kubesched's PodGroup CRD, or replace the one in place with it, and wait until
    PodGroups are served."""
    crd = pod_group_crd()
    try:
        api.request("POST", CRDS, body=crd)
    except ApiError as error:
        if error.status != 409:
            raise
        path = f"{CRDS}/{crd['metadata']['name']}"
        current = api.request("GET", path)
        metadata = {**crd["metadata"], "resourceVersion": current["metadata"]["resourceVersion"]}
        api.request("PUT", path, body={**crd, "metadata": metadata})
    wait_for(
        lambda: api.request("GET", "/apis/scheduling.x-k8s.io/v1alpha1"),
        until=lambda doc: any(r["name"] == "podgroups" for r in doc["resources"]),
        message="the PodGroup CRD is served",
    )
