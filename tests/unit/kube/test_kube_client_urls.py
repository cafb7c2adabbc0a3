"""Request URLs: a plain path is joined to the server without a re-parse, and means exactly
what the concatenated string would; other paths and servers with a path prefix keep it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from yarl import URL

from kubesched.kube.client import KubeClient


def _client(server: str) -> KubeClient:
    return KubeClient(SimpleNamespace(server=server, ssl_context=False))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/namespaces/namespace-2/pods/pod-17/binding",
        "/apis/events.k8s.io/v1/namespaces/default/events",
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/my-scheduler",
        "/api/v1/namespaces/ns/pods/a%20b",  # not plain: encoded by yarl as before
        "/api/v1/namespaces/ns/pods/ä",
    ],
)
@pytest.mark.parametrize("server", ["https://127.0.0.1:6443", "https://10.0.0.1", "http://h:80"])
def test_the_url_is_the_concatenated_one(server: str, path: str) -> None:
    assert URL(_client(server)._url(path)) == URL(server + path)


def test_a_server_with_a_path_prefix_keeps_it() -> None:
    client = _client("https://rancher.example/k8s/clusters/c-1")
    url = URL(client._url("/api/v1/pods"))
    assert url.path == "/k8s/clusters/c-1/api/v1/pods"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/namespaces/namespace-2/pods/pod-17/binding",
        "/api/v1/namespaces/ns/pods/a%20b",
        "/api/v1/namespaces/ns/pods/ä",
    ],
)
@pytest.mark.parametrize("server", ["https://127.0.0.1:6443", "https://rancher.example/k8s/c-1"])
def test_the_request_target_is_the_urls_path(server: str, path: str) -> None:
    """What the lean HTTP/1.1 client writes on the request line: the URL's encoded path."""
    assert _client(server)._target(path, None) == URL(server + path).raw_path


def test_the_request_target_carries_the_query() -> None:
    target = _client("https://h")._target(
        "/api/v1/pods", {"labelSelector": "a in (b,c)", "limit": "500"}
    )
    url = URL("https://h" + target)
    assert url.path == "/api/v1/pods"
    assert dict(url.query) == {"labelSelector": "a in (b,c)", "limit": "500"}
