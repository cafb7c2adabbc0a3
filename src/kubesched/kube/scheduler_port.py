"""Read a JSON document from a scheduler's secure port (kubesched's `/debug/waitingpods`)
with the kubeconfig's credentials: its bearer token (an exec plugin's too) and its client
certificate, if any. The API server is not involved; the scheduler reviews the token itself
(TokenReview, SubjectAccessReview), as it does for /metrics.

Every failure is a `PermitViewError` whose text is one line naming the problem and the fix.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from kubesched.apis.waitingpods import WAITING_PODS_PATH, PermitViewError
from kubesched.kube.connection import Connection, unverified_context

TIMEOUT_SECONDS = 10.0
CA_FLAG = "--scheduler-certificate-authority"
INSECURE_FLAG = "--scheduler-insecure-skip-tls-verify"


@dataclass(frozen=True, slots=True)
class SchedulerPort:
    """Where the scheduler serves, and how to trust its serving certificate."""

    url: str
    """`https://HOST:PORT` of its secure port (`--secure-port`, default 10259)."""
    ca_file: str = ""
    """The CA of its serving certificate; "" for the system's CAs."""
    insecure: bool = False
    """Do not verify its certificate (a self-signed one, as kubesched makes by default)."""

    def check(self) -> None:
        """Raise PermitViewError unless `url` is an https URL with a host."""
        try:
            parsed = urlsplit(self.url)
            valid = (
                parsed.scheme == "https" and bool(parsed.hostname) and not parsed.path.strip("/")
            )
            _ = parsed.port
        except ValueError:
            valid = False
        if not valid:
            raise PermitViewError(
                f"--scheduler-url={self.url}: give the https:// address of kubesched's secure "
                "port, e.g. https://127.0.0.1:10259"
            )

    def context(self, connection: Connection) -> ssl.SSLContext:
        if self.insecure:
            context = unverified_context()
        else:
            try:
                context = ssl.create_default_context(cafile=self.ca_file or None)
            except (OSError, ssl.SSLError) as exc:
                raise PermitViewError(
                    f"{CA_FLAG}={self.ca_file}: cannot load it ({exc}); pass a PEM CA bundle"
                ) from exc
        certificate = connection.client_certificate()
        if certificate is not None:
            try:
                context.load_cert_chain(*certificate)
            except (OSError, ssl.SSLError) as exc:
                raise PermitViewError(
                    f"cannot load the kubeconfig's client certificate {certificate[0]} ({exc}); "
                    "fix the kubeconfig or pass --kubeconfig"
                ) from exc
        return context


async def get_json(port: SchedulerPort, connection: Connection, path: str) -> Any:
    """GET `path` on the scheduler's secure port and decode its JSON. A 401 is retried once
    when the credential can be refreshed (an exec plugin), as the API client does."""
    status, body = await _answer(port, connection, path)
    return _decoded(port, path, status, body)


async def get_text(port: SchedulerPort, connection: Connection, path: str) -> str:
    """GET `path` (such as /metrics) on the scheduler's secure port: its body as text; the
    same errors as `get_json`."""
    status, body = await _answer(port, connection, path)
    _check_status(port, path, status, body)
    return body.decode(errors="replace")


async def _answer(port: SchedulerPort, connection: Connection, path: str) -> tuple[int, bytes]:
    port.check()
    context = port.context(connection)
    for attempt in (1, 2):
        authorization = await connection.authorization()
        status, body = await _send(port, context, path, authorization)
        if status != 401 or attempt == 2 or not await connection.unauthorized(authorization):
            break
    return status, body


async def _send(
    port: SchedulerPort, context: ssl.SSLContext, path: str, authorization: str | None
) -> tuple[int, bytes]:
    headers = {"Accept": "application/json"}
    if authorization:
        headers["Authorization"] = authorization
    timeout = aiohttp.ClientTimeout(total=TIMEOUT_SECONDS)
    try:
        async with (
            aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=context), timeout=timeout
            ) as session,
            session.get(port.url.rstrip("/") + path, headers=headers) as response,
        ):
            return response.status, await response.read()
    except aiohttp.ClientConnectorCertificateError as exc:
        raise PermitViewError(_untrusted(port, exc.certificate_error)) from exc
    except aiohttp.ClientSSLError as exc:
        raise PermitViewError(_untrusted(port, exc)) from exc
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        reason = str(exc) or type(exc).__name__
        raise PermitViewError(
            f"cannot reach the scheduler at {port.url} ({reason}); check --scheduler-url "
            "(the leader's address and --secure-port, default 10259)"
        ) from exc


def _untrusted(port: SchedulerPort, exc: BaseException) -> str:
    return (
        f"the scheduler at {port.url} presented a certificate that is not trusted ({exc}); "
        f"pass {CA_FLAG}=FILE with the CA of its serving certificate, or {INSECURE_FLAG} "
        "for the self-signed one it makes without --tls-cert-file"
    )


def _decoded(port: SchedulerPort, path: str, status: int, body: bytes) -> Any:
    _check_status(port, path, status, body)
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise PermitViewError(
            f"the scheduler at {port.url} answered GET {path} with something that is not JSON "
            f"({exc}); is --scheduler-url kubesched's secure port?"
        ) from exc


def _check_status(port: SchedulerPort, path: str, status: int, body: bytes) -> None:
    text = body.decode(errors="replace").strip().splitlines()
    said = text[0][:200] if text else ""
    if status == 401:
        raise PermitViewError(
            f"the scheduler at {port.url} did not accept the kubeconfig's credentials (401 "
            "Unauthorized); it takes a bearer token the API server accepts, or a client "
            "certificate when it runs with --client-ca-file: use a kubeconfig user with a token"
        )
    if status == 403:
        raise PermitViewError(
            f"the scheduler at {port.url} refused {path} (403 {said}); grant the user get on "
            f"the non-resource URL {path} (a ClusterRole rule nonResourceURLs: [{path}], "
            "verbs: [get])"
        )
    if status == 404 and path == WAITING_PODS_PATH:
        raise PermitViewError(
            f"the scheduler at {port.url} does not serve {path} (kube-scheduler, or an older "
            "kubesched?); point --scheduler-url at this kubesched's secure port"
        )
    if status != 200:
        raise PermitViewError(
            f"the scheduler at {port.url} answered GET {path} with {status} {said}"
        )
