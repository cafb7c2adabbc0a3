"""Request URLs and heads (`kube.request_head`): a plain path is joined to the server without
a re-parse, and means exactly what the concatenated string would; other paths and servers
with a path prefix keep it; a header that cannot be sent is refused with a fix."""

from __future__ import annotations

import pytest
from yarl import URL

from kubesched.kube.errors import ConnectionFailed
from kubesched.kube.proxy import Proxy
from kubesched.kube.request_head import RequestHead


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
    assert URL(RequestHead(server).url(path)) == URL(server + path)


def test_a_server_with_a_path_prefix_keeps_it() -> None:
    head = RequestHead("https://rancher.example/k8s/clusters/c-1")
    url = URL(head.url("/api/v1/pods"))
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
    assert RequestHead(server).target(path, None) == URL(server + path).raw_path


def test_the_request_target_carries_the_query() -> None:
    target = RequestHead("https://h").target(
        "/api/v1/pods", {"labelSelector": "a in (b,c)", "limit": "500"}
    )
    url = URL("https://h" + target)
    assert url.path == "/api/v1/pods"
    assert dict(url.query) == {"labelSelector": "a in (b,c)", "limit": "500"}


def test_the_payload_is_the_head_then_the_body() -> None:
    head = RequestHead("https://h:6443")
    payload = head.payload("POST", "/x", {"Accept": "application/json"}, b"{}")
    assert payload == (
        b"POST /x HTTP/1.1\r\nHost: h:6443\r\nUser-Agent: kubesched/0.1\r\n"
        b"Accept-Encoding: gzip\r\nAccept: application/json\r\nContent-Length: 2\r\n\r\n{}"
    )
    assert head.payload("PATCH", "/x", {}, None).endswith(b"Content-Length: 0\r\n\r\n")
    assert head.payload("GET", "/x", {}, None).endswith(b"gzip\r\n\r\n")


@pytest.mark.parametrize("value", ["Bearer a\nb", "Bearer ä€"])
def test_a_header_that_cannot_be_sent_is_refused(value: str) -> None:
    with pytest.raises(ConnectionFailed, match="check the kubeconfig's credentials"):
        RequestHead("https://h").payload("GET", "/x", {"Authorization": value}, None)


@pytest.mark.parametrize(
    ("server", "path", "params", "target"),
    [
        ("http://api:8080", "/api/v1/pods", None, "http://api:8080/api/v1/pods"),
        (
            "http://api:8080",
            "/api/v1/pods",
            {"watch": "true", "labelSelector": "a=b"},
            "http://api:8080/api/v1/pods?watch=true&labelSelector=a%3Db",
        ),
        ("http://api:8080/k8s/c-1", "/api/v1/pods", None, "http://api:8080/k8s/c-1/api/v1/pods"),
        (
            "http://[fd00::1]:8080",
            "/api/v1/pods/a b",
            None,
            "http://[fd00::1]:8080/api/v1/pods/a%20b",
        ),
    ],
)
def test_through_an_http_proxy_the_target_is_absolute(
    server: str, path: str, params: dict[str, str] | None, target: str
) -> None:
    """An http:// server's requests to its HTTP proxy, as Go's client writes them."""
    assert (
        RequestHead(server, forward_to=Proxy("http", "proxy", 3128)).target(path, params) == target
    )


def test_through_an_http_proxy_every_request_carries_its_credentials() -> None:
    head = RequestHead("http://api:8080", forward_to=Proxy("http", "proxy", 3128, "u", "p"))
    payload = head.payload("GET", head.target("/x", None), {}, None)
    assert payload == (
        b"GET http://api:8080/x HTTP/1.1\r\nHost: api:8080\r\nUser-Agent: kubesched/0.1\r\n"
        b"Accept-Encoding: gzip\r\nProxy-Authorization: Basic dTpw\r\n\r\n"
    )
    without = RequestHead("http://api:8080", forward_to=Proxy("http", "proxy", 3128))
    assert b"Proxy-Authorization" not in without.payload("GET", "/x", {}, None)
