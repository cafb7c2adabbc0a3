"""Which proxy a connection to the API server takes (kubesched.kube.proxy): the kubeconfig's
proxy-url over the environment, and Go's http.ProxyFromEnvironment rules for the latter
(golang.org/x/net/http/httpproxy: loopback exempt, NO_PROXY IPs, CIDRs, domains, ports)."""

from __future__ import annotations

import pytest

from kubesched.kube.proxy import Proxy, ProxyConfigError, select_proxy, uses_proxy

PROXY = "http://proxy.corp:3128"


def chosen(server: str, *, proxy_url: str | None = None, **environ: str) -> Proxy | None:
    return select_proxy(server, proxy_url=proxy_url, environ=environ)


@pytest.mark.parametrize(
    ("host", "port", "no_proxy", "expected"),
    [
        ("api.corp", 6443, "", True),
        ("localhost", 6443, "", False),
        ("127.0.0.1", 6443, "", False),
        ("127.9.9.9", 6443, "", False),
        ("::1", 6443, "", False),
        ("::ffff:127.0.0.1", 6443, "", False),  # an IPv4-mapped loopback, as Go sees it
        ("0.0.0.0", 6443, "", True),  # unspecified, not loopback
        ("10.1.2.3", 6443, "10.0.0.0/8", False),
        ("10.1.2.3", 6443, "192.168.0.0/16, 10.1.2.0/24", False),
        ("11.1.2.3", 6443, "10.0.0.0/8", True),
        ("::ffff:10.1.2.3", 6443, "10.0.0.0/8", False),
        ("fd00::5", 6443, "fd00::/64", False),
        ("fd01::5", 6443, "fd00::/64", True),
        ("10.1.2.3", 6443, "10.1.2.3", False),
        ("10.1.2.3", 6443, "10.1.2.3:6443", False),
        ("10.1.2.3", 6443, "10.1.2.3:443", True),
        ("fd00::5", 6443, "[fd00::5]:6443", False),
        ("fd00::5", 6443, "fd00::5", False),
        ("api.corp", 6443, "corp", False),  # a domain and its subdomains
        ("corp", 6443, "corp", False),
        ("api.corp", 6443, ".corp", False),  # subdomains only
        ("corp", 6443, ".corp", True),
        ("corp", 6443, "*.corp", True),
        ("api.corp", 6443, "*.corp", False),
        ("api.corp", 6443, "API.Corp", False),  # case does not matter
        ("mycorp", 6443, "corp", True),  # a suffix of the name is not a domain
        ("api.corp", 6443, "api.corp:6443", False),
        ("api.corp", 6443, "api.corp:443", True),
        ("api.corp", 6443, "*", False),
        ("api.corp", 6443, " , ,other.io", True),
        ("api.corp", 6443, ":6443", True),  # malformed: ignored
        ("10.1.2.3", 6443, "10.0.0.0/33", True),  # not a CIDR: a (non-matching) name
    ],
)
def test_no_proxy_as_go_reads_it(host: str, port: int, no_proxy: str, expected: bool) -> None:
    assert uses_proxy(host, port, no_proxy) is expected


def test_https_proxy_for_https_servers_http_proxy_for_http_ones() -> None:
    https = chosen("https://api.corp:6443", HTTPS_PROXY=PROXY, HTTP_PROXY="http://other:1")
    assert https == Proxy("http", "proxy.corp", 3128, source="HTTPS_PROXY")
    plain = chosen("http://api.corp:8080", HTTPS_PROXY=PROXY, http_proxy="http://other:1")
    assert plain == Proxy("http", "other", 1, source="http_proxy")
    assert chosen("https://api.corp:6443", HTTP_PROXY=PROXY) is None
    assert chosen("https://api.corp:6443") is None


