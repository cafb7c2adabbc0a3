"""The HTTP side of kube-scheduler's extender protocol: POST a JSON body to
`<urlPrefix>/<verb>` and read the JSON answer, as upstream's `HTTPExtender.send`, with the
extender's timeout and TLS settings (`makeTransport`: client-go's TLS config; HTTPS without
a CA does not verify the server).

    client = ExtenderClient(extender)           # extender: kubesched.apis.extenders.Extender
    answer = await client.post("filter", args)  # ExtenderCallError with upstream's text
    await client.close()

The protocol itself (what is sent, what the answers mean) lives in `kubesched.scheduler.
extenders`; only this module speaks HTTP to an extender.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import tempfile
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import aiohttp
import orjson

from kubesched.apis.extenders import Extender, ExtenderTLSConfig
from kubesched.errors import FatalError, KubeschedError
from kubesched.kube.proxy import ProxyConfigError, select_proxy

_JSON = {"Content-Type": "application/json"}


class ExtenderCallError(KubeschedError):
    """An extender call failed (unreachable, timed out, not 200, not JSON); the message is
    kube-scheduler's text for it where it has one."""


class ExtenderSetupError(FatalError):
    """An extender's TLS or proxy settings cannot be used (a file that does not load, a CA
    with `insecure`, a SOCKS proxy); one line naming the extender and the fix."""


class ExtenderClient:
    """POSTs to one extender over its own connection pool (opened on first use)."""

    def __init__(self, extender: Extender, *, environ: Mapping[str, str] = os.environ) -> None:
        """`environ`: where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (Go's rules)."""
        self._prefix = extender.url_prefix.rstrip("/")
        self.proxy = _proxy(extender, environ)
        """The HTTP proxy the calls go through (None: direct), as Go's `ProxyFromEnvironment`."""
        self._timeout = aiohttp.ClientTimeout(total=extender.timeout)
        self._ssl: ssl.SSLContext | bool = extender_ssl_context(extender) or True
        tls = extender.tls_config
        self._server_name = tls.server_name if tls is not None and tls.server_name else None
        self._session: aiohttp.ClientSession | None = None

    def url(self, verb: str) -> str:
        """Where `verb` is POSTed (upstream trims the prefix's trailing slashes)."""
        return f"{self._prefix}/{verb}"

    async def post(self, verb: str, args: object) -> Any:
        """POST `args` as JSON to the verb's URL; the decoded answer (any JSON value)."""
        url = self.url(verb)
        try:
            async with self._ensure_session().post(
                url,
                data=orjson.dumps(args),
                headers=_JSON,
                ssl=self._ssl,
                server_hostname=self._server_name,
                timeout=self._timeout,
                proxy=self.proxy,
            ) as response:
                if response.status != 200:
                    msg = f"failed {verb} with extender at URL {url}, code {response.status}"
                    raise ExtenderCallError(msg)
                body = await response.read()
        except TimeoutError as exc:
            msg = f'Post "{url}": context deadline exceeded (Client.Timeout exceeded)'
            raise ExtenderCallError(msg) from exc
        except aiohttp.ClientError as exc:
            raise ExtenderCallError(f'Post "{url}": {_go_text(exc)}') from exc
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise ExtenderCallError(f"decoding the answer of {url}: {exc}") from exc

    def _ensure_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=16), raise_for_status=False
            )
        return self._session

    async def close(self) -> None:
        """Close the connection pool (idempotent)."""
        if self._session is not None:
            await self._session.close()
            self._session = None
            await asyncio.sleep(0)


def _proxy(extender: Extender, environ: Mapping[str, str]) -> str | None:
    """The proxy URL (credentials included) for the extender's calls; a SOCKS proxy is
    refused in one line (aiohttp speaks HTTP proxies only)."""
    try:
        proxy = select_proxy(extender.url_prefix, proxy_url=None, environ=environ)
    except ProxyConfigError as exc:
        raise ExtenderSetupError(f"extender {extender.url_prefix}: {exc}") from exc
    if proxy is None:
        return None
    if proxy.socks:
        msg = (
            f"extender {extender.url_prefix}: calls cannot go through the SOCKS proxy "
            f"{proxy.display()}; put the extender's host in NO_PROXY or use an HTTP proxy"
        )
        raise ExtenderSetupError(msg)
    host = f"[{proxy.host}]" if ":" in proxy.host else proxy.host
    user = ""
    if proxy.username is not None:
        user = f"{quote(proxy.username, safe='')}:{quote(proxy.password or '', safe='')}@"
    return f"{proxy.scheme}://{user}{host}:{proxy.port}"


def _go_text(exc: aiohttp.ClientError) -> str:
    """How Go's HTTP client words the common failure (a refused connection); aiohttp's
    own text otherwise."""
    if isinstance(exc, aiohttp.ClientConnectorError) and isinstance(
        exc.os_error, ConnectionRefusedError
    ):
        host = f"[{exc.host}]" if ":" in exc.host else exc.host
        return f"dial tcp {host}:{exc.port}: connect: connection refused"
    return str(exc)


def extender_ssl_context(extender: Extender) -> ssl.SSLContext | None:
    """The TLS context upstream's `makeTransport` makes for `extender`; None when it sets
    nothing (an https:// URL is then verified against the system's CAs)."""
    tls = extender.tls_config or ExtenderTLSConfig()
    has_ca = bool(tls.ca_file or tls.ca_data)
    insecure = tls.insecure or (extender.enable_https and not has_ca)
    has_cert = bool(tls.cert_file or tls.cert_data or tls.key_file or tls.key_data)
    if not (insecure or has_ca or has_cert or tls.server_name):
        return None
    where = f"extender {extender.url_prefix}"
    if insecure and has_ca:
        msg = (
            f"{where}: specifying a root certificates file with the insecure flag is not "
            "allowed; drop tlsConfig.insecure or the CA"
        )
        raise ExtenderSetupError(msg)
    try:
        context = ssl.create_default_context(
            cafile=None if tls.ca_data else tls.ca_file or None,
            cadata=tls.ca_data.decode() if tls.ca_data else None,
        )
        if has_cert:
            _load_client_certificate(context, tls)
    except (OSError, ssl.SSLError, ValueError) as exc:
        msg = f"{where}: cannot load its tlsConfig certificates: {exc}; check the files or data"
        raise ExtenderSetupError(msg) from exc
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _load_client_certificate(context: ssl.SSLContext, tls: ExtenderTLSConfig) -> None:
    """The client certificate and key, from data (preferred, as client-go) or files; the
    ssl module loads PEM from files only, so data goes through a private temporary file."""
    if not (tls.cert_data or tls.key_data):
        context.load_cert_chain(tls.cert_file, tls.key_file or None)
        return
    with tempfile.TemporaryDirectory(prefix="kubesched-extender-") as folder:
        cert = os.path.join(folder, "cert.pem")  # noqa: PTH118 - one join, no Path needed
        key = os.path.join(folder, "key.pem")  # noqa: PTH118
        _write_private(cert, tls.cert_data or _read(tls.cert_file))
        _write_private(key, tls.key_data or _read(tls.key_file))
        context.load_cert_chain(cert, key)


def _read(path: str) -> bytes:
    with open(path, "rb") as source:  # noqa: PTH123 - mirrors _write_private
        return source.read()


def _write_private(path: str, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as target:
        target.write(data)
