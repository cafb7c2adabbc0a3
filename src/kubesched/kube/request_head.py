"""The head of an HTTP/1.1 request to the API server, formatted once per request.

`RequestHead` knows the server's URL and writes the request line, the fixed header lines
(Host, User-Agent, Accept-Encoding) and the per-request ones (Accept, Authorization,
Content-Type, Content-Length) into the bytes `kubesched.kube.http11` writes to the socket.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from yarl import URL

from kubesched.kube.errors import ConnectionFailed
from kubesched.kube.proxy import Proxy

USER_AGENT = "kubesched/0.1"
# A path of only these characters needs no percent-encoding: object names and namespaces
# are DNS names, so every path kubesched builds is one. Others go through yarl's encoder.
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9._~/-]*")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class RequestHead:
    """URLs, request targets and whole requests for one API server `server` (its URL)."""

    __slots__ = ("_base_url", "_head_lines", "_origin", "_path_prefix", "host", "server")

    def __init__(self, server: str, *, forward_to: Proxy | None = None) -> None:
        """`forward_to`: the HTTP proxy an `http://` server's requests are sent to, in
        absolute form and with its `Proxy-Authorization` (`kubesched.kube.dial.Route`)."""
        self.server = server
        self.host = urlsplit(server).netloc
        base = URL(server)
        # Joined without a re-parse of the whole URL per request (the binding POST, events,
        # status patches: one new path per pod); a server URL with a path prefix keeps the
        # plain concatenation.
        plain = base.absolute and base.raw_path in {"", "/"} and not base.query_string
        self._base_url = base if plain else None
        self._origin = f"{base.scheme}://{self.host}" if forward_to is not None else ""
        self._path_prefix = self._origin + ("" if plain else base.raw_path.rstrip("/"))
        # The fixed lines; Authorization and the body's lines follow per request.
        self._head_lines = (
            f"Host: {self.host}\r\nUser-Agent: {USER_AGENT}\r\nAccept-Encoding: gzip\r\n"
        )
        authorization = forward_to.authorization() if forward_to is not None else None
        if authorization:
            self._head_lines += f"Proxy-Authorization: {authorization}\r\n"

    def url(self, path: str) -> URL | str:
        """The request URL of `path` (which starts with `/`)."""
        if self._base_url is not None and _PLAIN_PATH.fullmatch(path):
            return self._base_url.with_path(path, encoded=True)
        return self.server + path

    def target(self, path: str, params: Mapping[str, str] | None) -> str:
        """The request target of `path` (which starts with `/`) and `params`: origin form,
        or absolute form for a proxy."""
        if not params and _PLAIN_PATH.fullmatch(path):
            return self._path_prefix + path
        url = URL(self.server + path)
        if params:
            url = url.update_query(params)
        return self._origin + url.raw_path_qs

    def payload(
        self, method: str, target: str, headers: Mapping[str, str], data: bytes | None
    ) -> bytes:
        """The whole request: its head, then `data`. A header value with a line break or
        outside Latin-1 is refused (ConnectionFailed naming the kubeconfig's credentials)."""
        lines = [f"{method} {target} HTTP/1.1\r\n", self._head_lines]
        for name, value in headers.items():
            if "\r" in value or "\n" in value:
                raise ConnectionFailed(
                    f"the {name} header has a line break; check the kubeconfig's credentials"
                )
            lines.append(f"{name}: {value}\r\n")
        if data is not None:
            lines.append(f"Content-Length: {len(data)}\r\n\r\n")
        elif method in _BODY_METHODS:
            lines.append("Content-Length: 0\r\n\r\n")
        else:
            lines.append("\r\n")
        try:
            head = "".join(lines).encode("latin-1")
        except UnicodeEncodeError as exc:
            raise ConnectionFailed(
                f"{method} {target}: a header is not Latin-1 text; check the kubeconfig's "
                "credentials"
            ) from exc
        return head + data if data is not None else head