def test_upper_case_names_come_first() -> None:
    proxy = chosen("https://api.corp", HTTPS_PROXY="http://upper:1", https_proxy="http://lower:2")
    assert proxy is not None
    assert proxy.host == "upper"
    lower = chosen("https://api.corp", HTTPS_PROXY="", https_proxy="http://lower:2")
    assert lower is not None
    assert lower.host == "lower"
    assert chosen("https://api.corp", HTTPS_PROXY=PROXY, NO_PROXY="", no_proxy="corp") is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("proxy.corp:3128", Proxy("http", "proxy.corp", 3128, source="HTTPS_PROXY")),
        ("10.0.0.9:3128", Proxy("http", "10.0.0.9", 3128, source="HTTPS_PROXY")),
        ("https://proxy.corp", Proxy("https", "proxy.corp", 443, source="HTTPS_PROXY")),
        ("http://proxy.corp", Proxy("http", "proxy.corp", 80, source="HTTPS_PROXY")),
        ("socks5://proxy.corp", Proxy("socks5", "proxy.corp", 1080, source="HTTPS_PROXY")),
        ("socks5h://proxy.corp:9", Proxy("socks5h", "proxy.corp", 9, source="HTTPS_PROXY")),
        (
            "http://me%40corp:p%3Ass@[fd00::1]:3128",
            Proxy("http", "fd00::1", 3128, "me@corp", "p:ss", source="HTTPS_PROXY"),
        ),
    ],
)
def test_environment_values(value: str, expected: Proxy) -> None:
    assert chosen("https://api.corp:6443", HTTPS_PROXY=value) == expected


def test_kubeconfig_proxy_url_wins_over_the_environment_and_no_proxy() -> None:
    proxy = chosen(
        "https://127.0.0.1:6443",
        proxy_url="socks5://u:p@jump:1080",
        HTTPS_PROXY=PROXY,
        NO_PROXY="*",
    )
    assert proxy == Proxy("socks5", "jump", 1080, "u", "p", source="the kubeconfig's proxy-url")


@pytest.mark.parametrize(
    ("proxy_url", "environ", "message"),
    [
        (
            "socks4://jump:1080",
            {},
            (
                "the kubeconfig's proxy-url 'socks4://jump:1080': unsupported scheme 'socks4', "
                "must be http, https, or socks5 (as kubectl); fix proxy-url in the kubeconfig's "
                "cluster entry"
            ),
        ),
        ("socks5h://jump:1080", {}, "unsupported scheme 'socks5h'"),
        ("jump:1080", {}, "unsupported scheme 'jump'"),
        ("http://:3128", {}, "names no host"),
        ("http://jump:99999", {}, "is not a URL (Port out of range 0-65535)"),
        (None, {"HTTPS_PROXY": "ftp://u:secret@jump"}, "HTTPS_PROXY=ftp://u:xxxxx@jump: kubesched"),
        (None, {"HTTPS_PROXY": "http://jump:port"}, "HTTPS_PROXY 'http://jump:port' is not a URL"),
        (
            None,
            {"HTTP_PROXY": PROXY, "REQUEST_METHOD": "GET"},
            "refusing to use HTTP_PROXY in a CGI environment",
        ),
    ],
)
def test_settings_that_cannot_be_used_are_refused_with_one_line(
    proxy_url: str | None, environ: dict[str, str], message: str
) -> None:
    server = "http://api.corp" if "REQUEST_METHOD" in environ else "https://api.corp"
    with pytest.raises(ProxyConfigError) as refused:
        select_proxy(server, proxy_url=proxy_url, environ=environ)
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)
    assert "secret" not in str(refused.value)


def test_display_and_authorization_keep_the_password_out_of_messages() -> None:
    proxy = Proxy("http", "fd00::1", 3128, "ops", "pw", source="HTTPS_PROXY")
    assert proxy.display() == "http://[fd00::1]:3128 (HTTPS_PROXY)"
    assert proxy.authorization() == "Basic b3BzOnB3"
    assert Proxy("http", "p", 1).authorization() is None
