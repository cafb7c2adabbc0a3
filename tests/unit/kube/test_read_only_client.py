"""The shadow's read-only client, against a local HTTP server: reads (and, for the
delegated-auth client only, the two review APIs) reach the server; every other request is
refused with one line naming shadow mode, and the server never sees it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from kubesched.kube.errors import ApiError
from kubesched.kube.read_only import ReadOnlyKubeClient, ReadOnlyRefused
from tests.unit.kube.kube_server import PlainConnection, serving

POD = "/api/v1/namespaces/ns/pods/p"
TOKEN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews"


@dataclass
class Server:
    url: str = ""
    seen: list[tuple[str, str]] = field(default_factory=list)

    async def answer(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.method, request.path))
        return web.json_response({"kind": "Status"})


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    state = Server()
    async with serving(state.answer) as url:
        state.url = url
        yield state


def read_only(server: Server, *, allow_reviews: bool = False) -> ReadOnlyKubeClient:
    connection = PlainConnection(server=server.url)
    return ReadOnlyKubeClient(connection, allow_reviews=allow_reviews)


async def test_reads_are_sent(server: Server) -> None:
    client = read_only(server)
    await client.get(POD)
    await client.close()
    assert server.seen == [("GET", POD)]


async def test_every_write_is_refused_unsent(server: Server) -> None:
    client = read_only(server)
    writes = [
        client.post(f"{POD}/binding", {"kind": "Binding"}),
        client.patch(f"{POD}/status", {"status": {}}),
        client.put("/apis/coordination.k8s.io/v1/namespaces/ns/leases/l", {}),
        client.delete(POD),
        client.post("/apis/events.k8s.io/v1/namespaces/ns/events", {}),
        client.post(TOKEN_REVIEWS, {}),
    ]
    for write in writes:
        with pytest.raises(ReadOnlyRefused) as refused:
            await write
        message = str(refused.value)
        assert "shadow mode (--shadow-scheduler-name)" in message
        assert "\n" not in message
        assert isinstance(refused.value, ApiError)  # every caller's error path handles it
    await client.close()
    assert server.seen == []


async def test_the_auth_client_may_ask_reviews_and_nothing_else(server: Server) -> None:
    client = read_only(server, allow_reviews=True)
    await client.post(TOKEN_REVIEWS, {"kind": "TokenReview"})
    await client.post(ACCESS_REVIEWS, {"kind": "SubjectAccessReview"})
    with pytest.raises(ReadOnlyRefused):
        await client.post(f"{POD}/binding", {"kind": "Binding"})
    await client.close()
    assert server.seen == [("POST", TOKEN_REVIEWS), ("POST", ACCESS_REVIEWS)]
