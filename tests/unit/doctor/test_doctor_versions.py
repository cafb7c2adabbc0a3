"""doctor states the supported versions and checks discovery as kubesched's start-up does."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kubesched.apis.support import SUPPORTED, ServerVersion
from kubesched.doctor.apiserver import check_api_server
from kubesched.doctor.result import CheckStatus
from kubesched.doctor.served import check_served
from kubesched.framework.dra import DEVICE_CLASSES, DEVICE_TAINT_RULES, RESOURCE_CLAIMS
from kubesched.framework.resources import ResourceSpec
from kubesched.kube.errors import NotFound
from tests.unit.doctor.doctor_fakes import FakeCluster, context, target

WIDGETS = ResourceSpec("widgets.example.com", "v1", "widgets")


@dataclasses.dataclass
class Discovery(FakeCluster):
    """A FakeCluster that answers discovery for the group/versions in `served`."""

    served: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        if path.startswith("/apis/"):
            names = self.served.get(path.removeprefix("/apis/"))
            if names is None:
                raise NotFound(404, "NotFound", "the server could not find the requested resource")
            return {"resources": [{"name": name} for name in names]}
        return await super().get(path, params=params, timeout=timeout)


def reading(*specs: ResourceSpec) -> Any:
    return dataclasses.replace(target(), resources=specs)


@pytest.mark.parametrize(
    ("body", "note"),
    [
        ({"gitVersion": "v1.37.2", "major": "1", "minor": "37"}, ""),
        ({"gitVersion": "v1.34.0-eks-1", "major": "1", "minor": "34+"}, ""),
        ({"gitVersion": "v1.40.1"}, ""),
        ({"gitVersion": "v1.33.4", "major": "1", "minor": "33"}, "older than Kubernetes 1.34"),
        ({"gitVersion": "v1.41.0"}, "more than three minor versions newer"),
        ({"gitVersion": "weird"}, "cannot tell the API server's version"),
    ],
)
def test_version_notes(body: dict[str, str], note: str) -> None:
    found = ServerVersion.from_json(body).support_note()
    assert (note in found and SUPPORTED in found) if note else found == ""


async def test_api_server_check_names_the_supported_versions() -> None:
    result = await check_api_server(context(FakeCluster(version="v1.37.2")))
    assert result.status is CheckStatus.OK
    assert f"(kubesched supports {SUPPORTED})" in result.detail
    old = await check_api_server(context(FakeCluster(version="v1.30.1")))
    assert old.status is CheckStatus.WARN
    assert "v1.30.1, older than Kubernetes 1.34" in old.detail


async def test_everything_served() -> None:
    cluster = Discovery(served={"resource.k8s.io/v1": ["resourceclaims", "deviceclasses"]})
    ctx = context(cluster, reading(RESOURCE_CLAIMS, DEVICE_CLASSES))
    result = await check_served(ctx)
    assert result.status is CheckStatus.OK, result.detail


async def test_without_dra_dynamic_resources_is_disabled() -> None:
    ctx = context(Discovery(), reading(RESOURCE_CLAIMS, DEVICE_CLASSES))
    result = await check_served(ctx)
    assert result.status is CheckStatus.WARN
    assert "does not serve resource.k8s.io/v1 (Kubernetes 1.34+)" in result.detail
    assert "disables DynamicResources" in result.detail


async def test_without_device_taint_rules_only_they_are_not_read() -> None:
    cluster = Discovery(served={"resource.k8s.io/v1": ["resourceclaims"]})
    result = await check_served(context(cluster, reading(RESOURCE_CLAIMS, DEVICE_TAINT_RULES)))
    assert result.status is CheckStatus.WARN
    assert "DeviceTaintRules are not read" in result.detail


async def test_an_uninstalled_crd_fails() -> None:
    result = await check_served(context(Discovery(), reading(WIDGETS)))
    assert result.status is CheckStatus.FAIL
    assert "widgets.widgets.example.com/v1" in result.detail
    assert "refuses to start" in result.detail
