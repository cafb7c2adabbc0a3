"""A benchmark's CRD installed and waited for (`crd_wait`): the create tolerates a CRD that
is already there, the wait ends once discovery lists the resource, and a CRD never served
fails with an error naming its kind."""

from __future__ import annotations

from typing import Any, cast

import pytest

from kubesched.bench import crd_wait
from kubesched.bench.crd_wait import CRD_PATH, CrdSetupError, install_crd
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError, NotFound

GROUP_PATH = "/apis/example.io/v1"
CRD = {"metadata": {"name": "widgets.example.io"}, "spec": {"names": {"kind": "Widget"}}}


class Discovery:
    """A client whose group discovery answers 404 `missing` times, then an empty resource
    list `empty` times, then lists `widgets`; its CRD create answers `post_error`."""

    def __init__(self, *, missing: int = 0, empty: int = 0, post_error: int = 0) -> None:
        self.missing, self.empty, self.post_error = missing, empty, post_error
        self.posts: list[str] = []
        self.gets = 0

    async def post(self, path: str, body: dict[str, Any], **_: Any) -> dict[str, Any]:
        self.posts.append(path)
        if self.post_error:
            raise ApiError(self.post_error, "Refused", "no", path=path)
        return body

    async def get(self, path: str, **_: Any) -> dict[str, Any]:
        assert path == GROUP_PATH
        self.gets += 1
        if self.gets <= self.missing:
            raise NotFound(404, "NotFound", "the server could not find the requested resource")
        if self.gets <= self.missing + self.empty:
            return {"resources": []}
        return {"resources": [{"name": "widgets"}, {"name": "widgets/status"}]}


@pytest.fixture(autouse=True)
def _fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(crd_wait, "POLL_INTERVAL", 0.001)


async def install(client: Discovery, timeout: float = 5.0) -> None:
    await install_crd(
        cast("KubeClient", client), CRD, group_path=GROUP_PATH, plural="widgets", timeout=timeout
    )


async def test_the_wait_ends_once_discovery_lists_the_resource() -> None:
    client = Discovery(missing=2, empty=2)
    await install(client)
    assert client.posts == [CRD_PATH]
    assert client.gets == 5


async def test_a_crd_already_there_is_kept() -> None:
    client = Discovery(post_error=409)
    await install(client)
    assert client.gets == 1


async def test_another_create_error_is_raised_before_any_wait() -> None:
    client = Discovery(post_error=403)
    with pytest.raises(ApiError):
        await install(client)
    assert client.gets == 0


async def test_a_crd_never_served_fails_naming_its_kind() -> None:
    client = Discovery(missing=10**9)
    with pytest.raises(CrdSetupError, match=r"^the Widget CRD was not served within 0\.05 s$"):
        await install(client, timeout=0.05)
    assert client.gets > 1
