"""Which proxy the connection to the API server goes through, decided as kubectl decides.

client-go's rules (`tools/clientcmd`, `transport`, Go's `net/http`):

- The kubeconfig cluster's `proxy-url` (schemes http, https and socks5 only; anything else
  is refused, as kubectl refuses it) is used for every request to that cluster, whatever the
  environment says: NO_PROXY does not apply to it, nor does the loopback exemption.
- Without it, the environment, as Go's `http.ProxyFromEnvironment`: `HTTPS_PROXY` (or
  `https_proxy`) for an https API server, `HTTP_PROXY` (or `http_proxy`) for an http one; a
  value without a scheme means `http://`; `localhost` and loopback addresses never go through
  it; `NO_PROXY` (or `no_proxy`) is a comma-separated list of `*` (nothing is proxied),
  IP addresses, CIDRs (`10.0.0.0/8`), and domain names, each optionally with `:port`: `foo.com`
  matches foo.com and its subdomains, `.foo.com` and `*.foo.com` its subdomains only; and,
  as in a CGI program (`REQUEST_METHOD` set), `HTTP_PROXY` is refused.

The decision is made once, when the connection is loaded (the API server's address is fixed);
the request path never looks at it.
"""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import SplitResult, unquote, urlsplit

from kubesched.errors import FatalError

KUBECONFIG_SCHEMES = ("http", "https", "socks5")
ENVIRONMENT_SCHEMES = ("http", "https", "socks5", "socks5h")
_DEFAULT_PORTS = {"http": 80, "https": 443, "socks5": 1080, "socks5h": 1080}
_IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class ProxyConfigError(FatalError):
    """A proxy setting kubesched cannot use; the message names the setting and the fix."""


@dataclass(frozen=True, slots=True)
class Proxy:
    """A proxy to tunnel the API server's connections through."""

    scheme: str
    """`http` or `https` (an HTTP CONNECT tunnel), `socks5` or `socks5h` (SOCKS5, the proxy
    resolves the API server's name, as Go's client does for both)."""
    host: str
    port: int
    username: str | None = None
    password: str | None = None
    source: str = "proxy-url"
    """Where it was set: `the kubeconfig's proxy-url`, `HTTPS_PROXY`, ..."""

    @property
    def socks(self) -> bool:
        return self.scheme.startswith("socks5")

    def display(self) -> str:
        """The proxy's URL without its credentials, and where it was set."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port} ({self.source})"

    def authorization(self) -> str | None:
        """The `Proxy-Authorization` value of an HTTP proxy with credentials in its URL."""
        if self.username is None:
            return None
        pair = f"{self.username}:{self.password or ''}".encode()
        return "Basic " + base64.b64encode(pair).decode("ascii")


def select_proxy(server: str, *, proxy_url: str | None, environ: Mapping[str, str]) -> Proxy | None:
    """The proxy for API server `server` (its URL): the kubeconfig's `proxy_url` if any, else
    the environment's, else None. Raises ProxyConfigError for a setting that cannot be used."""
    if proxy_url:
        return _kubeconfig_proxy(proxy_url)
    target = urlsplit(server)
    if target.scheme == "https":
        name, value = _first_set(environ, "HTTPS_PROXY", "https_proxy")
    else:
        name, value = _first_set(environ, "HTTP_PROXY", "http_proxy")
        if value and environ.get("REQUEST_METHOD"):
            raise ProxyConfigError(
                f"refusing to use {name} in a CGI environment (REQUEST_METHOD is set), as "
                "kubectl refuses it; unset REQUEST_METHOD or use the kubeconfig's proxy-url"
            )
    if not value:
        return None
    proxy = _environment_proxy(name, value)
    host = target.hostname or ""
    port = target.port or _DEFAULT_PORTS.get(target.scheme, 443)
    _, no_proxy = _first_set(environ, "NO_PROXY", "no_proxy")
    return proxy if uses_proxy(host, port, no_proxy) else None


def uses_proxy(host: str, port: int, no_proxy: str) -> bool:
    """False when `host:port` bypasses the environment's proxy: `localhost`, a loopback
    address, or an entry of `no_proxy` (Go's `httpproxy` rules, see the module docstring)."""
    host = host.lower().strip()
    address = _ip(host)
    if host == "localhost" or (address is not None and _loopback(address)):
        return False
    for entry in (part.strip().lower() for part in no_proxy.split(",")):
        if entry and _matches(entry, host, str(port), address):
            return False
    return True


