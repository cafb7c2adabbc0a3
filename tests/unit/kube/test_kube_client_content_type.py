"""clientConnection.contentType on the wire, against a local HTTP server: with protobuf (the
default, as kube-scheduler's) a Binding and an Event go as protobuf, any other body and every
patch as JSON; with application/json everything is JSON; answers are asked for as JSON."""

from __future__ import annotations

from collections.abc import AsyncIterator

import orjson
import pytest
from aiohttp import web

from kubesched.apis.config import ClientConnection
from kubesched.kube.client import KubeClient
from kubesched.kube.protobuf import MAGIC, PROTOBUF
from tests.unit.kube.kube_server import plain_client, serving

BINDING = {
    "apiVersion": "v1",
    "kind": "Binding",
    "metadata": {"name": "p", "namespace": "ns", "uid": "u"},
    "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"},
}


@pytest.fixture
async def seen() -> AsyncIterator[tuple[str, list[tuple[str, str, bytes]]]]:
    """The server's URL and every request's (Content-Type, Accept, body)."""
    requests: list[tuple[str, str, bytes]] = []

    async def answer(request: web.Request) -> web.StreamResponse:
        headers = request.headers
        requests.append((headers.get("Content-Type", ""), headers["Accept"], await request.read()))
        return web.json_response({"kind": "Status", "status": "Success"}, status=201)

    async with serving(answer) as url:
        yield url, requests


def client(url: str, content_type: str) -> KubeClient:
    return plain_client(url, content_type=content_type)


def test_protobuf_is_the_default_content_type_as_kube_schedulers() -> None:
    assert ClientConnection().content_type == PROTOBUF


async def test_protobuf_for_a_binding_json_for_the_rest(
    seen: tuple[str, list[tuple[str, str, bytes]]],
) -> None:
    url, requests = seen
    kube = client(url, PROTOBUF)
    try:
        answer = await kube.post("/api/v1/namespaces/ns/pods/p/binding", BINDING)
        await kube.post("/api/v1/namespaces/ns/pods", {"apiVersion": "v1", "kind": "Pod"})
        await kube.patch("/api/v1/namespaces/ns/pods/p/status", {"status": {}})
    finally:
        await kube.close()
    assert answer == {"kind": "Status", "status": "Success"}  # answers stay JSON
    (binding, pod, patch) = requests
    assert binding[:2] == (PROTOBUF, "application/json")
    assert binding[2].startswith(MAGIC)
    assert pod[:2] == ("application/json", "application/json")
    assert orjson.loads(pod[2]) == {"apiVersion": "v1", "kind": "Pod"}
    assert patch[0] == "application/strategic-merge-patch+json"


async def test_json_everywhere_with_application_json(
    seen: tuple[str, list[tuple[str, str, bytes]]],
) -> None:
    url, requests = seen
    kube = client(url, "application/json")
    try:
        await kube.post("/api/v1/namespaces/ns/pods/p/binding", BINDING)
    finally:
        await kube.close()
    ((content_type, _, body),) = requests
    assert content_type == "application/json"
    assert orjson.loads(body) == BINDING