def _matches(entry: str, host: str, port: str, address: _IPAddress | None) -> bool:
    if entry == "*":
        return True
    if "/" in entry:
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            pass
        else:
            return address is not None and _in_network(address, network)
    entry_host, entry_port = _split_host_port(entry)
    entry_address = _ip(entry_host)
    if entry_address is not None:
        return address is not None and _same_ip(address, entry_address) and entry_port in ("", port)
    if not entry_host:
        return False  # a malformed entry (":80"): ignored, as Go ignores it
    if entry_host.startswith("*."):
        entry_host = entry_host[1:]
    whole = not entry_host.startswith(".")
    suffix = entry_host if not whole else "." + entry_host
    suffix = _ascii(suffix)
    named = host.endswith(suffix) or (whole and host == suffix[1:])
    return named and entry_port in ("", port)


def _split_host_port(text: str) -> tuple[str, str]:
    """Go's `net.SplitHostPort`, or (text, "") where it fails (no port, or an IPv6 address)."""
    if text.startswith("["):
        end = text.find("]")
        if end > 0 and text[end + 1 : end + 2] == ":":
            return text[1:end], text[end + 2 :]
        return text, ""
    if text.count(":") == 1:
        host, _, port = text.partition(":")
        return host, port
    return text, ""


def _ip(text: str) -> _IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def _v4(address: _IPAddress) -> _IPAddress:
    """An IPv4-mapped IPv6 address as the IPv4 address it carries (Go compares them so)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _loopback(address: _IPAddress) -> bool:
    return _v4(address).is_loopback


def _same_ip(one: _IPAddress, other: _IPAddress) -> bool:
    return _v4(one) == _v4(other)


def _in_network(
    address: _IPAddress, network: ipaddress.IPv4Network | ipaddress.IPv6Network
) -> bool:
    address = _v4(address)
    return address.version == network.version and address in network


def _ascii(name: str) -> str:
    try:
        return name.encode("idna").decode("ascii") if not name.isascii() else name
    except UnicodeError:
        return name


def _first_set(environ: Mapping[str, str], *names: str) -> tuple[str, str]:
    for name in names:
        if environ.get(name):
            return name, environ[name]
    return names[0], ""


def _kubeconfig_proxy(value: str) -> Proxy:
    where = "the kubeconfig's proxy-url"
    parsed = _parse(value, where)
    if parsed.scheme not in KUBECONFIG_SCHEMES:
        raise ProxyConfigError(
            f"{where} {_redact(value)!r}: unsupported scheme {parsed.scheme!r}, must be http, "
            "https, or socks5 (as kubectl); fix proxy-url in the kubeconfig's cluster entry"
        )
    return _proxy(parsed, value, where)


def _environment_proxy(name: str, value: str) -> Proxy:
    parsed = _parse(value, name) if "://" in value else None
    if parsed is None or not parsed.scheme or not parsed.netloc:
        parsed = _parse("http://" + value, name)  # Go reads "host:port" as http://host:port
    if parsed.scheme not in ENVIRONMENT_SCHEMES:
        raise ProxyConfigError(
            f"{name}={_redact(value)}: kubesched reaches the API server through http://, "
            f"https:// or socks5:// proxies only; fix {name} or unset it"
        )
    return _proxy(parsed, value, name)


def _parse(value: str, where: str) -> SplitResult:
    try:
        parsed = urlsplit(value.strip())
        _ = parsed.port
    except ValueError as exc:
        raise ProxyConfigError(
            f"{where} {_redact(value)!r} is not a URL ({exc}); write it as "
            "SCHEME://HOST:PORT, e.g. http://proxy.example:3128"
        ) from exc
    return parsed


def _proxy(parsed: SplitResult, value: str, where: str) -> Proxy:
    if not parsed.hostname:
        raise ProxyConfigError(
            f"{where} {_redact(value)!r} names no host; write it as SCHEME://HOST:PORT, "
            "e.g. http://proxy.example:3128"
        )
    return Proxy(
        scheme=parsed.scheme,
        host=parsed.hostname,
        port=parsed.port or _DEFAULT_PORTS[parsed.scheme],
        username=unquote(parsed.username) if parsed.username is not None else None,
        password=unquote(parsed.password) if parsed.password is not None else None,
        source=where,
    )


def _redact(value: str) -> str:
    """`value` with the password of its user info replaced by `xxxxx`."""
    scheme, sep, rest = value.rpartition("://")
    userinfo, at, hostpart = rest.partition("@")
    if not at or ":" not in userinfo:
        return value
    user = userinfo.split(":", 1)[0]
    return f"{scheme}{sep}{user}:xxxxx@{hostpart}"
